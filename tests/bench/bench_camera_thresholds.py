"""How many camera pixels the vision stage needs per die and per checker (JSON figures).

    python tests/bench/bench_camera_thresholds.py [--boards 100] [--blur-boards 60] [--quick] [--target 0.995]

The thresholds in `hardware/README.md` and `vision/camplan.py` come from this benchmark.

Method. Boards are rendered by the simulator (`standard` profile: a decent tournament set-up,
a little off vertical, lens distortion, uneven light, some glare; all five colour schemes; rig
seeds from 60 000, never used for training) at 1600x900, so that a die is about 26 px across,
more than the readers' own 1.5 px/mm. Each board carries four dice (none cocked). The same lit
frame is then shrunk to each scale (``--scales``, INTER_AREA: what a lower-resolution sensor at
the same place sees), and only then are sensor noise (the rig's sigma) and JPEG at quality
``--jpeg`` added, at the shrunk size. Each shrunk frame is rectified with the board's true
corners plus N(0, ``--corner-noise-mm``) of noise per corner coordinate (a calibration error in
millimetres, the same at every scale, so the figures isolate the readers) and read with the
shipped models (`vision.readers.Readers`). Scored as in `vision.train.readers_eval`:

* ``px_per_die``: the die's edge in camera pixels, measured per die by projecting it through the
  rig's camera (so tilt and lens distortion count); mean and 5th percentile per scale.
  ``px_per_pip`` = 0.18 x that (the pip diameter on the simulator's and a standard 16 mm die);
  ``px_per_checker`` the checker diameter the same way;
* ``dice_value_acc`` (value right among dice found), ``dice_recall`` (dice found within 12 mm),
  ``point_acc`` (checker count right per point), ``slot_acc`` (points, bar and trays);
* ``calibration``: the corner locator (`vision.calibrate.BoardLocator`) run on the shrunk frame:
  share of boards located (quality >= 0.5) with every corner within 5 mm of the truth, and the
  median worst-corner error in mm.

Blur sweep: the first ``--blur-boards`` boards are also read at 1280x720 and 1024x576 with a Gaussian
blur (sigma ``BLURS`` px) added before the noise, and ``edge_width_px`` / ``_mm`` is the set-up check's
sharpness measure (`vision.camcheck.edge_width`: median 10-90 % rise of the strongest edges on the
board, in camera pixels, and in board millimetres at that resolution).

``thresholds``: going from the largest scale down, the smallest ``px_per_die`` (mean) at which
dice value accuracy is still >= ``--target`` at that scale and every larger one, and the first
scale where it falls below; the same for the checker counts (``point_acc`` >= ``--target``) and
for dice found (recall within 2 points of the largest scale's); per blur resolution, the widest
edge at which dice values and checker counts are still >= ``--target``. ``--quick`` (CI): 12 boards,
three scales, two blurs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from vision.calibrate import BoardLocator  # noqa: E402
from vision.camcheck import edge_width  # noqa: E402
from vision.camplan import PIP_FRACTION  # noqa: E402
from vision.readers import Readers  # noqa: E402
from vision.rectify import homography, rectify  # noqa: E402
from vision.synth.rig import Rig  # noqa: E402
from vision.synth.scene import Die, stack_under  # noqa: E402
from vision.train.readers_data import Frame, sample_scene  # noqa: E402
from vision.train.readers_eval import _Acc  # noqa: E402

BASE = (1600, 900)
SCALES = (1.0, 0.8, 0.64, 0.57, 0.5, 0.42, 0.36, 0.3, 0.25)
QUICK_SCALES = (1.0, 0.5, 0.3)
BLURS = (0.0, 0.75, 1.25, 1.75, 2.5)  # Gaussian sigma, px of the shrunk frame
BLUR_SCALES = (0.8, 0.64)  # 1280x720 and 1024x576
QUICK_BLURS = (0.0, 2.5)
RIG_SEED0 = 60_000
PER_RIG = 4
DICE = 4
DIE_MM = 16.0  # BoardGeometry.die_size on every rig


def four_dice(rng: np.random.Generator, rig: Rig, counts: np.ndarray) -> tuple[Die, ...]:
    """DICE uncocked dice, half in a roller's right half (as thrown), half anywhere on the field."""
    g = rig.geom
    fx0, fy0, fx1, fy1 = g.field()
    bx0, _, bx1, _ = g.bar_rect()
    dice: list[Die] = []
    while len(dice) < DICE:
        if len(dice) < DICE // 2:
            x0, y0, x1, y1 = g.right_half(bool(rng.random() < 0.5))
        else:
            a, b = (fx0, bx0) if rng.random() < 0.5 else (bx1, fx1)
            x0, y0, x1, y1 = a + 12, fy0 + 12, b - 12, fy1 - 12
        x, y = float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))
        if any((x - d.x) ** 2 + (y - d.y) ** 2 < 26.0**2 for d in dice):
            continue
        h = stack_under(counts, g, x, y)
        dice.append(Die(int(rng.integers(1, 7)), x, y, float(rng.uniform(0, 360)), on_checker=h is not None,
                        z=h or 0.0, owner=int(rng.integers(2))))
    return tuple(dice)


