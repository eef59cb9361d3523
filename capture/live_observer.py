"""The capture agent's live observer: the camera stage run on the agent's own machine as it records, a few
frames a second, its observations posted to the server every half second for the live boards
(review_ui/live_feed.py). The segments stay the record; this is the live view only, and it never holds the
recording up: frames come through a small queue, and when the observer falls behind the oldest are dropped
(counted), never the recorder's.

At start it asks the server for the board's confirmed field and what earlier footage taught of the board (the
`GET .../board` ingest route), as the server's own observe jobs use them.
"""

from __future__ import annotations

import logging
import queue
import threading
import time

log = logging.getLogger("bgscribe.capture.live")

POST_EVERY_S = 0.5
MAX_KEPT = 1200  # observations kept while the server is down (a few minutes at 5/s): the oldest go first


class LiveObserver(threading.Thread):
    def __init__(self, client, fps: float = 5.0, on_cut=None):
        """``client``: the agent's `uploader.Client`; ``on_cut``: called when the server says the match is over
        (the agent then closes its segment at once)."""
        super().__init__(name="live-observer", daemon=True)
        self.client, self.fps, self.on_cut = client, fps, on_cut
        self.frames: queue.Queue = queue.Queue(maxsize=max(2, int(fps)))
        self.stop_event = threading.Event()
        self.dropped = 0  # frames the observer had no time for
        self.observed = 0
        self.posted = 0
        self.last_error = ""
        self.taken_at = -1e9
        self._pending: list[str] = []
        self._observer = None
        self._setup_done = False

    # ------------------------------------------------------------------ from the agent's thread
    def due(self, wall: float) -> bool:
        """Is a frame stamped `wall` one to observe (at most `fps` a second)?"""
        return wall - self.taken_at >= 1.0 / self.fps - 1e-3

    def offer(self, wall: float, bgr) -> None:
        self.taken_at = wall
        try:
            self.frames.put_nowait((wall, bgr))
        except queue.Full:
            try:
                self.frames.get_nowait()  # the oldest goes: the live view wants the newest
                self.dropped += 1
            except queue.Empty:
                pass
            self.frames.put_nowait((wall, bgr))

    def stop(self) -> None:
        self.stop_event.set()

    # ------------------------------------------------------------------ its own thread
    def run(self) -> None:
        last_post = time.monotonic()
        i = 0
        while not self.stop_event.is_set():
            try:
                wall, bgr = self.frames.get(timeout=0.2)
            except queue.Empty:
                wall = bgr = None
            if bgr is not None:
                try:
                    obs = self._observe(i, wall, bgr)
                    i += 1
                    self.observed += 1
                    self._pending.append(obs.to_json())
                    del self._pending[:-MAX_KEPT]
                except Exception as e:  # noqa: BLE001 - the live view is extra: recording goes on regardless
                    self.last_error = f"observing: {e}"
                    log.warning("live observer: %s", self.last_error)
            if self._pending and time.monotonic() - last_post >= POST_EVERY_S:
                last_post = time.monotonic()
                self._post()

    def _observe(self, i: int, wall: float, bgr):
        if self._observer is None:
            self._observer = self._make_observer(bgr)
        return self._observer.observe(i, wall, bgr)

    def _make_observer(self, bgr):
        from vision.observe import ObserveOptions, Observer, field_on_picture

        setup = {}
        try:
            setup = self.client.board_setup()
        except Exception as e:  # noqa: BLE001 - the server may be down: read the board without its set-up
            self.last_error = f"no board set-up from the server ({e}); finding the board by itself"
            log.warning("live observer: %s", self.last_error)
        opts = ObserveOptions()
        if setup.get("field"):
            h, w = bgr.shape[:2]
            opts.field, opts.profile = field_on_picture(bgr, [[x * w, y * h] for x, y in setup["field"]])
        observer = Observer(self.fps, opts)
        if setup.get("state"):
            try:
                observer.restore(setup["state"])
            except (ValueError, KeyError, TypeError) as e:
                log.warning("live observer: ignoring the board's state (%s)", e)
        return observer

    def _post(self) -> None:
        body = ("\n".join(self._pending) + "\n").encode()
        try:
            answer = self.client.live(body)
        except Exception as e:  # noqa: BLE001 - kept and sent with the next post
            self.last_error = f"not posted: {e}"
            return
        self.posted += len(self._pending)
        self._pending = []
        self.last_error = ""
        if answer.get("cut_segment") and self.on_cut is not None:
            self.on_cut()
