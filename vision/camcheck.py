"""Grade a board camera from a few seconds of its frames: can the vision stage read this board?

`grade(frames, fps)` takes decoded frames (numpy BGR, the same camera and board; one still works
too) and checks, each with pass / warn / fail and what to do about it:

* ``board``: the whole board is in the picture, found and calibrated (`vision.calibrate.BoardLocator`),
  not cut off at an edge, with room round it, and the camera points straight down;
* ``resolution``: pixels per die and per checker against the thresholds measured with the simulator
  (`vision.camplan`, from `tests/bench/bench_camera_thresholds.py`);
* ``sharpness``: how wide the board's edges are in camera pixels (focus, a dirty lens, motion);
* ``exposure``: too dark, too bright, clipped;
* ``glare``: washed-out (saturated) blobs on the board larger than a checker, and which half they are on;
* ``frame_rate``: frames per second achieved (only when ``fps`` is given).

The frames are merged into one still first (per-pixel median: noise and a passing hand drop out).
The server can grade a preview still the same way (``grade([still])``). Distances in the advice
("raise the camera about 12 cm") use the mount height when given, else one estimated from the
lens (``hfov_deg``, default that of a typical webcam).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from .camplan import GOOD_PX_PER_DIE, MIN_PX_PER_CHECKER, MIN_PX_PER_DIE, focal_px
from .geometry import BoardGeometry

# Measured or chosen thresholds (see hardware/README.md, "What the checks mean").
EDGE_TOUCH = 0.015  # a corner this close to the frame's edge (fraction of its size): touching it, no room
EDGE_CUT = 0.035  # this close and the board's shape is wrong: the board is cut off there
EDGE_TIGHT = 0.04  # closer than this: too little room for a knocked board
MARGIN_WANTED = 0.08  # of the board's size, on every side, when advising a new height
KEYSTONE_WARN, KEYSTONE_FAIL = 0.05, 0.09  # opposite board edges differ in length by this fraction
ASPECT_CUT = 0.06  # the located board's width/height vs the real board's: beyond this, part of it is missing
# Median edge width (10-90 % rise) in board mm, from the bench's blur sweep: dice >= 99.5 % up to 2.93 mm
# (1280x720) and 2.58 mm (1024x576); below it from 3.63 mm (1024x576) and 3.84 mm (1280x720).
SHARP_WARN_MM, SHARP_FAIL_MM = 2.6, 3.3
SHARP_WARN_PX, SHARP_FAIL_PX = 3.1, 3.9  # the same in camera pixels at 1280x720, when the board is not found
DARK_P95, DIM_P95 = 90.0, 130.0  # luma of the brightest 5 % of the board: below these, too dark / dim
BRIGHT_MEDIAN = 205.0  # board's median luma above this: overexposed
CLIPPED_FAIL = 0.15  # share of board pixels at 250+ (beyond glare blobs): overexposed
SATURATED = 245  # every channel at least this: washed out
GLARE_MM = 50.0  # a saturated patch at least this wide (mm) in every direction is glare (a point's base is 42)
MIN_FPS, WARN_FPS = 10.0, 13.5
DEFAULT_HFOV = 62.0
STATUSES = ("pass", "warn", "fail", "skip")


@dataclass
class Check:
    name: str
    status: str  # pass / warn / fail / skip
    message: str
    values: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"name": self.name, "status": self.status, "message": self.message, "values": self.values}


@dataclass
class CameraGrade:
    checks: list[Check]
    width: int
    height: int
    frames: int
    corners: np.ndarray | None = None  # the board's corners in the image (TL, TR, BR, BL), when found

    @property
    def passed(self) -> bool:
        return all(c.status != "fail" for c in self.checks)

    def check(self, name: str) -> Check:
        return next(c for c in self.checks if c.name == name)

    def failed(self) -> list[str]:
        return [c.name for c in self.checks if c.status == "fail"]

    def as_dict(self) -> dict:
        return {"passed": self.passed, "size": [self.width, self.height], "frames": self.frames,
                "corners": None if self.corners is None else np.round(self.corners, 1).tolist(),
                "failed": self.failed(), "checks": [c.as_dict() for c in self.checks]}

    def format(self) -> str:
        lines = [f"camera check: {'PASS' if self.passed else 'FAIL'} ({self.width}x{self.height}, "
                 f"{self.frames} frames)"]
        for c in self.checks:
            lines.append(f"  {c.status.upper():4}  {c.name:<11} {c.message}")
        return "\n".join(lines)


def merge(frames: list[np.ndarray], n: int = 9) -> np.ndarray:
    """Per-pixel median of up to ``n`` frames spread over the list (noise and passing hands drop out)."""
    if not frames:
        raise ValueError("no frames to grade")
    shape = frames[0].shape
    if len(shape) != 3 or shape[2] != 3:
        raise ValueError(f"frames must be BGR images (h, w, 3), not {shape}")
    pick = [frames[int(i)] for i in np.linspace(0, len(frames) - 1, min(n, len(frames)))]
    pick = [f for f in pick if f.shape == shape]
    if len(pick) == 1:
        return pick[0]
    return np.median(np.stack(pick), axis=0).astype(np.uint8)


def grade(frames: list[np.ndarray], fps: float | None = None, *, geom: BoardGeometry | None = None, locator=None,
          hfov_deg: float | None = None, mount_height_mm: float | None = None) -> CameraGrade:
    """Grade a camera from its frames (BGR uint8, one or more) and the frame rate achieved (None: not measured)."""
    geom = geom or BoardGeometry()
    still = merge(frames)
    h, w = still.shape[:2]
    if locator is None:
        from .calibrate import BoardLocator

        locator = BoardLocator()
    cal = locator.locate(still)
    corners = np.asarray(cal.corners, np.float64)
    gray = cv2.cvtColor(still, cv2.COLOR_BGR2GRAY)
    view = _View(w, h, geom, corners, cal.quality, hfov_deg, mount_height_mm)
    exposure = check_exposure(gray, view.mask(shrink=0.03) if view.found else None)
    board = check_board(view, exposure.status == "fail")
    from .markers import find_markers

    markers = find_markers(still)  # the optional corner markers (hardware/markers-a4.png): reported, not required
    board.values["markers"] = sorted(markers)
    if markers and len(markers) < 4 and board.status == "fail":
        board.message += f" (corner markers seen: {', '.join(map(str, sorted(markers)))}; missing: " \
            f"{', '.join(str(k) for k in range(4) if k not in markers)})"
    checks = [board, check_resolution(view), check_sharpness(gray, view), exposure, check_glare(still, view),
              check_frame_rate(fps)]
    return CameraGrade(checks, w, h, len(frames), corners if view.found else None)


class _View:
    """The located board in the image and what follows from it."""

    def __init__(self, w, h, geom, corners, quality, hfov_deg, mount_height_mm):
        self.w, self.h, self.geom, self.corners, self.quality = w, h, geom, corners, float(quality)
        tl, tr, br, bl = corners
        self.top, self.bottom = np.hypot(*(tr - tl)), np.hypot(*(br - bl))
        self.left, self.right = np.hypot(*(bl - tl)), np.hypot(*(br - tr))
        d1, d2 = br - tl, bl - tr
        area = 0.5 * abs(float(d1[0] * d2[1] - d1[1] * d2[0]))
        self.found = quality >= 0.3 and area > 0.02 * w * h and min(self.top, self.bottom, self.left, self.right) > 20
        # pixels per mm along the board's width and depth; the smaller is what the far side of the board gets
        self.ppmm = float(min(min(self.top, self.bottom) / geom.width, min(self.left, self.right) / geom.height))
        self.ppmm_mean = float((self.top + self.bottom) / geom.width + (self.left + self.right) / geom.height) / 4
        self.lens_guess = mount_height_mm is None
        f = focal_px(w, hfov_deg or DEFAULT_HFOV)
        self.mount_mm = float(mount_height_mm) if mount_height_mm else f / max(self.ppmm_mean, 1e-6)

    def mask(self, shrink: float = 0.0) -> np.ndarray:
        """The board's area in the image (shrunk towards its centre by a fraction of its size)."""
        c = self.corners.mean(0)
        q = c + (self.corners - c) * (1 - shrink)
        m = np.zeros((self.h, self.w), np.uint8)
        cv2.fillConvexPoly(m, np.round(q).astype(np.int32), 255)
        return m

    def to_board(self, xy: np.ndarray) -> np.ndarray:
        """Image pixels -> board millimetres (origin at the centre, x right, y towards the bottom player)."""
        H = cv2.getPerspectiveTransform(self.corners.astype(np.float32), self.geom.corners().astype(np.float32))
        return cv2.perspectiveTransform(np.asarray(xy, np.float64).reshape(-1, 1, 2), H).reshape(-1, 2)

    def cm(self, factor: float) -> float:
        """How far (cm) the camera moves to change its height by ``factor``."""
        return abs(factor - 1) * self.mount_mm / 10

    def height_note(self) -> str:
        return f" (from a {self.mount_mm / 10:.0f} cm mount estimated for a {DEFAULT_HFOV:g} deg lens; " \
               "give --mount-height-cm for better advice)" if self.lens_guess else ""


