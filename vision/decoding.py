"""Decoding footage for the observer, skipping the stretches in which nothing can have changed.

Footage is H.264 with a keyframe every second or two. When two consecutive keyframes show the same
picture (no hand over the board, no checker or die moved), nothing the transcript needs happened
between them: a hand that came and went left the board as it was. Those frames are not decoded; the
first keyframe stands for them. Every other stretch is decoded in full. Players think far more than
they move, so this skips a large part of a match.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from pathlib import Path

import av

from .frames import Frame
from .motion import same_picture


def why_not_video(path: str | Path, e: Exception) -> str:
    """Why a file does not open as a video, in words (not FFmpeg's error number)."""
    p = Path(path)
    try:
        size = p.stat().st_size
    except OSError as oe:
        return oe.strerror or str(oe)
    if p.is_dir():
        return "a folder, not a video file"
    if size == 0:
        return "empty file (0 bytes)"
    if isinstance(e, av.error.InvalidDataError):
        return f"not a video (FFmpeg finds no video format in its {size:,} bytes)"
    return getattr(e, "strerror", None) or str(e)


def open_video(path: str | Path):
    try:
        container = av.open(str(path))
    except (av.FFmpegError, OSError) as e:
        raise ValueError(f"cannot open {path}: {why_not_video(path, e)}") from None
    if not container.streams.video:
        container.close()
        raise ValueError(f"cannot open {path}: no video stream in it")
    return container


def video_fps(path: str | Path) -> float:
    with open_video(path) as c:
        rate = c.streams.video[0].average_rate
        return float(rate) if rate else 15.0


def frame_count(path: str | Path) -> int | None:
    try:
        with open_video(path) as c:
            return c.streams.video[0].frames or None
    except ValueError:
        return None


def video_frames(path: str | Path, every: int = 1,
                 skip_still: bool = True) -> Iterator[tuple[int, float, Frame | None]]:
    """(index, seconds, picture) of a video's frames in order; a frame that fails to decode comes out as
    None rather than ending the stream. With `skip_still`, a still stretch comes out as its first frame."""
    with open_video(path) as container:
        stream = container.streams.video[0]
        reader = _Reader(stream, every)
        gops = _gops(container, stream)
        if not skip_still:
            for gop in gops:
                yield from reader.decode(gop)
            yield from reader.drain()
            return
        cur = next(gops, None)
        cur_key = reader.key_picture(cur) if cur else None
        while cur is not None:
            nxt = next(gops, None)
            nxt_key = reader.key_picture(nxt) if nxt else None
            if cur_key is not None and nxt_key is not None and same_picture(cur_key.small[0], nxt_key.small[0]):
                yield from reader.drain()
                yield reader.i, cur_key.av.pts * reader.base, cur_key
                reader.i += len(cur)
            else:
                yield from reader.decode(cur)
            cur, cur_key = nxt, nxt_key
        yield from reader.drain()


def _gops(container, stream) -> Iterator[list]:
    """Packets in decode order, cut before each keyframe (None stands for a packet that failed to demux)."""
    gop: list = []
    packets = container.demux(stream)
    while True:
        try:
            p = next(packets)
        except StopIteration:
            break
        except av.FFmpegError:
            gop.append(None)
            continue
        if p.size == 0:
            continue  # the demuxer's end-of-stream marker
        if p.is_keyframe and gop:
            yield gop
            gop = []
        gop.append(p)
    if gop:
        yield gop


class _Reader:
    def __init__(self, stream, every: int):
        self.cc = stream.codec_context
        self.base = float(stream.time_base) if stream.time_base else 1 / 15
        self.every = every
        self.i = 0
        self.run = None  # the decoder of the current stretch of decoded frames
        self.keys = self._context(threads=False)

    def _context(self, threads: bool):
        ctx = av.CodecContext.create(self.cc.name, "r")
        ctx.extradata = self.cc.extradata
        ctx.width, ctx.height = self.cc.width, self.cc.height
        if threads:
            ctx.thread_type = "AUTO"
        return ctx

    def key_picture(self, gop: list):
        """The GOP's keyframe, decoded on its own; None if it does not decode."""
        p = gop[0]
        if p is None or not p.is_keyframe:
            return None
        try:
            frames = self.keys.decode(p) or self.keys.decode(None)
        except av.FFmpegError:
            frames = []
        if not frames or not self.keys.is_open or frames[0].pts is None:
            self.keys = self._context(threads=False)  # drained or broken: a fresh one for the next
        if not frames or frames[0].pts is None:
            return None
        return Frame(frames[0])

    def _out(self, frames) -> Iterator[tuple[int, float, Frame | None]]:
        for f in frames:
            if self.i % self.every == 0:
                t = f.pts * self.base if f.pts is not None else self.i / 15
                yield self.i, t, Frame(f)
            self.i += 1

    def decode(self, gop: list) -> Iterator[tuple[int, float, Frame | None]]:
        if self.run is None:
            self.run = self._context(threads=True)
        for p in gop:
            if p is None:
                yield self.i, self.i / 15, None
                self.i += 1
                continue
            try:
                frames = self.run.decode(p)
            except av.FFmpegError:
                yield self.i, (p.pts or 0) * self.base, None
                self.i += 1
                continue
            yield from self._out(frames)

    def drain(self) -> Iterator[tuple[int, float, Frame | None]]:
        """The frames a threaded decoder still holds; then it is done."""
        if self.run is not None:
            try:
                frames = self.run.decode(None)
            except av.FFmpegError:
                frames = []
            self.run = None
            yield from self._out(frames)


_DONE = object()


def decoded_ahead(frames: Iterator[tuple[int, float, Frame | None]], depth: int = 32
                  ) -> Iterator[tuple[int, float, Frame | None]]:
    """`frames`, decoded (and shrunk for motion) in a thread of their own while the caller reads the board:
    decoding and reading each keep one of the two cores busy, where in turn they left one idle."""
    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in frames:
                if item[2] is not None:
                    item[2].small  # noqa: B018 (made here, off the reading thread)
                if not put(item):
                    return
            put(_DONE)
        except BaseException as e:  # handed to the reader, raised there
            put(e)

    worker = threading.Thread(target=produce, name="decode-ahead", daemon=True)
    worker.start()
    try:
        while True:
            item = q.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        worker.join()
