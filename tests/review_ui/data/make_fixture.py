"""Remake the review fixture (match.mat + report.json): a generated 7-point match, two games rendered by the
simulator, observations with dice misreads (so the decoder flags 20 actions and misreads one: game 2,
action 55, read 15 where 12 was rolled; its first alternative is the truth). Takes about 30 s.

    .venv/bin/python tests/review_ui/data/make_fixture.py
"""

import tempfile
from pathlib import Path

from transcriber.generate import random_match
from transcriber.transcribe import transcribe
from vision.synth.observe_sim import Noise, observations_from_truth
from vision.synth.video import render_match

HERE = Path(__file__).parent

with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp)
    render_match(random_match(3), tmp / "v.mp4", tmp / "truth.jsonl", profile="clean", fps=5, size=(320, 180),
                 games=2, progress=False)
    obs = observations_from_truth(tmp / "truth.jsonl", Noise(dice_misread=0.25), seed=12)
    (tmp / "obs.jsonl").write_text("".join(o.to_json() + "\n" for o in obs))
    transcribe(tmp / "obs.jsonl", HERE / "match.mat", HERE / "report.json", ("Alice", "Bob"), 7, "bmab",
               progress=False)