# ---------------------------------------------------------------------- the checks


def check_board(v: _View, exposure_failed: bool = False) -> Check:
    vals = {"quality": round(v.quality, 3)}
    w, h, c = v.w, v.h, v.corners
    near = {"left": c[:, 0].min() / w, "right": 1 - c[:, 0].max() / w, "top": c[:, 1].min() / h,
            "bottom": 1 - c[:, 1].max() / h}
    vals["margins"] = {k: round(float(x), 3) for k, x in near.items()}
    if not v.found:
        cut = [k for k, x in near.items() if x < EDGE_CUT]
        if cut and not exposure_failed and v.quality >= 0.05:
            return Check("board", "fail", f"board not found whole: it seems cut off at the {_join(cut)} edge of the "
                                          f"picture - centre the camera over the board or raise it", vals)
        hint = " - fix the exposure first" if exposure_failed else \
            " - is the whole board under the camera, the lens uncovered and the picture in focus?"
        return Check("board", "fail", f"board not found in the picture{hint}", vals)
    expect = v.geom.width / v.geom.height
    aspect = float((v.top + v.bottom) / (v.left + v.right))
    vals["aspect"] = round(aspect / expect, 3)
    aspect_dev = abs(aspect / expect - 1)
    cut = [k for k, x in near.items() if x < EDGE_CUT]
    if cut and aspect_dev > ASPECT_CUT:
        return Check("board", "fail", _cut_advice(v, cut, aspect / expect), vals)
    touch = [k for k, x in near.items() if x < EDGE_TOUCH]
    if touch:
        dim = {"left": w, "right": w, "top": h, "bottom": h}
        move = max((EDGE_TIGHT - near[k]) * dim[k] / max(v.ppmm_mean, 1e-6) for k in touch) / 10 + 2
        return Check("board", "fail", f"board touching the {_join(touch)} edge of the picture (no room if it is "
                                      f"knocked): move the camera about {move:.0f} cm towards the {_join(touch)} as "
                                      f"seen in the picture, or raise it about {max(v.cm(_fit_factor(v)), 3):.0f} cm"
                                      f"{v.height_note()}", vals)
    if aspect_dev > 2 * ASPECT_CUT:  # a corner wandered inside: the board is not all there, side unknown
        return Check("board", "fail", "the board is only partly in the picture (its shape is wrong): centre the "
                                      "camera over the board and make sure nothing covers its edge", vals)
    keystone = max(abs(v.top - v.bottom) / max(v.top, v.bottom), abs(v.left - v.right) / max(v.left, v.right))
    vals["keystone"] = round(float(keystone), 3)
    if v.quality < 0.5:
        return Check("board", "fail", f"board seen but not calibrated (corner fit {v.quality:.2f}, needs 0.5): clear "
                                      "the board's edges (no bags, clocks or sleeves on the frame), even out the "
                                      "light", vals)
    if keystone > KEYSTONE_FAIL:
        return Check("board", "fail", _tilt_advice(v, keystone) + "; the readers need it within about 5 deg", vals)
    tight = [k for k, x in near.items() if x < EDGE_TIGHT]
    if tight:
        factor = _fit_factor(v)
        return Check("board", "warn", f"board very close to the {_join(tight)} edge of the picture: little room if "
                                      f"it is knocked; raise the camera about {max(v.cm(factor), 3):.0f} cm or "
                                      f"centre it{v.height_note()}", vals)
    if keystone > KEYSTONE_WARN:
        return Check("board", "warn", _tilt_advice(v, keystone), vals)
    return Check("board", "pass", f"whole board in view and calibrated (fit {v.quality:.2f})", vals)


