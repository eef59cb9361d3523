"""Camera sources: V4L2 devices, network cameras (RTSP, HTTP MJPEG, UDP MPEG-TS) and video files.

A `Source` opens one stream with PyAV and yields decoded frames stamped with the wall clock at
arrival. A live source that stalls or drops raises `SourceLost` within `read_timeout` seconds;
the caller reconnects (see `SourceReader`). A file is replayed at real-time pace and ends with
`EndOfStream`.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

log = logging.getLogger("bgscribe.capture.source")


class SourceLost(Exception):
    """The camera stalled, disconnected, or could not be opened."""


class EndOfStream(Exception):
    """A replayed file reached its end."""


def source_kind(src: str) -> str:
    s = src.lower()
    if s.startswith("/dev/video") or s.startswith("v4l2:"):
        return "v4l2"
    for scheme in ("rtsp", "http", "udp"):
        if s.startswith(scheme + "://") or (scheme == "http" and s.startswith("https://")):
            return scheme
    return "file"


@dataclass
class SourceOptions:
    width: int | None = None  # asked of V4L2 devices; other sources are scaled by the recorder
    height: int | None = None
    fps: float | None = None
    open_timeout: float = 10.0
    read_timeout: float = 3.0  # no data for this long = stalled
    loop: bool = False  # replay a file forever (demo)
    # Files only: replay pace as a multiple of real time (0 = as fast as the recorder takes frames).
    # Frames are stamped with footage time, so segments keep the footage's real durations.
    speed: float = 1.0
    rtsp_transport: str = ""  # "tcp" or "udp" to force one; default: UDP, then TCP


class Source:
    def __init__(self, url: str, opts: SourceOptions | None = None):
        self.url = url
        self.kind = source_kind(url)
        self.opts = opts or SourceOptions()
        self._container = None

    def _open(self):
        import av

        o = self.opts
        options: dict[str, str] = {}
        fmt = None
        url = self.url
        if self.kind == "v4l2":
            fmt = "v4l2"
            url = url.removeprefix("v4l2:")
            if o.width and o.height:
                options["video_size"] = f"{o.width}x{o.height}"
            if o.fps:
                options["framerate"] = str(o.fps)
            options["input_format"] = "mjpeg"
        elif self.kind == "rtsp":
            # ffmpeg's default transport: RTP over UDP, falling back to TCP when UDP gets nothing.
            if o.rtsp_transport:
                options["rtsp_transport"] = o.rtsp_transport
            options["timeout"] = str(int(o.read_timeout * 1e6))
        elif self.kind == "udp":
            sep = "&" if "?" in url else "?"
            if "timeout=" not in url:
                url += f"{sep}timeout={int(o.read_timeout * 1e6)}&overrun_nonfatal=1&fifo_size=1000000"
        elif self.kind == "http":
            options.update(reconnect="0", rw_timeout=str(int(o.read_timeout * 1e6)))
        try:
            return av.open(url, format=fmt, options=options, timeout=(o.open_timeout, o.read_timeout))
        except (av.error.FFmpegError, OSError) as e:
            if self.kind == "file":
                from vision.decoding import why_not_video

                raise SourceLost(f"cannot open {self.url}: {why_not_video(url, e)}") from e
            raise SourceLost(f"cannot open {self.url}: {e}") from e

    def frames(self) -> Iterator[tuple[float, object]]:
        """Yield (wall_time, av.VideoFrame). Raises SourceLost or EndOfStream."""
        import av

        c = self._container = self._open()
        try:
            if not c.streams.video:
                raise SourceLost(f"{self.url}: no video stream")
            s = c.streams.video[0]
            live = self.kind != "file"
            # Frame threading holds frames back inside the decoder: that skews wall-clock stamps and
            # releases stale frames after a stall. Live sources decode with slice threads only.
            s.thread_type = "SLICE" if live else "AUTO"
            t0 = None
            last = 0.0
            while True:
                try:
                    for frame in c.decode(s):
                        if live:
                            yield time.time(), frame
                            continue
                        # Paced replay: frame time relative to the first frame of the replay.
                        ft = float(frame.time or 0.0)
                        if t0 is None:  # a looped file continues after its last stamp
                            r0, f0 = time.time(), ft
                            t0 = max(r0, last + 1.0 / (self.opts.fps or 15.0)) - ft
                        if self.opts.speed > 0:
                            delay = r0 + (ft - f0) / self.opts.speed - time.time()
                            if delay > 0:
                                time.sleep(delay)
                        last = t0 + ft
                        yield last, frame
                except av.error.EOFError:
                    pass
                except (av.error.FFmpegError, OSError) as e:
                    raise SourceLost(f"{self.url}: {e}") from e
                if live:
                    raise SourceLost(f"{self.url}: stream ended")
                if not self.opts.loop:
                    raise EndOfStream(self.url)
                c.seek(0)
                t0 = None
        finally:
            self.close()

    def close(self) -> None:
        if self._container is not None:
            with contextlib.suppress(Exception):  # closing a broken stream may fail; nothing to save
                self._container.close()
            self._container = None


END = object()  # queued after the last frame of a replayed file


class SourceReader(threading.Thread):
    """Reads a source in the background, reconnecting with backoff, into a bounded frame queue.

    Items are (wall_time, frame) or END. A full queue drops the oldest frame and counts it in
    `dropped` (the recorder fell behind). `lost_at` is set while the source is down.
    """

    def __init__(self, url: str, opts: SourceOptions, maxsize: int = 60, backoff_max: float = 10.0):
        super().__init__(name="source-reader", daemon=True)
        self.url = url
        self.opts = opts
        self.queue: queue.Queue = queue.Queue(maxsize=maxsize)
        self.stop_event = threading.Event()
        self.backoff_max = backoff_max
        self.dropped = 0
        self.received = 0
        self.reconnects = 0
        self.connected = False
        self.last_error = ""
        self.last_frame_at: float | None = None
        self.source: Source | None = None

    def run(self) -> None:
        delay = 0.5
        while not self.stop_event.is_set():
            self.source = Source(self.url, self.opts)
            try:
                for wall, frame in self.source.frames():
                    if not self.connected:
                        self.connected = True
                        delay = 0.5
                        log.info("source %s: receiving frames (%dx%d)", self.url, frame.width, frame.height)
                    self.received += 1
                    self.last_frame_at = wall
                    self._put((wall, frame))
                    if self.stop_event.is_set():
                        return
            except EndOfStream:
                log.info("source %s: end of file", self.url)
                self._put_end()
                return
            except SourceLost as e:
                was = self.connected
                self.connected = False
                self.last_error = str(e)
                if was:
                    log.warning("source lost: %s; reconnecting", e)
                else:
                    log.warning("source unavailable: %s; retrying in %.1f s", e, delay)
            finally:
                self.source.close()
            if self.stop_event.wait(delay):
                return
            self.reconnects += 1
            delay = min(delay * 2, self.backoff_max)

    def _put(self, item) -> None:
        if self.source is not None and self.source.kind == "file":
            # A file waits for the recorder (a camera would not: its frames are dropped below).
            while not self.stop_event.is_set():
                try:
                    self.queue.put(item, timeout=0.5)
                    return
                except queue.Full:
                    continue
            return
        while True:
            try:
                self.queue.put_nowait(item)
                return
            except queue.Full:
                try:
                    self.queue.get_nowait()
                    self.dropped += 1
                except queue.Empty:
                    pass

    def _put_end(self) -> None:
        while not self.stop_event.is_set():
            try:
                self.queue.put(END, timeout=0.5)
                return
            except queue.Full:
                continue

    def stop(self, wait: float | None = None) -> None:
        """Ask the reader to stop; wait (default: the longest a blocked open or read can take) for it
        to leave PyAV. A daemon thread still inside a PyAV read when the interpreter exits calls its
        Python interrupt callback during shutdown and crashes the process (exit -11 after a clean stop)."""
        self.stop_event.set()
        if not self.is_alive():
            return
        self.join(wait if wait is not None else self.opts.open_timeout + self.opts.read_timeout + 1.0)
        if self.is_alive():
            log.warning("source %s: reader still blocked after stop", self.url)
        while True:  # queued frames hold decoder buffers; free them now, not at interpreter exit
            try:
                self.queue.get_nowait()
            except queue.Empty:
                return
