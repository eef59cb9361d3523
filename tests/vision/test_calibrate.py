"""Finding the board: the shipped corner model on boards and cameras it was not trained on."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.calibrate import BoardLocator, Calibration, Tracker, refine
from vision.geometry import BoardGeometry
from vision.observe import Observer, trays_on_right
from vision.readers import read_slots
from vision.rectify import board_to_rect, homography, rectify
from vision.synth.rig import Rig
from vision.synth.stills import random_positions, random_scene
from vision.train.corners import EVAL_SEED0, HELD_OUT_SCHEMES


@pytest.fixture(scope="module")
def locator() -> BoardLocator:
    return BoardLocator()


def held_out_frames(n: int, profile: str, seed: int = 0, schemes: list[str] | None = None,
                    cards: bool | None = None):
    """Frames of the held-out colour scheme (or these) from seeds the model never saw, with true corners;
    ``cards``: only boards of random looks with (True) or without (False) score cards against their ends."""
    rng = np.random.default_rng(seed)
    positions = random_positions(rng, n)
    out = []
    i = 0
    while len(out) < n:
        rig = Rig.build(profile, EVAL_SEED0 + 500 + seed * 100 + i, (1280, 720), schemes=schemes or HELD_OUT_SCHEMES)
        i += 1
        if cards is not None and (rig.painter.style.end_cards is not None) != cards:
            continue
        scene = random_scene(rng, rig, positions[len(out)]).with_(hands=())
        lit, _ = rig.camera_image(scene)
        out.append((rig.sensor.expose(lit, 1.0, len(out)), rig.corners(scene.shift), rig))
    return out


@pytest.mark.parametrize("profile", ["standard", "hard"])
def test_corners_found_on_unseen_boards(locator, profile):
    errors = []
    for frame, truth, _ in held_out_frames(12, profile):
        cal = locator.locate(frame)
        errors.append(float(np.linalg.norm(cal.corners - truth, axis=1).max()))
    errors = np.array(errors)
    limit = 8.0 if profile == "standard" else 14.0
    assert np.median(errors) < limit / 2, errors
    assert (errors < limit).mean() >= 0.9, errors


def test_corners_found_on_boards_of_random_looks(locator):
    """Boards in looks drawn at random (field, frame, points, checkers), on seeds never trained on: most are
    found as on the named schemes (a frame the colour of the table is the hard case). Score cards against the
    board's ends (random looks since data version 13, after the locator was trained) are the next test's."""
    errors = np.array([float(np.linalg.norm(locator.locate(frame).corners - truth, axis=1).max())
                       for frame, truth, _ in held_out_frames(12, "standard", seed=5, schemes=["random"],
                                                              cards=False)])
    assert np.median(errors) < 4.0, errors
    assert (errors < 8.0).mean() >= 0.75, errors


@pytest.mark.xfail(strict=True, reason="score cards against a board's end still pull the outline locator's corners: "
                   "retrained with them (2026-12-07) the median is 7.3 px (13.2 before), not under 4 as without cards")
def test_corners_found_on_boards_with_score_cards_against_their_ends(locator):
    errors = np.array([float(np.linalg.norm(locator.locate(frame).corners - truth, axis=1).max())
                       for frame, truth, _ in held_out_frames(12, "standard", seed=5, schemes=["random"],
                                                              cards=True)])
    assert np.median(errors) < 4.0, errors
    assert (errors < 8.0).mean() >= 0.75, errors


def test_refinement_tightens_rough_corners():
    frame, truth, _ = held_out_frames(1, "standard", seed=3)[0]
    rough = truth + np.random.default_rng(1).normal(0, 3, truth.shape)
    refined, quality = refine(frame, rough)
    assert refined is not None and quality > 0.5
    assert np.abs(refined - truth).max() < np.abs(rough - truth).max()


def test_tracker_follows_a_bumped_board(locator):
    rig = Rig.build("standard", EVAL_SEED0 + 77, (1280, 720), schemes=HELD_OUT_SCHEMES)
    rng = np.random.default_rng(4)
    scene = random_scene(rng, rig, random_positions(rng, 1)[0]).with_(hands=(), shift=(0.0, 0.0, 0.0))
    tracker = Tracker(locator, recheck_every=1)
    frame = rig.sensor.expose(rig.camera_image(scene)[0], 0.0, 0)
    for _ in range(3):
        cal = tracker.update(frame, quiet=True)
    assert np.linalg.norm(cal.corners - rig.corners(scene.shift), axis=1).max() < 8
    bumped = scene.with_(shift=(12.0, -6.0, 1.5))
    frame = rig.sensor.expose(rig.camera_image(bumped)[0], 1.0, 1)
    for _ in range(3):
        cal = tracker.update(frame, quiet=True)
    assert np.linalg.norm(cal.corners - rig.corners(bumped.shift), axis=1).max() < 8
    assert tracker.relocations >= 2


def test_tray_side_found_from_the_picture():
    right = 0
    frames = held_out_frames(10, "standard", seed=5)
    for frame, truth, rig in frames:
        g = BoardGeometry()
        right += trays_on_right(rectify(frame, homography(truth, g), g)) == rig.geom.trays_right
    assert right == len(frames)


def test_one_frame_with_the_bar_hidden_does_not_flip_the_tray_side(locator):
    """A frame whose bar looks busy (an arm across it, the board being set up) once flipped the tray side,
    and every slot was read in the mirror: the side is voted over the reads."""
    frame, truth, rig = held_out_frames(1, "standard", seed=7)[0]
    obs = Observer(15.0, locator=locator, reader=lambda rect, geom, **kw: (None, [], None))
    cal = Calibration(truth, 1.0, True)
    for _ in range(5):
        assert obs._rectify(frame, cal)[1].trays_right == rig.geom.trays_right
    busy = _busy_bar(frame, truth, rig)
    g = BoardGeometry()
    assert trays_on_right(rectify(busy, homography(truth, g), g)) != rig.geom.trays_right  # alone: fooled
    assert obs._rectify(busy, cal)[1].trays_right == rig.geom.trays_right


def _busy_bar(frame, truth, rig):
    """The frame with vertical stripes over the bar: as busy as the field, it looks like no bar."""
    g = BoardGeometry()
    rect = rectify(frame, homography(truth, g), g)
    x0, y0, x1, y1 = rig.geom.bar_rect()
    (a, b), (c, d) = board_to_rect([[x0, y0], [x1, y1]], rig.geom)
    rect[int(b):int(d), int(a):int(c)] = 0
    rect[int(b):int(d), int(a):int(c):2] = 255
    return cv2.warpPerspective(rect, np.linalg.inv(homography(truth, g)), (frame.shape[1], frame.shape[0]),
                               dst=frame.copy(), borderMode=cv2.BORDER_TRANSPARENT)


def _busy_bar_sides(locator, reads: int = 12) -> list[tuple[list[bool], bool]]:
    """Three held-out frames with a striped bar, each read ``reads`` times by a fresh observer: the tray side it
    took at each read, and the true one."""
    out = []
    for frame, truth, rig in held_out_frames(3, "standard", seed=9):
        busy = _busy_bar(frame, truth, rig)
        obs = Observer(15.0, locator=locator, reader=lambda rect, geom, **kw: (None, [], None),
                       slot_reader=read_slots)
        cal = Calibration(truth, 1.0, True)
        out.append(([obs._rectify(busy, cal)[1].trays_right for _ in range(reads)], rig.geom.trays_right))
        assert obs._reads == reads
    return out


def test_the_checkers_tell_the_tray_end_where_the_picture_cannot(locator):
    """A bar as busy as the field (a loud wood grain) fools the picture in every frame, from the first (a
    garish generated board was read with its trays at the wrong end for a whole match: 0 plays right). Read
    with the trays at the wrong end, the slots do not hold 15 checkers of each colour: that decides, from the
    first read (the bar reader of the morning of 2026-12-07 left the first read of one frame 1.9 checkers of
    evidence, under the 2.0 that outweighs the fooled picture; its map along the bar, that evening, does not)."""
    for sides, right in _busy_bar_sides(locator):
        assert sides == [right] * 12, sides


def test_black_and_corrupt_frames_say_so(locator):
    obs = Observer(15.0, locator=locator, reader=lambda rect, geom, **kw: (None, [], None))
    black = obs.observe(0, 0.0, np.zeros((720, 1280, 3), np.uint8))
    assert black.status == "black"
    assert obs.observe(1, 0.07, None).status == "corrupt"
    noise = np.random.default_rng(0).integers(0, 255, (720, 1280, 3), dtype=np.uint8)
    assert obs.observe(2, 0.13, noise).status in ("no_board", "moving")
