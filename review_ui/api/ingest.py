"""Ingest API for capture agents: resumable segment upload and heartbeats (see capture/uploader.py)."""

from __future__ import annotations

import base64
import binascii
import json
import logging
import os
import re
import threading
from datetime import datetime
from pathlib import Path

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator
from sqlalchemy import select

from ..models import Heartbeat, Segment
from ..services import link_segment, to_utc_naive, utcnow
from ..storage import StoreError, sha256_file
from .deps import BoardDep, SessionDep

log = logging.getLogger("bgscribe.ingest")
router = APIRouter(prefix="/api/v1/ingest/boards/{board}", tags=["ingest"])

SEGMENT_ID = re.compile(r"b\d{2,3}-\d{8}T\d{9}Z")  # always with fullmatch: `$` lets a final newline through
MAX_ERROR = 2000  # characters of an agent's error message kept (every dashboard poll carries it)


def _is_segment_id(v: str) -> bool:
    return SEGMENT_ID.fullmatch(v) is not None


def looks_like_mp4(head: bytes) -> bool:
    """An ISO media file begins with a box of type `ftyp` (the recorder's fragmented MP4 does)."""
    return len(head) >= 8 and head[4:8] == b"ftyp"


def _bad(what: str, e: ValidationError | ValueError) -> HTTPException:
    """422 naming the fields and the problems, without echoing the input or the library's links."""
    if isinstance(e, ValidationError):
        text = "; ".join(f"{'.'.join(str(x) for x in err['loc']) or 'body'}: {err['msg']}" for err in e.errors())
    else:
        text = "not JSON"
    return HTTPException(422, f"bad {what}: {text}")


_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def _lock(key: str) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(key, threading.Lock())


