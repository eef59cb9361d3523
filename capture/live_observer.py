"""The capture agent's live observer: the camera stage run on the agent's own machine as it records, a few
frames a second, its observations posted to the server every half second (from a thread of their own: a slow
server never holds observing up) for the live boards
(review_ui/live_feed.py). The segments stay the record; this is the live view only, and it never holds the
recording up: frames come through a small queue, and when the observer falls behind the oldest are dropped
(counted), never the recorder's.

At start it asks the server for the board's confirmed field and what earlier footage taught of the board (the
`GET .../board` ingest route), as the server's own observe jobs use them, and again every minute while it still
learns the board's dice (`vision.observe.Observer.adopt`: learning them costs twice the reading).

Where the agent's machine is too small to observe (`where="auto"`: it dropped more than a third of the frames
over 20 s), or where told to (`where="server"`), it sends the frames themselves instead, as JPEG, and the server
observes them (review_ui/live_cameras.py). It does not hand over twice: the server hands a board back when it
cannot keep up either (`take_back`), and the agent then observes what it can.
"""

from __future__ import annotations

import logging
import queue
import threading
import time

from vision.live_frames import Pace

from .uploader import Rejected

log = logging.getLogger("bgscribe.capture.live")

POST_EVERY_S = 0.5
MAX_KEPT = 1200  # observations kept while the server is down (a few minutes at 5/s): the oldest go first
FRAMES_KEPT = 10  # frames kept for the server while it cannot be reached: the newest (the live view wants now)
WHERE = ("auto", "agent", "server")


