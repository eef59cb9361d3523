"""Live frames on the wire: what a capture agent too small to observe its own camera sends the server to observe
for it (`POST /api/v1/ingest/boards/{n}/live/frames`). Each frame is a JSON line `{"t": seconds since the epoch,
"size": bytes}` followed by that many bytes of JPEG; a post carries the frames since the last one, oldest first.
Both ends judge whether the frames are kept up with by the same rule (`Pace`)."""

from __future__ import annotations

import json
import time

import cv2
import numpy as np

MAX_FRAMES = 60  # in one post (an agent posts every half second)
MAX_FRAME_BYTES = 4 << 20
JPEG_QUALITY = 80
WINDOW_S = 20.0  # the frames' pace is judged over windows this long
BEHIND = 1 / 3  # more than this share of a window's frames dropped (of 10 or more): not kept up with


class FramesError(ValueError):
    """A post of frames that does not read; the message says where."""


def jpeg(bgr: np.ndarray, quality: int = JPEG_QUALITY) -> bytes:
    ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("the frame does not encode as JPEG")
    return buf.tobytes()


def frames_body(frames: list[tuple[float, bytes]]) -> bytes:
    return b"".join(json.dumps({"t": round(t, 3), "size": len(j)}).encode() + b"\n" + j for t, j in frames)


def parse_frames(body: bytes) -> list[tuple[float, bytes]]:
    """(t, JPEG bytes) of each frame, in the order sent; FramesError naming the frame that does not read."""
    out, at = [], 0
    while at < len(body):
        n = len(out) + 1
        end = body.find(b"\n", at, at + 200)
        if end < 0:
            raise FramesError(f"frame {n}: no header line")
        try:
            head = json.loads(body[at:end])
            t, size = float(head["t"]), int(head["size"])
        except (ValueError, KeyError, TypeError):
            raise FramesError(f"frame {n}: the header is not {{\"t\": seconds, \"size\": bytes}}") from None
        if not 0 < size <= MAX_FRAME_BYTES:
            raise FramesError(f"frame {n}: {size} bytes (at most {MAX_FRAME_BYTES})")
        data = body[end + 1:end + 1 + size]
        if len(data) != size:
            raise FramesError(f"frame {n}: {len(data)} of its {size} bytes")
        if data[:2] != b"\xff\xd8":
            raise FramesError(f"frame {n}: not a JPEG")
        if out and t <= out[-1][0]:
            raise FramesError(f"frame {n}: its time is not after the frame before")
        out.append((t, data))
        if len(out) > MAX_FRAMES:
            raise FramesError(f"more than {MAX_FRAMES} frames in one post")
        at = end + 1 + size
    return out


def picture(data: bytes) -> np.ndarray | None:
    """The frame as BGR, or None where the JPEG does not decode."""
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)


class Pace:
    """Whether a board's live frames are kept up with, judged over windows of `WINDOW_S`: not where more than
    `BEHIND` of a window's frames (10 or more) were dropped. The agent hands observing to the server by it
    (`--live-where auto`), and the server hands a board back to its agent by it."""

    def __init__(self):
        self.window = (time.monotonic(), 0, 0)  # (start, frames taken, frames dropped) where the window began
        self.last = (0, 0, 0.0)  # the last window closed: frames taken, dropped, seconds

    def behind(self, taken: int, dropped: int) -> bool:
        """``taken``, ``dropped``: the totals so far. True where the window that closes now dropped too many."""
        start, taken0, dropped0 = self.window
        now = time.monotonic()
        if now - start < WINDOW_S:
            return False
        self.window = (now, taken, dropped)
        self.last = (taken - taken0, dropped - dropped0, now - start)
        return self.last[0] >= 10 and self.last[1] > BEHIND * self.last[0]
