"""The segment recorder: H.264 in fragmented MP4, flushed as it goes, with a journal for crash recovery.

A segment is written as `ID.mp4.part` next to a journal `ID.part.json` (board, start, settings,
gaps, dropped frames so far). Every keyframe starts a new MP4 fragment that goes straight to the
file, so a SIGKILL or power cut loses at most one keyframe interval. `close()` finishes the file,
computes its sha256, writes `ID.json` (the manifest) and renames the footage to `ID.mp4`; only
then is the segment complete. `recover()` turns a leftover `.part` into a complete segment.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from .fmp4 import probe, truncate_to_complete
from .manifest import Gap, Manifest, iso, parse_iso, segment_id, sha256_file, write_json_atomic

log = logging.getLogger("bgscribe.capture.recorder")

MOVFLAGS = "frag_keyframe+empty_moov+default_base_moof"
MS = Fraction(1, 1000)


@dataclass
class EncoderSettings:
    width: int | None = None  # None: keep the camera's size
    height: int | None = None
    fps: float = 15.0
    keyframe_interval: float = 1.0  # seconds; bounds what a crash can lose
    preset: str = "ultrafast"
    crf: int = 23
    threads: int = 1

    @property
    def gop(self) -> int:
        return max(1, round(self.fps * self.keyframe_interval))


class SegmentWriter:
    def __init__(self, folder: Path, board: int, start: float, settings: EncoderSettings, width: int, height: int,
                 pix_fmt: str, source: str = "", gaps: list[Gap] | None = None):
        import av

        self.folder = Path(folder)
        self.board = board
        self.start = start
        self.settings = settings
        self.width, self.height, self.pix_fmt = width, height, pix_fmt
        self.id = segment_id(board, start)
        self.part = self.folder / f"{self.id}.mp4.part"
        self.journal = self.folder / f"{self.id}.part.json"
        self.source = source
        self.gaps: list[Gap] = list(gaps or [])
        self.frames = 0
        self.dropped = 0
        self.last_wall = start
        self._last_pts = -1
        self._journal_at = 0.0
        self._write_journal()
        self.container = av.open(str(self.part), "w", format="mp4",
                                 options={"movflags": MOVFLAGS, "flush_packets": "1"})
        try:
            gop = settings.gop
            s = self.container.add_stream("libx264", rate=Fraction(settings.fps).limit_denominator(1001), options={
                "preset": settings.preset, "tune": "zerolatency", "crf": str(settings.crf),
                "x264-params": f"keyint={gop}:min-keyint={gop}:scenecut=0",
            })
            s.width, s.height, s.pix_fmt = width, height, pix_fmt
            s.codec_context.time_base = MS
            s.codec_context.thread_count = settings.threads
            self.stream = s
        except BaseException:
            self.container.close()
            raise

    def _write_journal(self, force: bool = True) -> None:
        now = time.monotonic()
        if not force and now - self._journal_at < 5.0:
            return
        self._journal_at = now
        if self.part.exists():  # fragments reach the OS at once; this makes them survive a power cut too
            fd = os.open(self.part, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        write_json_atomic(self.journal, {
            "board": self.board, "segment_id": self.id, "start": iso(self.start), "source": self.source,
            "fps": self.settings.fps, "keyframe_interval": self.settings.gop, "width": self.width,
            "height": self.height, "frames": self.frames, "dropped_frames": self.dropped,
            "gaps": [g.__dict__ for g in self.gaps],
        })

    def add(self, frame, wall: float) -> None:
        """Encode one frame taken at wall-clock time `wall` (seconds since the epoch)."""
        if frame.width != self.width or frame.height != self.height or frame.format.name != self.pix_fmt:
            frame = frame.reformat(self.width, self.height, self.pix_fmt)
        pts = max(int(round((wall - self.start) * 1000)), self._last_pts + 1)
        self._last_pts = pts
        frame.pts = pts
        frame.time_base = MS
        for p in self.stream.encode(frame):
            self.container.mux(p)
        self.frames += 1
        self.last_wall = wall
        self._write_journal(force=False)

    def note_gap(self, gap: Gap) -> None:
        self.gaps.append(gap)
        self._write_journal()

    def close(self, reason: str) -> Manifest:
        """Finish the file, checksum it, write the manifest, and rename the footage into place."""
        for p in self.stream.encode(None):
            self.container.mux(p)
        self.container.close()
        with open(self.part, "rb+") as f:
            os.fsync(f.fileno())
        end = self.last_wall + 1.0 / self.settings.fps
        m = Manifest(board=self.board, segment_id=self.id, start=iso(self.start), end=iso(end), frames=self.frames,
                     dropped_frames=self.dropped, gaps=self.gaps, sha256=sha256_file(self.part),
                     bytes=self.part.stat().st_size, width=self.width, height=self.height, fps=self.settings.fps,
                     keyframe_interval=self.settings.gop, source=self.source, closed=reason)
        return finish(self.folder, self.id, m)

    def abort(self) -> None:
        """Best-effort close after an error (full disk): the `.part` and journal stay for `recover()`."""
        with contextlib.suppress(Exception):  # the file is repaired by recover(); nothing else to do here
            self.container.close()


def finish(folder: Path, seg_id: str, m: Manifest) -> Manifest:
    part = folder / f"{seg_id}.mp4.part"
    m.write(folder / f"{seg_id}.json")
    os.replace(part, folder / f"{seg_id}.mp4")
    (folder / f"{seg_id}.part.json").unlink(missing_ok=True)
    _fsync_dir(folder)
    return m


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def recover(folder: Path) -> list[Manifest]:
    """Complete every segment a crash, a kill or a full disk left behind as `.part`.

    The file is cut back to its last complete fragment, its frames are counted, and a manifest is
    written from the journal with `recovered: true`. A part with no complete fragment (the agent
    died in its first second) is kept as `ID.mp4.empty` for inspection and reported, never deleted.
    """
    import av

    done: list[Manifest] = []
    for part in sorted(Path(folder).glob("*.mp4.part")):
        seg_id = part.name.removesuffix(".mp4.part")
        jpath = folder / f"{seg_id}.part.json"
        try:
            j = json.loads(jpath.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            j = {}
        kept = truncate_to_complete(part)
        try:
            pr = probe(part) if kept else None
        except av.error.FFmpegError as e:
            log.error("cannot read %s after repair: %s", part, e)
            pr = None
        if pr is None or pr.frames == 0:
            os.replace(part, folder / f"{seg_id}.mp4.empty")
            jpath.unlink(missing_ok=True)
            log.warning("segment %s had no complete fragment; kept as %s.mp4.empty", seg_id, seg_id)
            continue
        board = int(j.get("board") or seg_id[1:3])
        start = parse_iso(j["start"]) if "start" in j else _start_from_id(seg_id)
        m = Manifest(board=board, segment_id=seg_id, start=iso(start), end=iso(start + pr.duration),
                     frames=pr.frames, dropped_frames=int(j.get("dropped_frames", 0)),
                     gaps=[Gap(**g) for g in j.get("gaps", [])], sha256=sha256_file(part),
                     bytes=part.stat().st_size, width=pr.width, height=pr.height, fps=float(j.get("fps", 0.0)),
                     keyframe_interval=int(j.get("keyframe_interval", 0)), source=j.get("source", ""),
                     closed="recovered", recovered=True)
        done.append(finish(folder, seg_id, m))
        log.warning("recovered segment %s: %d frames, %.1f s", seg_id, m.frames, pr.duration)
    return done


def _start_from_id(seg_id: str) -> float:
    from datetime import UTC, datetime

    stamp = seg_id.split("-", 1)[1].rstrip("Z")
    d = datetime.strptime(stamp[:15], "%Y%m%dT%H%M%S").replace(tzinfo=UTC)
    return d.timestamp() + int(stamp[15:18]) / 1000