def projected_size(rig: Rig, x: float, y: float, size_mm: float, shift, z: float = 0.0) -> float:
    """Mean edge (px, base resolution) of a size_mm square centred at board (x, y) seen by the camera."""
    h = size_mm / 2
    uv = rig.to_image([[x - h, y], [x + h, y], [x, y - h], [x, y + h]], shift, z)
    return float((np.hypot(*(uv[1] - uv[0])) + np.hypot(*(uv[3] - uv[2]))) / 2)


class Level:
    """Figures of one scale (and blur)."""

    def __init__(self, scale: float, blur: float = 0.0):
        self.scale, self.blur = scale, blur
        self.widths: list[float] = []
        self.acc = _Acc()
        self.die_px: list[float] = []
        self.checker_px: list[float] = []
        self.cal_ok: list[bool] = []
        self.cal_err_mm: list[float] = []

    def result(self, size: tuple[int, int]) -> dict:
        r = self.acc.result()
        die = np.array(self.die_px)
        return {
            "scale": self.scale, "size": f"{size[0]}x{size[1]}", "blur_sigma_px": self.blur, "boards": r["frames"],
            "edge_width_px": round(float(np.median(self.widths)), 2) if self.widths else None,
            "edge_width_mm": round(float(np.median(self.widths)) / (float(die.mean()) / DIE_MM), 2)
            if self.widths else None,
            "px_per_die": round(float(die.mean()), 2), "px_per_die_p5": round(float(np.percentile(die, 5)), 2),
            "px_per_pip": round(float(die.mean()) * PIP_FRACTION, 2),
            "px_per_checker": round(float(np.mean(self.checker_px)), 1),
            "dice": r["dice"], "dice_recall": r["dice_recall"], "dice_value_acc": r["dice_value_acc"],
            "dice_false_per_frame": r["dice_false_per_frame"], "point_acc": r["point_acc"],
            "slot_acc": r["slot_acc"], "cube_value_acc": r["cube_value_acc"],
            "calibration": None if not self.cal_ok else {
                "located": round(float(np.mean(self.cal_ok)), 4),
                "median_err_mm": round(float(np.median(self.cal_err_mm)), 2)},
        }


def size_of(scale: float) -> tuple[int, int]:
    return int(round(BASE[0] * scale)) // 2 * 2, int(round(BASE[1] * scale)) // 2 * 2


