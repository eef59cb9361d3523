"""Which frames are quiet: nothing moving over the board for a moment.

Motion is measured on a small grey copy of the frame, inside the board's outline:
the fraction of pixels that changed since the previous analysed frame. A frame is
quiet once motion has stayed low for a moment (0.4 s); only quiet frames are read
in full (a hand in the picture is almost never still that long).
"""

from __future__ import annotations

import cv2
import numpy as np

SMALL_W = 192  # about this wide: an integer reduction of the frame (exact area averaging is fast)
STILL_LEVELS = 14  # grey levels a pixel of the small copy may change by and still be the same picture ...
STILL_PIXELS = 4  # ... and how many pixels may exceed that (sensor noise, compression)


def small_gray(gray: np.ndarray) -> tuple[np.ndarray, int]:
    """A small blurred copy of a luma picture, and the reduction factor."""
    k = max(1, round(gray.shape[1] / SMALL_W))
    h, w = gray.shape[0] // k, gray.shape[1] // k
    small = cv2.resize(gray[:h * k, :w * k], (w, h), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (3, 3), 0), k


def same_picture(a: np.ndarray, b: np.ndarray, mask: np.ndarray | None = None) -> bool:
    """Two small copies (`small_gray`) show the same picture: nothing moved, appeared or turned over."""
    if a.shape != b.shape:
        return False
    differ = cv2.absdiff(a, b) > STILL_LEVELS
    return int((differ & mask if mask is not None else differ).sum()) <= STILL_PIXELS


class MotionMeter:
    def __init__(self, threshold: int = 14):
        self.threshold = threshold
        self.prev: np.ndarray | None = None
        self.mask: np.ndarray | None = None
        self._mask_key: bytes | None = None
        self.reference: np.ndarray | None = None  # the last quiet picture: how much differs from it now

    def _board_mask(self, corners: np.ndarray | None, shape: tuple[int, int], k: int) -> np.ndarray:
        if corners is None:
            return np.ones(shape, bool)
        key = np.round(corners).tobytes() + bytes([k])
        if key != self._mask_key or self.mask.shape != shape:
            m = np.zeros(shape, np.uint8)
            cv2.fillConvexPoly(m, (np.asarray(corners) / k).astype(np.int32), 1)
            self.mask, self._mask_key = m.astype(bool), key
        return self.mask

    def update(self, small: np.ndarray, k: int, corners: np.ndarray | None = None) -> tuple[float, float]:
        """(motion, changed-since-last-quiet) as fractions of the board's area, from a frame's small luma
        (`small_gray`) and its reduction factor."""
        if self.prev is not None and self.prev.shape != small.shape:
            self.prev = self.reference = None  # the picture size changed: start afresh
        mask = self._board_mask(corners, small.shape, k)
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

    def unchanged_since_quiet(self) -> bool:
        """The board (inside its outline) looks as it did at the last `mark_quiet`."""
        return self.reference is not None and same_picture(self._last, self.reference, self.mask)


class QuietDetector:
    """Quiet once motion has stayed low for `hold_s` seconds (timed, so frames the decoder skipped
    because nothing changed count as the still time they are)."""

    def __init__(self, hold_s: float, threshold: float = 0.004):
        self.hold_s, self.threshold = hold_s, threshold
        self.since: float | None = None  # the time stillness began: the frame before the first still one
        self.prev_t: float | None = None

    def update(self, motion: float, t: float) -> bool:
        prev, self.prev_t = self.prev_t, t
        if motion >= self.threshold or prev is None:
            self.since = None
            return False
        if self.since is None:
            self.since = prev
        return t - self.since >= self.hold_s - 1e-3
