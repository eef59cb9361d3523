"""What the observer learns about a board outlives one video: footage that comes in 60 s segments (as
the server stores it) still knows the board's checker colours after the segment with the opening."""

from __future__ import annotations

import json

import numpy as np
import pytest

from transcriber.observation import FrameObservation
from transcriber.position import Position
from vision.observe import observe_video
from vision.readers import MODELS, NAMES, BoardColours
from vision.synth.rig import Rig
from vision.synth.scene import Scene, slot_counts
from vision.train.readers_data import EVAL_SEED0, HELD_OUT_SCHEMES

from ..clips import write_clip

pytestmark = pytest.mark.skipif(not all((MODELS / f"{n}.onnx").exists() for n in NAMES),
                                reason="reader weights not in models/ (bgscribe train readers)")
FPS = 15


def _clip(path, rig: Rig, scene: Scene, seconds: float = 2.0):
    """A still scene filmed for a while (fresh sensor noise in every frame): quiet long enough to be read."""
    rng = np.random.default_rng(1)
    lit, _ = rig.camera_image(scene)
    frames = [rig.sensor.expose(lit, float(rng.uniform(0, 300)), k) for k in range(int(seconds * FPS))]
    return write_clip(path, frames, seconds, FPS)


@pytest.fixture(scope="module")
def segments(tmp_path_factory):
    """The opening, then each colour alone on the points. On this board (seed chosen so) the readers
    alone take one of the two for the other: only the learnt colours read both right."""
    d = tmp_path_factory.mktemp("segments")
    rig = Rig.build("standard", EVAL_SEED0 + 3103, (960, 540), schemes=HELD_OUT_SCHEMES)
    later = []
    for colour in (0, 1):
        counts = np.zeros((27, 2), np.int16)
        counts[[2, 9, 15], colour] = (1, 2, 3)
        later.append((_clip(d / f"later{colour}.mp4", rig, Scene(counts=counts)), counts))
    return _clip(d / "opening.mp4", rig, Scene(counts=slot_counts(Position.opening(), rig.seating))), later


def test_the_colours_learnt_in_one_segment_carry_to_the_next(segments, tmp_path):
    opening, later = segments
    state = tmp_path / "board_state.json"
    observe_video(opening, tmp_path / "a.jsonl", progress=False, board_state=state)
    learnt = json.loads(state.read_text())
    assert learnt["colours"]["learnt"] >= 1
    colours = BoardColours.from_json(learnt["colours"])
    assert colours.light[0] > colours.dark[0] + 40  # L of the light checkers above the dark ones'
    for video, counts in later:
        observe_video(video, tmp_path / "b.jsonl", progress=False, board_state=state)
        assert json.loads(state.read_text())["colours"] == learnt["colours"]  # nothing to learn, nothing lost
        reads = [o for o in map(FrameObservation.from_json, (tmp_path / "b.jsonl").read_text().splitlines())
                 if o.slots is not None]
        assert reads
        for o in reads:  # one colour on the points: only the colours learnt at the opening say which
            assert [o.slots[s].best() for s in range(24)] == [tuple(counts[s]) for s in range(24)]


def test_a_damaged_board_state_is_learnt_afresh_with_a_warning(segments, tmp_path, capsys):
    opening, _ = segments
    state = tmp_path / "board_state.json"
    state.write_text("{not json")
    observe_video(opening, tmp_path / "a.jsonl", progress=False, board_state=state)
    assert "ignoring the board state" in capsys.readouterr().err
    assert json.loads(state.read_text())["colours"]["learnt"] >= 1
