"""Find the board in a camera frame: its four outer corners, and how sure we are.

Two stages. A small heat-map network (`models/corners.onnx`, trained on simulator
frames) finds each corner roughly on a 256x144 copy of the frame; then each side
of the board is re-fitted as a straight line through the strongest edge near it in
the full-resolution frame, and adjacent sides are intersected. Quality combines the
network's confidence with how well the edges fit. A `Tracker` keeps the last good
calibration, checks it cheaply on later frames (edge fit only) and runs the network
again when the board has moved or the check fails.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .frames import as_bgr

IN_W, IN_H = 256, 144  # network input
OUT_W, OUT_H = 128, 72  # heat-map grid
MODELS = Path(__file__).resolve().parents[1] / "models"


@dataclass
class Calibration:
    corners: np.ndarray  # (4, 2) image pixels: TL, TR, BR, BL
    quality: float  # 0..1
    refined: bool = False
    field: np.ndarray | None = None  # the playing field's corners, where the board was found by them
    confirmed: bool = False  # given or confirmed by a person: kept
    geom: object = None  # the board's own shape (vision.geometry.BoardGeometry) where its field was measured

    @classmethod
    def from_field(cls, field: np.ndarray, quality: float, geom=None, confirmed: bool = False) -> Calibration:
        """The calibration a playing field's corners give (TL, TR, BR, BL with the bar running top to bottom):
        the outer corners that the board's geometry (``geom``: its profile; default: the default board's)
        puts round that field, in picture pixels; rectify with the same geometry."""
        from .geometry import BoardGeometry

        g = geom or BoardGeometry()
        x0, y0, x1, y1 = g.field()
        src = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
        H = cv2.getPerspectiveTransform(src, np.float32(field))
        outer = cv2.perspectiveTransform(np.float32(g.corners())[None], H)[0]
        return cls(outer.astype(np.float64), quality, refined=True, field=np.asarray(field, np.float64),
                   confirmed=confirmed, geom=geom)

    @property
    def ok(self) -> bool:
        return self.quality >= 0.5


def heatmap_peaks(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(4, H, W) logits -> corners normalised to 0..1 and a confidence per corner
    (probability mass within the peak's 5x5 neighbourhood)."""
    n, h, w = logits.shape
    flat = logits.reshape(n, -1)
    p = np.exp(flat - flat.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    p = p.reshape(n, h, w)
    pts = np.zeros((n, 2), np.float32)
    conf = np.zeros(n, np.float32)
    for k in range(n):
        y, x = np.unravel_index(int(np.argmax(p[k])), (h, w))
        y0, y1, x0, x1 = max(y - 2, 0), min(y + 3, h), max(x - 2, 0), min(x + 3, w)
        win = p[k, y0:y1, x0:x1]
        mass = float(win.sum())
        yy, xx = np.mgrid[y0:y1, x0:x1]
        pts[k] = [(float((win * xx).sum()) / mass + 0.5) / w, (float((win * yy).sum()) / mass + 0.5) / h]
        conf[k] = mass
    return pts, conf


class BoardLocator:
    """The heat-map network plus edge refinement."""

    def __init__(self, model: str | Path | None = None, threads: int = 1):
        import onnxruntime as ort

        path = Path(model) if model else MODELS / "corners.onnx"
        if not path.exists():
            raise FileNotFoundError(f"{path} is missing: run 'bgscribe train corners' to make it")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])

    def coarse(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h, w = frame.shape[:2]
        small = cv2.resize(frame, (IN_W, IN_H), interpolation=cv2.INTER_AREA)
        x = small.transpose(2, 0, 1)[None].astype(np.float32) / 255.0
        logits = self.session.run(None, {"image": x})[0][0]
        pts, conf = heatmap_peaks(logits)
        return pts * [w, h], conf

    def locate(self, frame: np.ndarray) -> Calibration:
        pts, conf = self.coarse(frame)
        net_q = float(np.clip(conf.min() / 0.5, 0, 1))
        refined, fit_q = refine(frame, pts)
        # Trust the edge fit only where it agrees with the network: a refit that wanders further than the
        # network's own error has locked onto another edge (wood grain, a shadow, the field's rim).
        if refined is not None and fit_q >= 0.7 and np.abs(refined - pts).max() < 0.008 * frame.shape[1]:
            return Calibration(refined, min(1.0, 0.5 * net_q + 0.5 * fit_q), refined=True)
        return Calibration(pts, 0.6 * net_q)


def refine(frame: np.ndarray, corners: np.ndarray, search: float = 10.0, samples: int = 10,
           ) -> tuple[np.ndarray | None, float]:
    """Snap each corner to where the two board edges meeting there cross: each edge is fitted as a
    line through the strongest gradient near it, sampled only along the part of the side next to
    that corner (lens distortion bends whole sides; near a corner they are straight enough).
    Returns the refined corners (or None) and a fit quality 0..1."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    h, w = gray.shape
    corners = np.asarray(corners, np.float64)
    out = np.zeros((4, 2), np.float32)
    goods = []
    for k in range(4):
        lines = []
        # side k-1 ends at corner k; side k starts at it
        sides = ((corners[(k - 1) % 4], corners[k], 0.6, 0.95), (corners[k], corners[(k + 1) % 4], 0.05, 0.4))
        for a, b, lo, hi in sides:
            grad = _gradient_near(gray, (a + lo * (b - a), a + hi * (b - a)), search)
            fit = _edge_line(grad, a, b, lo, hi, search, samples, w, h)
            if fit is None:
                return None, 0.0
            lines.append(fit[:2])
            goods.append(fit[2])
        (p1, d1), (p2, d2) = lines
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return None, 0.0
        t = np.linalg.solve(m, p2 - p1)
        out[k] = p1 + t[0] * d1
    return out, float(min(goods))


def _gradient_near(gray: np.ndarray, span: tuple, search: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The blurred picture's gradient (gx, gy) over the part of ``gray`` within ``search`` px of the segment
    ``span``, and that part's origin (x, y): an edge is sampled there alone, and blurring and differentiating the
    whole frame cost several times more. The same values as over the whole frame: the part reaches the 3 x 3 blur's
    and the Sobel's pixels beyond the samples' (the picture's own border treated as the whole frame's)."""
    h, w = gray.shape
    pts = np.array(span)
    lo = np.floor(pts.min(0) - search) - 4
    hi = np.ceil(pts.max(0) + search) + 5
    x0, y0 = int(np.clip(lo[0], 0, w)), int(np.clip(lo[1], 0, h))
    x1, y1 = int(np.clip(hi[0], x0, w)), int(np.clip(hi[1], y0, h))
    part = cv2.GaussianBlur(gray[y0:y1, x0:x1], (3, 3), 0).astype(np.float32) if x1 > x0 and y1 > y0 else None
    if part is None or min(part.shape) < 3:
        return np.zeros((1, 1), np.float32), np.zeros((1, 1), np.float32), np.array([x0, y0], np.float64)
    return (cv2.Sobel(part, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(part, cv2.CV_32F, 0, 1, ksize=3),
            np.array([x0, y0], np.float64))


def _edge_line(grad, a, b, lo, hi, search, samples, w, h):
    """A line (point, direction, quality) through the strongest edge across the segment a-b
    between fractions ``lo`` and ``hi`` of its length (``grad``: `_gradient_near`'s; ``w`` x ``h``: the frame)."""
    gx, gy, origin = grad
    d = b - a
    length = float(np.hypot(*d))
    if length < 20:
        return None
    t_dir = d / length
    normal = np.array([-t_dir[1], t_dir[0]])
    offs = np.arange(-search, search + 0.5, 1.0)
    ps = a + d * np.linspace(lo, hi, samples)[:, None]  # the samples along the side, each searched across it
    q = ps[:, None, :] + offs[None, :, None] * normal
    xs, ys = q[..., 0].astype(np.float32), q[..., 1].astype(np.float32)
    inside = (xs.min(1) >= 1) & (ys.min(1) >= 1) & (xs.max(1) <= w - 2) & (ys.max(1) <= h - 2)
    xs, ys = xs - np.float32(origin[0]), ys - np.float32(origin[1])
    projs = np.abs(cv2.remap(gx, xs, ys, cv2.INTER_LINEAR) * normal[0]
                   + cv2.remap(gy, xs, ys, cv2.INTER_LINEAR) * normal[1])
    found = []
    for p, proj in zip(ps[inside], projs[inside]):
        j = int(np.argmax(proj))
        if proj[j] < 12:
            continue
        j_f = float(j)
        if 0 < j < len(proj) - 1:  # sub-pixel peak
            den = proj[j - 1] - 2 * proj[j] + proj[j + 1]
            j_f += 0.5 * (proj[j - 1] - proj[j + 1]) / den if den != 0 else 0.0
        found.append(p + (offs[0] + j_f) * normal)
    if len(found) < max(3, samples // 2):
        return None
    pts = np.array(found, np.float32)
    vx, vy, x0, y0 = cv2.fitLine(pts, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    resid = np.abs((pts[:, 0] - x0) * vy - (pts[:, 1] - y0) * vx)
    quality = min(1.0, len(found) / samples) * float(np.mean(resid < 1.5))
    return np.array([x0, y0]), np.array([vx, vy]), quality


STRUCTURE_EVERY = 50  # analysed frames between two searches by the board's structure (seconds each)


class Tracker:
    """Keeps a calibration across frames: cheap edge checks, the network when needed, and where the network
    finds no board (a real board unlike our renders) the board's structure (`vision.fieldfind`). A
    ``confirmed`` calibration (corners given by a person) is kept, and follows bumps (`vision.follow`)."""

    def __init__(self, locator: BoardLocator, recheck_every: int = 30):
        self.locator = locator
        self.current: Calibration | None = None
        self.recheck_every = recheck_every
        self.since = 0
        self.relocations = 0
        self.follows = 0  # bumps followed from the anchor of a confirmed field
        self.anchor = None  # vision.follow.Anchor of a confirmed field: taken on its first quiet frame
        self._anchor_tried = False
        self._was_quiet = False
        self._structure_wait = 0

    def update(self, frame: np.ndarray, quiet: bool) -> Calibration | None:
        """Call on analysed frames; ``quiet`` frames are where the board's edges can be trusted."""
        self.since += 1
        if self.current is None:
            return self._relocate(frame)
        if self.current.field is not None:
            # Found or given by the field's structure. Given by a person: bumps are followed by registering
            # quiet frames to the picture it was given on (vision.follow; following by the structure was tried
            # and drifts: its optimum wanders a few pixels from the field's edges). One found, not given,
            # gives way to the network wherever that is sure.
            if self.current.confirmed:
                if quiet:  # checked as the board settles after motion (a bump is motion) and every so often
                    self._follow(frame, settled=not self._was_quiet)
                self._was_quiet = quiet
                return self.current
            if quiet and self.since >= self.recheck_every:
                self.since = 0
                cal = self.locator.locate(as_bgr(frame))
                if cal.ok:
                    self.current = cal
            return self.current
        if quiet and self.since >= self.recheck_every:
            self.since = 0
            refined, q = refine(as_bgr(frame), self.current.corners)
            moved = refined is None or np.abs(refined - self.current.corners).max() > 2.0
            if refined is not None and q >= 0.6 and not moved:
                self.current = Calibration(refined, max(self.current.quality, q), refined=True)
            else:
                return self._relocate(frame)
        return self.current

    def confirm(self, field: np.ndarray, anchor=None, geom=None) -> Calibration:
        """The playing field's corners (TL, TR, BR, BL, the bar up and down) as a person gave them: kept, and
        followed when the camera is bumped. ``anchor``: the picture they were given on, as an earlier video
        of this board kept it (then the first quiet frame is checked against it at once); ``geom``: the
        board's profile."""
        self.current = Calibration.from_field(np.asarray(field, np.float64), 1.0, geom, confirmed=True)
        self.anchor, self._anchor_tried = anchor, False
        self.since = self.recheck_every if anchor is not None else 0
        return self.current

    def _follow(self, frame, settled: bool) -> None:
        from .follow import Anchor

        if not settled and self.since < self.recheck_every and (self.anchor is not None or self._anchor_tried):
            return
        self.since = 0
        gray = cv2.cvtColor(as_bgr(frame), cv2.COLOR_BGR2GRAY)
        if self.anchor is None:  # (a featureless picture gives none: tried again every recheck_every frames)
            self.anchor, self._anchor_tried = Anchor.take(gray, self.current.field), True
            return
        moved = self.anchor.follow(gray, self.current.field)
        if moved is not None:
            self.current = Calibration.from_field(moved, 1.0, self.current.geom, confirmed=True)
            self.follows += 1

    def _relocate(self, frame: np.ndarray) -> Calibration | None:
        bgr = as_bgr(frame)
        cal = self.locator.locate(bgr)
        self.relocations += 1
        self.since = 0
        if not cal.ok:
            self._structure_wait -= 1
            if self._structure_wait <= 0:  # slow: not on every frame of footage without a board
                self._structure_wait = STRUCTURE_EVERY
                from .fieldfind import find_field, turned_corners
                from .profilefit import fit_height
                from .readers import default_readers

                fit = find_field(bgr)
                if fit.found:
                    fit = fit_height(bgr, fit, default_readers())
                    cal = Calibration.from_field(turned_corners(fit), fit.quality, fit.geometry())
        if cal.ok or self.current is None:
            self.current = cal
        return self.current
