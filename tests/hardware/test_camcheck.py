"""`vision.camcheck.grade` on rendered boards: a good set-up passes, each fault fails for its own reason."""

from __future__ import annotations

import numpy as np
import pytest

from vision.calibrate import BoardLocator
from vision.camcheck import grade
from vision.camplan import MIN_PX_PER_DIE

from .scenes import GOOD_SEED, blurred, board_frames, dark, glared


@pytest.fixture(scope="module")
def locator():
    return BoardLocator()


@pytest.fixture(scope="module")
def good():
    return board_frames(GOOD_SEED)


def test_good_setup_passes(good, locator):
    rig, frames = good
    g = grade(frames, 15.0, locator=locator)
    assert g.passed, g.format()
    assert all(c.status == "pass" for c in g.checks), g.format()
    res = g.check("resolution").values
    # the grade's pixels per die agree with the simulated camera's (the die's edge projected at the board's centre)
    h = rig.geom.die_size / 2
    uv = rig.to_image([[-h, 0], [h, 0]])
    true_ppd = float(np.hypot(*(uv[1] - uv[0])))
    assert res["px_per_die"] == pytest.approx(true_ppd, rel=0.08)
    assert np.abs(g.corners - rig.corners()).max() < 12
    d = g.as_dict()
    assert d["passed"] and d["failed"] == [] and len(d["checks"]) == 6


def test_one_still_grades_without_frame_rate(good, locator):
    """The server grades a preview still the same way."""
    _, frames = good
    g = grade(frames[:1], locator=locator)
    assert g.passed, g.format()
    assert g.check("frame_rate").status == "skip"


def test_blurred_camera_fails_sharpness_only(good, locator):
    _, frames = good
    g = grade(blurred(frames, 2.5), 15.0, locator=locator)
    assert g.failed() == ["sharpness"], g.format()
    assert "focus" in g.check("sharpness").message


def test_dark_picture_fails_exposure(good, locator):
    _, frames = good
    g = grade(dark(frames), 15.0, locator=locator)
    assert "exposure" in g.failed(), g.format()
    assert g.check("exposure").message.startswith("too dark")
    assert "glare" not in g.failed() and "sharpness" not in g.failed()


@pytest.mark.parametrize("x_mm, half", [(170.0, "right"), (-170.0, "left")])
def test_glare_fails_and_says_which_half(good, locator, x_mm, half):
    rig, frames = good
    g = grade(glared(frames, rig, (x_mm, -60.0)), 15.0, locator=locator)
    assert "glare" in g.failed(), g.format()
    c = g.check("glare")
    assert f"glare on the {half} half" in c.message
    assert c.values["where"]["half"] == half and c.values["where"]["side"] == "top"
    assert "exposure" not in g.failed()


def test_board_cut_off_at_the_left(locator):
    _, frames = board_frames(GOOD_SEED, cam_x=250.0)  # camera 25 cm too far right: the board's left end is lost
    g = grade(frames, 15.0, locator=locator)
    assert "board" in g.failed(), g.format()
    msg = g.check("board").message
    assert "left edge" in msg and "move the camera" in msg


def test_camera_too_high_fails_resolution(good, locator):
    rig, _ = good
    _, frames = board_frames(GOOD_SEED, cam_h=rig.pose.cam_h * 1.9)
    g = grade(frames, 15.0, locator=locator)
    assert "resolution" in g.failed(), g.format()
    assert g.check("resolution").values["px_per_die"] < MIN_PX_PER_DIE
    assert "lower the camera" in g.check("resolution").message
    assert "board" not in g.failed()


def test_tilted_camera_is_flagged(good, locator):
    rig, _ = good
    _, frames = board_frames(GOOD_SEED, tilt_x=14.0, cam_y=-rig.pose.cam_h * np.tan(np.radians(14.0)))
    g = grade(frames, 15.0, locator=locator)
    c = g.check("board")
    assert c.status in ("warn", "fail") and "tilted" in c.message, g.format()


def test_low_frame_rate_fails(good, locator):
    _, frames = good
    g = grade(frames, 6.0, locator=locator)
    assert g.failed() == ["frame_rate"], g.format()


def test_no_frames_is_an_error(locator):
    with pytest.raises(ValueError):
        grade([], locator=locator)


def test_corner_markers_are_reported(good, locator):
    """Markers from the printed sheet stuck beside the board show up in the board check's values."""
    import cv2

    from vision.markers import sheet

    rig, frames = good
    page = sheet(dpi=150)
    # marker 0 with its white border (the sheet's 40-100 x 46-106 mm) as the camera sees it (1.2 px/mm),
    # laid on the table just left of the board's top-left corner
    marker = page[int(46 / 25.4 * 150):int(106 / 25.4 * 150), int(40 / 25.4 * 150):int(100 / 25.4 * 150)]
    small = cv2.resize(marker, None, fx=1.2 * 25.4 / 150, fy=1.2 * 25.4 / 150, interpolation=cv2.INTER_AREA)
    x, y = (int(v) for v in rig.corners()[0])
    h, w = small.shape
    assert x - w - 6 >= 0
    pasted = []
    for f in frames:
        f = f.copy()
        f[y:y + h, x - w - 6:x - 6] = small[..., None]
        pasted.append(f)
    g = grade(pasted, 15.0, locator=locator)
    assert g.check("board").values["markers"] == [0], g.format()
    assert grade(frames, 15.0, locator=locator).check("board").values["markers"] == []
