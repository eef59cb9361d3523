"""Put a found field's sides where its points end: the board finder's precision step.

The outlines and lines that `vision.fieldfind` judges follow the board's strongest straight edges, and
the points' edge score rates a field a wall's height too large about as well as the right one: on a
board with a raised rim seen from above, the finder took the rim's top, 2-4 % of the field's diagonal
outside the floor on which the points are painted and the checkers lie (the field: see
tests/data/real_labels.json). Where the points end says where the field is. Every point is a triangle
whose two sides run from its tip to its base on the rim, and past the base its edge stops. `fit_rims`
rectifies the picture around a found field at about the picture's own resolution and, for each of the
48 sides of the found layout:

1. places the side by the gradient across it over its middle (up to a third of a point aside, its base
   end a little aside: a field a few per cent off puts the layout's sides that far from the points');
2. walks along it from a third of the way to the tip outward past the base, following the strongest
   gradient within a few pixels of the line (thin printed strokes), and notes where the edge stops.

A stack of checkers stops the sides it covers early, and stacks of one height line up too, but always inside the
rim: each row's rim is the outermost line that many sides' stops agree on, across both halves of the row, laid
along the found side at their median (the found side's direction comes from the board's long straight edges; a
slope fitted to the stops, where a few points give them in one half, tilted the rim to the far corner: 134
labelled real pictures within 1.5 % 84 -> 95 with `fieldfind._one_way`, 2026-12-05), kept only where it is a
straight edge of the picture, clearly stronger than lines parallel to it inside the field (points with rounded
bases stop short of a rim some pixels further out: there the found side stays). Each end of the field is then the
innermost straight edge, between the rows' tips, beyond the outermost points' bases (their corners fitted as
evenly spaced from every side placed: the outermost point is often under a stack) at least `END_K` as strong as
the rims (an end wall's foot is fainter than the rows' rims, the rim's top and the table beyond stronger). Where a
wall's foot lies in the shade, fainter still, the board's symmetry decides (`_ends`): the two ends lie as far
beyond their outermost points, so an edge that far out on the other side, half as strong, is the end (one camera
of the pine board put its left end on the wall's top, 2 % out, on 7 of its frames; within 1.5 % 80 -> 82 of 134).

Measured on the 134 labelled real pictures (tests/bench/bench_real.py, 2026-12-04, with the pine board's second
camera's bottom side re-measured that day): corners within 1.5 % of the diagonal 27 -> 66, within 3 % 68 -> 86,
within 5 % 97 -> 103, none found but more than 5 % off either way; the pine board (a raised rim, its inner
walls in view) 2 -> 40 of 83 within 1.5 %.
"""

from __future__ import annotations

import cv2
import numpy as np

from .fieldsnap import _intersect
from .pointfit import View

MAX_W = 1600  # px: the rectified view's width along the rows at most (about the picture's own resolution)
SHIFTS = np.arange(-0.35, 0.351, 0.025)  # point widths a side is searched aside
BASE_SHIFTS = np.arange(-0.08, 0.081, 0.02)  # and its base end alone
MIDDLE = np.linspace(0.15, 0.7, 40)  # where along a side (base 0, tip 1) it is placed
WALK_FROM = 0.3  # the walk starts this far from the base towards the tip
REACH = 0.10  # and goes past the base this share of the field's height
FOLLOW = 2.5  # px either side of the line the walk takes the strongest gradient from
LOW = 0.4  # the edge has stopped where the gradient falls under this share of its own along the side
STOPPED = 4  # samples in a row (half a px apart)
AGREE = 0.004  # stops within this share of the field's height (2 px at least) lie on one line
MIN_SIDES = 5  # sides that agree on a rim, at least (and a quarter of those found, two per half)
RIM_K = 1.5  # a rim is this much stronger than lines parallel to it 3-7 % inside the field
END_K = 0.35  # an end's edge is at least this share of the rims' strength
MOVE = 0.08  # share of the field's height a rim may lie from the found side (stacks of checkers line up further in)
MIRROR_K = 0.5  # an end's edge at the other end's margin may be this share of `END_K`'s bar
MIRROR_TOL = 0.1  # point widths the two ends' margins may differ by (0.06 to 0.15 alike on the real pictures)
END_REACH = 0.08  # share of the field's width an end is searched beyond the outermost points' bases
END_TILT = 4  # px the end's far end may lean


