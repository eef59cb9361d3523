"""A decoded picture, converted only as far as it is used.

Most analysed frames only need their luma for motion; the BGR picture (a colour conversion that costs
as much as decoding) is made when the board is located or read.
"""

from __future__ import annotations

import cv2
import numpy as np

from .motion import small_gray

_LUMA_FIRST = ("yuv", "yuvj", "nv12", "nv21", "gray")


class Frame:
    def __init__(self, av_frame=None, bgr: np.ndarray | None = None):
        self._av = av_frame
        self._bgr = bgr
        self._gray: np.ndarray | None = None
        self._small: tuple[np.ndarray, int] | None = None

    @property
    def av(self):
        """The decoded PyAV frame (None for a picture given as an array)."""
        return self._av

    @property
    def bgr(self) -> np.ndarray:
        if self._bgr is None:
            self._bgr = self._av.to_ndarray(format="bgr24")
        return self._bgr

    @property
    def gray(self) -> np.ndarray:
        """Luma: for YUV video the decoder's own plane, no conversion."""
        if self._gray is None:
            if self._av is not None and self._av.format.name.startswith(_LUMA_FIRST):
                p = self._av.planes[0]
                self._gray = np.frombuffer(p, np.uint8).reshape(p.height, p.line_size)[:, :p.width]
            else:
                self._gray = cv2.cvtColor(self.bgr, cv2.COLOR_BGR2GRAY)
        return self._gray

    @property
    def small(self) -> tuple[np.ndarray, int]:
        """The small blurred luma that motion is measured on, and its reduction factor."""
        if self._small is None:
            self._small = small_gray(self.gray)
        return self._small

    def mean_luma(self) -> float:
        return float(self.gray[::8, ::8].mean())


def as_frame(frame) -> Frame:
    return frame if isinstance(frame, Frame) else Frame(bgr=frame)


def as_bgr(frame) -> np.ndarray:
    return frame.bgr if isinstance(frame, Frame) else frame


class NoFrame(ValueError):
    """A video (or the part asked for) with no decodable picture."""


def frame_at(src, offset: float):
    """The PyAV frame on screen at ``offset`` seconds into a video (a path or an open binary file): the last
    one that starts at or before it. NoFrame where the file holds none."""
    import av

    with av.open(src) as c:
        vs = c.streams.video[0]
        vs.thread_type = "SLICE"
        tb = vs.time_base
        target = (vs.start_time or 0) + int(offset / tb)
        c.seek(target, stream=vs, backward=True, any_frame=False)
        best = None
        for f in c.decode(vs):
            if f.pts is None:
                continue
            if best is None or f.pts <= target:
                best = f
            if f.pts >= target:
                break
        if best is None:
            raise NoFrame("the video holds no decodable frame")
        return best

