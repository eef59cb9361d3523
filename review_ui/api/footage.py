"""Footage of a match for the review page (staff login): the camera frame at a footage time, where that time
lies in the stored segments, and the segments themselves as MP4 with HTTP range requests (for `<video>`)."""

from __future__ import annotations

import math
import re
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Request, Response
from fastapi.responses import StreamingResponse

from ..auth import LoginDep
from ..footage_frames import FootageMissing, cache_dir, drop_cached_frames, frame_jpeg, match_footage, match_segments
from ..models import Match
from .deps import SessionDep

router = APIRouter(prefix="/api/v1/matches/{match_id}", tags=["footage"])

CHUNK = 256 << 10
_RANGE = re.compile(r"^\s*(\d*)\s*-\s*(\d*)\s*$")


MAX_T = 7 * 86400.0  # a week of footage time: more than any match


def footage_time(t: str = Query(description="seconds from the start of the match's footage")) -> float:
    """`t` as a number of seconds, 400 for anything else (inf, nan, 1e20, words): never a 500."""
    try:
        v = float(t)
    except ValueError:
        v = math.nan
    if not (math.isfinite(v) and 0 <= v <= MAX_T):
        raise HTTPException(400, f"t must be a number of seconds from 0 to {MAX_T:g}")
    return v


TimeDep = Annotated[float, Depends(footage_time)]


def _match(session, match_id: int) -> Match:
    m = session.get(Match, match_id)
    if m is None:
        raise HTTPException(404, f"no match {match_id}")
    return m


@router.get("/footage")
def get_footage(match_id: int, login: LoginDep, session: SessionDep, t: TimeDep):
    """Where footage time `t` (seconds from the start of the match's footage) lies: segment and offset, or why
    there is none."""
    _match(session, match_id)
    at = match_footage(session, match_id, t)
    if not at.available:
        return {"t": t, "available": False, "reason": at.reason}
    return {"t": t, "available": True, "segment": at.segment.segment_id, "segment_row_id": at.segment.id,
            "offset": round(at.offset, 3), "frame_url": f"/api/v1/matches/{match_id}/frame.jpg?t={t:g}",
            "clip_url": f"/api/v1/matches/{match_id}/segments/{at.segment.id}.mp4"}


@router.get("/frame.jpg")
def get_frame(match_id: int, request: Request, login: LoginDep, session: SessionDep, t: TimeDep):
    """The camera frame on screen `t` seconds into the match's footage, as JPEG (404 with the reason if none)."""
    _match(session, match_id)
    at = match_footage(session, match_id, t)
    if not at.available:
        if at.purged_row_id is not None:  # no copy of purged footage may stay behind
            drop_cached_frames(cache_dir(request.app.state.settings.data_dir), at.purged_row_id)
        raise HTTPException(404, at.reason)
    try:
        data = frame_jpeg(request.app.state.store, at.segment, at.offset,
                          cache_dir(request.app.state.settings.data_dir))
    except FootageMissing as e:
        raise HTTPException(404, str(e)) from None
    return Response(data, media_type="image/jpeg")


def parse_range(header: str, size: int) -> tuple[int, int] | None:
    """(first, last) byte of a single `bytes=` range, None to send the whole file (no range, another unit, or
    several ranges); ValueError for a malformed or unsatisfiable byte range (answered with 416)."""
    unit, _, spec = header.partition("=")
    if unit.strip().lower() != "bytes" or "," in spec:
        return None
    m = _RANGE.match(spec)
    if not m or not (m.group(1) or m.group(2)):
        raise ValueError(f"malformed range {header!r}")
    a, b = m.group(1), m.group(2)
    if not a:  # the last N bytes
        n = int(b)
        if n == 0:
            raise ValueError("empty suffix range")
        return max(0, size - n), size - 1
    first = int(a)
    last = min(int(b), size - 1) if b else size - 1
    if first >= size or (b and int(b) < first):
        raise ValueError(f"range {header!r} is outside the file's {size} bytes")
    return first, last


@router.get("/segments/{segment_row_id}.mp4")
def get_segment(match_id: int, segment_row_id: int, request: Request, login: LoginDep, session: SessionDep):
    """A stored segment of the match as MP4, with `Range` support (206; 416 for a bad range)."""
    _match(session, match_id)
    seg = next((s for s in match_segments(session, match_id) if s.id == segment_row_id), None)
    if seg is None:
        raise HTTPException(404, f"segment {segment_row_id} is not footage of match {match_id}")
    store = request.app.state.store
    if seg.deleted_at is not None:
        drop_cached_frames(cache_dir(request.app.state.settings.data_dir), seg.id)
        raise HTTPException(410, f"segment {seg.segment_id} was purged on {seg.deleted_at:%Y-%m-%d %H:%M:%S} UTC "
                                 "by the event's retention policy")
    if not store.exists(seg.storage_key):
        raise HTTPException(404, f"the footage file of segment {seg.segment_id} is missing from the store")
    size = seg.bytes
    headers = {"Accept-Ranges": "bytes", "ETag": f'"{seg.sha256}"'}
    rng = request.headers.get("range")
    first, last, status = 0, size - 1, 200
    if rng:
        try:
            got = parse_range(rng, size)
        except ValueError as e:
            raise HTTPException(416, str(e), headers={"Content-Range": f"bytes */{size}"}) from None
        if got is not None:
            (first, last), status = got, 206
            headers["Content-Range"] = f"bytes {first}-{last}/{size}"
    headers["Content-Length"] = str(last - first + 1)

    def body():
        with store.open(seg.storage_key) as f:
            f.seek(first)
            left = last - first + 1
            while left > 0:
                chunk = f.read(min(CHUNK, left))
                if not chunk:
                    break
                left -= len(chunk)
                yield chunk

    return StreamingResponse(body(), status_code=status, media_type="video/mp4", headers=headers)
