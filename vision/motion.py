"""Which frames are quiet: nothing moving over the board for a moment.

Motion is measured on a small grey copy of the frame, inside the board's outline:
the fraction of pixels that changed since the previous analysed frame. A frame is
quiet once motion has stayed low for `hold` consecutive analysed frames; only
quiet frames are read in full (a hand in the picture is almost never still that long).
"""

from __future__ import annotations

import cv2
import numpy as np

SMALL = (192, 108)


class MotionMeter:
    def __init__(self, threshold: int = 14):
        self.threshold = threshold
        self.prev: np.ndarray | None = None
        self.mask: np.ndarray | None = None
        self._mask_key: bytes | None = None
        self.reference: np.ndarray | None = None  # the last quiet picture: how much differs from it now

    def _board_mask(self, corners: np.ndarray | None, shape: tuple[int, int]) -> np.ndarray:
        if corners is None:
            return np.ones(SMALL[::-1], bool)
        key = np.round(corners).tobytes()
        if key != self._mask_key:
            h, w = shape
            pts = (np.asarray(corners) * [SMALL[0] / w, SMALL[1] / h]).astype(np.int32)
            m = np.zeros(SMALL[::-1], np.uint8)
            cv2.fillConvexPoly(m, pts, 1)
            self.mask, self._mask_key = m.astype(bool), key
        return self.mask

    def update(self, frame: np.ndarray, corners: np.ndarray | None = None) -> tuple[float, float]:
        """(motion, changed-since-last-quiet) as fractions of the board's area."""
        small = cv2.cvtColor(cv2.resize(frame, SMALL, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
        small = cv2.GaussianBlur(small, (3, 3), 0)
        mask = self._board_mask(corners, frame.shape[:2])
        area = max(1, int(mask.sum()))
        motion = 1.0 if self.prev is None else \
            float(((cv2.absdiff(small, self.prev) > self.threshold) & mask).sum()) / area
        changed = 0.0 if self.reference is None else \
            float(((cv2.absdiff(small, self.reference) > 3 * self.threshold) & mask).sum()) / area
        self.prev = small
        self._last = small
        return motion, changed

    def mark_quiet(self) -> None:
        self.reference = self._last


class QuietDetector:
    def __init__(self, hold: int, threshold: float = 0.004):
        self.hold, self.threshold = hold, threshold
        self.still = 0

    def update(self, motion: float) -> bool:
        self.still = self.still + 1 if motion < self.threshold else 0
        return self.still >= self.hold