def _cut_advice(v: _View, cut: list[str], aspect_ratio: float) -> str:
    # the visible sides give the scale: where the hidden edge must be
    if set(cut) <= {"left", "right"} and len(cut) == 1:
        ppmm = (v.left if cut == ["right"] else v.right) / v.geom.height
        missing = max(v.geom.width * ppmm - (v.top + v.bottom) / 2, 0) / ppmm
    elif set(cut) <= {"top", "bottom"} and len(cut) == 1:
        ppmm = (v.top if cut == ["bottom"] else v.bottom) / v.geom.width
        missing = max(v.geom.height * ppmm - (v.left + v.right) / 2, 0) / ppmm
    else:
        missing = None
    where = _join(cut)
    if missing is not None and len(cut) == 1:
        shift = (missing + MARGIN_WANTED * v.geom.width) / 10
        return (f"board cut off at the {where} edge of the picture (about {missing / 10:.0f} cm of it missing): "
                f"move the camera about {shift:.0f} cm towards the {where} as seen in the picture, or raise it")
    factor = 1 / max(min(1 - 2 * EDGE_TIGHT, 1.0), 0.5) * (1 + 2 * MARGIN_WANTED)
    return (f"board cut off at the {where} edges of the picture: raise the camera (about {v.cm(factor) + 5:.0f} cm "
            f"or more{v.height_note()}) and centre it over the board")


