"""Fit the board's own points in a rough playing field: a second opinion of where the field is.

A candidate outline (`vision.fieldfind`) is often a little off, and sometimes wrong by a whole point: a
tray or a frame taken in at one end, the field a point aside. The points say where the field is from
evidence of their own. Each quarter of the field is six triangles of one width side by side, from one
end of the quarter to the other, their bases on the rim. `fit` rectifies the picture around the rough
field and fits, for each quarter on its own, its two ends along the row, the rim's place and the
points' length, by the picture's gradient across the twelve sides less the same half a point aside
(a comb fit, coarse to fine on a blurred gradient, so that a start some pixels off still climbs). A
comb fits as well one whole point aside (a point on the frame matches, one under a stack of checkers
does not), so each half's two rows are also tried a point either way, together. The sides are steep and
place the rim poorly, so the rim and the field's ends are put on the innermost strong straight edge near
the points. The field's corners are the outer quarters' ends on their rims, mapped back.

On the real pictures this is no more precise than the outline's own lines (`vision.fieldsnap`), so
`vision.fieldfind` uses it to judge an outline, not to place it: where the two disagree by a point, one
of them has the board's structure wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from .fieldsnap import _intersect
from .pointedges import colour_gradient

RECT_W = 480  # px: the field's width along the rows in the rectified view
PAD = 0.12  # the rectified view reaches this share of the field's width beyond each side
SAMPLES = 20  # samples along each point's side
LEVELS = ((5.0, 4.0), (2.5, 2.0), (1.2, 1.0), (0.8, 0.5))  # (blur sigma, step) px, coarse to fine
ITERS = 25  # pattern-search moves per level, at most
QUARTERS = ("TL", "TR", "BR", "BL")
# a straight edge across the field inside a half, between the rows' tips, counts this much against the half's
# placement (`_fit_halves`): given the labelled field of the 134 real pictures, the points' own fit agrees with it
# within half a point on 80 with none, 90 / 94 / 100 at 0.25 / 0.5 / 1.0 (2026-12-05)
INSIDE_K = 1.0


@dataclass
class QuarterFit:
    a: float  # the quarter's ends along the row, rectified px
    b: float
    rim: float  # the rim (the points' bases), rectified y
    tip: float  # the points' tips, rectified y
    score: float  # the gradient across the sides less the null's, over the quarter's mean gradient


@dataclass
class PointFit:
    corners: np.ndarray  # (4, 2) TL, TR, BR, BL in the picture given to `fit`
    quarters: tuple[QuarterFit, ...]  # TL, TR, BR, BL

    @property
    def score(self) -> float:
        """The weakest quarter's: every quarter of a board's field shows its points."""
        return min(q.score for q in self.quarters)


class View:
    """The picture rectified around a rough field (``width`` px along the rows), and its gradients."""

    def __init__(self, img: np.ndarray, quad: np.ndarray, width: int = RECT_W):
        along = (np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
        across = (np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2
        self.w = width
        self.h = int(round(width * across / max(along, 1.0)))
        self.pad = int(round(PAD * width))
        p = self.pad
        dst = np.float32([[p, p], [p + self.w, p], [p + self.w, p + self.h], [p, p + self.h]])
        self.H = cv2.getPerspectiveTransform(dst, np.float32(quad))  # rectified -> picture
        size = (self.w + 2 * p, self.h + 2 * p)
        rect = cv2.warpPerspective(img, self.H, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)
        self.gx, self.gy = colour_gradient(rect)  # signed: the gradient across a slanted line (`vision.rimfit`)
        self._blurred: dict[tuple[int, float], np.ndarray] = {}

    @cached_property
    def mean(self) -> float:
        """The field's mean gradient (computed when asked: `vision.rimfit` does not)."""
        p = self.pad
        return float(np.mean(np.hypot(self.gx, self.gy)[p:p + self.h, p:p + self.w])) + 1.0

    def blurred(self, axis: int, sigma: float) -> np.ndarray:
        """|gx| (``axis`` 0) or |gy| (1) blurred, each computed once and only where asked for."""
        if (axis, sigma) not in self._blurred:
            self._blurred[axis, sigma] = cv2.GaussianBlur(np.abs((self.gx, self.gy)[axis]), (0, 0), sigma)
        return self._blurred[axis, sigma]

    def grads(self, sigma: float) -> tuple[np.ndarray, np.ndarray]:
        return self.blurred(0, sigma), self.blurred(1, sigma)

    def to_picture(self, pts: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(np.float32(pts).reshape(1, -1, 2), self.H)[0].astype(np.float64)


_T32 = ((np.arange(SAMPLES) + 0.5) / SAMPLES).astype(np.float32)
_K = np.arange(6)


def _sides(params: np.ndarray, shifts: tuple[float, ...]) -> np.ndarray:
    """(C, 4) quarters (a, b, rim, tip) -> (len(shifts), C, 12, 2, 2): each point's two sides, base then tip,
    with the layout moved each of ``shifts`` points along the row (0.5: the null)."""
    a, b, rim, tip = (params[None, :, i, None] for i in range(4))
    w = (b - a) / 6
    left = a + (_K[None, None] + np.asarray(shifts, np.float64)[:, None, None]) * w  # (shifts, C, 6)
    out = np.empty(left.shape[:2] + (12, 2, 2))
    out[:, :, :6, 0, 0], out[:, :, 6:, 0, 0] = left, left + w  # the bases' ends, then the apexes
    out[:, :, :, 0, 1] = rim
    out[:, :, :6, 1, 0] = out[:, :, 6:, 1, 0] = left + w / 2
    out[:, :, :, 1, 1] = tip
    return out


def _across(view: View, sigma: float, sides: np.ndarray) -> np.ndarray:
    """Mean gradient across each side: (..., 12, 2, 2) -> (..., 12)."""
    gx, gy = view.grads(sigma)
    lead = sides.shape[:-3]
    sides = sides.reshape(-1, 2, 2).astype(np.float32)  # float32 throughout: the samples are what costs
    x0, y0 = sides[:, 0, 0], sides[:, 0, 1]
    dx, dy = sides[:, 1, 0] - x0, sides[:, 1, 1] - y0
    norm = np.hypot(dx, dy) + np.float32(1e-9)
    # a row per sample's place along the sides: remap's cost goes by the row as much as by the sample
    mx, my = x0 + _T32[:, None] * dx, y0 + _T32[:, None] * dy  # (S, N)
    sx = cv2.remap(gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    sy = cv2.remap(gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    v = sx * (np.abs(dy) / norm) + sy * (np.abs(dx) / norm)
    return v.mean(0).reshape(*lead, 12)


def _points(view: View, sigma: float, params: np.ndarray) -> np.ndarray:
    """(C, 4) -> (C, 6): each point's sides less the null's, over the view's mean gradient."""
    on, off = _across(view, sigma, _sides(params, (0.0, 0.5)))
    return (on - off).reshape(-1, 2, 6).mean(1) / view.mean


def _score(view: View, sigma: float, params: np.ndarray) -> np.ndarray:
    """(C, 4) -> (C,): the six points' mean."""
    return _points(view, sigma, params).mean(1)


_MOVES = np.concatenate([np.eye(4), -np.eye(4)])


def _climb(view: View, ps: np.ndarray, levels=LEVELS) -> tuple[np.ndarray, np.ndarray]:
    """Pattern search on quarters' (a, b, rim, tip), (Q, 4), coarse to fine: each climbs on its own, all
    sampled together."""
    ps = np.array(ps, np.float64).reshape(-1, 4)
    for sigma, step in levels:
        best = _score(view, sigma, ps)
        active = np.arange(len(ps))
        for _ in range(ITERS):
            if not len(active):
                break
            cand = ps[active, None] + step * _MOVES[None]  # (A, 8, 4)
            sc = _score(view, sigma, cand.reshape(-1, 4)).reshape(len(active), len(_MOVES))
            k = np.argmax(sc, 1)
            top = sc[np.arange(len(active)), k]
            up = top > best[active]
            ps[active[up]], best[active[up]] = cand[up, k[up]], top[up]
            active = active[up]
    return ps, best


def _lines_across(view: View, sigma: float, top: np.ndarray, bottom: np.ndarray, shares: np.ndarray) -> np.ndarray:
    """The gradient along lines across a half between the points' tips, where no point is, at ``shares`` of the
    way from the quarters' a (0) to their b (1), one value each: a field's end is the frame's or the bar's edge,
    all across the field, and inside a half no such edge runs. All the lines sampled at once."""
    gx = view.blurred(0, sigma)
    x0 = (top[0] + shares * (top[1] - top[0]))[:, None]
    x1 = (bottom[0] + shares * (bottom[1] - bottom[0]))[:, None]
    y0, y1 = top[3], bottom[3]
    t = np.linspace(0.1, 0.9, 40)
    xs = (x0 + (x1 - x0) * (t * (y1 - y0) + y0 - top[2]) / max(bottom[2] - top[2], 1.0)).astype(np.float32)
    ys = np.broadcast_to((y0 + (y1 - y0) * t).astype(np.float32), xs.shape).copy()
    v = cv2.remap(gx, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    return np.median(v, axis=1).astype(np.float64) / view.mean


_SHARES = np.arange(7) / 6  # a half's two ends (0, 1) and its five inner point boundaries


def _fit_halves(view: View, starts: np.ndarray) -> list[QuarterFit]:
    """The quarters (``starts`` (4, 4): TL, BL, TR, BR, each half's top then bottom), each climbed on its own.
    A comb fits as well a whole point aside (a point on the frame or the bar, one of its own under a stack of
    checkers): each half's two rows are moved together a point either way, and the choice is the rows' points
    together (a stack covers a point in one row, rarely in both), the half's two ends, straight edges
    across the field, and no such edge inside it (`INSIDE_K`): a comb a point towards the bar has the bar's far
    edge inside it, where its innermost point lies on the bar."""
    fine = LEVELS[-1][0]
    fitted, _ = _climb(view, starts)
    w = (fitted[:, 1] - fitted[:, 0]) / 6
    zero = np.zeros_like(w)
    moved = {j: fitted + np.stack([j * w, j * w, zero, zero], 1) for j in (-1, 1)}
    climbed, _ = _climb(view, np.concatenate([moved[-1], moved[1]]), LEVELS[2:])
    tried = {0: fitted, -1: climbed[:4], 1: climbed[4:]}
    out: list[QuarterFit] = []
    for h in (0, 2):
        best = None
        for j in (0, -1, 1):
            t, b = tried[j][h], tried[j][h + 1]
            pts = _points(view, fine, np.array([t, b]))  # (2, 6)
            lines = _lines_across(view, 1.5, t, b, _SHARES)
            ends, inside = lines[0] + lines[-1], lines[1:-1].max()
            rate = float(np.max(pts, 0).mean() + pts.mean() + 0.5 * ends - INSIDE_K * inside)
            if best is None or rate > best[0]:
                best = (rate, t, b, pts)
        _, t, b, pts = best
        out += [QuarterFit(*map(float, t), float(pts[0].mean())), QuarterFit(*map(float, b), float(pts[1].mean()))]
    return out


INWARD, OUTWARD = 0.3, 0.5  # the rim and the ends are looked for this many point widths in and out of the points' fit
TILT = 0.12  # point widths the two ends of an edge may differ from the comb's direction
STRONG = 0.6  # of the lines this strong against the strongest, the innermost is the field's edge


def _edge_line(g: np.ndarray, p0: np.ndarray, p1: np.ndarray, out: np.ndarray, w: float,
               span: tuple[float, float] = (0.05, 0.95)) -> tuple[float, float]:
    """The field's edge near the line p0-p1: the offsets (at p0, at p1, along the outward normal ``out``,
    from `INWARD` point widths ``w`` in to `OUTWARD` out) of the innermost straight line nearly as strong
    in ``g`` as the strongest there, over the ``span`` of it (each line's strength the mean of its strongest
    three quarters: checkers and hands break parts). Innermost, not strongest: a frame's outer edge, or the
    far side of a printed border, is often stronger than the field's own."""
    offs = np.arange(-INWARD * w, OUTWARD * w + 0.25, 0.5)
    # only lines near the comb's direction (offsets at the two ends alike): one tilted far from it crosses edges
    # rather than follows one
    i, j = np.nonzero(np.abs(offs[:, None] - offs[None, :]) <= max(2.0, TILT * w))
    t = np.linspace(*span, 48)[None, :, None]
    a, b = p0 + offs[i, None] * out, p1 + offs[j, None] * out
    m = (a[:, None] + t * (b - a)[:, None]).astype(np.float32)  # (lines, samples, 2)
    v = cv2.remap(g, m[..., 0], m[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    k = v.shape[1] // 4
    strength = np.zeros((len(offs), len(offs)), np.float32)  # the unlevel lines: none
    strength[i, j] = np.sort(v, 1)[:, k:].mean(1)
    mean_off = (offs[:, None] + offs[None, :]) / 2
    cand = np.where(strength >= STRONG * strength.max(), mean_off, np.inf)
    # the innermost strong line, then the strongest of those within a pixel of it (the edge's own tilt)
    near = cand <= cand.min() + 1.0
    i, j = np.unravel_index(int(np.argmax(np.where(near, strength, -np.inf))), strength.shape)
    return float(offs[i]), float(offs[j])


def _snap_corners(view: View, qs: dict) -> np.ndarray:
    """The field's corners in the rectified view: the points' fit gives the ends along the rows (the comb
    is precise there), but the rim poorly (the sides are steep: a rim far off moves them little), so each
    row's rim is the innermost strong straight edge across the view near the fitted bases, and each end
    the same along it between the rows' tips (the frame's inner edge: boards leave a margin beyond their
    outermost points)."""
    gx, gy = view.grads(0.8)
    rows, cols = {}, {}
    for row, (left, right), sign in (("T", ("TL", "TR"), -1.0), ("B", ("BL", "BR"), 1.0)):
        l, r = qs[left], qs[right]
        p0, p1 = np.array([l.a, l.rim]), np.array([r.b, r.rim])
        out = np.array([0.0, sign])
        d0, d1 = _edge_line(gy, p0, p1, out, (l.b - l.a) / 6)
        rows[row] = np.array([p0 + d0 * out, p1 + d1 * out])
    for side, (top, bottom, which), sign in (("L", ("TL", "BL", 0), -1.0), ("R", ("TR", "BR", 1), 1.0)):
        t, b = qs[top], qs[bottom]
        x0, x1 = (t.a, b.a) if which == 0 else (t.b, b.b)
        p0, p1 = np.array([x0, t.rim]), np.array([x1, b.rim])
        h = max(b.rim - t.rim, 1.0)
        span = (min(max((t.tip - t.rim) / h, 0.0), 0.45), max(min((b.tip - t.rim) / h, 1.0), 0.55))
        out = np.array([sign, 0.0])
        d0, d1 = _edge_line(gx, p0, p1, out, (t.b - t.a) / 6, span)
        cols[side] = np.array([p0 + d0 * out, p1 + d1 * out])
    return np.array([_intersect(rows["T"], cols["L"]), _intersect(rows["T"], cols["R"]),
                     _intersect(rows["B"], cols["R"]), _intersect(rows["B"], cols["L"])])


def fit(img: np.ndarray, quad: np.ndarray, bar: float = 0.08, length: float = 0.42, margin: float = 0.0,
        rounds: int = 2) -> PointFit:
    """The field's corners fitted by its points, from a rough ``quad`` (TL, TR, BR, BL; the rows along side
    TL-TR, the bar between its halves) and a rough shape (the bar's and the ends' share of the width, the
    points' share of the height). Two rounds: the second rectifies around the first's corners."""
    quad = np.asarray(quad, np.float64)
    for _ in range(rounds):
        view = View(img, quad)
        p, W, Hh = view.pad, view.w, view.h
        xs = ((p + margin * W, p + (0.5 - bar / 2) * W), (p + (0.5 + bar / 2) * W, p + (1 - margin) * W))
        rims = ((p, p + length * Hh), (p + Hh, p + Hh - length * Hh))
        starts = {"TL": (*xs[0], *rims[0]), "TR": (*xs[1], *rims[0]),
                  "BR": (*xs[1], *rims[1]), "BL": (*xs[0], *rims[1])}
        order = ("TL", "BL", "TR", "BR")
        qs = dict(zip(order, _fit_halves(view, np.array([starts[k] for k in order]))))
        rect = _snap_corners(view, qs)
        quad = view.to_picture(rect)
    return PointFit(quad, tuple(qs[k] for k in QUARTERS))