class SegmentManifest(BaseModel):
    model_config = {"extra": "allow"}
    board: int
    segment_id: str
    start: datetime
    end: datetime
    frames: int = Field(ge=0)
    dropped_frames: int = Field(0, ge=0)
    sha256: str
    bytes: int = Field(gt=0)
    gaps: list[dict] = []

    @field_validator("segment_id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not _is_segment_id(v):
            raise ValueError("segment_id must look like b07-20261129T170000123Z")
        return v

    @model_validator(mode="after")
    def _times(self):
        if self.end < self.start:
            raise ValueError("end is before start")
        return self

    @field_validator("sha256")
    @classmethod
    def _sha(cls, v: str) -> str:
        if not re.fullmatch(r"[0-9a-f]{64}", v):
            raise ValueError("sha256 must be 64 lowercase hex digits")
        return v


def _staging(request: Request, board: int, seg_id: str) -> tuple[Path, Path]:
    folder = request.app.state.settings.staging_path / f"board{board:02d}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{seg_id}.mp4.part", folder / f"{seg_id}.json"


def drop_stale_staging(staging: Path, older_than_s: float) -> list[Path]:
    """Delete staged uploads nobody has touched for `older_than_s` (an agent that gave up, or a stranger's
    announcement): a staged file is no footage until it is complete, and would otherwise stay for ever."""
    import time

    cutoff = time.time() - older_than_s
    gone = []
    for p in sorted(staging.glob("board*/*")):
        if p.is_file() and p.stat().st_mtime < cutoff:
            p.unlink(missing_ok=True)
            gone.append(p)
    return gone


def storage_key(m: SegmentManifest) -> str:
    return f"board{m.board:02d}/{m.start:%Y-%m-%d}/{m.segment_id}.mp4"


def _existing(session, board_id: int, seg_id: str) -> Segment | None:
    return session.scalar(select(Segment).where(Segment.board_id == board_id, Segment.segment_id == seg_id))


@router.post("/segments")
async def announce(board: int, request: Request, b: BoardDep, session: SessionDep):
    """Announce a segment (its manifest). Answers what the server already has of it."""
    try:
        m = SegmentManifest.model_validate(json.loads(await request.body()))
    except (ValueError, ValidationError) as e:
        raise _bad("manifest", e) from None
    if m.board != board:
        raise HTTPException(422, f"manifest is for board {m.board}, not board {board}")
    if m.bytes > request.app.state.settings.max_segment_bytes:
        raise HTTPException(413, f"segment of {m.bytes} bytes is larger than the server accepts")
    seg = _existing(session, b.id, m.segment_id)
    if seg is not None:
        if seg.sha256 != m.sha256:
            raise HTTPException(409, f"segment {m.segment_id} already stored with a different sha256")
        return {"status": "stored", "sha256": seg.sha256}
    part, mpath = _staging(request, board, m.segment_id)
    with _lock(str(part)):
        if mpath.exists():
            old = json.loads(mpath.read_text())
            if old.get("sha256") != m.sha256 or old.get("bytes") != m.bytes:
                part.unlink(missing_ok=True)  # the agent re-recorded this id: start over
        mpath.write_text(m.model_dump_json())
        received = part.stat().st_size if part.exists() else 0
    return {"status": "partial", "received": received}


@router.put("/segments/{segment_id}/data")
async def data(board: int, segment_id: str, request: Request, b: BoardDep, offset: int = Query(ge=0)):
    """Append bytes at `offset` (must equal what the server already has, else 409 with that number)."""
    part, mpath = _staging(request, board, segment_id) if _is_segment_id(segment_id) else (None, None)
    if part is None or not mpath.exists():
        raise HTTPException(404, "announce the segment first")
    manifest = json.loads(mpath.read_text())
    body = await request.body()

    def write() -> int:
        with _lock(str(part)):
            have = part.stat().st_size if part.exists() else 0
            if offset != have:
                return -have - 1
            if have + len(body) > manifest["bytes"]:
                raise HTTPException(422, "more bytes than the manifest announced")
            if have == 0 and len(body) >= 8 and not looks_like_mp4(body[:8]):  # (complete checks short ones)
                raise HTTPException(422, "the segment is not an MP4 file (it must begin with an 'ftyp' box)")
            try:
                with open(part, "ab") as f:
                    f.write(body)
                    f.flush()
                    os.fsync(f.fileno())
            except OSError:
                with open(part, "ab") as f:  # a full disk: take back the half-written piece, the agent resends
                    f.truncate(have)
                raise
            return have + len(body)

    try:
        got = await run_in_threadpool(write)
    except OSError as e:
        log.error("cannot stage %s: %s", segment_id, e)
        raise HTTPException(507, f"server cannot store the data: {e.strerror}") from e
    if got < 0:
        from fastapi.responses import JSONResponse

        return JSONResponse({"detail": "offset mismatch", "received": -got - 1}, status_code=409)
    return {"received": got}


@router.post("/segments/{segment_id}/complete")
async def complete(board: int, segment_id: str, request: Request, b: BoardDep, session: SessionDep):
    """Verify the checksum of the received bytes, store the segment, and link it to its match."""
    if not _is_segment_id(segment_id):
        raise HTTPException(404, "no such segment")
    seg = _existing(session, b.id, segment_id)
    if seg is not None:
        return {"status": "stored", "sha256": seg.sha256}
    part, mpath = _staging(request, board, segment_id)
    if not mpath.exists():
        raise HTTPException(404, "announce the segment first")
    m = SegmentManifest.model_validate_json(mpath.read_text())
    store = request.app.state.store

    def finish():
        with _lock(str(part)):
            size = part.stat().st_size if part.exists() else 0
            if size != m.bytes:
                return f"received {size} of {m.bytes} bytes"
            with open(part, "rb") as f:
                if not looks_like_mp4(f.read(8)):
                    part.unlink(missing_ok=True)
                    mpath.unlink(missing_ok=True)
                    return "the segment is not an MP4 file (it must begin with an 'ftyp' box)"
            got = sha256_file(part)
            if got != m.sha256:
                part.unlink(missing_ok=True)
                return f"checksum mismatch: received data has sha256 {got}, manifest says {m.sha256}; send it again"
            store.put(storage_key(m), part, m.sha256)
            return None

    try:
        problem = await run_in_threadpool(finish)
    except (OSError, StoreError) as e:
        log.error("board %d segment %s: cannot store: %s", board, segment_id, e)
        raise HTTPException(507, f"server cannot store the segment now: {e}; it keeps the upload, try again") from e
    if problem:
        log.warning("board %d segment %s: %s", board, segment_id, problem)
        raise HTTPException(422, problem)
    seg = Segment(board_id=b.id, event_id=b.event_id, segment_id=m.segment_id, storage_key=storage_key(m),
                  sha256=m.sha256, bytes=m.bytes, start=to_utc_naive(m.start), end=to_utc_naive(m.end),
                  frames=m.frames, dropped_frames=m.dropped_frames, manifest_json=m.model_dump_json(),
                  received_at=utcnow())
    session.add(seg)
    session.flush()
    clash = link_segment(session, seg)
    session.commit()
    part.unlink(missing_ok=True)
    mpath.unlink(missing_ok=True)
    log.info("board %d: stored %s (%d frames, %d bytes)", board, m.segment_id, m.frames, m.bytes)
    out = {"status": "stored", "sha256": m.sha256, "matches": [x.id for x in seg.matches]}
    if clash:
        ids = ', '.join(o.segment_id for o in clash)
        out["warning"] = (f"board {board} already holds footage of this time ({ids}):"
                          " one camera cannot film a moment twice (an agent's clock is wrong, or a file was replayed"
                          " over recorded time), so none of it is linked to a match; it is kept")
        log.warning("segment %s: %s", m.segment_id, out["warning"])
    if getattr(request.app.state, "pipeline", None) is not None:
        request.app.state.pipeline.wake.set()  # observe it now, not at the next poll
    return out


class HeartbeatIn(BaseModel):
    model_config = {"extra": "allow"}
    state: str = ""
    fps: float = 0.0
    frames: int = 0
    dropped_frames: int = 0
    spool_segments: int = 0
    spool_bytes: int = 0
    free_disk_bytes: int = 0
    last_segment: str = ""
    error: str = ""
    preview_jpeg: str | None = Field(None, max_length=2_000_000)
    camera_check: dict | None = None  # vision.camcheck grade: {"passed", "failed", "checks": [...], ...}


@router.post("/heartbeat")
async def heartbeat(board: int, b: BoardDep, session: SessionDep, request: Request):
    try:
        hb = HeartbeatIn.model_validate(json.loads(await request.body()))
    except (ValueError, ValidationError) as e:
        raise _bad("heartbeat", e) from None
    now = utcnow()
    session.add(Heartbeat(board_id=b.id, received_at=now, state=hb.state[:64], fps=hb.fps, frames=hb.frames,
                          dropped_frames=hb.dropped_frames, spool_segments=hb.spool_segments,
                          spool_bytes=hb.spool_bytes, free_disk_bytes=hb.free_disk_bytes,
                          last_segment=hb.last_segment[:64], error=hb.error[:MAX_ERROR]))
    b.last_seen_at = now
    if hb.preview_jpeg:
        try:
            jpeg = base64.b64decode(hb.preview_jpeg, validate=True)
        except (binascii.Error, ValueError) as e:
            raise HTTPException(422, "preview_jpeg is not base64") from e
        if jpeg[:2] != b"\xff\xd8":
            raise HTTPException(422, "preview_jpeg is not a JPEG")
        b.preview_jpeg = jpeg
    if hb.camera_check is not None:
        text = json.dumps(hb.camera_check)
        if len(text) > 20_000 or not isinstance(hb.camera_check.get("checks"), list):
            raise HTTPException(422, "camera_check must be a camera grade (with its 'checks'), under 20 kB")
        b.camera_check, b.camera_checked_at = text, now
    session.commit()
    return {"ok": True}


@router.post("/live")
async def live(board: int, b: BoardDep, request: Request):
    """The agent's live observations (JSON Lines of `FrameObservation`, times in seconds since the epoch), sent
    every half second as it records: decoded at once for the live boards (review_ui/live_feed.py). The segments
    stay the record. {"accepted", "version", "cut_segment"}: with cut_segment the match is over, and the agent
    closes its segment now rather than at its full length, so the transcript need not wait for it."""
    from ..live_feed import LiveInputError, parse_observations

    try:
        observations = parse_observations(await request.body())
    except LiveInputError as e:
        raise HTTPException(422, f"bad observations: {e}") from None
    return await run_in_threadpool(request.app.state.live.board(b.number).observe, observations, b.id)


@router.post("/live/frames")
async def live_frames(board: int, b: BoardDep, request: Request):
    """Frames for the server to observe, from an agent that cannot keep up with observing its own camera
    (`vision.live_frames`: JSON header lines, each followed by its JPEG): observed in the server's live-camera
    threads (review_ui/live_cameras.py) and decoded as if the agent had posted the observations. {"accepted",
    "dropped" (frames that waited too long, so far), "cut_segment", "take_back" (observe them on the agent: this
    server cannot keep up)}."""
    from vision.live_frames import FramesError, parse_frames

    cameras = request.app.state.live_cameras
    if cameras is None:
        raise HTTPException(503, "this server observes no live frames (live_camera_threads = 0): observe on the "
                                 "agent (bgscribe capture --live-where agent)")
    try:
        frames = parse_frames(await request.body())  # (its size bounded by review_ui/limits.py)
    except FramesError as e:
        raise HTTPException(422, f"bad frames: {e}") from None
    return cameras.offer(b.number, b.id, frames)


@router.get("/board")
def board_setup(board: int, b: BoardDep, request: Request):
    """What the agent's live observer needs of its board: the field's corners the staff confirmed (shares of the
    picture; null when none) and what earlier footage taught of the board (`observe --board-state`; null)."""
    from ..live_cameras import live_setup

    return live_setup(request.app.state.settings.data_dir, b)
