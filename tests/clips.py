"""Short H.264 clips of rendered frames, for tests that need a real video file."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av


def write_clip(path: Path, frames: list, seconds: float, fps: int = 15, crf: int | None = None) -> Path:
    """`seconds` of video at `fps`, cycling through `frames` (BGR), a keyframe a second as the capture agent
    records; `crf`: the encoder's quality (None: its default)."""
    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=Fraction(fps))
        s.height, s.width = frames[0].shape[:2]
        s.pix_fmt = "yuv420p"
        s.options = {"preset": "ultrafast", "g": str(fps), **({"crf": str(crf)} if crf is not None else {})}
        for i in range(int(seconds * fps)):
            for p in s.encode(av.VideoFrame.from_ndarray(frames[i % len(frames)], format="bgr24")):
                c.mux(p)
        for p in s.encode():
            c.mux(p)
    return path
