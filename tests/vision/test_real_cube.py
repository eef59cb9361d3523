"""The doubling cube on real board pictures (our labels, `tests/data/real_labels.json`; skipped where
../shared/data/real is absent), and where a board's profile lets a cube rest (rendered)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.bench.bench_real import DEFAULT_REAL, LABELS, bench_cube
from vision.geometry import BAR_SLOT, CUBE_BAR_MIN_MM, BoardGeometry
from vision.readers import MODELS, Readers
from vision.rectify import board_to_rect
from vision.synth.rig import Rig
from vision.synth.scene import Scene
from vision.synth.stills import random_positions, random_scene
from vision.train.readers_data import EVAL_SEED0, HELD_OUT_SCHEMES, SIZE, render, sample_scene

PRINTED = ("photos-extra", "webcam-printed-board")  # printed paper boards (no bar) among others with bars


@pytest.mark.skipif(not DEFAULT_REAL.is_dir(), reason=f"no real pictures at {DEFAULT_REAL} (never copied into the "
                    "project)")
def test_no_cube_read_on_real_boards_without_one_on_the_bar():
    """The labelled pictures of two folders (29: printed boards and product photos, two of them with a cube on the
    bar): a printed board's middle line was read as a cube showing 32 on four of them."""
    labels = {rel: lab for rel, lab in json.loads(LABELS.read_text())["pictures"].items()
              if rel.split("/")[0] in PRINTED}
    f = bench_cube(DEFAULT_REAL, labels)["all folders"]
    assert f["pictures"] == 29 and f["not_on_bar"] == 27
    assert f["false_on_bar"] == 0, f


def test_a_bar_too_narrow_holds_no_cube():
    assert BoardGeometry().bar_holds_cube
    assert not BoardGeometry().with_field_shape(0.0, 0.43).bar_holds_cube  # a printed board: no bar
    assert BoardGeometry(bar_w=CUBE_BAR_MIN_MM).bar_holds_cube


@pytest.mark.skipif(not (MODELS / "cube.onnx").exists(), reason="reader weights not in models/")
def test_cube_not_read_on_a_bar_that_cannot_hold_it():
    """A held-out rendered board with the cube in its bar's middle: read with its own profile, the cube is there;
    read with the profile of a board with no bar (the same middle), it is off, whatever the windows see."""
    rig = Rig.build("standard", EVAL_SEED0 + 900, SIZE, schemes=HELD_OUT_SCHEMES)
    scene = Scene(counts=np.zeros((27, 2), np.int16), dice=(), cube_value=1, cube_place="centre")
    f = render(rig, scene, np.random.default_rng(3), corner_noise=1.0, jpeg=80)
    readers = Readers(threads=1)
    cube = readers.read_board(f.rect, f.geom)[2]
    assert (cube.where, cube.value) == ("centre", 1)
    barless = f.geom.with_field_shape(0.0, f.geom.field_shape()[1])
    assert readers.read_cube(f.rect, barless).where == "off"


def test_rendered_scenes_leave_the_cube_off_a_hinge():
    """Training and still scenes never draw the cube on a bar narrower than `CUBE_BAR_MIN_MM` (a cube drawn across
    a hinge would teach the cube reader to see one where real players never put it)."""
    rng = np.random.default_rng(0)
    for shape, holds in (({"bar_w": 8.0}, False), ({"bar_w": 40.0}, True)):
        rig = Rig.build("standard", 5, SIZE, schemes=HELD_OUT_SCHEMES, shape=shape)
        places = {sample_scene(rng, rig).cube_place for _ in range(40)}
        places |= {random_scene(rng, rig, p).cube_place for p in random_positions(rng, 20)}
        assert (places != {"off"}) == holds, (shape, places)


def test_training_scenes_put_the_bars_checkers_in_its_middle_where_the_cube_is_not():
    """Real players put checkers anywhere on the bar, its middle too; renders kept the middle free for the cube,
    and the cube reader took a real checker there for a cube. Training scenes now put them there half the time
    the cube is elsewhere (never where it is in the middle), and the painter draws them there."""
    rng = np.random.default_rng(1)
    rig = Rig.build("standard", 5, SIZE, schemes=HELD_OUT_SCHEMES)
    seen = {True: 0, False: 0}
    for _ in range(300):
        s = sample_scene(rng, rig)
        if s.bar_middle:
            assert s.cube_place != "centre" and s.counts[BAR_SLOT].any()
        if s.cube_place != "centre" and s.counts[BAR_SLOT].any():
            seen[s.bar_middle] += 1
    assert seen[True] >= 10 and seen[False] >= 10, seen
    g = rig.geom
    assert abs(g.bar_spot(True, 0, middle=True)[1]) < g.checker_d / 2 + 2 < abs(g.bar_spot(True, 0)[1])
    counts = np.zeros((27, 2), np.int16)
    counts[BAR_SLOT] = (1, 1)
    x, _, _ = g.bar_spot(True, 0)
    middle = {}
    for mid in (False, True):
        f = render(rig, Scene(counts=counts, cube_place="off", bar_middle=mid), np.random.default_rng(0), 0.0, 95)
        cx, cy = board_to_rect([x, 0.0], g)  # the bar's middle, rectified px
        middle[mid] = f.rect[int(cy) - 4:int(cy) + 4, int(cx) - 4:int(cx) + 4].astype(float).mean((0, 1))
    assert np.abs(middle[True] - middle[False]).max() > 30  # a checker's face where the bar was bare
