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
from vision.still import rows_of_slots


def _truth_and_doc(tmp_path):
    video, truth = tmp_path / "g.mp4", tmp_path / "g.jsonl"
    p = subprocess.run([sys.executable, "-m", "bgscribe", "simulate", "random:5", "--games", "1", "--out",
                        str(video), "--truth", str(truth), "--fps", "2", "--size", "320x180"],
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
    return doc, frames


def test_the_transcripts_positions_are_what_the_camera_saw(tmp_path):
    doc, frames = _truth_and_doc(tmp_path)
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

    doc, _ = _truth_and_doc(tmp_path)
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
            s.delete(jobs[0])  # so that the next run queues it again
            s.commit()
            return err

    assert "field has not been confirmed" in learn_job()
    with st.db.session() as s:
        set_field(s, s.query(Board).filter_by(number=7).one(), [[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]],
                  "ann")
        s.commit()
    assert "0 quiet frames" in learn_job()
