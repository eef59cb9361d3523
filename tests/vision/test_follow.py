"""Following a confirmed field through bumps (vision/follow.py, the tracker, the board state): rendered boards
under a known bump, the corner markers, no false moves; and, where ../shared/data/real is present, real
pictures of real play under a known bump (the figures of tests/bench/bench_real.py's "follow")."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from tests.bench.bench_real import DEFAULT_REAL, LABELS, bench_follow, corner_error
from tests.cli.test_cli import bgscribe
from vision.calibrate import Calibration
from vision.follow import Anchor, same_corners
from vision.synth.stills import random_positions, random_scene

from .test_fieldfind import rendered

BUMP = np.array([[0.9995, -0.026, 14.0], [0.026, 0.9995, -9.0], [0.0, 0.0, 1.0]])  # 1.5 degrees, 14 px, 9 px


def _gray(img):
    return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)


def _bumped(img, H=BUMP):
    return cv2.warpPerspective(img, H, (img.shape[1], img.shape[0]), borderMode=cv2.BORDER_REPLICATE)


def _moved(corners, H=BUMP):
    return cv2.perspectiveTransform(np.float32(corners)[None], H)[0].astype(np.float64)


@pytest.fixture(scope="module")
def board():
    frame, truth, rig, scene = rendered(2)
    # the same board a few plays later: other checkers, same camera
    rng = np.random.default_rng(7)
    later_scene = random_scene(rng, rig, random_positions(rng, 1)[0]).with_(hands=(), shift=scene.shift)
    lit, _ = rig.camera_image(later_scene)
    return frame, truth, rig.sensor.expose(lit, 1.0, 1), later_scene


def test_a_bump_is_followed_and_a_still_camera_is_not_moved(board):
    frame, truth, later, _ = board
    a = Anchor.take(_gray(frame), truth)
    assert a is not None
    assert a.follow(_gray(later)) is None  # checkers moved, camera still: no move
    got = a.follow(_gray(_bumped(later)))
    assert got is not None and corner_error(got, _moved(truth)) < 0.005
    # once followed, the same picture is no further move; a jump far beyond a bump is not followed
    assert a.follow(_gray(_bumped(later)), got) is None
    far = np.array([[1, 0, 300.0], [0, 1, 0], [0, 0, 1]])
    assert a.follow(_gray(_bumped(later, far))) is None


def _with_markers(img):
    """The four corner markers stuck on the table near the picture's corners (as the kit's sheet is used)."""
    out = img.copy()
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    h, w = img.shape[:2]
    for k, (x, y) in enumerate([(30, 24), (w - 102, 24), (w - 102, h - 96), (30, h - 96)]):
        m = cv2.aruco.generateImageMarker(d, k, 48)
        tile = np.full((72, 72), 255, np.uint8)
        tile[12:60, 12:60] = m
        out[y:y + 72, x:x + 72] = tile[..., None]
    return out


def test_markers_lock_the_field_when_the_board_is_hidden(board):
    """With hands all over the board after a bump, its own features say nothing; the markers beside it still
    place the field. Without markers the tracker keeps what it had (None: no move)."""
    frame, truth, later, _ = board
    rng = np.random.default_rng(3)
    for marked in (True, False):
        ref = _with_markers(frame) if marked else frame
        a = Anchor.take(_gray(ref), truth)
        assert sorted(a.markers) == ([0, 1, 2, 3] if marked else [])
        bumped = _bumped(_with_markers(later) if marked else later)
        grown = np.int32(_moved(truth).mean(0) + (_moved(truth) - _moved(truth).mean(0)) * 1.2)
        mask = np.zeros(bumped.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, grown, 255)
        bumped[mask > 0] = rng.integers(0, 255, (int((mask > 0).sum()), 3), dtype=np.uint8)
        got = a.follow(_gray(bumped))
        if marked:
            assert got is not None and corner_error(got, _moved(truth)) < 0.005
        else:
            assert got is None


def test_anchor_round_trips_through_json(board):
    frame, truth, _, _ = board
    a = Anchor.take(_gray(_with_markers(frame)), truth)
    b = Anchor.from_json(json.loads(json.dumps(a.to_json())))
    assert np.array_equal(a.points, b.points) and np.array_equal(a.descriptors, b.descriptors)
    assert same_corners(a.field, b.field, 0.01) and sorted(b.markers) == [0, 1, 2, 3]
    assert same_corners(truth[::-1], truth) and not same_corners(truth + 5, truth)
    bad = {**a.to_json(), "points": a.to_json()["points"][:-8]}
    with pytest.raises(ValueError):
        Anchor.from_json(bad)


def test_observe_follows_a_bump_and_the_next_segment_keeps_it(tmp_path, board):
    """`bgscribe observe --field`: the camera is knocked halfway through; once the board settles every frame
    is read through the moved corners. The next segment (board state, same --field as the server passes
    again) starts from the bump, not from the corners as first given."""
    from tests.clips import write_clip
    from transcriber.observation import FrameObservation

    frame, truth, later, later_scene = board
    bumped = _bumped(later)
    video = write_clip(tmp_path / "bump.mp4", [frame] * 15 + [bumped] * 45, seconds=6.0, fps=10)
    state, out = tmp_path / "board_state.json", tmp_path / "obs.jsonl"
    field = " ".join(f"{x:.1f},{y:.1f}" for x, y in truth)
    p = bgscribe("observe", str(video), "--out", str(out), "--field", field, "--board-state", str(state), "--quiet")
    assert p.returncode == 0, p.stderr
    obs = [FrameObservation.from_json(line) for line in out.read_text().splitlines()]
    want = Calibration.from_field(_moved(truth), 1.0).corners
    first = Calibration.from_field(truth, 1.0).corners
    assert np.abs(np.array(obs[5].corners) - first).max() < 1.0  # before the bump: as given
    assert np.abs(np.array(obs[-1].corners) - want).max() < 4.0  # after it: followed
    read = [o for o in obs[-20:] if o.slots][-1]
    right = sum(tuple(s.best()) == tuple(int(v) for v in later_scene.counts[k]) for k, s in enumerate(read.slots[:24]))
    assert right >= 23
    kept = json.loads(state.read_text())
    assert same_corners(kept["field"], truth, 0.1) and not same_corners(kept["field_now"], truth, 2.0)
    assert kept["anchor"]["descriptors"]
    assert len(kept["profile"]) == 3  # the bar's, the points' and the height's shares
    kept["profile"][2] = round(kept["profile"][2] + 0.03, 4)  # the board's own, as a segment before measured it
    state.write_text(json.dumps(kept))
    video2 = write_clip(tmp_path / "next.mp4", [bumped] * 20, seconds=2.0, fps=10)
    p = bgscribe("observe", str(video2), "--out", str(out), "--field", field, "--board-state", str(state), "--quiet")
    assert p.returncode == 0, p.stderr
    obs2 = [FrameObservation.from_json(line) for line in out.read_text().splitlines()]
    assert np.abs(np.array(obs2[0].corners) - want).max() < 4.0
    again = json.loads(state.read_text())["profile"]  # kept across segments, not measured afresh (to the millimetre)
    assert again[:2] == kept["profile"][:2] and abs(again[2] - kept["profile"][2]) < 0.001, (again, kept["profile"])


@pytest.mark.skipif(not (DEFAULT_REAL.is_dir() and LABELS.exists()),
                    reason=f"the real pictures are not at {DEFAULT_REAL} (see ../shared/data/real/README.md)")
def test_real_play_followed_through_bumps():
    """Real frames of real play (the pine board's sequences: checkers moved, hands), anchored on one frame,
    a later one bumped by a known homography: followed within 1.5 % of the field's diagonal, and never moved
    when the camera stayed put."""
    labels = json.loads(LABELS.read_text())["pictures"]
    got = bench_follow(DEFAULT_REAL, labels, pairs=12)
    assert got["bumped"]["within_1.5%"] >= 11, got
    assert got["still"]["moved"] == 0, got
