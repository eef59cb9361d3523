"""The background pipeline: segments observed once each, resumed after a crash, failures stated.

Footage here is a test pattern (no board): the pipeline's bookkeeping is what is tested. Real rendered
matches go through it end to end in tests/cli/test_demo.py.
"""

from __future__ import annotations

import hashlib
import json
import time
from datetime import datetime, timedelta

import pytest

from review_ui.models import Board, Event
from review_ui.pipeline import Pipeline, match_stage, observations_path
from review_ui.pipeline_models import DONE, FAILED, OBSERVE, QUEUED, RUNNING, TRANSCRIBE, PipelineJob
from review_ui.services import create_match

from ..capture.helpers import make_clip, needs_ffmpeg
from .conftest import auth
from .test_ingest import BASE

START = datetime(2026, 11, 29, 17, 0, 0)
BOARD_8 = "board-8-token-secret"  # (tests/review_ui/conftest.py's client registers boards 7 and 8)


def _upload(client, data: bytes, start: datetime, seconds: float, frames: int, board: int = 7):
    sid = f"b{board:02d}-{start:%Y%m%dT%H%M%S}{start.microsecond // 1000:03d}Z"
    iso = lambda d: d.isoformat(timespec="milliseconds") + "Z"  # noqa: E731
    m = {"board": board, "segment_id": sid, "start": iso(start), "end": iso(start + timedelta(seconds=seconds)),
         "frames": frames, "dropped_frames": 0, "gaps": [], "sha256": hashlib.sha256(data).hexdigest(),
         "bytes": len(data)}
    h = auth() if board == 7 else auth(BOARD_8)
    r = client.post(f"{BASE}/{board}/segments", json=m, headers=h)
    assert r.status_code == 200, r.text
    r = client.put(f"{BASE}/{board}/segments/{sid}/data", params={"offset": 0}, content=data, headers=h)
    assert r.status_code == 200, r.text
    r = client.post(f"{BASE}/{board}/segments/{sid}/complete", headers=h)
    assert r.status_code == 200, r.text
    return sid


@pytest.fixture
def footage(client, tmp_path):
    """A match on board 7 with two 4-second segments of real H.264 (a test pattern, no board)."""
    clip = make_clip(tmp_path / "clip.mp4", 4, size="320x180", fps=5).read_bytes()
    with client.app_state.db.session() as s:
        ev, b = s.query(Event).first(), s.query(Board).filter_by(number=7).one()
        match_id = create_match(s, ev, b, START - timedelta(seconds=1), "Ann", "Ben").id
        s.commit()
    sids = [_upload(client, clip, START + timedelta(seconds=4 * k), 4, 20) for k in range(2)]
    return match_id, sids


def _pipeline(client) -> Pipeline:
    st = client.app_state
    return Pipeline(st.db, st.store, st.settings.data_dir)


def _jobs(client, kind=None):
    with client.app_state.db.session() as s:
        q = s.query(PipelineJob)
        if kind:
            q = q.filter_by(kind=kind)
        return [(j.id, j.kind, j.segment_id, j.state, j.attempts, j.finished_at, j.error) for j in q.order_by("id")]


@needs_ffmpeg
def test_each_segment_is_observed_once_and_a_restart_resumes_the_interrupted_job(client, footage):
    match_id, sids = footage
    p = _pipeline(client)
    assert p.run_once()  # the first segment
    first = _jobs(client, OBSERVE)
    assert [j[3] for j in first] == [DONE, QUEUED]
    # The server dies while observing the second segment: its row says `running`.
    with client.app_state.db.session() as s:
        j = s.get(PipelineJob, first[1][0])
        j.state, j.attempts = RUNNING, 1
        s.commit()
    with client.app_state.db.session() as s:
        assert match_stage(s, match_id)["stage"] == "observing"
    p2 = _pipeline(client)
    assert p2.recover() == 1
    while p2.run_once():
        pass
    jobs = _jobs(client, OBSERVE)
    assert len(jobs) == 2 and all(j[3] == DONE for j in jobs)
    assert jobs[0][5] == first[0][5] and jobs[0][4] == 1  # the finished job was not run again
    assert jobs[1][4] == 2  # the interrupted one ran a second time
    with client.app_state.db.session() as s:
        from review_ui.models import Segment

        for seg in s.query(Segment):
            lines = observations_path(client.app_state.settings.data_dir, seg).read_text().splitlines()
            assert len(lines) == 20 and all(json.loads(x)["status"] == "no_board" for x in lines)
        # Observed but no board in sight: the transcription says so, once, and the dashboard shows it.
        t = _jobs(client, TRANSCRIBE)
        assert len(t) == 1 and t[0][3] == FAILED and "no board was read" in t[0][6]
        st = match_stage(s, match_id)
        assert st["stage"] == "failed" and "no board was read" in st["error"]
    assert not _pipeline(client).run_once()  # nothing new: no work is repeated