class LiveObserver(threading.Thread):
    def __init__(self, client, fps: float = 5.0, on_cut=None, where: str = "agent"):
        """``client``: the agent's `uploader.Client`; ``on_cut``: called when the server says the match is over
        (the agent then closes its segment at once); ``where``: who observes (`WHERE`)."""
        if where not in WHERE:
            raise ValueError(f"where must be one of {', '.join(WHERE)}, not {where!r}")
        super().__init__(name="live-observer", daemon=True)
        self.client, self.fps, self.on_cut = client, fps, on_cut
        self.auto = where == "auto"
        self.where = "server" if where == "server" else "agent"
        self.frames: queue.Queue = queue.Queue(maxsize=max(2, int(fps)))
        self.stop_event = threading.Event()
        self.offered = 0
        self.dropped = 0  # frames the observer had no time for
        self.observed = 0
        self.posted = 0  # observations posted
        self.sent = 0  # frames sent for the server to observe
        self.last_error = ""
        self.taken_at = -1e9
        self._lock = threading.Lock()  # the pending observations and frames, shared with the posting thread
        self._pending: list[str] = []
        self._pending_frames: list[tuple[float, bytes]] = []
        self._observer = None
        self._asked = 0.0  # when the server was last asked for the board's set-up
        self._learnt: dict | None = None  # the record's board state, asked for by the posting thread
        self.pace = Pace()  # auto: whether this machine keeps up with the frames

    # ------------------------------------------------------------------ from the agent's thread
    def due(self, wall: float) -> bool:
        """Is a frame stamped `wall` one to observe (at most `fps` a second)?"""
        return wall - self.taken_at >= 1.0 / self.fps - 1e-3

    def offer(self, wall: float, bgr) -> None:
        self.taken_at = wall
        self.offered += 1
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

    def report(self) -> dict:
        """For the heartbeat."""
        return {"where": self.where, "observed": self.observed, "dropped": self.dropped, "posted": self.posted,
                "frames_sent": self.sent, "error": self.last_error}

    # ------------------------------------------------------------------ its own thread
    def run(self) -> None:
        threading.Thread(target=self._posting, name="live-poster", daemon=True).start()
        i = 0
        while not self.stop_event.is_set():
            try:
                wall, bgr = self.frames.get(timeout=0.2)
            except queue.Empty:
                wall = bgr = None
            if bgr is not None:
                try:
                    if self.where == "server":
                        self._keep_frame(wall, bgr)
                    else:
                        obs = self._observe(i, wall, bgr)
                        i += 1
                        self.observed += 1
                        with self._lock:
                            self._pending.append(obs.to_json())
                            del self._pending[:-MAX_KEPT]
                except Exception as e:  # noqa: BLE001 - the live view is extra: recording goes on regardless
                    self.last_error = f"observing: {e}"
                    log.warning("live observer: %s", self.last_error)
            self._judge_keeping_up()

    def _posting(self) -> None:
        """What was observed, posted every `POST_EVERY_S` from a thread of its own: a server slow to answer (a post
        waits up to the client's timeout) never holds observing up. Posting from the observing thread, the 24-board
        live bench's agents observed well under a frame a second while their posts timed out (2026-12-05)."""
        while not self.stop_event.wait(POST_EVERY_S):
            self._post()
            self._ask()

    def _judge_keeping_up(self) -> None:
        """auto: hand observing to the server once this machine drops too many frames (`vision.live_frames.Pace`)."""
        if self.auto and self.where == "agent" and self.pace.behind(self.offered, self.dropped):
            self.where = "server"
            offered, dropped, seconds = self.pace.last
            log.warning("live observer: this machine observed only %d of %d frames in %.0f s; sending the frames "
                        "to the server to observe instead", offered - dropped, offered, seconds)

    def _keep_frame(self, wall: float, bgr) -> None:
        from vision.live_frames import jpeg

        data = jpeg(bgr)
        with self._lock:
            self._pending_frames.append((wall, data))
            del self._pending_frames[:-FRAMES_KEPT]

    def _observe(self, i: int, wall: float, bgr):
        if self._observer is None:
            self._observer = self._make_observer(bgr)
            self._asked = time.monotonic()
        learnt, self._learnt = self._learnt, None
        if learnt:
            self._observer.adopt(learnt)
        return self._observer.observe(i, wall, bgr)

    def _ask(self) -> None:
        """What the record has learnt of the board since the observer began, asked while it still learns, for it to
        adopt (`Observer.due_to_ask`, `Observer.adopt`; from the posting thread, as every call to the server)."""
        observer = self._observer
        if observer is None or not observer.due_to_ask(self._asked):
            return
        self._asked = time.monotonic()
        try:
            self._learnt = self.client.board_setup().get("state")
        except Exception as e:  # noqa: BLE001 - the server may be down: learn on alone
            log.info("live observer: no board set-up from the server (%s)", e)

    def _make_observer(self, bgr):
        from vision.observe import live_observer

        setup = {}
        try:
            setup = self.client.board_setup()
        except Exception as e:  # noqa: BLE001 - the server may be down: read the board without its set-up
            self.last_error = f"no board set-up from the server ({e}); finding the board by itself"
            log.warning("live observer: %s", self.last_error)
        return live_observer(bgr, self.fps, setup)

    def _post(self) -> None:
        with self._lock:  # (taken whole: what the observer adds meanwhile goes with the next post)
            obs, frames = self._pending, self._pending_frames
            self._pending, self._pending_frames = [], []
        if not obs and not frames:
            return
        answers = []
        try:
            if obs:  # (observations made before a hand-over go first)
                answers.append(self.client.live(("\n".join(obs) + "\n").encode()))
                self.posted += len(obs)
                obs = []
            if frames:
                from vision.live_frames import frames_body

                answer = self.client.live_frames(frames_body(frames))
                answers.append(answer)
                self.sent += len(frames)
                frames = []
                if answer.get("take_back"):  # the server cannot keep up (or observes no frames): here, for good
                    self.where, self.auto = "agent", False
                    log.warning("live observer: the server hands observing back (%s); observing here",
                                answer.get("why") or "it dropped too many of this board's frames")
        except Rejected as e:  # (refused as they are: sending them again would never help)
            self.last_error = f"refused by the server: {e}"
            return
        except Exception as e:  # noqa: BLE001 - kept and sent with the next post
            self.last_error = f"not posted: {e}"
            with self._lock:  # before what came since, the oldest going first
                self._pending = (obs + self._pending)[-MAX_KEPT:]
                self._pending_frames = (frames + self._pending_frames)[-FRAMES_KEPT:]
            return
        self.last_error = ""
        if any(a.get("cut_segment") for a in answers) and self.on_cut is not None:
            self.on_cut()
