"""Retention: each policy deletes exactly what it should and nothing else, and the purge log says so."""

from __future__ import annotations

import hashlib
import json
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from bgscribe.cli import main as bgscribe
from review_ui.app import create_app
from review_ui.config import Settings
from review_ui.db import Database
from review_ui.models import Match, PurgeLog, Segment
from review_ui.retention import purge
from review_ui.services import (
    PolicyError,
    create_event,
    create_match,
    link_segment,
    register_board,
    set_legal_hold,
    update_match,
    utcnow,
)
from review_ui.storage import LocalStore

NOW = datetime(2026, 11, 29, 18, 0, 0)
H = timedelta(hours=1)
D = timedelta(days=1)


def add_segment(s, store: LocalStore, tmp: Path, board, start: datetime, minutes: float = 1) -> Segment:
    sid = f"b{board.number:02d}-{start:%Y%m%dT%H%M%S}000Z"
    data = hashlib.sha256(sid.encode()).digest() * 100
    src = tmp / f"{sid}.mp4"
    src.write_bytes(data)
    key = f"board{board.number:02d}/{start:%Y-%m-%d}/{sid}.mp4"
    sha = hashlib.sha256(data).hexdigest()
    store.put(key, src, sha)
    seg = Segment(board_id=board.id, event_id=board.event_id, segment_id=sid, storage_key=key, sha256=sha,
                  bytes=len(data), start=start, end=start + timedelta(minutes=minutes), frames=900,
                  dropped_frames=0, manifest_json="{}", received_at=start)
    s.add(seg)
    s.flush()
    link_segment(s, seg)
    return seg


@pytest.fixture
def world(tmp_path, database_url):
    """Four events, one per policy, with matches in every state and their footage."""
    settings = Settings(data_dir=tmp_path / "data", database_url=database_url, admin_token="retention-admin-token")
    db = Database(settings.db_url)
    store = LocalStore(settings.footage_path)
    s = db.session()
    e1 = create_event(s, "Quick delete", "match_end", None, purge_unapproved=True)
    e2 = create_event(s, "Delete once approved", "match_end", None)
    e3 = create_event(s, "Week after approval", "after_approval", 7)
    e4 = create_event(s, "Disputed", "after_approval", 0)
    b = {n: register_board(s, n, f"board-{n}-token-secret", ev)
         for n, ev in [(1, e1), (2, e2), (3, e3), (4, e4), (5, e1)]}
    t0 = NOW - 20 * D

    def match(board, start, end=None, approved=None, hold=False):
        m = create_match(s, b[board].event, b[board], start, "P1", "P2", end)
        update_match(s, m, approved_at=approved, legal_hold=hold)
        return m

    segs: dict[str, list[Segment]] = {}

    def footage(name, board, start, n=2):
        segs[name] = [add_segment(s, store, tmp_path, b[board], start + i * timedelta(minutes=1)) for i in range(n)]

    # Event 1 (match_end, purge_unapproved): ended unapproved -> deleted; running -> kept; match hold -> kept.
    match(1, NOW - 3 * H, NOW - 2 * H)
    footage("e1_ended_unapproved", 1, NOW - 3 * H)
    match(1, NOW - H)
    footage("e1_running", 1, NOW - H + timedelta(minutes=5))
    match(5, NOW - 3 * H, NOW - 2 * H, hold=True)
    footage("e1_match_hold", 5, NOW - 3 * H)
    footage("e1_no_match", 1, NOW - 5 * H)  # warm-up footage, no match: kept 7 days, then deleted
    # Event 2 (match_end): ended unapproved -> kept; ended approved -> deleted; a segment spanning
    # an approved match and the running next one -> kept.
    match(2, t0, t0 + H)
    footage("e2_ended_unapproved", 2, t0)
    match(2, t0 + 2 * H, t0 + 3 * H, approved=t0 + 4 * H)
    footage("e2_approved", 2, t0 + 2 * H)
    match(2, NOW - 2 * H, NOW - H + timedelta(seconds=30), approved=NOW - timedelta(minutes=30))
    match(2, NOW - H + timedelta(seconds=40))
    footage("e2_spanning", 2, NOW - H, n=1)
    # Event 3 (7 days after approval): 8 days ago -> deleted; 2 days ago -> kept; never approved -> kept.
    match(3, t0, t0 + H, approved=NOW - 8 * D)
    footage("e3_approved_8d", 3, t0)
    match(3, t0 + 2 * H, t0 + 3 * H, approved=NOW - 2 * D)
    footage("e3_approved_2d", 3, t0 + 2 * H)
    match(3, t0 + 4 * H, t0 + 5 * H)
    footage("e3_unapproved", 3, t0 + 4 * H)
    # Event 4 (0 days after approval) under legal hold -> kept until released.
    match(4, t0, t0 + H, approved=t0 + 2 * H)
    footage("e4_hold", 4, t0)
    set_legal_hold(s, e4, True, "appeal by player P2")
    s.commit()
    yield s, store, segs, e4, settings
    s.close()
    db.dispose()


DELETED = {"e1_ended_unapproved", "e2_approved", "e3_approved_8d"}


def names(segs, keys):
    return {seg.segment_id for k in keys for seg in segs[k]}


def test_dry_run_deletes_nothing(world):
    s, store, segs, _, _ = world
    before = sorted(store.keys())
    r = purge(s, store, now=NOW, dry_run=True)
    assert {i.segment for i in r.items} == names(segs, DELETED)
    assert r.deleted == 0 and sorted(store.keys()) == before
    assert s.scalars(select(PurgeLog)).all() == []


