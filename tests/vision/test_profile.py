"""A board's profile: its bar's and points' shares of the playing field, measured from the picture
(vision.fieldfind._refine_shape, on the points' edge score), and the geometry the rectifier and readers
then use (BoardGeometry.with_field_shape). Rendered boards of other shapes (narrow and wide bars, short
points), the board state carrying the profile, and real boards whose narrow bar shifted the points beside
it."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from tests.bench.bench_real import DEFAULT_REAL, LABELS
from tests.cli.test_cli import bgscribe
from vision.fieldfind import given_field
from vision.geometry import BoardGeometry
from vision.still import read_picture
from vision.synth.rig import Rig
from vision.synth.stills import random_positions, random_scene
from vision.train.corners import EVAL_SEED0, HELD_OUT_SCHEMES

SHAPES = [{"bar_w": 20.0}, {"bar_w": 80.0}, {"bar_w": 35.0, "point_len": 165.0}]


def shaped(shape: dict, seed: int = 0):
    """A rendered board of this shape (held-out looks), its field's true corners and its scene."""
    rng = np.random.default_rng(seed)
    rig = Rig.build("standard", EVAL_SEED0 + 950 + seed, (1280, 720), schemes=HELD_OUT_SCHEMES, shape=shape)
    scene = random_scene(rng, rig, random_positions(rng, 1)[0]).with_(hands=())
    frame = rig.sensor.expose(rig.camera_image(scene)[0], 1.0, 0)
    x0, y0, x1, y1 = rig.geom.field()
    return frame, rig.to_image([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], scene.shift), rig, scene


def _shares(g: BoardGeometry) -> tuple[float, float]:
    return g.field_shape()[:2]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: ",".join(f"{k}={v:g}" for k, v in s.items()))
def test_board_shapes_measured_and_read(shape):
    frame, truth, rig, scene = shaped(shape)
    r = read_picture(frame, truth)
    bar, length = _shares(rig.geom)
    assert abs(r.fit.bar_frac - bar) < 0.01, (r.fit.bar_frac, bar)
    assert abs(r.fit.point_len - length) < 0.04, (r.fit.point_len, length)
    got = r.fit.geometry()
    assert abs(got.bar_w - rig.geom.bar_w) < 6.0 and got.point_w == BoardGeometry().point_w
    right = sum(tuple(s.best()) == tuple(int(v) for v in scene.counts[k]) for k, s in enumerate(r.slots[:24]))
    assert right >= 23, right


@pytest.mark.parametrize("seed", [0, 1])
def test_a_field_wide_for_its_height_is_read_at_its_own_height(seed):
    """A board whose field is half as wide again as it is high (a printed board's; 8 point widths high against the
    default's 10.5): mapped onto the default board's field its checkers stretch along the points and the rows read
    long (14 and 16 of 24 points right when written). The readers read it surest at about its own height
    (`vision.profilefit`), and right there."""
    from vision.profilefit import fit_height
    from vision.readers import default_readers

    frame, truth, rig, scene = shaped({"inner_h": 340.0, "point_len": 150.0}, seed)
    fit = given_field(frame, truth)
    fitted = fit_height(frame, fit, default_readers())
    assert fitted.height is not None and abs(fitted.height - rig.geom.field_shape()[2]) < 0.1, fitted.height

    def right(r) -> int:
        return sum(tuple(s.best()) == tuple(int(v) for v in scene.counts[k]) for k, s in enumerate(r.slots[:24]))

    assert right(read_picture(frame, truth, profile=(fit.bar_frac, fit.point_len))) <= 20  # the default's height
    r = read_picture(frame, truth)
    assert right(r) >= 23 and r.fit.height == fitted.height
    back = BoardGeometry().with_field_shape(*BoardGeometry().field_shape())
    assert back.inner_h == BoardGeometry().inner_h  # the default's own shares give the default board back


def test_geometry_of_a_field_shape():
    g = BoardGeometry().with_field_shape(*_shares(BoardGeometry()))
    assert abs(g.bar_w - 50.0) < 1.0 and abs(g.point_len - 190.0) < 2.5  # the default board, back
    assert BoardGeometry().with_field_shape(0.0, 0.4).bar_w == 6.0  # a board with no bar: a sliver
    assert BoardGeometry().with_field_shape(0.9, 0.9) == BoardGeometry().with_field_shape(0.2, 0.6)  # clipped
    # one board, one geometry (the readers cache their crop maps per geometry)
    assert BoardGeometry().with_field_shape(0.0501, 0.4301) == BoardGeometry().with_field_shape(0.0499, 0.4299)