@needs_ffmpeg
def test_jobs_at_a_time_observe_boards_side_by_side_and_each_boards_segments_in_order(client, footage, tmp_path):
    """Without a job queue the server does `jobs` at a time: two boards' segments are observed side by side, while
    one board's are observed one after the other (each carries the board's state to the next)."""
    clip = make_clip(tmp_path / "clip8.mp4", 4, size="320x180", fps=5).read_bytes()
    _upload(client, clip, START, 4, 20, board=8)
    st = client.app_state
    p = Pipeline(st.db, st.store, st.settings.data_dir, poll_seconds=0.2, jobs=2)
    p.start()
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            jobs = _jobs(client, OBSERVE)
            if len(jobs) == 3 and all(j[3] == DONE for j in jobs):
                break
            time.sleep(0.2)
    finally:
        p.stop()
    with st.db.session() as s:
        from review_ui.models import Segment

        rows = [(j.started_at, j.finished_at, s.get(Segment, j.segment_id).board.number)
                for j in s.query(PipelineJob).filter_by(kind=OBSERVE).order_by(PipelineJob.id)]
    assert all(j[3] == DONE and j[4] == 1 for j in _jobs(client, OBSERVE))
    seven = sorted(r for r in rows if r[2] == 7)
    eight = next(r for r in rows if r[2] == 8)
    assert len(seven) == 2 and seven[1][0] >= seven[0][1]  # board 7's second segment after its first
    assert any(a[0] < eight[1] and eight[0] < a[1] for a in seven)  # board 8 observed beside board 7


@needs_ffmpeg
def test_a_corrupt_segment_fails_with_a_reason_and_the_rest_goes_on(client, footage, tmp_path):
    match_id, sids = footage
    # an MP4 box header (the server takes nothing else), then no video at all
    junk = b"\x00\x00\x00\x18ftypisom" + b"\x00garbage, not a video" * 500
    _upload(client, junk, START + timedelta(seconds=8), 4, 20)
    p = _pipeline(client)
    while p.run_once():
        pass
    jobs = _jobs(client, OBSERVE)
    assert [j[3] for j in jobs] == [DONE, DONE, FAILED]
    assert jobs[2][4] == 3 and "bgscribe observe exited with 1" in jobs[2][6] and "cannot open" in jobs[2][6]
    # The match was still transcribed from what could be observed (here: nothing readable).
    assert len(_jobs(client, TRANSCRIBE)) == 1


@needs_ffmpeg
def test_the_dashboard_shows_each_boards_backlog_in_minutes(client, footage):
    """Footage stored but not observed yet is a board's backlog: it waits (nothing is dropped) and the board's
    card says how many minutes of it there are."""
    from review_ui.dashboard import board_rows

    def backlog():
        with client.app_state.db.session() as s:
            return {r["number"]: r["backlog_minutes"] for r in board_rows(s, lambda *_: None)}

    assert backlog() == {7: round(8 / 60, 1), 8: 0.0}  # two 4-second segments, not yet scheduled
    p = _pipeline(client)
    assert p.run_once()  # the first observed, the second queued
    assert backlog()[7] == round(4 / 60, 1)
    while p.run_once():
        pass
    assert backlog()[7] == 0.0


@needs_ffmpeg
def test_a_footage_store_that_is_down_defers_jobs_without_using_their_tries(client, footage):
    """An unmounted share (or an S3 server down) is no fault of the segment's: however long it lasts, its
    jobs wait, untried, and run once the store is back."""
    from review_ui.pipeline import MAX_ATTEMPTS, Deferred
    from review_ui.storage import MARKER

    mark = client.app_state.store.root / MARKER
    saved = mark.read_text()
    mark.unlink()  # the share is gone: its mount point is an empty folder
    p = _pipeline(client)
    for _ in range(MAX_ATTEMPTS + 2):  # more than a job's tries
        with pytest.raises(Deferred, match="waiting for the footage store"):
            p.run_once()
    jobs = _jobs(client, OBSERVE)
    assert all(j[3] == QUEUED and j[4] == 0 for j in jobs), jobs
    assert "is not the server's store" in jobs[0][6]
    mark.write_text(saved)
    while p.run_once():
        pass
    assert [j[3] for j in _jobs(client, OBSERVE)] == [DONE, DONE]


def test_a_segment_stored_while_the_scheduler_looks_waits_for_its_observation(client):
    """The server stores segments while its pipeline schedules. A segment committed after the scheduler listed the
    unobserved ones, but before it gathered each match's footage, has no observe job yet: the match waits for it.
    (It was transcribed at once from no observations, and failed for good: "no board was read".)"""
    from sqlalchemy import event

    from review_ui.models import Segment
    from review_ui.services import link_segment

    with client.app_state.db.session() as s:
        ev, b = s.query(Event).first(), s.query(Board).filter_by(number=7).one()
        match_id, board_id, event_id = create_match(s, ev, b, START, "Ann", "Ben").id, b.id, ev.id
        s.commit()
    engine, stored = client.app_state.db.engine, []

    def store_between(conn, cursor, statement, *_):  # the server storing a segment, on its own connection
        if stored or "segment_matches" not in statement:
            return
        stored.append(True)
        with client.app_state.db.session() as other:
            seg = Segment(board_id=board_id, event_id=event_id, segment_id="b07-20261129T170000000Z",
                          storage_key="b07/x.mp4", sha256="0" * 64, bytes=1, start=START,
                          end=START + timedelta(seconds=4), frames=20, dropped_frames=0, manifest_json="{}",
                          received_at=START)
            other.add(seg)
            other.flush()
            link_segment(other, seg)
            other.commit()

    event.listen(engine, "before_cursor_execute", store_between)
    try:
        with client.app_state.db.session() as s:
            _pipeline(client).schedule(s)
    finally:
        event.remove(engine, "before_cursor_execute", store_between)
    assert stored
    assert _jobs(client, TRANSCRIBE) == []  # before the fix: a transcribe job with no observations in it
    with client.app_state.db.session() as s:
        _pipeline(client).schedule(s)  # the next round: the segment's observe job, and still no transcription
    assert [j[3] for j in _jobs(client, OBSERVE)] == [QUEUED] and _jobs(client, TRANSCRIBE) == []
    with client.app_state.db.session() as s:
        assert match_stage(s, match_id)["stage"] == "observing"
