"""`bgscribe transcribe` and `bgscribe eval transcript` as staff run them, on observations of a rendered game."""

from __future__ import annotations

import copy
import json

import pytest

from transcriber.mat import read_mat
from transcriber.validate import validate_file
from vision.synth.observe_sim import observations_from_truth
from vision.synth.video import render_match

from ..conftest import SAMPLES
from .test_cli import bgscribe


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    """The first game of a real 7-point match, rendered clean and small, and what a camera stage reads."""
    d = tmp_path_factory.mktemp("game")
    rec = copy.deepcopy(read_mat(SAMPLES[0]))
    rec.games = rec.games[:1]
    render_match(rec, None, d / "truth.jsonl", profile="clean", seed=2, fps=5, size=(320, 180),
                 progress=False)
    with open(d / "obs.jsonl", "w", encoding="utf-8") as f:
        for o in observations_from_truth(d / "truth.jsonl"):
            f.write(o.to_json() + "\n")
    return d


def test_transcribe_writes_a_valid_match_and_a_report_that_eval_scores(game, tmp_path):
    out, report = tmp_path / "m.mat", tmp_path / "r.json"
    r = bgscribe("transcribe", game / "obs.jsonl", "--out", out, "--report", report, "--players", "Ann", "Bob",
                 "--length", "7")
    assert r.returncode == 0, r.stderr
    assert "wrote" in r.stdout and validate_file(out).ok
    doc = json.loads(report.read_text())
    assert doc["mat_written"] and doc["players"] == ["Ann", "Bob"]
    # one game of a 7-point match: the transcript stops short of the match's end, which is worth a look
    short = [f for f in doc["flags"] if f["reason"] == "score_contradiction"]
    assert len(short) == 1 and "7-point" in short[0]["message"]
    r = bgscribe("eval", "transcript", "--truth", game / "truth.jsonl", "--mat", out, "--report", report, "--json")
    assert r.returncode == 0, r.stderr
    figures = json.loads(r.stdout)
    assert figures["plays_right"] == figures["plays"] > 0 and figures["silent_errors"] == 0


def test_transcribe_refuses_malformed_observations_and_writes_nothing(game, tmp_path):
    bad = tmp_path / "obs.jsonl"
    lines = (game / "obs.jsonl").read_text().splitlines()
    bad.write_text("\n".join(lines[:50] + ['{"t": 1.0, "slots": "torn'] + lines[50:]) + "\n")
    out = tmp_path / "m.mat"
    r = bgscribe("transcribe", bad, "--out", out, "--length", "7")
    assert r.returncode == 1
    assert f"{bad}:51" in r.stderr and "Traceback" not in r.stderr
    assert not out.exists()
