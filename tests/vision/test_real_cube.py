"""The doubling cube on real board pictures (our labels, `tests/data/real_labels.json`; skipped where
../shared/data/real is absent), and where a board's profile lets a cube rest (rendered)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.bench.bench_real import DEFAULT_REAL, LABELS, bench_cube
from vision.geometry import BAR_SLOT, CUBE_BAR_MIN_MM, TRAY_BOTTOM, TRAY_TOP, BoardGeometry
from vision.observation import CubeReading, FrameObservation
from vision.readers import MODELS, Readers
from vision.rectify import board_to_rect
from vision.synth.rig import Rig
from vision.synth.scene import Scene
from vision.synth.stills import random_positions, random_scene
from vision.train.readers_data import EVAL_SEED0, HELD_OUT_SCHEMES, SIZE, render, sample_scene
from vision.train.readers_eval import evaluate

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


def test_training_scenes_put_the_cube_in_a_tray_or_on_the_frame_clear_of_the_trays_checkers():
    """Real players leave the cube off the bar (every tournament stream frame has it in a tray or on the frame):
    a share of training scenes does too, at either end, of its own size and turn, never on the borne-off checkers;
    the rendered frame knows where it shows, and none of it happens where the share is 0 (the scenes of before)."""
    rng = np.random.default_rng(2)
    rig = Rig.build("standard", 5, SIZE, schemes=HELD_OUT_SCHEMES)
    g = rig.geom
    ends = [s for s in (sample_scene(rng, rig, cube_ends=0.5) for _ in range(200)) if s.cube_place == "end"]
    assert 60 <= len(ends) <= 140
    sides = set()
    for s in ends:
        x, y, size, _ = s.cube_at
        right = x > 0
        sides.add(right)
        x0, y0, x1, y1 = g.end_rect(right)
        assert x0 <= x <= x1 and y0 <= y - size / 2 and y + size / 2 <= y1 and 24 <= size <= 40
        for top, slot in ((True, TRAY_TOP), (False, TRAY_BOTTOM)):
            n = int(s.counts[slot].sum())
            tx0, _, tx1, _ = g.tray_rect(top)
            if n and tx0 - size / 2 < x < tx1 + size / 2:
                last = g.tray_spot(top, n - 1)[1]
                assert (y - size / 2 > last) if top else (y + size / 2 < last), (s.cube_at, n)
    assert sides == {True, False}
    assert not any(sample_scene(np.random.default_rng(k), rig).cube_place == "end" for k in range(50))
    scene = Scene(counts=np.zeros((27, 2), np.int16), cube_value=8, cube_place="end",
                  cube_at=(g.field()[0] - 50.0, 120.0, 32.0, 1))
    f = render(rig, scene, np.random.default_rng(0), 0.0, 95)
    # (where its top face shows: lifted by its height, away from the camera's eye by up to ~15 mm at the ends)
    assert f.cube_px is None and abs(f.cube_mm[0] - (g.field()[0] - 50)) < 20 and abs(f.cube_mm[1] - 120) < 20


@pytest.mark.skipif(not (MODELS / "cube.onnx").exists(), reason="reader weights not in models/")
def test_cube_in_a_tray_or_on_the_frame_read_on_held_out_rendered_boards():
    """Held-out boards (a scheme and rigs never trained on) with the cube in a tray or on the frame on every board:
    found there, on its owner's side (or centred, showing 64), with its value; the cube on the bar as before. The
    values off the bar are a floor, not the target (48 frames, 2026-12-07: place 0.85, value 0.77: faces turned at
    any angle misread; `models/cube.md`)."""
    m = evaluate(Readers(threads=1), "standard", 24, cube_ends=1.0)
    assert m["cube_place_acc"] >= 0.7 and m["cube_value_acc"] >= 0.65, m
    m = evaluate(Readers(threads=1), "standard", 24, cube_ends=0.0)
    assert m["cube_place_acc"] >= 0.95 and m["cube_value_acc"] >= 0.95, m


@pytest.mark.skipif(not DEFAULT_REAL.is_dir(), reason=f"no real pictures at {DEFAULT_REAL} (never copied into the "
                    "project)")
def test_cubes_in_trays_and_on_frames_of_real_boards():
    """The 16 real pictures whose cube lies in a tray or on the frame (every stream frame): looked for in the strips
    beyond the field's ends, found on 16, read right on 4 of the 14 legible (2026-12-07, the fields measured
    again; 6 with their first labels: a stream cube's read turns on a field a few pixels aside); few false
    cubes. On the bar 1 of 3 (2 with the product photos' fields as first labelled, a wall's face further out: the
    Crisloid board's 16 is then not seen)."""
    labels = json.loads(LABELS.read_text())["pictures"]
    f = bench_cube(DEFAULT_REAL, labels)["all folders"]
    assert f["elsewhere"] == 16 and f["elsewhere_legible"] == 14
    assert f["elsewhere_found"] >= 15 and f["elsewhere_right"] >= 3, f
    assert f["false_on_bar"] <= 3 and f["false_elsewhere"] <= 5 and f["on_bar_right"] >= 1, f


def test_a_cube_off_the_bar_survives_the_observations_file():
    cube = CubeReading(np.array([0.0, 0.9, 0.1, 0, 0, 0, 0]), {"centre": 0.0, "top": 0.95, "bottom": 0.0,
                                                                "off": 0.05}, frame=0.95)
    obs = FrameObservation(3, 0.2, cube=cube)
    back = FrameObservation.from_json(obs.to_json()).cube
    assert back.frame == 0.95 and back.where == "top" and back.value == 2
    plain = FrameObservation.from_json(FrameObservation(3, 0.2, cube=CubeReading(cube.values, cube.place)).to_json())
    assert plain.cube.frame == 0.0
