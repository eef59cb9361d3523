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
                yield from reader.decode(_Gop(gop))
            yield from reader.drain()
            return
        cur = reader.start(next(gops, None))
        while cur is not None:
            nxt = reader.start(next(gops, None))
            if cur.key is not None and nxt is not None and nxt.key is not None \
                    and same_picture(cur.key.small[0], nxt.key.small[0]):
                yield from reader.drain()
                yield reader.i, cur.key.av.pts * reader.base, cur.key
                reader.i += len(cur.packets)
            else:
                yield from reader.decode(cur)
            cur = nxt
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


class _Gop:
    """A GOP's packets; once started (`_Reader.start`), its keyframe decoded (`key`, None where it does not decode)
    by a decoder (`ctx`) that can go on with the rest of it."""

    def __init__(self, packets: list):
        self.packets = packets
        self.key: Frame | None = None
        self.ctx = None


class _Reader:
    """Decoders on one thread each: a worker runs a job per core, where a decoder's threads cost CPU (a 60-s 720p
    segment: 1.47 CPU-s threaded, 1.15 on one) and save none.

    Where the footage has no B-frames (the capture agent's), a GOP that is not still is decoded by the decoder
    that decoded its keyframe to compare it with the next GOP's, so no keyframe (about eight P-frames' work) is
    decoded twice. Where it has them, the decoder holds the keyframe back until drained, and a GOP may refer to
    the one before it (an open GOP): a stretch of GOPs that are not still is decoded by one running decoder."""

    def __init__(self, stream, every: int):
        self.cc = stream.codec_context
        self.base = float(stream.time_base) if stream.time_base else 1 / 15
        self.every = every
        self.i = 0
        self.run = None  # the running decoder of the current stretch (footage with B-frames)

    def _context(self):
        ctx = av.CodecContext.create(self.cc.name, "r")
        ctx.extradata = self.cc.extradata
        ctx.width, ctx.height = self.cc.width, self.cc.height
        ctx.thread_count = 1
        return ctx

    def start(self, packets: list | None) -> _Gop | None:
        """The GOP with its keyframe decoded."""
        if packets is None:
            return None
        gop = _Gop(packets)
        p = packets[0]
        if p is None or not p.is_keyframe:
            return gop
        ctx = self._context()
        try:
            frames = ctx.decode(p)
            if frames:
                gop.ctx = ctx
            else:
                frames = ctx.decode(None)  # held back: drained, this decoder is spent
        except av.FFmpegError:
            return gop
        if frames and frames[0].pts is not None:
            gop.key = Frame(frames[0])
        else:
            gop.ctx = None
        return gop

    def _out(self, frames) -> Iterator[tuple[int, float, Frame | None]]:
        for f in frames:
            if self.i % self.every == 0:
                frame = f if isinstance(f, Frame) else Frame(f)
                t = frame.av.pts * self.base if frame.av.pts is not None else self.i / 15
                yield self.i, t, frame
            self.i += 1

    def _decode(self, ctx, packets: list) -> Iterator[tuple[int, float, Frame | None]]:
        for p in packets:
            if p is None:
                yield self.i, self.i / 15, None
                self.i += 1
                continue
            try:
                frames = ctx.decode(p)
            except av.FFmpegError:
                yield self.i, (p.pts or 0) * self.base, None
                self.i += 1
                continue
            yield from self._out(frames)

    def decode(self, gop: _Gop) -> Iterator[tuple[int, float, Frame | None]]:
        """The GOP's frames: by the decoder of its keyframe where it has one, else by the running decoder."""
        if gop.ctx is None:
            if self.run is None:
                self.run = self._context()
            yield from self._decode(self.run, gop.packets)
            return
        yield from self.drain()  # the stretch before it
        self.run, gop.ctx = gop.ctx, None
        yield from self._out([gop.key])
        yield from self._decode(self.run, gop.packets[1:])
        yield from self.drain()

    def drain(self) -> Iterator[tuple[int, float, Frame | None]]:
        """The frames the running decoder still holds; then it is done."""
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