def run(boards: int, scales: tuple[float, ...], jpeg: int, corner_noise_mm: float, seed: int,
        blurs: tuple[float, ...] = (), blur_scales: tuple[float, ...] = (), blur_boards: int = 0,
        ) -> tuple[list[dict], list[dict]]:
    """Every board read at every scale (sharp); the first ``blur_boards`` also at every (blur scale, blur)."""
    readers = Readers()
    locator = BoardLocator(threads=2)
    levels = [Level(s) for s in scales]
    blurred = [Level(s, b) for s in blur_scales for b in blurs]
    rng = np.random.default_rng([seed, 77])
    rig: Rig | None = None
    for i in range(boards):
        if i % PER_RIG == 0:
            rig = Rig.build("standard", RIG_SEED0 + 1000 * seed + i // PER_RIG, BASE)
        assert rig is not None
        scene = sample_scene(rng, rig, max_dice=0)
        scene = scene.with_(dice=four_dice(rng, rig, scene.counts))
        lit, drawn = rig.camera_image(scene)
        true = rig.corners(scene.shift)
        die_px = [projected_size(rig, d.x, d.y, rig.geom.die_size, scene.shift, d.z) for d in scene.dice]
        chk_px = projected_size(rig, 0.0, 0.0, rig.geom.checker_d, scene.shift)
        px_per_mm = float(np.linalg.norm(true[1] - true[0])) / rig.geom.width
        for lv in levels + (blurred if i < blur_boards else []):
            s = lv.scale
            size = size_of(s)
            img = cv2.resize(lit, size, interpolation=cv2.INTER_AREA) if s != 1.0 else lit.copy()
            if lv.blur > 0:
                img = cv2.GaussianBlur(img, (0, 0), lv.blur)
            if rig.sensor.noise_sigma > 0:
                noise = rng.normal(0, rig.sensor.noise_sigma, img.shape).astype(np.int16)
                img = cv2.add(img, noise, dtype=cv2.CV_8U)
            _, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, jpeg])
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
            sx, sy = size[0] / BASE[0], size[1] / BASE[1]
            corners = true * [sx, sy] + rng.normal(0, corner_noise_mm * px_per_mm * s, (4, 2))
            H = homography(corners, rig.geom)
            rect = rectify(img, H, rig.geom)
            slots, dice, cube = readers.read_board(rect, rig.geom)
            cv = rig.painter.canvas
            dice_rect = []
            for die, px, py, _ in drawn["dice"]:
                uv = rig.to_image([[px / cv.scale + cv.x0, py / cv.scale + cv.y0]], scene.shift) * [sx, sy]
                r = cv2.perspectiveTransform(uv.reshape(1, 1, 2).astype(np.float64), H)[0, 0]
                dice_rect.append((die, float(r[0]), float(r[1])))
            lv.acc.add(Frame(rect, rig.geom, scene, dice_rect), slots, dice, cube)
            lv.die_px += [p * s for p in die_px]
            lv.checker_px.append(chk_px * s)
            if lv.blur > 0 or s in blur_scales:  # camcheck's sharpness measure, on the board
                mask = np.zeros(img.shape[:2], np.uint8)
                cv2.fillConvexPoly(mask, np.round(true * [sx, sy]).astype(np.int32), 255)
                width = edge_width(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), mask)
                if width is not None:
                    lv.widths.append(width)
            if lv.blur == 0:
                cal = locator.locate(img)
                err_mm = float(np.abs(cal.corners - true * [sx, sy]).max()) / (px_per_mm * s)
                lv.cal_ok.append(bool(cal.ok and err_mm <= 5.0))
                lv.cal_err_mm.append(err_mm)
        if (i + 1) % 10 == 0 or i == boards - 1:
            sys.stderr.write(f"\rboards {i + 1}/{boards}")
            sys.stderr.flush()
    sys.stderr.write("\n")
    return [lv.result(size_of(lv.scale)) for lv in levels], [lv.result(size_of(lv.scale)) for lv in blurred]


def threshold(levels: list[dict], ok, what: str) -> dict:
    """Walk from the most pixels down; the last level where ``ok`` still holds (and held above)."""
    last_ok, first_bad = None, None
    for lv in sorted(levels, key=lambda v: -v["px_per_die"]):
        if ok(lv):
            last_ok = lv
        else:
            first_bad = lv
            break
    return {"criterion": what,
            "min_px_per_die": None if last_ok is None else last_ok["px_per_die"],
            "min_px_per_checker": None if last_ok is None else last_ok["px_per_checker"],
            "holds_down_to_size": None if last_ok is None else last_ok["size"],
            "fails_at_px_per_die": None if first_bad is None else first_bad["px_per_die"],
            "fails_at_size": None if first_bad is None else first_bad["size"]}