def test_read_reports_the_profile_and_observe_keeps_it(tmp_path):
    from tests.clips import write_clip

    frame, truth, rig, _ = shaped(SHAPES[0])
    still = tmp_path / "board.png"
    cv2.imwrite(str(still), frame)
    field = " ".join(f"{x:.1f},{y:.1f}" for x, y in truth)
    p = bgscribe("read", str(still), "--field", field, "--json")
    assert p.returncode == 0, p.stderr
    prof = json.loads(p.stdout)["profile"]
    assert abs(prof["bar_frac"] - _shares(rig.geom)[0]) < 0.01 and prof["bar"] == "up-down"
    video = write_clip(tmp_path / "board.mp4", [frame], seconds=1.0, fps=5)
    state = tmp_path / "state.json"
    p = bgscribe("observe", str(video), "--out", str(tmp_path / "o.jsonl"), "--field", field,
                 "--board-state", str(state), "--quiet")
    assert p.returncode == 0, p.stderr
    kept = json.loads(state.read_text())["profile"]
    assert abs(kept[0] - _shares(rig.geom)[0]) < 0.01
    # `bgscribe read --board STATE`: the board's field and profile as its state keeps them
    p = bgscribe("read", str(still), "--board", str(state), "--json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["profile"]["bar_frac"] == kept[0] and np.abs(np.array(doc["field"]) - truth).max() < 1.0
    bad = tmp_path / "bad.json"
    bad.write_text('{"field": [[1, 2]]}')
    p = bgscribe("read", str(still), "--board", str(bad))
    assert p.returncode == 2 and "four corners" in p.stderr and "Traceback" not in p.stderr


@pytest.mark.skipif(not (DEFAULT_REAL.is_dir() and LABELS.exists()),
                    reason=f"the real pictures are not at {DEFAULT_REAL} (see ../shared/data/real/README.md)")
def test_real_narrow_bars_measured():
    """Phone photos of real boards (our labelled field corners): their bars are far narrower than the default
    board's (9 % of the field); measured so, the points beside the bar are read where they are."""
    labels = json.loads(LABELS.read_text())["pictures"]
    bars = []
    for rel in ("photos-jvitors23/3913.jpg", "photos-jvitors23/p40_20190821_122507.jpg"):
        img = cv2.imread(str(DEFAULT_REAL / rel))
        fit = given_field(img, np.array(labels[rel]["field"]))
        bars.append(fit.bar_frac)
    assert all(0.015 <= b <= 0.05 for b in bars), bars


@pytest.mark.skipif(not (DEFAULT_REAL.is_dir() and LABELS.exists()),
                    reason=f"the real pictures are not at {DEFAULT_REAL} (see ../shared/data/real/README.md)")
def test_real_printed_board_read_at_its_own_height():
    """A printed paper board's webcam frames (our labels, the field given): its field is half as wide again as it is
    high, and read at the default board's height its rows of 4 flat discs read 7 and 8 (254 of 384 points right);
    read at the height its points read surest, 374 when written."""
    from tests.bench.bench_real import point_figures
    from vision.still import to_json

    labels = json.loads(LABELS.read_text())["pictures"]
    right = total = 0
    for rel, lab in labels.items():
        if rel.startswith("webcam-printed-board/") and "top" in lab:
            r = read_picture(cv2.imread(str(DEFAULT_REAL / rel)), np.array(lab["field"], np.float64))
            right, total = right + point_figures(to_json(r), lab)[0], total + 24
    assert total == 384 and right >= 365, right


def test_trays_at_the_left_of_a_given_field(tmp_path):
    """A field's outline says nothing of the trays: on a board whose trays are at the left, the checkers
    borne off there are counted once they make the count of 15 come out (and the board state keeps the end)."""
    from tests.clips import write_clip
    from transcriber.observation import FrameObservation
    from vision.geometry import TRAY_BOTTOM, TRAY_TOP

    rig = Rig.build("standard", EVAL_SEED0 + 972, (1280, 720), schemes=HELD_OUT_SCHEMES)
    assert not rig.geom.trays_right
    rng = np.random.default_rng(2)
    scene = random_scene(rng, rig, random_positions(rng, 40)[7])  # a bear-off: 10 checkers in a tray
    borne = int(scene.counts[TRAY_TOP].sum() + scene.counts[TRAY_BOTTOM].sum())
    assert borne >= 4
    frame = rig.sensor.expose(rig.camera_image(scene.with_(hands=()))[0], 1.0, 0)
    x0, y0, x1, y1 = rig.geom.field()
    truth = rig.to_image([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], scene.shift)
    video = write_clip(tmp_path / "board.mp4", [frame], seconds=4.0, fps=5)
    out, state = tmp_path / "o.jsonl", tmp_path / "state.json"
    field = " ".join(f"{x:.1f},{y:.1f}" for x, y in truth)
    p = bgscribe("observe", str(video), "--out", str(out), "--field", field, "--board-state", str(state), "--quiet")
    assert p.returncode == 0, p.stderr
    read = [FrameObservation.from_json(line) for line in out.read_text().splitlines() if '"slots"' in line]
    last = [o for o in read if o.slots][-1]
    got = sum(sum(last.slots[k].best()) for k in (TRAY_TOP, TRAY_BOTTOM))
    assert got == borne, (got, borne)
    assert json.loads(state.read_text())["tray_counts"] < 0  # the checkers said: trays at the left
