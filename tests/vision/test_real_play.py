"""Real play on a real board (tests/bench/bench_real_play.py): our by-eye labels of the pine board's frame
sequences hold together as a game, the benchmark counts a transcript's plays as it says, and the board learnt
from its opening picture reads the rest of its game (where ../shared/data/real is present)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from tests.bench.bench_real_play import DEFAULT_REAL, LABELS, frame_figures, labelled_position, score_plays
from transcriber.moves import parse_play
from transcriber.position import Position
from vision.adapt import (
    OPENING_BOTTOM,
    OPENING_TOP,
    adapt_to_picture,
    checker_pitch,
    point_classes,
    shorter_stacks,
    training_crops,
)
from vision.still import read_picture, rows_of_slots, to_json
from vision.synth.rig import Rig
from vision.synth.stills import random_scene
from vision.train.corners import EVAL_SEED0

SEQUENCES = json.loads(LABELS.read_text())["sequences"]
needs_real = pytest.mark.skipif(not (DEFAULT_REAL / "sequences-wood-board").is_dir(),
                                reason=f"the real pictures are not at {DEFAULT_REAL} (../shared/data/real/README.md)")


@pytest.mark.parametrize("name", sorted(SEQUENCES))
def test_the_labelled_frames_are_one_game_of_the_labelled_plays(name):
    """Every frame with no hand over the board holds 15 checkers a side; its positions, in order, are the
    opening and then what the labelled plays make of it, one after another (a play labelled illegal, half a
    roll played, moves its checkers as labelled)."""
    seq = SEQUENCES[name]
    frames = sorted(seq["frames"], key=lambda f: f["order"])
    whole = [f for f in frames if not f.get("partial")]
    for f in whole:
        p = labelled_position(f)
        assert sum(p.sides[0]) == sum(p.sides[1]) == 15, f["file"]
    seen = []
    for f in whole:
        p = labelled_position(f)
        if not seen or seen[-1] != p:
            seen.append(p)
    assert seen[0] == Position.opening()
    made, pos = [seen[0]], seen[0]
    for play in seq["plays"]:
        if not play.get("sure", True):
            continue
        player = 0 if play["player"] == "L" else 1
        if play.get("legal", True):
            pos = parse_play(pos, player, tuple(play["dice"]), play["play"]).result
        else:
            nxt = seen[len(made)]
            assert nxt.sides[player] != pos.sides[player] and nxt.sides[1 - player] == pos.sides[1 - player]
            pos = nxt
        made.append(pos)
    assert made == seen


def test_plays_are_counted_right_flagged_silent_missed_and_extra():
    labelled = [{"player": "L", "dice": [4, 1], "play": "13/8"}, {"player": "D", "dice": [4, 3], "play": "13/6"},
                {"player": "L", "dice": [4, 3], "play": "8/5 8/4"}, {"player": "D", "dice": [6, 6], "play": "x",
                                                                      "sure": False}]

    def got(player, dice, play, flagged=False):
        return {"player": player, "dice": dice, "play": play, "flagged": flagged}

    f = score_plays(labelled, [got("L", [3, 2], "13/8"), got("D", [4, 3], "13/6", True), got("L", [4, 3], "8/5 8/4"),
                               got("D", [6, 6], "13/7(2)", True)])
    assert (f["right"], f["right_flagged"], f["silent_errors"], f["wrong_flagged"], f["missed"], f["extra"]) == \
        (2, 1, 1, 0, 0, 1)
    assert f["silent"][0]["transcribed"]["dice"] == [3, 2] and f["extra_unflagged"] == 0
    f = score_plays(labelled, [got("L", [4, 1], "13/8"), got("L", [5, 2], "8/1", True)])
    assert (f["right"], f["wrong_flagged"], f["missed"], f["silent_errors"]) == (1, 1, 1, 0)


def test_frame_figures_take_the_colours_up_to_a_swap():
    frame = {"top": OPENING_TOP, "bottom": OPENING_BOTTOM, "dice": [4, 1]}
    swap = str.maketrans("LD", "DL")
    read = {"top": [p.translate(swap) for p in OPENING_TOP], "bottom": [p.translate(swap) for p in OPENING_BOTTOM],
            "dice": [{"value": 1}, {"value": 4}]}
    assert frame_figures(read, frame) == {"points_right": 24, "counts_right": 24, "board_right": True,
                                          "dice_right": True}
    read["bottom"] = ["D2"] + read["bottom"][1:]
    f = frame_figures(read, frame)
    assert (f["points_right"], f["counts_right"]) == (23, 24)


def test_shorter_stacks_cut_every_stack_of_the_opening_down():
    """On a rendered opening: every stack of 2-5 gives each smaller count of its colour, its base rows kept and
    beyond the cut an empty point's; the checkers' pitch measured from the stacks is the rendered board's."""
    rig = Rig.build("standard", EVAL_SEED0 + 991, (1280, 720), schemes=["tournament_green"])
    rng = np.random.default_rng(3)
    scene = random_scene(rng, rig, Position.opening()).with_(hands=(), dice=())
    frame = rig.sensor.expose(rig.camera_image(scene)[0], 1.0, 0)
    x0, y0, x1, y1 = rig.geom.field()
    reading = read_picture(frame, rig.to_image([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], scene.shift))
    classes = point_classes(*rows_of_slots(scene.counts))
    geom = reading.fit.geometry()
    crops = training_crops(frame, reading.corners, geom, rng, copies=1)
    default = geom.checker_d * 0.98 * 192 / 230
    assert abs(checker_pitch(crops, classes, geom) - default) < 0.1 * default
    xs, ys = shorter_stacks(crops, classes, geom)
    counts = sorted((c - 1) % 15 + 1 for c in ys)
    assert counts == sorted([1] * 8 + [2] * 6 + [3] * 4 + [4] * 4)  # from stacks of 2, 3, 5 and 5 a side
    assert (ys > 15).sum() == (ys <= 15).sum() == 11
    for x in xs:  # the base is a checker's, the far end an empty point's: never the same rows
        assert np.abs(x[-20:].astype(int) - x[:20].astype(int)).mean() > 5


