"""Following a board whose field a person confirmed when the camera (or the board) is bumped.

The picture at confirmation is the anchor: features of the board and its frame (ORB keypoints inside the
field's outline grown to take in the frame and trays) and the corner markers (`vision.markers`) where they
are stuck beside the board. A later quiet frame is registered to the anchor by the homography that most of
the matches agree on (RANSAC; checkers that moved since are outliers), and the field's corners follow it.
The anchor is kept, never re-taken from a followed frame, so errors do not add up over a day; it travels
with the board's state from one segment to the next. Unsure registrations (few or scattered matches, a
jump too large to be a bump) change nothing.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

import cv2
import numpy as np

FEATURES = 1200
GROW = 0.12  # the field's outline grown by this share of its size: the frame and the trays are anchors too
RATIO = 0.8  # Lowe's ratio test: a triangle matches its neighbours too well to be told apart otherwise
MIN_INLIERS = 40
MIN_SHARE = 0.3  # of the ratio-tested matches
MAX_JUMP = 0.15  # of the field's diagonal: a corner moving further is not a bump (another scene): no follow
RANSAC_PX = 3.0
STAY = 0.8  # the corners held now explain this share of the bumped fit's matches: no bump
MARKER_WEIGHT = 8  # each marker corner counts as this many matches: printed corners are exact


def same_corners(a: np.ndarray, b: np.ndarray, px: float = 1.0) -> bool:
    """The same four corners (in any order round the field) within ``px`` pixels."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return any(np.abs(np.roll(q, k, 0) - b).max() <= px for q in (a, a[::-1]) for k in range(4))


def _grown(field: np.ndarray, share: float) -> np.ndarray:
    c = field.mean(0)
    return c + (field - c) * (1.0 + share)


def _mask(shape: tuple[int, int], poly: np.ndarray) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(m, np.int32(np.round(poly)), 255)
    return m


def _markers(gray: np.ndarray) -> dict[int, np.ndarray]:
    from .markers import find_marker_corners

    return find_marker_corners(gray)


@dataclass
class Anchor:
    field: np.ndarray  # (4, 2) the field's corners in the anchor picture (as the tracker holds them)
    points: np.ndarray  # (n, 2) float32 keypoints
    descriptors: np.ndarray  # (n, 32) uint8 ORB descriptors
    markers: dict[int, np.ndarray] = field(default_factory=dict)  # id -> (4, 2) marker corners

    @classmethod
    def take(cls, gray: np.ndarray, corners: np.ndarray) -> Anchor | None:
        corners = np.asarray(corners, np.float64)
        orb = cv2.ORB_create(FEATURES)
        kp, desc = orb.detectAndCompute(gray, _mask(gray.shape[:2], _grown(corners, GROW)))
        if desc is None or len(kp) < MIN_INLIERS:
            return None  # a featureless picture: nothing to follow by
        pts = np.float32([k.pt for k in kp])
        return cls(corners, pts, desc, _markers(gray))

    def follow(self, gray: np.ndarray, current: np.ndarray | None = None) -> np.ndarray | None:
        """The field's corners in this picture, or None when the registration is not sure or when the corners
        held now (``current``, default: the anchor's) explain the matches about as well (no bump since)."""
        diag = float(np.linalg.norm(self.field[2] - self.field[0]))
        orb = cv2.ORB_create(FEATURES * 2)
        kp, desc = orb.detectAndCompute(gray, _mask(gray.shape[:2], _grown(self.field, GROW + 2 * MAX_JUMP)))
        src, dst = [], []
        if desc is not None and len(kp) >= 2:
            pairs = cv2.BFMatcher(cv2.NORM_HAMMING).knnMatch(self.descriptors, desc, k=2)
            for p in pairs:
                if len(p) == 2 and p[0].distance < RATIO * p[1].distance:
                    src.append(self.points[p[0].queryIdx])
                    dst.append(kp[p[0].trainIdx].pt)
        n_features = len(src)
        now = _markers(gray) if self.markers else {}
        for k in set(self.markers) & set(now):
            for _ in range(MARKER_WEIGHT):
                src.extend(self.markers[k])
                dst.extend(now[k])
        if len(src) < MIN_INLIERS:
            return None
        src, dst = np.float32(src), np.float32(dst)
        H, inl = cv2.findHomography(src, dst, cv2.USAC_MAGSAC, RANSAC_PX)
        if H is None:
            return None
        inl = inl.ravel().astype(bool)
        held = self.field if current is None else np.asarray(current, np.float64)
        H_held = cv2.getPerspectiveTransform(np.float32(self.field), np.float32(held))
        err_held = np.linalg.norm(cv2.perspectiveTransform(src[None], H_held)[0] - dst, axis=1)
        if (err_held < RANSAC_PX).sum() >= STAY * inl.sum():
            return None  # where the corners are now explains the matches nearly as well: not moved
        if inl.sum() < MIN_INLIERS or inl.sum() < MIN_SHARE * max(len(src), 1):
            return None
        if n_features and inl[:n_features].sum() < MIN_SHARE * n_features and not (set(self.markers) & set(now)):
            return None
        moved = cv2.perspectiveTransform(np.float32(self.field)[None], H)[0].astype(np.float64)
        if np.abs(moved - self.field).max() > MAX_JUMP * diag:
            return None
        return moved

    def to_json(self) -> dict:
        return {"field": np.round(self.field, 2).tolist(),
                "points": base64.b64encode(self.points.astype(np.float32).tobytes()).decode(),
                "descriptors": base64.b64encode(self.descriptors.astype(np.uint8).tobytes()).decode(),
                "markers": {str(k): np.round(v, 2).tolist() for k, v in self.markers.items()}}

    @classmethod
    def from_json(cls, d: dict) -> Anchor:
        pts = np.frombuffer(base64.b64decode(d["points"]), np.float32).reshape(-1, 2).copy()
        desc = np.frombuffer(base64.b64decode(d["descriptors"]), np.uint8).reshape(-1, 32).copy()
        if len(pts) != len(desc):
            raise ValueError("the board's anchor is damaged (keypoints and descriptors differ in number)")
        markers = {int(k): np.asarray(v, np.float64).reshape(4, 2) for k, v in (d.get("markers") or {}).items()}
        return cls(np.asarray(d["field"], np.float64).reshape(4, 2), pts, desc, markers)