def _across(view: View, a: np.ndarray, b: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """The gradient across lines from ``a`` to ``b`` ((..., 2) each, rectified px) at fractions ``ts`` along
    them: (..., len(ts))."""
    d = b - a
    n = np.stack([d[..., 1], -d[..., 0]], -1) / (np.linalg.norm(d, axis=-1, keepdims=True) + 1e-9)
    pts = (a[..., None, :] + ts[:, None] * d[..., None, :]).astype(np.float32)
    flat = pts.reshape(-1, len(ts), 2)  # remap takes maps under 32767 wide
    gx = cv2.remap(view.gx, flat[..., 0], flat[..., 1], cv2.INTER_LINEAR).reshape(pts.shape[:-1])
    gy = cv2.remap(view.gy, flat[..., 0], flat[..., 1], cv2.INTER_LINEAR).reshape(pts.shape[:-1])
    return np.abs(gx * n[..., None, 0] + gy * n[..., None, 1])


def _side_stops(view: View, base: np.ndarray, tip: np.ndarray, pw: float) -> list[tuple[float, float, float] | None]:
    """Sides of points, from each base corner (``base`` (N, 2)) to its tip (``tip`` (N, 2)) as the layout puts
    them: each placed (all at once), then followed outward past its base. For each, (x, y) where its edge stops
    and its strength, or None where it does not."""
    d = tip - base
    length = np.linalg.norm(d, axis=1)
    n = np.stack([d[:, 1], -d[:, 0]], 1) / length[:, None]
    off = SHIFTS[None, :, None] * pw * n[:, None]  # (N, shifts, 2)
    g = _across(view, base[:, None] + off, tip[:, None] + off, MIDDLE).mean(-1)
    every = np.arange(len(base))
    k = np.argmax(g, 1)
    a, b = base + off[every, k], tip + off[every, k]
    lean = BASE_SHIFTS[None, :, None] * pw * n[:, None]
    g2 = _across(view, a[:, None] + lean, np.broadcast_to(b[:, None], lean.shape), MIDDLE).mean(-1)
    j = np.argmax(g2, 1)
    a = a + lean[every, j]
    return [_walk(view, a[m], b[m], n[m], float(length[m]), float(g2[m, j[m]])) for m in every]


def _walk(view: View, a: np.ndarray, b: np.ndarray, n: np.ndarray, length: float, strength: float
          ) -> tuple[float, float, float] | None:
    """A placed side (base ``a``, tip ``b``, normal ``n``) followed outward past its base: where its edge stops."""
    ts = np.arange(WALK_FROM, -REACH * view.h / length, -0.5 / length)
    side = np.arange(-FOLLOW, FOLLOW + 0.1, 0.5)[:, None] * n
    g = _across(view, a + side, b + side, ts).max(0)
    g = np.convolve(g, np.ones(3) / 3, mode="same")
    ref = float(np.median(g[:max(len(g) * 3 // 10, 3)]))
    if ref <= 0:
        return None
    low = g < LOW * ref
    run = np.convolve(low, np.ones(STOPPED), mode="valid") == STOPPED
    if not run.any():
        return None
    q = a + ts[int(np.argmax(run))] * (b - a)
    return float(q[0]), float(q[1]), strength


def _rim(xs: np.ndarray, ys: np.ndarray, strength: np.ndarray, xmid: float, tol: float, out: float
         ) -> np.ndarray | None:
    """The outermost line (``out``: -1 where outward is up, +1 down) that at least `MIN_SIDES` of the sides'
    stops (x, y) lie on within ``tol``, two or more each side of ``xmid``: its two ends, or None. The rim runs
    along the found side, at the median of those stops: the side's direction comes from the board's long straight
    edges, and a slope fitted to stops that a few points give in one half tilts the rim to the far corner."""
    keep = strength >= 0.3 * np.median(strength) if len(strength) else np.zeros(0, bool)
    xs, ys = xs[keep], ys[keep]
    need = max(MIN_SIDES, len(xs) // 4)
    # every pair of stops makes a line; its inliers and their least-squares line, all pairs at once
    i, j = np.triu_indices(len(xs), 1)
    dx = xs[j] - xs[i]
    ok = np.abs(dx) > 1e-6
    i, slope = i[ok], (ys[j] - ys[i])[ok] / dx[ok]
    inl = np.abs(ys[None] - (ys[i, None] + slope[:, None] * (xs[None] - xs[i, None]))) <= tol
    n = inl.sum(1)
    ok = (n >= need) & ((inl & (xs < xmid)).sum(1) >= 2) & ((inl & (xs > xmid)).sum(1) >= 2)
    inl, n = inl[ok], n[ok]
    sx, sy, sxx, sxy = inl @ xs, inl @ ys, inl @ (xs * xs), inl @ (xs * ys)
    k = (n * sxy - sx * sy) / (n * sxx - sx * sx)
    far = out * (k * xmid + (sy - k * sx) / n)  # how far out each line lies at the middle
    best = None
    for m in range(len(n)):  # in the pairs' order: the outermost, and of lines alike the one most stops lie on
        if best is None or far[m] > best[0] + tol or (abs(far[m] - best[0]) <= tol and n[m] > best[1]):
            best = (float(far[m]), int(n[m]), m)
    if best is None:
        return None
    y = float(np.median(ys[inl[best[2]]]))
    return np.array([[xs.min(), y], [xs.max(), y]])


def _strength(g: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """How strong straight edges of ``g`` (|gradient| across them) are along lines sampled at ``pts``
    ((..., samples, 2)): the mean of each line's strongest three quarters (checkers and hands break parts)."""
    m = pts.reshape(-1, pts.shape[-2], 2).astype(np.float32)  # remap takes maps under 32767 wide
    v = np.abs(cv2.remap(g, m[..., 0], m[..., 1], cv2.INTER_LINEAR)).reshape(pts.shape[:-1])
    return np.sort(v, -1)[..., pts.shape[-2] // 4:].mean(-1)


def _line_strength(g: np.ndarray, line: np.ndarray, n: np.ndarray) -> float:
    """`_strength` of ``line``, the best within 2 px of it."""
    ts = np.linspace(0.05, 0.95, 200)
    pts = line[0] + ts[:, None] * (line[1] - line[0])
    return float(_strength(g, pts[None] + np.arange(-2.0, 2.1, 0.5)[:, None, None] * n).max())


def _outer_corner(corners: list[tuple[int, float]], j_out: int, pw: float) -> float | None:
    """A half's base corners (place 0..6 along the half, x) fitted as evenly spaced, robustly: x at ``j_out``."""
    if len(corners) < 4:
        return None
    j, x = np.array(corners, np.float64).T
    ok = np.ones(len(j), bool)
    for _ in range(3):
        slope, c = np.polyfit(j[ok], x[ok], 1)
        new = np.abs(x - (slope * j + c)) <= max(0.12 * pw, 2.0)
        if new.sum() < 4:
            break
        ok = new
    return float(slope * j_out + c)


def _end_edges(view: View, start: float, out: float, ya: float, yb: float) -> tuple[np.ndarray, np.ndarray]:
    """The straight edges across the rows between ``ya`` and ``yb`` from x = ``start`` outward (``out`` -1 left,
    +1 right), innermost first: their x and their strength."""
    offs = np.arange(0.0, END_REACH * view.w, 0.5)
    ys = np.linspace(ya, yb, 120)
    lean = np.arange(-END_TILT, END_TILT + 0.1, 1.0)
    xs = start + out * offs[:, None, None] + lean[None, :, None] * ((ys - ya) / (yb - ya))[None, None]
    strength = _strength(view.gx, np.stack([xs, np.broadcast_to(ys, xs.shape)], -1)).max(1)
    peak = np.r_[False, strength[1:] >= strength[:-1]] & np.r_[strength[:-1] >= strength[1:], False]
    return start + out * offs[peak], strength[peak]


def _ends(edges: dict, bases: dict, enough: float, tol: float) -> dict:
    """Each end's x, "L" and "R" (``edges``: an end's edges, x and strength, innermost first; ``bases``: the x
    of its outermost points' bases): the innermost edge at least ``enough`` strong. Boards are symmetric: the
    innermost pair of edges beyond the points at margins from the bases within ``tol`` of each other, each
    `MIRROR_K` as strong, takes each end it finds further in (a wall's foot in the shade is fainter than the
    wall's top, and the other end's foot vouches for it)."""
    def margin(k, x):
        return bases[k] - x if k == "L" else x - bases[k]

    x = {k: (float(xs[s >= enough][0]) if (s >= enough).any() else None) for k, (xs, s) in edges.items()}
    if len(edges) == 2:
        (xl, sl), (xr, sr) = edges["L"], edges["R"]
        ml, mr = margin("L", xl)[:, None], margin("R", xr)[None]
        ok = (sl[:, None] >= MIRROR_K * enough) & (sr[None] >= MIRROR_K * enough)
        ok &= (np.abs(ml - mr) <= tol) & (ml >= 0) & (mr >= 0)
        if ok.any():
            i, j = np.unravel_index(np.argmin(np.where(ok, np.maximum(ml, mr), np.inf)), ok.shape)
            for k, new in (("L", xl[i]), ("R", xr[j])):
                if x[k] is None or margin(k, new) < margin(k, x[k]):
                    x[k] = float(new)
    return {k: v for k, v in x.items() if v is not None}


def fit_rims(picture: np.ndarray, quad: np.ndarray, bar: float, length: float, margin: float) -> np.ndarray:
    """A found field's corners (``quad``: TL, TR, BR, BL in picture px, the rows along side TL-TR, the bar
    between its halves; its shape: the bar's and the ends' share of the width, a point's of the height) put
    on its rims and ends where its points say; sides the points say nothing clear of stay where they were."""
    quad = np.asarray(quad, np.float64)
    along = (np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    view = View(picture, quad, int(round(min(along, MAX_W))))
    p, W, H = view.pad, view.w, view.h
    pw = (1 - bar - 2 * margin) / 12 * W
    k = np.arange(12)
    cx = p + margin * W + (k + 0.5) * pw + np.where(k >= 6, bar * W, 0.0)
    rows, strengths, corners = {}, [], {0: [], 1: []}
    for row, y0, out in (("T", p, -1.0), ("B", p + H, 1.0)):
        tip_y = y0 - out * length * H
        which = [(i, e) for i in range(12) for e in (-1, 1)]
        found = _side_stops(view, np.array([[cx[i] + e * pw / 2, y0] for i, e in which]),
                            np.array([[cx[i], tip_y] for i, _ in which]), pw)
        stops = []
        for (i, e), s in zip(which, found):
            if s is not None:
                stops.append(s)
                corners[i // 6].append((i % 6 + (e + 1) // 2, s[0]))
        xs, ys, st = np.array(stops).reshape(-1, 3).T
        line = _rim(xs, ys, st, p + W / 2, max(2.0, AGREE * H), out)
        n = np.array([0.0, out])
        if line is not None and np.abs(line[:, 1] - y0).max() <= MOVE * H:
            strength = _line_strength(view.gy, line, n)
            inside = np.median([_line_strength(view.gy, line - n * f * H, n) for f in (0.03, 0.05, 0.07)])
            if strength >= RIM_K * inside:
                rows[row] = line
                strengths.append(strength)
                continue
        rows[row] = np.array([[p, y0], [p + W, y0]], np.float64)
    # the ends between the rows' tips, where no point's side crosses; most of the height where they reach far
    ya, yb = (p + (length + 0.03) * H, p + (1 - length - 0.03) * H) if length < 0.4 else (p + 0.15 * H, p + 0.85 * H)
    edges, bases = {}, {}
    for side, half, j_out, out in (("L", 0, 0, -1.0), ("R", 1, 6, 1.0)):
        base = _outer_corner(corners[half], j_out, pw)
        if strengths and base is not None:
            edges[side], bases[side] = _end_edges(view, base - out * 0.2 * pw, out, ya, yb), base
    xs = _ends(edges, bases, END_K * float(np.median(strengths or [0.0])), MIRROR_TOL * pw)
    ends = {side: np.float64([[xs[side], ya], [xs[side], yb]] if side in xs else [[x0, p], [x0, p + H]])
            for side, x0 in (("L", p), ("R", p + W))}
    rect = [_intersect(rows["T"], ends["L"]), _intersect(rows["T"], ends["R"]),
            _intersect(rows["B"], ends["R"]), _intersect(rows["B"], ends["L"])]
    return view.to_picture(np.array(rect))
