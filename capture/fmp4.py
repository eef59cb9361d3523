"""Fragmented MP4 on disk: find the complete part of a file cut short, and read back what it holds."""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path


def complete_length(path: Path) -> int:
    """Byte length of the file's complete prefix: `ftyp moov` then whole `moof mdat` pairs.

    A segment cut short by SIGKILL, a power cut or a full disk ends in a half-written fragment;
    everything before it is valid, playable footage. Returns 0 if not even the header is complete.
    """
    size = os.path.getsize(path)
    good = 0
    have_moov = False
    pending_moof = False
    with open(path, "rb") as f:
        pos = 0
        while pos + 8 <= size:
            f.seek(pos)
            head = f.read(8)
            n, kind = struct.unpack(">I4s", head)
            if n == 1:
                if pos + 16 > size:
                    break
                n = struct.unpack(">Q", f.read(8))[0]
            elif n == 0:  # box runs to the end of the file: only valid if the file was closed
                n = size - pos
            if n < 8 or pos + n > size:
                break
            pos += n
            if kind == b"moov":
                have_moov = True
                good = pos
            elif kind == b"moof":
                pending_moof = True
            elif kind == b"mdat":
                if pending_moof and have_moov:
                    good = pos
                pending_moof = False
            elif have_moov and not pending_moof:  # sidx, mfra, free ... between or after fragments
                good = pos
    return good


def truncate_to_complete(path: Path) -> int:
    """Cut a segment file back to its last complete fragment; returns the bytes kept."""
    keep = complete_length(path)
    if keep < os.path.getsize(path):
        with open(path, "r+b") as f:
            f.truncate(keep)
            f.flush()
            os.fsync(f.fileno())
    return keep


@dataclass
class Probe:
    frames: int
    duration: float  # seconds from the first frame to the end of the last
    width: int
    height: int
    codec: str
    keyframes: int
    first_pts: float
    last_pts: float


def probe(path: Path, decode: bool = False) -> Probe:
    """Count the frames of a segment by demuxing (or decoding, when `decode`); raises av.error.* if unreadable."""
    import av

    with av.open(str(path)) as c:
        s = c.streams.video[0]
        tb = float(s.time_base)
        frames = keys = 0
        first = last = None
        step = 0.0
        if decode:
            for fr in c.decode(s):
                frames += 1
                t = fr.pts * tb
                first = t if first is None else first
                step = t - last if last is not None else step
                last = t
        else:
            for p in c.demux(s):
                if p.size == 0:
                    continue
                frames += 1
                keys += int(p.is_keyframe)
                t = p.pts * tb
                first = t if first is None else min(first, t)
                if last is not None and t > last:
                    step = t - last
                last = t if last is None else max(last, t)
        rate = float(s.average_rate) if s.average_rate else 0.0
        frame_dur = step if step > 0 else (1.0 / rate if rate else 0.0)
        dur = (last - first + frame_dur) if frames else 0.0
        return Probe(frames, dur, s.codec_context.width, s.codec_context.height, s.codec_context.name,
                     keys, first or 0.0, last or 0.0)
