"""A board's last read spares the models the crops that have not changed (`vision.read_memo`): what it gives again
must be what reading afresh gives, and anything changed or unsure must be read afresh."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.dicesize import DiceSize
from vision.read_memo import ReadMemo, same_crop
from vision.readers import MODELS, NAMES, Readers
from vision.synth.rig import Rig
from vision.synth.scene import Die, Scene
from vision.train.readers_data import EVAL_SEED0, HELD_OUT_SCHEMES, SIZE, render


def _crop(seed: int = 0) -> np.ndarray:
    return cv2.GaussianBlur(np.random.default_rng(seed).integers(0, 256, (192, 48, 3), dtype=np.uint8), (5, 5), 0)


def test_the_same_crop_within_noise_and_not_once_something_is_on_it():
    a = _crop()
    noisy = np.clip(a + np.random.default_rng(1).normal(0, 3, a.shape), 0, 255).astype(np.uint8)
    assert same_crop(a, a) and same_crop(a, noisy)
    checker = a.copy()
    cv2.circle(checker, (24, 170), 10, (230, 230, 230), -1)
    assert not same_crop(a, checker)
    assert not same_crop(a, a[:, :40])


def test_the_models_run_on_changed_and_unsure_crops_alone():
    crops = np.stack([_crop(k) for k in range(4)])
    ran: list[int] = []

    def run(c):
        ran.append(len(c))
        return (c.reshape(len(c), -1).mean(1, keepdims=True).astype(np.float64),)

    memo = ReadMemo()
    unsure = {2}  # the third crop's output is never sure

    def sure(out):
        return np.array([not any(np.isclose(o[0], run_means[k]) for k in unsure) for o in out[0]])

    run_means = crops.reshape(4, -1).mean(1)
    memo.next_read()
    first = memo.outputs(list(range(4)), crops, run, sure)
    again = crops.copy()
    cv2.circle(again[1], (24, 100), 12, (0, 0, 255), -1)  # a checker set on the second point
    memo.next_read()
    second = memo.outputs(list(range(4)), again, run, sure)
    assert ran == [4, 2]  # the changed crop and the unsure one
    assert memo.reused == 2 and memo.run == 6
    assert second[0][0] == first[0][0] and second[0][3] == first[0][3]
    assert second[0][1] != first[0][1]
    memo.next_read()
    memo.outputs([0], crops[:1], run, sure)  # a read that looks at the first point only ...
    memo.next_read()
    memo.outputs(list(range(4)), crops, run, sure)  # ... and the others are forgotten by the read after it
    assert ran[-1] == 3


@pytest.mark.skipif(not all((MODELS / f"{n}.onnx").exists() for n in NAMES),
                    reason="reader weights not in models/ (bgscribe train readers)")
def test_a_board_read_again_through_its_memo_reads_as_afresh():
    readers = Readers(threads=1)
    rig = Rig.build("standard", EVAL_SEED0 + 901, SIZE, schemes=HELD_OUT_SCHEMES)
    frames = [render(rig, s, np.random.default_rng(3), corner_noise=0.0, jpeg=85) for s in _two_scenes(rig)]
    memo = ReadMemo()
    sizes = (DiceSize(), DiceSize())  # (learning, as a new board's: every die read at every scale of the ladder)
    dice_views: list[int] = []
    classify = readers.classify_dice

    def counted(crops, turns=8):
        dice_views.append(len(crops) * turns)
        return classify(crops, turns)

    for f in frames:
        dice_views.clear()
        readers.classify_dice = counted
        slots, dice, _ = readers.read_board(f.rect, f.geom, dice_size=sizes[0], memo=memo)
        views = sum(dice_views)
        readers.classify_dice = classify
        fresh_slots, fresh_dice, _ = readers.read_board(f.rect, f.geom, dice_size=sizes[1])
        assert [s.best() for s in slots] == [s.best() for s in fresh_slots]
        assert max(float(np.abs(a.light - b.light).max()) for a, b in zip(slots, fresh_slots)) < 0.02
        assert sorted(int(np.argmax(d.values)) + 1 for d in dice) == [3, 5]
        assert sorted(int(np.argmax(d.values)) for d in dice) == sorted(int(np.argmax(d.values)) for d in fresh_dice)
    # the second frame moved a checker from one point to another (and the renderer's jitter moved a few more): those
    # read as afresh (above), most of the others came from the memo, and so did the dice, lying where they lay
    assert memo.reused >= 15
    assert views < 2 * 8, views  # (at most the heat map's other peaks, one view each: not 6 scales x 8 views a die)


def _two_scenes(rig: Rig) -> tuple[Scene, Scene]:
    """A position and the same after a checker moved, the dice (3 and 5) lying still beside it."""
    counts = np.zeros((27, 2), np.int16)
    stacks = {0: (2, 0), 5: (5, 1), 7: (3, 1), 11: (5, 0), 12: (5, 1), 16: (3, 0), 18: (5, 0), 23: (2, 1)}
    for s, (n, c) in stacks.items():
        counts[s, c] = n
    moved = counts.copy()
    moved[11, 0] -= 1  # (away from the dice: their widest crops, 80 mm, do not take the move in)
    moved[9, 0] += 1
    x0, _, x1, _ = rig.geom.right_half(True)
    dice = (Die(3, x0 + 40, -8.0, 17.0), Die(5, x1 - 60, 6.0, 61.0))
    return Scene(counts=counts, dice=dice), Scene(counts=moved, dice=dice)
