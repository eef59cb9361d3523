"""Camera frames and clips of a match's footage for the review page.

Footage times: a transcript action's `time` is seconds from the start of the match's footage, i.e. after
the start of the first segment linked to the match (ordered by `segments.start`, purged ones included so
times never shift). `locate` turns such a time into a stored segment and an offset into it, or says why
there is no footage (none uploaded, purged by the retention policy, a gap in the recording).

`frame_jpeg` decodes the frame shown at that offset with PyAV (seek to the keyframe at or before it, decode
forward: at most one keyframe interval, 1 s by default) and caches the JPEG on disk under the data dir,
one folder per segment (`drop_cached_frames` deletes it when retention purges the segment).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import Segment, segment_matches
from .storage import FootageStore

JPEG_QUALITY = 85
CACHE_STEP = 0.1  # seconds: requests within the same tenth of a second share a cached frame


class FootageMissing(Exception):
    """No frame to show; the message says why, for the placeholder."""


@dataclass
class FootageAt:
    t: float | None
    segment: Segment | None = None
    offset: float = 0.0  # seconds into the segment
    reason: str = ""  # why there is no footage ("" when there is)
    purged_row_id: int | None = None  # the segment that held it, if retention purged it

    @property
    def available(self) -> bool:
        return self.segment is not None


def match_segments(s: Session, match_id: int) -> list[Segment]:
    """Every segment linked to the match, purged ones included, in footage order."""
    q = (select(Segment).join(segment_matches, segment_matches.c.segment_id == Segment.id)
         .where(segment_matches.c.match_id == match_id).order_by(Segment.start, Segment.id))
    return list(s.scalars(q))


def _clock(d: datetime) -> str:
    return f"{d:%Y-%m-%d %H:%M:%S} UTC"


def _mmss(t: float) -> str:
    return f"{int(t // 60)}:{t % 60:04.1f}"


def locate(segments: list[Segment], t: float | None) -> FootageAt:
    """The segment and offset showing footage time `t` of a match whose linked segments are `segments`."""
    if t is None:
        return FootageAt(t, reason="this action has no footage time (the camera did not see it)")
    if not segments:
        return FootageAt(t, reason="no footage was uploaded for this match")
    if t < 0:
        return FootageAt(t, reason=f"time {t:g} s is before the match's footage")
    at = segments[0].start + timedelta(seconds=t)
    gap = f"no footage at {_mmss(t)} into the match ({_clock(at)}): a gap in the recording"
    for seg in segments:
        if seg.start <= at < seg.end:
            if seg.deleted_at is not None:
                return FootageAt(t, reason=f"footage purged on {_clock(seg.deleted_at)} by the event's retention "
                                           f"policy (segment {seg.segment_id})", purged_row_id=seg.id)
            hole = _recorded_gap(segments, at)
            if hole is not None:  # inside the segment, but no frame was recorded then: the one shown would be stale
                return FootageAt(t, reason=f"{gap} {hole}")
            return FootageAt(t, seg, (at - seg.start).total_seconds())
    if at >= segments[-1].end:
        return FootageAt(t, reason=f"{_mmss(t)} is after the end of the uploaded footage "
                                   f"({_clock(segments[-1].end)})")
    hole = _recorded_gap(segments, at)
    return FootageAt(t, reason=f"{gap} {hole}" if hole else gap)


GAP_WHY = {"source_lost": "camera lost", "late_frames": "the camera sent no frames", "disk_low": "disk low"}


def _recorded_gap(segments: list[Segment], at: datetime) -> str | None:
    """How the agent recorded the gap at `at` in a segment's manifest ("(15 s, camera lost)"), or None."""
    import json

    for seg in segments:
        try:
            gaps = json.loads(seg.manifest_json or "{}").get("gaps") or []
        except ValueError:
            continue
        for g in gaps:
            try:
                a, b = (datetime.fromisoformat(g[k]).astimezone(UTC).replace(tzinfo=None) for k in ("start", "end"))
            except (KeyError, TypeError, ValueError):
                continue
            if a <= at < b:
                why = GAP_WHY.get(g.get("reason"), g.get("reason") or "no reason given")
                return f"({float(g.get('seconds', (b - a).total_seconds())):.1f} s, {why})"
    return None


def cache_dir(data_dir: Path) -> Path:
    return Path(data_dir) / "frame-cache"


def drop_cached_frames(cache_root: Path | None, segment_row_id: int) -> None:
    """Delete every cached frame of a segment (it was purged: no copy of its footage may remain)."""
    if cache_root is not None:
        shutil.rmtree(Path(cache_root) / str(segment_row_id), ignore_errors=True)


def _decode(src, offset: float):
    """The frame on screen at `offset` seconds into the file: the last one that starts at or before it."""
    from vision.frames import NoFrame, frame_at

    try:
        return frame_at(src, offset)
    except NoFrame:
        raise FootageMissing("the segment holds no decodable video") from None


def frame_jpeg(store: FootageStore, seg: Segment, offset: float, cache_root: Path) -> bytes:
    """The JPEG of the frame at `offset` seconds into `seg`, decoded once and then served from the cache."""
    import cv2

    step = round(offset / CACHE_STEP)
    folder = Path(cache_root) / str(seg.id)
    path = folder / f"{seg.sha256[:16]}-{step:07d}.jpg"
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    if not store.exists(seg.storage_key):
        raise FootageMissing(f"the footage file of segment {seg.segment_id} is missing from the store")
    with store.open(seg.storage_key) as f:
        try:
            frame = _decode(f, step * CACHE_STEP)
        except FootageMissing:
            raise
        except Exception as e:  # noqa: BLE001 - a damaged file: say so on the page
            raise FootageMissing(f"segment {seg.segment_id} cannot be decoded: {e}") from e
    ok, buf = cv2.imencode(".jpg", frame.to_ndarray(format="bgr24"), [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise FootageMissing("the frame could not be encoded as JPEG")
    data = buf.tobytes()
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.replace(tmp, path)
    return data


def match_footage(s: Session, match_id: int, t: float | None) -> FootageAt:
    return locate(match_segments(s, match_id), t)
