"""Approved transcripts label their board's footage (review_ui/board_learning.py).

A rendered game's truth (every frame's checkers, every action's time, who sat where) stands in for an
approved transcript: the rows `labelled_moments` gives each span between two actions must be the rows
the camera saw then. The refit itself is tested in tests/vision/test_adapt.py (`adapt --frames`).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from review_ui.board_learning import NothingToLearn, labelled_moments
from tests.pg_server import sqlite_only
from vision.still import rows_of_slots


def _truth_and_doc(tmp_path, size: str = "320x180"):
    video, truth = tmp_path / "g.mp4", tmp_path / "g.jsonl"
    p = subprocess.run([sys.executable, "-m", "bgscribe", "simulate", "random:9", "--games", "1", "--out",
                        str(video), "--truth", str(truth), "--fps", "2", "--size", size],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    lines = [json.loads(x) for x in truth.read_text().splitlines()]
    header, frames = lines[0], [x for x in lines if x["type"] == "frame"]
    actions, dice = [], None
    for e in (x for x in lines if x["type"] == "event"):
        if e["kind"] == "roll":
            dice = e["dice"]
        elif e["kind"] == "play":
            actions.append({"kind": "move", "player": e["player"], "dice": dice, "play": e["play"], "time": e["t"]})
        elif e["kind"] in ("double", "take", "drop"):
            actions.append({"kind": e["kind"], "player": e["player"], "time": e["t"]})
    doc = {"players": header["players"], "length": header["length"], "profile": "bmab", "meta": {},
           "games": [{"number": 1, "score": [0, 0], "actions": actions}], "notes": [],
           "seating": header["rig"]["seating"]}
    return doc, frames, header


def test_the_transcripts_positions_are_what_the_camera_saw(tmp_path):
    doc, frames, _ = _truth_and_doc(tmp_path)
    moments = labelled_moments(doc)
    assert len(moments) >= 0.9 * (len(doc["games"][0]["actions"]) - 1)
    checked = 0
    for t0, t1, top, bottom in moments:
        # a moment with no hand over the board between the two actions (the pipeline takes quiet frames)
        seen = [f for f in frames if t0 < f["t"] < t1 and not f["hands"]]
        if seen:
            assert rows_of_slots(seen[len(seen) // 2]["slots"]) == (top, bottom), (t0, t1)
            checked += 1
    assert checked >= 0.8 * len(moments), (checked, len(moments))
    # the seating is what places the checkers: the other way round, the rows are not the camera's
    flipped = dict(doc, seating=dict(doc["seating"], p0_bottom=not doc["seating"]["p0_bottom"]))
    assert [m[2:] for m in labelled_moments(flipped)] != [m[2:] for m in moments]


def test_no_seating_no_learning():
    doc = {"players": ["A", "B"], "length": 7, "profile": "bmab", "meta": {}, "notes": [],
           "games": [{"number": 1, "score": [0, 0], "actions": []}]}
    with pytest.raises(NothingToLearn, match="seating"):
        labelled_moments(doc)


def test_an_approved_transcript_queues_learning_and_says_why_nothing_was_learnt(client, tmp_path):
    """Approval queues a `learn` job beside the PR analysis; without a confirmed field, and then without
    footage, it fails with the reason (the match's own stage is not affected: its transcript exists)."""
    from review_ui.api.review import load_transcript
    from review_ui.board_field import set_field
    from review_ui.models import Board, Match
    from review_ui.pipeline import Pipeline, match_stage
    from review_ui.pipeline_models import FAILED, LEARN, PipelineJob

    from .review_helpers import add_match, add_users, login

    doc, _, _ = _truth_and_doc(tmp_path)
    add_users(client.app_state)
    mid = add_match(client.app_state)
    with client.app_state.db.session() as s:
        load_transcript(s, s.get(Match, mid), doc, {"flags": []}, None)
        s.commit()
    h = login(client, "ann")
    r = client.post(f"/api/v1/matches/{mid}/transcript/approve", json={"version": 1}, headers=h)
    assert r.status_code == 200, r.text
    st = client.app_state

    def learn_job():
        p = Pipeline(st.db, st.store, st.settings.data_dir)
        while p.run_once():
            pass
        with st.db.session() as s:
            jobs = s.query(PipelineJob).filter_by(kind=LEARN, match_id=mid).all()
            assert len(jobs) == 1 and jobs[0].state == FAILED
            assert match_stage(s, mid)["stage"] is None
            err = jobs[0].error
        page = client.get("/boards/7/field")  # the staff see why on the board's field page
        assert page.status_code == 200 and f"Match {mid}: nothing learnt" in page.text, page.text
        with st.db.session() as s:
            s.query(PipelineJob).filter_by(kind=LEARN, match_id=mid).delete()  # so that the next run queues it again
            s.commit()
        return err

    assert "field has not been confirmed" in learn_job()
    with st.db.session() as s:
        set_field(s, s.query(Board).filter_by(number=7).one(), [[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]],
                  "ann")
        s.commit()
    assert "0 quiet frames" in learn_job()


@sqlite_only  # ~45 s of rendering and learning; the learn job's bookkeeping runs on both backends above
def test_a_board_learns_from_its_approved_match_through_the_pipeline(client, tmp_path):
    """The whole way: a rendered game's footage uploaded as the board's segment, its field confirmed, the
    truth's transcript approved; the pipeline observes the footage, then learns from it: the labelled quiet
    frames are read at least as well as before and the board's adapter is written for its next footage."""
    import hashlib
    from datetime import datetime, timedelta

    import numpy as np

    from review_ui.api.review import load_transcript
    from review_ui.board_field import set_field
    from review_ui.models import Board, Event, Match
    from review_ui.pipeline import Pipeline, adapter_path
    from review_ui.pipeline_models import DONE, LEARN, OBSERVE, PipelineJob
    from review_ui.services import create_match
    from vision.synth.rig import Rig

    from .conftest import auth
    from .review_helpers import add_users, login
    from .test_ingest import BASE

    doc, frames, header = _truth_and_doc(tmp_path, "640x360")
    video = (tmp_path / "g.mp4").read_bytes()
    rig = Rig.build("standard", header["seed"], tuple(header["size"]))
    assert np.abs(np.array(frames[0]["corners"]) - rig.corners()).max() < 1.0  # the video's own board and camera
    x0, y0, x1, y1 = rig.geom.field()
    field = rig.to_image([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) / np.array(header["size"])
    start, seconds = datetime(2026, 11, 29, 10, 0), header["duration"]
    add_users(client.app_state)
    with client.app_state.db.session() as s:
        b = s.query(Board).filter_by(number=7).one()
        m = create_match(s, s.query(Event).first(), b, start, "", "", start + timedelta(seconds=seconds + 1))
        set_field(s, b, field.tolist(), "ann")
        s.commit()
        mid = m.id
    sid = f"b07-{start:%Y%m%dT%H%M%S}000Z"
    iso = lambda d: d.isoformat(timespec="milliseconds") + "Z"  # noqa: E731
    manifest = {"board": 7, "segment_id": sid, "start": iso(start), "end": iso(start + timedelta(seconds=seconds)),
                "frames": len(frames), "dropped_frames": 0, "gaps": [], "sha256": hashlib.sha256(video).hexdigest(),
                "bytes": len(video)}
    assert client.post(f"{BASE}/7/segments", json=manifest, headers=auth()).status_code == 200
    chunk = 4 << 20  # as the agent sends it: pieces under the server's limit a request
    for off in range(0, len(video), chunk):
        assert client.put(f"{BASE}/7/segments/{sid}/data", params={"offset": off}, content=video[off:off + chunk],
                          headers=auth()).status_code == 200
    assert client.post(f"{BASE}/7/segments/{sid}/complete", headers=auth()).status_code == 200
    with client.app_state.db.session() as s:
        load_transcript(s, s.get(Match, mid), doc, {"flags": []}, None)
        s.commit()
    r = client.post(f"/api/v1/matches/{mid}/transcript/approve", json={"version": 1},
                    headers=login(client, "ann"))
    assert r.status_code == 200, r.text
    st = client.app_state
    p = Pipeline(st.db, st.store, st.settings.data_dir)
    while p.run_once():
        pass
    with st.db.session() as s:
        jobs = {j.kind: j for j in s.query(PipelineJob).filter(PipelineJob.kind.in_((OBSERVE, LEARN)))}
        assert jobs[OBSERVE].state == DONE, jobs[OBSERVE].error
        assert jobs[LEARN].state == DONE, jobs[LEARN].error
        got = json.loads(jobs[LEARN].result_json)
    assert got["frames"] >= 16 and got["kept"] and got["right_after"] >= got["right_before"], got
    assert adapter_path(st.settings.data_dir, 7).is_file()
    page = client.get("/boards/7/field")
    assert f"Match {mid}: learnt from {got['frames']} labelled frames" in page.text and "kept" in page.text