def blur_threshold(levels: list[dict], target: float) -> dict:
    """At one resolution: the widest edge (camcheck's measure) at which dice values are still >= target."""
    last_ok, first_bad = None, None
    for lv in sorted(levels, key=lambda v: v["blur_sigma_px"]):
        if (lv["dice_value_acc"] or 0) >= target and (lv["point_acc"] or 0) >= target:
            last_ok = lv
        else:
            first_bad = lv
            break
    return {"size": levels[0]["size"] if levels else None, "px_per_die": levels[0]["px_per_die"] if levels else None,
            "criterion": f"dice_value_acc and point_acc >= {target}",
            "max_edge_width_px": None if last_ok is None else last_ok["edge_width_px"],
            "max_edge_width_mm": None if last_ok is None else last_ok["edge_width_mm"],
            "max_blur_sigma_px": None if last_ok is None else last_ok["blur_sigma_px"],
            "fails_at_edge_width_px": None if first_bad is None else first_bad["edge_width_px"],
            "fails_at_edge_width_mm": None if first_bad is None else first_bad["edge_width_mm"],
            "fails_at_blur_sigma_px": None if first_bad is None else first_bad["blur_sigma_px"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=100, help="boards rendered, each read at every scale (default 100)")
    ap.add_argument("--scales", type=float, nargs="+", default=list(SCALES),
                    help=f"fractions of {BASE[0]}x{BASE[1]} (default: %(default)s)")
    ap.add_argument("--target", type=float, default=0.995, help="accuracy target (default 0.995)")
    ap.add_argument("--jpeg", type=int, default=75, help="JPEG quality after shrinking (default 75)")
    ap.add_argument("--corner-noise-mm", type=float, default=1.5,
                    help="calibration error, mm per corner coordinate (default 1.5)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--blur-boards", type=int, default=60,
                    help="the first N boards are also read blurred (default 60; 0 skips the blur sweep)")
    ap.add_argument("--quick", action="store_true", help="12 boards, 3 scales, 2 blurs (CI)")
    args = ap.parse_args()
    boards, scales = (12, QUICK_SCALES) if args.quick else (args.boards, tuple(args.scales))
    blurs = QUICK_BLURS if args.quick else BLURS
    blur_scales = BLUR_SCALES[:1] if args.quick else BLUR_SCALES
    blur_boards = min(boards, 12 if args.quick else args.blur_boards)
    if blur_boards == 0:
        blurs, blur_scales = (), ()
    t = time.perf_counter()
    levels, blurred = run(boards, scales, args.jpeg, args.corner_noise_mm, args.seed, blurs, blur_scales,
                          blur_boards)
    best = max(levels, key=lambda v: v["px_per_die"])
    target = args.target
    out = {
        "profile": "standard", "base_size": f"{BASE[0]}x{BASE[1]}", "boards": boards, "blur_boards": blur_boards,
        "dice_per_board": DICE,
        "jpeg": args.jpeg, "corner_noise_mm": args.corner_noise_mm, "target": target, "levels": levels,
        "blur": blurred,
        "thresholds": {
            "dice_value": threshold(levels, lambda v: (v["dice_value_acc"] or 0) >= target,
                                    f"dice_value_acc >= {target}"),
            "dice_found": threshold(levels, lambda v: (v["dice_recall"] or 0) >= (best["dice_recall"] or 0) - 0.02,
                                    "dice_recall within 0.02 of the largest scale's"),
            "checkers": threshold(levels, lambda v: (v["point_acc"] or 0) >= target, f"point_acc >= {target}"),
            "blur": [blur_threshold([b for b in blurred if b["scale"] == s], target) for s in blur_scales],
        },
        "seconds": round(time.perf_counter() - t, 1),
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