def _tilt_advice(v: _View, keystone: float) -> str:
    pairs = [("top", v.top, "bottom", v.bottom), ("left", v.left, "right", v.right)]
    a, la, b, lb = max(pairs, key=lambda p: abs(p[1] - p[3]) / max(p[1], p[3]))
    near, far = (a, b) if la > lb else (b, a)
    return (f"camera tilted: the board's {far} edge looks {keystone * 100:.0f} % shorter than its {near} edge; aim "
            f"it straight down (the lens is leaning towards the {near} side of the board, or hangs off to that side)")


def _height_for_margin(v: _View) -> float:
    """The mount height (as a factor of the present one) at which the board has MARGIN_WANTED of room
    on every side of the picture: below 1 the camera could come down, above 1 it must go up."""
    c = v.corners
    bw, bh = np.ptp(c[:, 0]), np.ptp(c[:, 1])
    return float(max(bw * (1 + 2 * MARGIN_WANTED) / v.w, bh * (1 + 2 * MARGIN_WANTED) / v.h))


def _fit_factor(v: _View) -> float:
    """Height factor that gives the board its room (never lower than now)."""
    return max(_height_for_margin(v), 1.0)


def check_resolution(v: _View) -> Check:
    if not v.found:
        return Check("resolution", "skip", "not measured: the board was not found")
    g = v.geom
    ppd, ppc = v.ppmm * g.die_size, v.ppmm * g.checker_d
    vals = {"px_per_mm": round(v.ppmm, 3), "px_per_die": round(ppd, 1), "px_per_checker": round(ppc, 1),
            "min_px_per_die": MIN_PX_PER_DIE, "good_px_per_die": GOOD_PX_PER_DIE}
    msg = f"a die gets {ppd:.1f} px, a checker {ppc:.0f} px"
    lowest = _height_for_margin(v)  # the camera can come down to this factor of its height and still fit
    if ppd < MIN_PX_PER_DIE or ppc < MIN_PX_PER_CHECKER:
        target = max(ppd / GOOD_PX_PER_DIE, lowest)
        if target < 1 and ppd / target >= MIN_PX_PER_DIE:
            return Check("resolution", "fail", f"{msg}, need {MIN_PX_PER_DIE:g}: lower the camera about "
                                               f"{v.cm(target):.0f} cm{v.height_note()}, or use a higher resolution",
                         vals)
        return Check("resolution", "fail", f"{msg}, need {MIN_PX_PER_DIE:g}: the board cannot fill more of this "
                                           "picture - set the camera to a higher resolution (1280x720 or more) "
                                           "or use a narrower lens", vals)
    if ppd < GOOD_PX_PER_DIE:
        target = max(ppd / GOOD_PX_PER_DIE, lowest)
        how = f"lower the camera about {v.cm(target):.0f} cm" if target < 0.97 else \
            "a higher resolution would give room"
        return Check("resolution", "warn", f"{msg}: enough ({MIN_PX_PER_DIE:g} needed) but with little room "
                                           f"({GOOD_PX_PER_DIE:g} is comfortable): {how}", vals)
    return Check("resolution", "pass", msg + f" (need {MIN_PX_PER_DIE:g})", vals)


