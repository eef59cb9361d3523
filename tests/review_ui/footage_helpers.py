"""Real footage for the review tests: short fragmented-MP4 segments written by the capture agent's own
recorder (H.264, one fragment per keyframe), uploaded through the real ingest API."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from capture.recorder import EncoderSettings, SegmentWriter

from .test_ingest import upload as ingest_upload


def level(seg: int, frame: int) -> int:
    """The grey level of frame `frame` of test segment `seg` (so a decoded frame tells which one it is)."""
    return (20 + 3 * frame) if seg == 0 else (235 - 3 * frame)


def write_segment(folder: Path, board: int, start: datetime, seconds: float = 6.0, fps: int = 10,
                  size: tuple[int, int] = (320, 240), seg: int = 0, pattern=None):
    """Record a segment with capture's SegmentWriter: flat grey frames, frame k at `level(seg, k)`
    (or `pattern(k)`, an HxWx3 uint8 array). Returns (manifest dict, path)."""
    import av

    folder.mkdir(parents=True, exist_ok=True)
    w, h = size
    t0 = start.replace(tzinfo=UTC).timestamp()
    wr = SegmentWriter(folder, board, t0, EncoderSettings(fps=fps, keyframe_interval=1.0), w, h, "yuv420p")
    for k in range(int(seconds * fps)):
        img = pattern(k) if pattern else np.full((h, w, 3), level(seg, k), np.uint8)
        wr.add(av.VideoFrame.from_ndarray(img, format="rgb24"), t0 + k / fps)
    m = wr.close("length")
    return m.to_dict(), folder / f"{m.segment_id}.mp4"


def upload_segment(client, board: int, start: datetime, tmp: Path, token: str, **kw) -> dict:
    """Record a segment and upload it through the ingest API (announce, data, complete)."""
    manifest, path = write_segment(tmp, board, start, **kw)
    r = ingest_upload(client, manifest, path.read_bytes(), token=token)
    assert r.status_code == 200, r.text
    return manifest