def _game_read_before_and_after_learning(name: str) -> tuple[float, float]:
    """Points right on a sequence's settled frames after its opening, by the shipped reader and by the one
    learnt from the opening frame (the labelled field given)."""
    seq = SEQUENCES[name]
    frames = [f for f in sorted(seq["frames"], key=lambda f: f["order"]) if not f.get("partial")]
    field = np.array(seq["field"], np.float64)
    img = cv2.imread(str(DEFAULT_REAL / seq["folder"] / frames[0]["file"]))
    r = read_picture(img, field)
    adapter = adapt_to_picture(img, r.corners, r.fit.geometry(), frames[0]["top"], frames[0]["bottom"])
    profile = r.fit.geometry().field_shape()  # the board's, as its opening measured it (the observer keeps it)
    before = after = 0
    for f in frames[1:]:
        pic = cv2.imread(str(DEFAULT_REAL / seq["folder"] / f["file"]))
        before += frame_figures(to_json(read_picture(pic, field, profile=profile)), f)["points_right"]
        after += frame_figures(to_json(read_picture(pic, field, adapter=adapter, profile=profile)), f)["points_right"]
    n = 24 * (len(frames) - 1)
    return before / n, after / n


@needs_real
@pytest.mark.parametrize("name", sorted(SEQUENCES))
def test_the_pine_board_learnt_from_its_opening_reads_its_game(name):
    """Learnt from the opening frame, the game's later frames (stacks of 1, 4 and 6 that the opening never
    showed) read at least 95 % of points right. (Given a field a wall's height too large (the labels before
    2026-12-04), the shipped reader took the stained triangles for checkers, two thirds of points right, and
    learning mended it; given the floor it reads them right as shipped.)"""
    assert _game_read_before_and_after_learning(name)[1] >= 0.95


@needs_real
@pytest.mark.parametrize("name", sorted(SEQUENCES))
def test_learning_the_pine_board_loses_no_point_the_shipped_reader_had(name):
    """The opening shows no stack of 6: while every count competed in the fit, a 6 (looking like the 5s shown)
    was pushed down with them and seq_F's 6 on top point 5 read 7 in 4 frames (500 of 504 points against 504
    shipped); only the counts shown compete now (`vision.adapt.fit`)."""
    before, after = _game_read_before_and_after_learning(name)
    assert after >= before, (before, after)