def edge_width(gray: np.ndarray, mask: np.ndarray | None = None, max_edges: int = 4000, reach: int = 12,
               ) -> float | None:
    """Median width (px) of the strongest edges: how many pixels an intensity step takes to rise, along the
    gradient (horizontal for near-vertical edges and vertical for near-horizontal ones). A focused camera
    gives about 2-3 px; blur widens it."""
    g = gray.astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    widths = []
    for axis, d, other in ((1, gx, gy), (0, gy, gx)):
        a = np.abs(d)
        peak = (a >= np.roll(a, 1, axis)) & (a > np.roll(a, -1, axis)) & (a > 2 * np.abs(other))
        if mask is not None:
            peak &= mask > 0
        border = np.zeros_like(peak)
        if axis == 1:
            border[:, reach + 1:-reach - 1] = True
        else:
            border[reach + 1:-reach - 1, :] = True
        peak &= border
        ys, xs = np.nonzero(peak)
        if len(ys) == 0:
            continue
        strength = a[ys, xs]
        keep = strength >= max(np.percentile(strength, 85), 40.0)
        ys, xs, sign = ys[keep], xs[keep], np.sign(d[ys[keep], xs[keep]])
        if len(ys) > max_edges:
            sel = np.random.default_rng(0).choice(len(ys), max_edges, replace=False)
            ys, xs, sign = ys[sel], xs[sel], sign[sel]
        off = np.arange(-reach, reach + 1)
        prof = g[ys[:, None], xs[:, None] + off] if axis == 1 else g[ys[:, None] + off, xs[:, None]]
        diff = np.diff(prof, axis=1) * sign[:, None]
        step = np.abs(prof[:, -1] - prof[:, 0])
        thr = np.maximum(1.0, 0.02 * step)[:, None]
        right = np.cumprod(diff[:, reach:] > thr, axis=1).sum(1)  # monotonic rise after the peak
        left = np.cumprod(diff[:, reach - 1::-1] > thr, axis=1).sum(1)  # ... and before it
        widths.append(_rise_10_90(prof * sign[:, None], reach - left, reach + right))
    if not widths:
        return None
    w = np.concatenate(widths)
    w = w[np.isfinite(w)]
    return float(np.median(w)) if len(w) >= 50 else None