def test_each_policy_deletes_exactly_what_it_should(world):
    s, store, segs, e4, _ = world
    r = purge(s, store, now=NOW)
    assert r.errors == []
    gone = names(segs, DELETED)
    assert {i.segment for i in r.items if i.deleted} == gone
    for k, lst in segs.items():
        for seg in lst:
            s.refresh(seg)
            if k in DELETED:
                assert not store.exists(seg.storage_key) and seg.deleted_at == NOW
            else:  # untouched, byte for byte
                assert store.exists(seg.storage_key) and seg.deleted_at is None, k
                with store.open(seg.storage_key) as f:
                    assert hashlib.sha256(f.read()).hexdigest() == seg.sha256
    logs = {row.segment_id: row for row in s.scalars(select(PurgeLog))}
    assert set(logs) == gone
    by_seg = {seg.segment_id: k for k, lst in segs.items() for seg in lst}
    for sid, row in logs.items():
        assert row.verified_absent and row.at == NOW and row.trigger == "bgscribe purge"
        assert row.sha256 and row.bytes > 0 and row.match_ids
        k = by_seg[sid]
        if k == "e1_ended_unapproved":
            assert row.policy == "match_end" and "approved or not" in row.reason
        elif k == "e2_approved":
            assert row.policy == "match_end" and "was approved" in row.reason
        else:
            assert row.policy == "after_approval" and "7 days" in row.reason

    # Running it again deletes nothing more.
    assert purge(s, store, now=NOW).items == []

    # Time passes: the 2-day-old approval reaches 7 days; the spanning segment's second match ends and is approved.
    later = NOW + 6 * D
    running = s.scalar(select(Match).where(Match.board_id == segs["e2_spanning"][0].board_id,
                                           Match.ended_at.is_(None)))
    update_match(s, running, ended_at=NOW + H, approved_at=NOW + 2 * H)
    s.commit()
    r = purge(s, store, now=later)
    assert {i.segment for i in r.items} == names(segs, {"e3_approved_2d", "e2_spanning"})

    # Released from legal hold: the event's own policy applies again.
    set_legal_hold(s, e4, False, "appeal settled")
    s.commit()
    r = purge(s, store, now=later)
    assert {i.segment for i in r.items} == names(segs, {"e4_hold"})
    assert {row.policy for row in s.scalars(select(PurgeLog).where(PurgeLog.segment_id.in_(
        names(segs, {"e4_hold"}))))} == {"after_approval"}
    # Never: unapproved footage under a policy that does not say so, a held match; footage of no match only
    # a week after it ended (personal data that serves no match is not kept for ever)
    left = {seg.segment_id for seg in s.scalars(select(Segment).where(Segment.deleted_at.is_(None)))}
    assert left == names(segs, {"e1_running", "e1_match_hold", "e1_no_match", "e2_ended_unapproved",
                                "e3_unapproved"})
    r = purge(s, store, now=NOW + 7 * D)
    assert {i.segment for i in r.items} == names(segs, {"e1_no_match"})
    assert all("not part of any match, 7 days after it ended" in i.reason for i in r.items)


def test_policy_must_say_so_to_purge_unapproved(world):
    s, *_ = world
    with pytest.raises(PolicyError):
        create_event(s, "bad", "after_approval", 3, purge_unapproved=True)
    with pytest.raises(PolicyError):
        create_event(s, "bad2", "after_approval", None)
    with pytest.raises(PolicyError):
        create_event(s, "bad3", "forever-ish", None)


def test_purge_command(world, capsys, monkeypatch):
    s, store, segs, _, settings = world
    monkeypatch.setenv("BGSCRIBE_DATA_DIR", str(settings.data_dir))
    # The real clock is NOW-ish; the command uses it. Make every due date clearly past.
    assert utcnow() > NOW - D
    assert bgscribe(["purge", "--dry-run", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["dry_run"] and report["deleted"] == 0
    would = {i["segment"] for i in report["would_delete"]}
    assert names(segs, DELETED) <= would
    assert all(store.exists(seg.storage_key) for lst in segs.values() for seg in lst)
    assert bgscribe(["purge"]) == 0
    out = capsys.readouterr().out
    assert f"{len(would)} deleted" in out and "by policy match_end" in out
    s.expire_all()
    assert {row.segment_id for row in s.scalars(select(PurgeLog))} == would


def test_periodic_job_applies_retention(tmp_path, database_url):
    settings = Settings(data_dir=tmp_path / "data", database_url=database_url, admin_token="retention-admin-token",
                        purge_interval_seconds=0.3)
    app = create_app(settings)
    with TestClient(app):
        with app.state.db.session() as s:
            ev = create_event(s, "Quick", "match_end", None, purge_unapproved=True)
            b = register_board(s, 1, "board-1-token-secret", ev)
            start = utcnow() - 2 * H
            create_match(s, ev, b, start, ended_at=start + H)
            seg = add_segment(s, app.state.store, tmp_path, b, start + timedelta(minutes=5))
            s.commit()
            key = seg.storage_key

        def verified_rows():
            with app.state.db.session() as s:
                return s.scalars(select(PurgeLog).where(PurgeLog.verified_absent)).all()

        end = time.monotonic() + 30
        while not verified_rows() and time.monotonic() < end:
            time.sleep(0.1)
        assert not app.state.store.exists(key)
        (row,) = verified_rows()
        assert row.trigger == "periodic job" and row.policy == "match_end" and row.segment_id == seg.segment_id
