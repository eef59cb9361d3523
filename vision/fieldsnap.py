"""Put a rough playing field's sides on the straight edges of the board.

The points' edge score (`vision.pointedges`) tells a board from anything else, but its optimum is the
points' layout, which on real boards sits a margin inside the field's rim, and a candidate outline is
often a little in or out. The field's four sides are the inner edges of the board's frame:
straight lines, with the frame's one colour on the outside, from one corner of the field to the next
(checkers stacked at the points' bases end on the same line). `edge_lines` finds, for each side of a
rough field, the straight edges near it that run along it (offset and tilt searched, the response a
robust mean along the whole side so that a stack or a hand on part of it costs little); `snap` then
keeps, of the combinations of one line per side that the points' edge score rates alike, the one on the
strongest edges, so that the lines give the corners' precision and the layout chooses between the
frame's inner edge, its outer edge, a tray's edge and the table's.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import cv2
import numpy as np

REACH = 0.07  # the search reaches this share of the field's diagonal in and out of each side
PEAKS = 3  # lines kept per side
TIE = 0.15  # outlines the points' edges rate this close to the best are alike (see `snap`)
MAX_TILT = 0.03  # how far the two ends of a side may move apart, share of the diagonal
SAMPLES = 160  # points along a side
_ALONG = np.linspace(0.06, 0.94, SAMPLES, dtype=np.float32)  # their places (the corners' neighbourhoods left out)


@lru_cache(maxsize=64)
def _lines(offsets: int, tilt: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every line from offset a (at a side's start) to b (at its end, within ``tilt`` of a) of ``offsets``:
    a and b, (lines,), and its samples' flat indices in the (offsets, `SAMPLES`) responses, (lines, SAMPLES).
    The same for every side of one size: made once."""
    a = np.arange(offsets)[:, None]
    b = a + np.arange(-tilt, tilt + 1)[None]
    ok = (b >= 0) & (b < offsets)
    A, B = np.broadcast_arrays(a, b)
    A, B = A[ok], B[ok]
    rows = np.rint(A[:, None] + (B - A)[:, None] * ((_ALONG - _ALONG[0]) / (_ALONG[-1] - _ALONG[0]))[None]).astype(int)
    return A, B, rows * SAMPLES + np.arange(SAMPLES)[None]


def edge_lines(grad: tuple[np.ndarray, np.ndarray], quad: np.ndarray, side: int) -> list[tuple[float, np.ndarray]]:
    """The straight edges along one side of ``quad`` (from corner ``side`` to the next): up to `PEAKS`
    (strength, (2, 2) the line's two ends moved along the side's normal), strongest first."""
    gx, gy = grad
    p0, p1 = quad[side], quad[(side + 1) % 4]
    diag = float(max(np.linalg.norm(quad[0] - quad[2]), np.linalg.norm(quad[1] - quad[3])))
    u = (p1 - p0) / (np.linalg.norm(p1 - p0) + 1e-9)
    n = np.array([u[1], -u[0]])
    reach = max(int(REACH * diag), 4)
    ts = np.arange(-reach, reach + 1, dtype=np.float32)
    base = p0[None] + _ALONG[:, None] * (p1 - p0)[None]  # (S, 2)
    pts = base[None] + ts[:, None, None] * n[None, None]  # (T, S, 2)
    mx, my = pts[..., 0].astype(np.float32), pts[..., 1].astype(np.float32)
    g = np.abs(cv2.remap(gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT) * n[0]
               + cv2.remap(gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT) * n[1])  # (T, S)
    A, B, cells = _lines(len(ts), max(int(MAX_TILT * diag), 1))
    vals = g.ravel()[cells]  # (lines, S)
    # robust along the side: the mean of the strongest three quarters (stacks, hands, dice break parts)
    k = int(0.25 * SAMPLES)
    strength = np.sort(vals, axis=1)[:, k:].mean(1)
    out: list[tuple[float, np.ndarray]] = []
    taken: list[tuple[float, float]] = []
    for i in np.argsort(-strength):
        ta, tb = float(ts[A[i]]), float(ts[B[i]])
        if any(abs(ta - oa) < 4 and abs(tb - ob) < 4 for oa, ob in taken):
            continue  # the same edge again
        taken.append((ta, tb))
        out.append((float(strength[i]), np.array([p0 + n * ta, p1 + n * tb])))
        if len(out) == PEAKS:
            break
    return out


def _intersect(l1: np.ndarray, l2: np.ndarray) -> np.ndarray | None:
    (x1, y1), (x2, y2) = l1
    (x3, y3), (x4, y4) = l2
    d = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
    if abs(d) < 1e-9:
        return None
    a, b = x1 * y2 - y1 * x2, x3 * y4 - y3 * x4
    return np.array([(a * (x3 - x4) - (x1 - x2) * b) / d, (a * (y3 - y4) - (y1 - y2) * b) / d])


def quad_of_lines(lines: list[np.ndarray]) -> np.ndarray | None:
    """The corners where consecutive sides' lines meet: corner k between side k-1 and side k."""
    corners = [_intersect(lines[k - 1], lines[k]) for k in range(4)]
    return None if any(c is None for c in corners) else np.array(corners)


def snap(quad: np.ndarray, scores, grad: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, float]:
    """``quad`` with its sides on the board's straight edges: of the lines `edge_lines` finds per side in
    the picture's gradient ``grad`` (`vision.pointedges.colour_gradient`), the combinations (and the
    unmoved quad) that ``scores(quads) -> array`` rates within `TIE` of the best, and of those the one on
    the strongest edges: the points' layout leaves the rim's exact place loose (a margin at the ends, the
    points' length), while the rim is the strongest straight edge there."""
    per_side = [edge_lines(grad, quad, k) for k in range(4)]
    quads, strengths = [quad], [0.0]
    for combo in itertools.product(*per_side):
        q = quad_of_lines([ln for _, ln in combo])
        if q is not None:
            quads.append(q)
            strengths.append(sum(strength for strength, _ in combo))
    rated = list(zip(np.asarray(scores(quads), np.float64), strengths, quads))
    best = max(r[0] for r in rated)
    s, _, q = max((r for r in rated if r[0] >= best - TIE * abs(best)), key=lambda r: r[1])
    return q, float(s)
