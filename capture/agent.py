"""The capture agent for one board: source -> segments in the spool -> server (or local store).

It runs unattended for hours: the camera may stall (a gap is recorded and it reconnects with
backoff), the server may be down (segments wait in the spool), the disk may fill (the current
segment is closed cleanly and recording pauses until there is room again; no unconfirmed
footage is ever deleted), and SIGTERM closes the current segment cleanly.
"""

from __future__ import annotations

import base64
import faulthandler
import logging
import queue
import signal
import threading
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from .manifest import Gap, iso
from .recorder import EncoderSettings, SegmentWriter, recover
from .sources import END, SourceOptions, SourceReader
from .spool import LocalStoreSink, Spool

log = logging.getLogger("bgscribe.capture")

EXIT_OK, EXIT_ERROR, EXIT_DISK = 0, 1, 3


@dataclass
class AgentConfig:
    board: int
    source: str
    spool: Path
    store: Path | None = None
    server: str | None = None
    token: str | None = None
    server_fingerprint: str | None = None  # https: pin the server's certificate (bgscribe make-cert prints it)
    ca_file: str | None = None  # https: trust this CA (or this very certificate) instead of the system's
    encoder: EncoderSettings = field(default_factory=EncoderSettings)
    segment_seconds: float = 60.0
    stall_timeout: float = 3.0  # no frame for this long: the segment is closed and a gap begins
    reconnect_max: float = 10.0
    warn_free_mb: float = 1024.0
    min_free_mb: float = 200.0  # below this, stop writing (close the segment cleanly)
    heartbeat_seconds: float = 10.0
    camera_check_seconds: float = 300.0  # grade the camera (vision/camcheck.py) this often for the dashboard; 0: never
    upload_retry_max: float = 30.0
    drain_seconds: float = 10.0  # at shutdown, how long to keep uploading the spool
    loop: bool = False
    replay_speed: float = 1.0  # for a file source: 0 = as fast as the encoder goes (demo, tests)
    live_fps: float = 0.0  # observe this many frames a second here and post them for the live boards; 0: off
    live_where: str = "agent"  # who observes them: here, the server, or here until this machine falls behind

    def __post_init__(self):
        if (self.store is None) == (self.server is None):
            raise ValueError("give exactly one of --store DIR or --server URL")
        if self.server and not self.token:
            raise ValueError("--server needs the board's ingest token (--token-file FILE or $BGSCRIBE_TOKEN)")
        if (self.server_fingerprint or self.ca_file) and not (self.server or "").startswith("https://"):
            raise ValueError("--server-fingerprint and --ca-file need an https:// --server")
        if self.server_fingerprint:
            from .pinning import normalise_fingerprint

            self.server_fingerprint = normalise_fingerprint(self.server_fingerprint)
        if self.ca_file and not Path(self.ca_file).is_file():
            raise ValueError(f"--ca-file {self.ca_file} not found")
        if self.segment_seconds <= 0 or self.encoder.fps <= 0:
            raise ValueError("segment length and fps must be positive")
        if self.min_free_mb >= self.warn_free_mb:
            self.warn_free_mb = self.min_free_mb * 2
        if self.live_fps < 0 or (self.live_fps > 0 and not self.server):
            raise ValueError("--live-fps needs a --server to post to (and cannot be negative)")
        if self.live_fps > 0:
            from .live_observer import WHERE  # (with the camera stage: only where the agent observes live)

            if self.live_where not in WHERE:
                raise ValueError(f"--live-where must be one of {', '.join(WHERE)}, not {self.live_where!r}")


