"""`bgscribe eval vision` on crafted truth and observations: each figure counts what it says."""

from __future__ import annotations

import json

import numpy as np

from transcriber.observation import DieReading, FrameObservation, SlotReading
from vision.eval import eval_vision

CORNERS = [[0.0, 0.0], [100.0, 0.0], [100.0, 60.0], [0.0, 60.0]]


def _truth_frame(i: int, dice: list[dict]) -> dict:
    slots = [[0, 0]] * 27
    return {"type": "frame", "i": i, "t": i / 15, "corners": CORNERS, "hands": False, "dice": dice,
            "slots": slots, "cube": {"place": "centre", "value": 1}}


def _die(value: int, xy, cocked: float) -> DieReading:
    values = np.full(6, 0.01)
    values[value - 1] = 0.95
    return DieReading(values, xy, cocked=cocked)


def test_dice_figures_count_misreads_and_false_cocked_alarms(tmp_path):
    flat = {"xy": [100.0, 50.0], "value": 3, "cocked": False, "moving": False}
    cocked = {"xy": [-100.0, 50.0], "value": 5, "cocked": True, "moving": False}
    truth = [{"type": "header"}] + [_truth_frame(i, [flat, cocked]) for i in range(4)]
    reads = [  # (flat die: value read, cocked p), cocked die's cocked p
        ((3, 0.01), 0.9), ((3, 0.8), 0.9), ((4, 0.02), 0.2), (None, 0.9)]
    obs = []
    for i, (f, c) in enumerate(reads):
        dice = [_die(5, (-101.0, 49.0), c)] + ([_die(f[0], (99.0, 51.0), f[1])] if f else [])
        obs.append(FrameObservation(i, i / 15, status="ok", corners=CORNERS, slots=[SlotReading.certain(0, 0)] * 27,
                                    dice=dice))
    (tmp_path / "truth.jsonl").write_text("\n".join(json.dumps(t) for t in truth))
    (tmp_path / "obs.jsonl").write_text("\n".join(o.to_json() for o in obs))
    got = eval_vision(tmp_path / "truth.jsonl", tmp_path / "obs.jsonl")
    assert got["reads"] == 4 and got["slot_accuracy"] == 1.0
    assert got["dice"] == 4 and got["dice_accuracy"] == 0.5  # 3, 3 right; 4 wrong; not found
    assert got["cocked"] == 4 and got["cocked_detected"] == 0.75
    assert got["flat_read_cocked"] == round(1 / 3, 5)  # of the three flat dice found, one read cocked
