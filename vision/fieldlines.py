"""Candidate fields from the picture's long straight lines.

A field's rim is four straight lines, the longest in most board pictures: the frame's inner edge
along both rows and at both ends. Where no region outlines the field (a frame of the field's own
colour, trays and frame of one wood, checkers along the rim), its lines still do. `line_quads`
gathers the picture's line segments (LSD) into lines, keeps the best supported, and makes a
quadrilateral of every two pairs of roughly parallel lines that cross roughly at right angles in
the picture (perspective allowing); `vision.fieldfind` judges them with the others.
"""

from __future__ import annotations

import cv2
import numpy as np

MIN_SEGMENT = 0.03  # a segment counts from this share of the picture's diagonal
SAME_ANGLE = np.deg2rad(2.5)  # segments this close in direction and
SAME_OFFSET = 0.006  # offset (share of the diagonal) lie on one line
LINES = 18  # the best supported lines kept
PARALLEL = np.deg2rad(20)  # opposite sides of a field seen in perspective differ at most this much
CROSSING = np.deg2rad(50)  # and the two pairs cross at least this steeply


def segments(img: np.ndarray) -> np.ndarray:
    """The picture's line segments (LSD): (N, 4) x0, y0, x1, y1."""
    segs = cv2.createLineSegmentDetector().detect(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))[0]
    return np.zeros((0, 4)) if segs is None else segs.reshape(-1, 4).astype(np.float64)


def lines(img: np.ndarray, segs: np.ndarray | None = None) -> list[tuple[float, float, float]]:
    """The picture's long straight lines: (angle 0..pi of the normal, offset along it, support in px); ``segs``: its
    `segments`, where the caller has them."""
    segs = segments(img) if segs is None else segs
    diag = float(np.hypot(*img.shape[:2]))
    length = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    keep = length >= MIN_SEGMENT * diag
    segs, length = segs[keep], length[keep]
    out: list[list[float]] = []  # angle, offset, support
    for k in np.argsort(-length):
        x0, y0, x1, y1 = segs[k]
        theta = (np.arctan2(x1 - x0, -(y1 - y0))) % np.pi  # the normal's direction
        rho = x0 * np.cos(theta) + y0 * np.sin(theta)
        for ln in out:
            d = abs(ln[0] - theta)
            # the same line, also across the angle's wrap (where the normal flips, so does the offset)
            if min(d, np.pi - d) < SAME_ANGLE and abs((ln[1] if d < np.pi / 2 else -ln[1]) - rho) < SAME_OFFSET * diag:
                ln[2] += length[k]
                break
        else:
            out.append([theta, rho, float(length[k])])
    out.sort(key=lambda ln: -ln[2])
    return [tuple(ln) for ln in out[:LINES]]


def _angle(a: float, b: float) -> float:
    d = abs(a - b) % np.pi
    return min(d, np.pi - d)


def _foot(ln, p: np.ndarray) -> np.ndarray:
    n = np.array([np.cos(ln[0]), np.sin(ln[0])])
    return p - (p @ n - ln[1]) * n


def _meet(l1, l2) -> np.ndarray | None:
    (t1, r1), (t2, r2) = l1[:2], l2[:2]
    A = np.array([[np.cos(t1), np.sin(t1)], [np.cos(t2), np.sin(t2)]])
    if abs(np.linalg.det(A)) < 1e-6:
        return None
    return np.linalg.solve(A, np.array([r1, r2]))


def line_quads(img: np.ndarray, segs: np.ndarray | None = None) -> list[np.ndarray]:
    """Quadrilaterals whose four sides are lines of the picture (working-copy pixels, any corner order)."""
    ls = lines(img, segs)
    diag = float(np.hypot(*img.shape[:2]))
    c = np.array([img.shape[1] / 2, img.shape[0] / 2])
    pairs = []
    for i in range(len(ls)):
        for j in range(i + 1, len(ls)):
            a, b = ls[i], ls[j]
            # roughly parallel and far enough apart (their nearest points to the picture's middle)
            if _angle(a[0], b[0]) < PARALLEL and np.linalg.norm(_foot(a, c) - _foot(b, c)) > 0.15 * diag:
                pairs.append((i, j))
    meets: dict[tuple[int, int], np.ndarray | None] = {}  # each two lines met once, not once per quadrilateral

    def meet(i: int, j: int) -> np.ndarray | None:
        if (i, j) not in meets:
            meets[i, j] = _meet(ls[i], ls[j])
        return meets[i, j]

    out = []
    for i in range(len(pairs)):
        for j in range(i + 1, len(pairs)):
            (a1, a2), (b1, b2) = pairs[i], pairs[j]
            if _angle(ls[a1][0], ls[b1][0]) < CROSSING:
                continue
            pts = [meet(a1, b1), meet(b1, a2), meet(a2, b2), meet(b2, a1)]
            if any(p is None for p in pts):
                continue
            out.append(np.array(pts))
    return out