class Agent:
    def __init__(self, cfg: AgentConfig):
        self.cfg = cfg
        self.spool = Spool(cfg.spool)
        self.stop_event = threading.Event()
        self.writer: SegmentWriter | None = None
        self.reader: SourceReader | None = None
        self.uploader = None
        self.client = None
        self.sink = LocalStoreSink(cfg.store, self.spool) if cfg.store else None
        self.frames = 0
        self.dropped_base = 0
        self.segments = 0
        self.last_segment = ""
        self.state = "starting"
        self.paused_disk = False
        self.disk_warned = False
        self.gap_from: tuple[float, str] | None = None  # (wall time, reason) when footage stopped
        self.last_wall: float | None = None  # the last frame's stamp
        self.last_arrival: float | None = None  # when it came (a replay's stamps are footage time, not now)
        self.tokens = 0.0  # frame-rate limiter: a bucket holding up to one second of frames
        self.tokens_at: float | None = None
        self.decimated = 0  # frames skipped because the camera sends more than --fps (not footage lost)
        self.fps_window: list[float] = []
        self.preview: bytes | None = None  # latest JPEG still for the heartbeat
        self.preview_at = 0.0
        self.camera_check: dict | None = None  # the latest grade, sent with each heartbeat
        self.check_at: float | None = None  # when the next camera check is due (first: 5 s into recording)
        self.checking = threading.Event()  # a grade is being computed
        self.error = ""
        self._dropped_at_open = 0
        self.live = None  # the live observer (capture/live_observer.py), with --server and --live-fps
        self.cut = threading.Event()  # the server said the match is over: close the segment now

    # ---------------------------------------------------------------- life cycle
    def install_signal_handlers(self) -> None:
        def on_signal(signum, _frame):
            log.info("signal %s: closing the current segment and stopping", signal.Signals(signum).name)
            self.stop_event.set()

        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        # `kill -USR1 PID` writes every thread's stack to the log: for diagnosing a stuck agent; a crash
        # inside a native library (PyAV, the camera driver) writes them too.
        faulthandler.register(signal.SIGUSR1, all_threads=True)
        faulthandler.enable(all_threads=True)

    def run(self) -> int:
        cfg = self.cfg
        for m in recover(self.spool.folder):
            log.warning("segment %s from an earlier run recovered (%d frames)", m.segment_id, m.frames)
        if self.spool.pending():
            log.info("%d segments waiting in the spool %s", self.spool.count(), self.spool.folder)
        if cfg.server:
            from .uploader import Client, Uploader

            tls = {"pin": cfg.server_fingerprint, "ca_file": cfg.ca_file}
            self.client = Client(cfg.server, cfg.token or "", cfg.board, **tls)  # heartbeats
            self.uploader = Uploader(self.spool, Client(cfg.server, cfg.token or "", cfg.board, **tls),
                                     retry_max=cfg.upload_retry_max)
            self.uploader.start()
            threading.Thread(target=self._heartbeat_loop, name="heartbeat", daemon=True).start()
            if cfg.live_fps > 0:
                from .live_observer import LiveObserver

                self.live = LiveObserver(Client(cfg.server, cfg.token or "", cfg.board, **tls), cfg.live_fps,
                                         on_cut=self.cut.set, where=cfg.live_where)
                self.live.start()
        else:
            self._deliver_local()
        enc = cfg.encoder
        self.reader = SourceReader(cfg.source, SourceOptions(width=enc.width, height=enc.height, fps=enc.fps,
                                                             read_timeout=max(0.5, cfg.stall_timeout - 0.5),
                                                             loop=cfg.loop, speed=cfg.replay_speed),
                                   maxsize=max(30, int(enc.fps * 4)), backoff_max=cfg.reconnect_max)
        self.reader.start()
        self.state = "waiting for camera"
        log.info("board %d: recording %s into %s-second segments (%s fps, keyframe every %d frames)",
                 cfg.board, cfg.source, cfg.segment_seconds, enc.fps, enc.gop)
        status = EXIT_OK
        try:
            status = self._loop()
        finally:
            self.reader.stop()
            if self.live is not None:
                self.live.stop()
            self._close_segment("stop")
            if self.uploader:
                if self.spool.pending() and cfg.drain_seconds > 0:
                    log.info("uploading the spool before exit (up to %.0f s)", cfg.drain_seconds)
                    self.uploader.drain(cfg.drain_seconds)
                self.uploader.stop()
                self.uploader.join(timeout=5)
                self._send_heartbeat()
            else:
                self._deliver_local()
            if self.spool.pending():
                log.info("%d segments remain in the spool %s; they are sent on the next start",
                         self.spool.count(), self.spool.folder)
            self.state = "stopped"
        log.info("board %d: stopped after %d segments, %d frames, %d dropped", cfg.board, self.segments,
                 self.frames, self.dropped)
        return status

    @property
    def dropped(self) -> int:
        return self.dropped_base + (self.reader.dropped if self.reader else 0)

    # ---------------------------------------------------------------- main loop
    def _loop(self) -> int:
        cfg = self.cfg
        interval = 1.0 / cfg.encoder.fps
        disk_check = 0.0
        while not self.stop_event.is_set():
            try:
                item = self.reader.queue.get(timeout=0.2)
            except queue.Empty:
                item = None
            now = time.time()
            if now - disk_check >= 0.5:
                disk_check = now
                self._check_disk()
            if item is END:
                log.info("end of the replayed file")
                return EXIT_OK
            if item is None:
                if self.last_arrival is not None and now - self.last_arrival > cfg.stall_timeout \
                        and self.gap_from is None:
                    log.warning("no frames for %.1f s: camera stalled or disconnected; closing segment",
                                now - self.last_arrival)
                    self.state = "camera lost"
                    self.gap_from = (self.last_wall + interval, "source_lost")
                    self._close_segment("source_lost")
                continue
            wall, frame = item
            self.last_arrival = now
            if self.writer is not None and self.last_wall is not None and wall - self.last_wall > cfg.stall_timeout:
                # a hole in a replayed file's stamps longer than a stall: the camera was lost there
                log.warning("no frames for %.1f s of footage: camera lost; closing segment", wall - self.last_wall)
                self.gap_from = (self.last_wall + interval, "source_lost")
                self._close_segment("source_lost")
            if not self._take_token(wall):  # the camera runs faster than the recording fps
                self.decimated += 1
                continue
            if self.paused_disk:
                if self.gap_from is None:
                    self.gap_from = (wall, "disk_low")
                self.last_wall = wall
                continue
            if self.writer is not None and wall - self.writer.start >= cfg.segment_seconds:
                self._close_segment("length")
            elif self.writer is not None and self.cut.is_set():
                # the match is over (the live boards saw its last play): its transcript need not wait for the
                # rest of a minute's segment
                log.info("match over: closing the segment now")
                self._close_segment("match_over")
            self.cut.clear()
            if self.writer is None:
                self._open_segment(frame, wall)
            elif self.last_wall is not None and wall - self.last_wall > max(3 * interval, 0.5):
                self.writer.note_gap(Gap(iso(self.last_wall + interval), iso(wall),
                                         round(wall - self.last_wall - interval, 3), "late_frames"))
            try:
                self.writer.add(frame, wall)
            except Exception as e:  # noqa: BLE001 - a write error must never lose the segment so far
                self._write_failed(e)
                continue
            self.frames += 1
            self.last_wall = wall
            self.fps_window.append(wall)
            if self.client is not None and wall - self.preview_at >= self.cfg.heartbeat_seconds:
                # Made here, not in the heartbeat thread: PyAV work on frames stays in this thread
                # (PyAV calls from a third thread deadlocked against the encoder).
                self.preview_at = wall
                try:
                    self.preview = preview_jpeg(frame)
                except Exception as e:  # noqa: BLE001 - a preview is nice to have, never worth a frame
                    log.debug("no preview: %s", e)
            if self.client is not None and self.cfg.camera_check_seconds > 0:
                self._maybe_check_camera(frame, wall)
            if self.live is not None and self.live.due(wall):
                try:  # (converted here: PyAV work on frames stays in this thread)
                    self.live.offer(wall, frame.to_ndarray(format="bgr24"))
                except Exception as e:  # noqa: BLE001 - the live view is extra, never worth a frame
                    log.debug("no live frame: %s", e)
            self.state = "recording"
        return EXIT_OK

    def _take_token(self, wall: float) -> bool:
        """Token bucket at --fps with one second of burst: a jittery or bursty camera at the recording
        rate loses nothing; a faster camera is thinned to the recording rate."""
        fps = self.cfg.encoder.fps
        if self.tokens_at is None:
            self.tokens, self.tokens_at = fps, wall
        self.tokens = min(fps, self.tokens + max(0.0, wall - self.tokens_at) * fps)
        self.tokens_at = wall
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True

    def _open_segment(self, frame, wall: float) -> None:
        enc = self.cfg.encoder
        w = enc.width or frame.width
        h = enc.height or frame.height
        same = (w, h) == (frame.width, frame.height)
        pix = frame.format.name if same and frame.format.name in ("yuv420p", "yuvj420p") else "yuv420p"
        gaps = []
        if self.gap_from is not None:
            t0, why = self.gap_from
            if wall - t0 > 0:
                gaps.append(Gap(iso(t0), iso(wall), round(wall - t0, 3), why))
                log.info("footage resumes after a %.1f s gap (%s)", wall - t0, why)
            self.gap_from = None
        self.writer = SegmentWriter(self.spool.folder, self.cfg.board, wall, enc, w, h, pix,
                                    source=self.cfg.source, gaps=gaps)
        self._dropped_at_open = self.dropped

    def _close_segment(self, reason: str) -> None:
        w = self.writer
        if w is None:
            return
        self.writer = None
        w.dropped = self.dropped - self._dropped_at_open
        try:
            m = w.close(reason)
        except Exception as e:  # noqa: BLE001
            log.error("closing segment %s failed (%s); repairing it from its last complete fragment", w.id, e)
            w.abort()
            self._recover_now()
            return
        self.segments += 1
        self.last_segment = m.segment_id
        log.info("segment %s closed (%s): %d frames, %.1f s, %d dropped, %d gaps, %.1f MB", m.segment_id, reason,
                 m.frames, m.duration, m.dropped_frames, len(m.gaps), m.bytes / 1e6)
        if self.uploader:
            self.uploader.wake.set()
        else:
            self._deliver_local()

    def _write_failed(self, e: Exception) -> None:
        w = self.writer
        self.writer = None
        log.error("writing segment %s failed: %s; keeping what was written up to the last complete fragment",
                  w.id if w else "?", e)
        if w:
            w.abort()
        self._recover_now()
        self.gap_from = (time.time(), "write_error")
        self.paused_disk = True  # resume only once the disk check sees enough room
        self.error = str(e)

    def _recover_now(self) -> None:
        try:
            for m in recover(self.spool.folder):
                self.segments += 1
                self.last_segment = m.segment_id
        except OSError as e:
            log.error("cannot repair the interrupted segment now (%s); it is repaired on the next start", e)

    def _deliver_local(self) -> None:
        if self.sink:
            for mpath in self.spool.pending():
                if not self.sink.deliver(mpath):
                    break

    # ---------------------------------------------------------------- disk
    def _check_disk(self) -> None:
        cfg = self.cfg
        free_mb = self.spool.free_bytes() / 1e6
        if free_mb < cfg.min_free_mb:
            if not self.paused_disk:
                self.paused_disk = True
                self.state = "paused: disk full"
                self.error = (f"disk nearly full: {free_mb:.1f} MB free in {self.spool.folder} "
                              f"(minimum {cfg.min_free_mb:.0f} MB)")
                log.error("%s: closing the segment cleanly and pausing recording until there is room; "
                          "no footage is deleted (%d segments wait in the spool)", self.error, self.spool.count())
                if self.writer is not None:
                    self.gap_from = (self.writer.last_wall + 1.0 / cfg.encoder.fps, "disk_low")
                self._close_segment("disk_low")
        elif self.paused_disk and free_mb >= min(cfg.warn_free_mb, cfg.min_free_mb * 1.5):
            self.paused_disk = False
            self.error = ""
            log.info("%.1f MB free again in %s: recording resumes", free_mb, self.spool.folder)
        if free_mb < cfg.warn_free_mb and not self.disk_warned:
            self.disk_warned = True
            log.warning("disk filling up: %.1f MB free in %s (recording stops below %.0f MB)", free_mb,
                        self.spool.folder, cfg.min_free_mb)
        elif free_mb >= cfg.warn_free_mb * 1.1:
            self.disk_warned = False

    def _maybe_check_camera(self, frame, wall: float) -> None:
        """Now and then, grade a full-resolution frame in the background: board in view, sharpness,
        exposure, glare, frame rate. The picture is taken here (PyAV stays in this thread)."""
        if self.check_at is None:
            self.check_at = wall + 5.0
        if wall < self.check_at or self.checking.is_set():
            return
        self.check_at = wall + self.cfg.camera_check_seconds
        self.checking.set()
        try:
            bgr = frame.to_ndarray(format="bgr24")
        except Exception as e:  # noqa: BLE001 - never worth a frame
            log.debug("no camera check: %s", e)
            self.checking.clear()
            return
        threading.Thread(target=self._check_camera, args=(bgr, self.status()["fps"]), name="camera-check",
                         daemon=True).start()

    def _check_camera(self, bgr, fps: float) -> None:
        try:
            from vision.camcheck import grade

            g = grade([bgr], fps=fps or None).as_dict()
            self.camera_check = {"passed": g["passed"], "failed": g["failed"], "size": g["size"],
                                 "checks": [{k: c[k] for k in ("name", "status", "message")} for c in g["checks"]],
                                 "at": iso(time.time())}
            if not g["passed"]:
                log.warning("camera check failed: %s", "; ".join(
                    f"{c['name']}: {c['message']}" for c in g["checks"] if c["status"] == "fail"))
        except Exception as e:  # noqa: BLE001 - the check is advice; recording goes on regardless
            log.warning("camera check could not run: %s", e)
        finally:
            self.checking.clear()

    # ---------------------------------------------------------------- heartbeat
    def status(self) -> dict:
        now = time.time()
        # the last 10 s of frames (a fast-replayed file's stamps run ahead of the clock: count from its last)
        ref = max(now, self.fps_window[-1]) if self.fps_window else now
        self.fps_window = [t for t in self.fps_window if ref - t <= 10.0]
        fps = (len(self.fps_window) - 1) / (self.fps_window[-1] - self.fps_window[0]) \
            if len(self.fps_window) > 1 and self.fps_window[-1] > self.fps_window[0] else 0.0
        return {
            "board": self.cfg.board, "state": self.state, "fps": round(fps, 2), "frames": self.frames,
            "dropped_frames": self.dropped, "decimated_frames": self.decimated, "spool_segments": self.spool.count(),
            "spool_bytes": self.spool.size_bytes(), "free_disk_bytes": self.spool.free_bytes(),
            "last_segment": self.last_segment, "camera_connected": bool(self.reader and self.reader.connected),
            "reconnects": self.reader.reconnects if self.reader else 0, "error": self.error,
            "upload_error": self.uploader.last_error if self.uploader and self.uploader.server_ok is False else "",
            "sent_at": iso(now), "camera_check": self.camera_check,
            "live": None if self.live is None else self.live.report(),
        }

    def _send_heartbeat(self) -> None:
        payload = self.status()
        jpeg = self.preview
        if jpeg:
            payload["preview_jpeg"] = base64.b64encode(jpeg).decode("ascii")
        try:
            self.client.heartbeat(payload)
        except Exception as e:  # noqa: BLE001 - the server may be down; the uploader reports that
            log.debug("heartbeat not sent: %s", e)

    def _heartbeat_loop(self) -> None:
        while not self.stop_event.wait(self.cfg.heartbeat_seconds):
            self._send_heartbeat()


def preview_jpeg(frame, width: int = 320) -> bytes | None:
    """A small JPEG still of a frame for the dashboard (None if there is no frame yet)."""
    if frame is None:
        return None
    import av

    h = max(2, round(frame.height * width / frame.width / 2) * 2)
    small = frame.reformat(width, h, "yuvj420p")
    ctx = av.CodecContext.create("mjpeg", "w")
    ctx.width, ctx.height, ctx.pix_fmt = width, h, "yuvj420p"
    ctx.time_base = Fraction(1, 25)
    small.pts = 0
    data = b"".join(bytes(p) for p in ctx.encode(small)) + b"".join(bytes(p) for p in ctx.encode(None))
    return data or None