def _rise_10_90(prof: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Sub-pixel distance between the 10 % and 90 % crossings of each rising profile between lo and hi."""
    n, m = prof.shape
    rows = np.arange(n)
    a, b = prof[rows, lo], prof[rows, hi]
    out = np.full(n, np.nan)
    ok = (b - a) > 8
    idx = np.arange(m)[None, :]
    inside = (idx >= lo[:, None]) & (idx <= hi[:, None])
    t = np.where(inside, (prof - a[:, None]) / np.maximum(b - a, 1e-6)[:, None], np.nan)
    cross = []
    for level in (0.1, 0.9):
        above = np.where(inside, t >= level, False)
        j = np.argmax(above, axis=1)  # first sample at or above the level
        j0 = np.maximum(j - 1, 0)
        t1, t0 = t[rows, j], t[rows, j0]
        frac = np.where(t1 > t0, (level - t0) / np.where(t1 > t0, t1 - t0, 1), 0.0)
        cross.append(j0 + np.clip(frac, 0, 1))
    out[ok] = (cross[1] - cross[0])[ok]
    return out


def check_sharpness(gray: np.ndarray, v: _View) -> Check:
    """Edge width in board millimetres (what the readers feel: the same blur in pixels hurts a low-resolution
    camera more); without a board, in camera pixels against the 1280x720 figures."""
    mask = v.mask(shrink=0.02) if v.found else None
    width = edge_width(gray, mask)
    if width is None:
        return Check("sharpness", "skip", "not measured: too few edges in the picture")
    vals = {"edge_width_px": round(width, 2)}
    if v.found:
        blur = width / max(v.ppmm_mean, 1e-6)
        vals.update(edge_width_mm=round(blur, 2), warn_mm=SHARP_WARN_MM, fail_mm=SHARP_FAIL_MM)
        bad, soft, what = blur > SHARP_FAIL_MM, blur > SHARP_WARN_MM, f"{blur:.1f} mm of the board"
    else:
        vals.update(warn_px=SHARP_WARN_PX, fail_px=SHARP_FAIL_PX)
        bad, soft, what = width > SHARP_FAIL_PX, width > SHARP_WARN_PX, f"{width:.1f} px"
    if bad:
        return Check("sharpness", "fail", f"picture blurred (edges take {what} to rise; dice misread beyond "
                                          f"{SHARP_FAIL_MM:g} mm): focus the lens on the board, clean it, turn "
                                          "autofocus off once focused, and make sure the mount does not shake", vals)
    if soft:
        return Check("sharpness", "warn", f"a little soft (edges take {what}): check the focus", vals)
    return Check("sharpness", "pass", f"sharp (edges take {what})", vals)


def check_exposure(gray: np.ndarray, mask: np.ndarray | None) -> Check:
    px = gray[mask > 0] if mask is not None else gray.ravel()
    if px.size == 0:
        px = gray.ravel()
    med, p5, p95 = (float(x) for x in np.percentile(px, [50, 5, 95]))
    clipped, crushed = float(np.mean(px >= 250)), float(np.mean(px <= 5))
    vals = {"median": round(med, 1), "p5": round(p5, 1), "p95": round(p95, 1), "clipped": round(clipped, 4),
            "crushed": round(crushed, 4), "on": "board" if mask is not None else "whole picture"}
    if p95 < DARK_P95 or crushed > 0.25:
        return Check("exposure", "fail", f"too dark (the brightest parts of the board only reach {p95:.0f} of 255): "
                                         "add light over the table, or raise the camera's exposure or gain (turn "
                                         "off a fixed short shutter)", vals)
    if med > BRIGHT_MEDIAN or clipped > CLIPPED_FAIL:
        return Check("exposure", "fail", f"overexposed ({clipped * 100:.0f} % of the board burnt out white): lower "
                                         "the exposure or gain, or turn auto-exposure on", vals)
    if p95 < DIM_P95:
        return Check("exposure", "warn", f"dim (brightest parts at {p95:.0f} of 255): more light would cut noise",
                     vals)
    return Check("exposure", "pass", f"good (median {med:.0f}, brightest {p95:.0f} of 255)", vals)


def check_glare(still: np.ndarray, v: _View) -> Check:
    if not v.found:
        return Check("glare", "skip", "not measured: the board was not found")
    sat = (still.min(axis=2) >= SATURATED).astype(np.uint8) * 255
    sat &= v.mask(shrink=0.01)
    # Open with a disk wider than a point's base and a checker: white points, checkers and dice that merely
    # clip vanish; what survives is a washed-out patch at least that wide in every direction.
    k = max(int(v.ppmm_mean * GLARE_MM) | 1, 5)
    sat = cv2.morphologyEx(sat, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, labels, stats, cents = cv2.connectedComponentsWithStats(sat, connectivity=8)
    blobs = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 0.7 * k * k]
    board_area = float(np.count_nonzero(v.mask()))
    area = float(sum(stats[i, cv2.CC_STAT_AREA] for i in blobs))
    vals = {"glare_share": round(area / max(board_area, 1.0), 4), "blobs": len(blobs)}
    if not blobs:
        return Check("glare", "pass", "no glare on the board", vals)
    where = v.to_board(np.array([cents[i] for i in blobs]))
    weights = np.array([stats[i, cv2.CC_STAT_AREA] for i in blobs], np.float64)
    x, y = (where * weights[:, None]).sum(0) / weights.sum()
    half = "right" if x > 0 else "left"
    if abs(x) < v.geom.bar_w:
        half = "middle (over the bar)"
    side = "top" if y < 0 else "bottom"
    vals["where"] = {"half": half.split()[0], "side": side, "x_mm": round(float(x), 1), "y_mm": round(float(y), 1)}
    return Check("glare", "fail", f"glare on the {half} half of the board, towards the {side} "
                                  f"({area / max(board_area, 1) * 100:.1f} % of the board washed out): move or "
                                  "angle the lamp away from the camera's line of sight, dim it, or use diffuse "
                                  "light; the camera sees a reflection of the light there", vals)


def check_frame_rate(fps: float | None) -> Check:
    if fps is None:
        return Check("frame_rate", "skip", "not measured (a still)")
    vals = {"fps": round(float(fps), 2), "min_fps": MIN_FPS}
    if fps < MIN_FPS:
        return Check("frame_rate", "fail", f"only {fps:.1f} frames/s (need {MIN_FPS:g}; record at 15): choose the "
                                           "camera's MJPEG or H.264 mode, a lower resolution on USB 2, check the "
                                           "network link (100 Mb/s is plenty for one board)", vals)
    if fps < WARN_FPS:
        return Check("frame_rate", "warn", f"{fps:.1f} frames/s: enough, but below the 15 the agent records", vals)
    return Check("frame_rate", "pass", f"{fps:.1f} frames/s", vals)


def _join(names: list[str]) -> str:
    return " and ".join(names)
