"""Live boards whose capture agent cannot observe its own camera (a small machine that falls behind, or one told
to send frames): the agent sends a few frames a second (`vision.live_frames`), and the server runs the same camera
stage on them (`vision.observe.live_observer`, with the board's confirmed field and learnt state) and hands the
observations to the board's live decoder (review_ui/live_feed.py) as if the agent had posted them.

A pool of threads (`live_camera_threads`) observes every such board; a board is observed by one thread at a time,
its frames in order. Each board keeps only its newest frames (the live view wants now): when the pool falls
behind, the oldest waiting go (counted, and said to the agent), never the recording, which is the agent's. A board
that loses more than a third of its frames over 20 s is handed back to its agent (`take_back`): the server's cores
were not free after all, and an agent that observes what it can beats a server that observes nothing."""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from vision.live_frames import Pace, picture

log = logging.getLogger("bgscribe.live")

KEEP = 10  # frames waiting per board (two seconds at 5 a second)


def live_setup(data_dir, board) -> dict:
    """What the camera stage needs of a board for its live frames: the field's corners the staff confirmed
    (shares of the picture; None) and what earlier footage taught of the board (`observe --board-state`; None)."""
    import json

    from .board_field import board_field
    from .pipeline import board_state_path

    f = board_field(board)
    path = board_state_path(data_dir, board.number)
    try:
        state = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    except (OSError, ValueError):
        state = None  # (damaged: the observer learns afresh, as `observe` does)
    return {"board": board.number, "field": f.corners if f else None, "state": state}


@dataclass
class _Camera:
    number: int
    board_id: int
    frames: deque = field(default_factory=lambda: deque(maxlen=KEEP))
    observer: object = None
    shape: tuple | None = None
    i: int = 0
    busy: bool = False
    dropped: int = 0  # frames that waited too long and went
    observed: int = 0
    unreadable: int = 0
    cut: bool = False  # the live decoder saw the match over: told to the agent with its next post
    since: float = 0.0  # when its oldest waiting frame came
    last_t: float = float("-inf")  # the footage time of the newest frame taken
    taken: int = 0
    pace: Pace = field(default_factory=Pace)  # whether the pool keeps up with its frames
    take_back: bool = False  # the pool lost too many of its frames: the agent observes them itself again
    asked: float = 0.0  # when the board's set-up was last read (`live_setup`)


class LiveCameras:
    def __init__(self, hub, setup: Callable[[int], dict], fps: float = 5.0, threads: int = 1):
        """`hub`: the LiveHub the observations go to; `setup(board_id)`: `live_setup` of that board."""
        self.hub, self.setup, self.fps = hub, setup, fps
        self.cameras: dict[int, _Camera] = {}
        self._cond = threading.Condition()
        self._stop = False
        self._threads = [threading.Thread(target=self._run, name=f"live-camera-{k}", daemon=True)
                         for k in range(threads)]
        for t in self._threads:
            t.start()

    def offer(self, number: int, board_id: int, frames: list[tuple[float, bytes]]) -> dict:
        """Take a post of frames (JPEG, in order); observed in the pool's threads. {"accepted", "dropped" (all
        so far), "cut_segment", "take_back" (the agent is to observe them itself from now on)}."""
        with self._cond:
            cam = self.cameras.get(number)
            if cam is None or cam.board_id != board_id:
                cam = self.cameras[number] = _Camera(number, board_id)
            new = [f for f in frames if f[0] > cam.last_t]  # (a post sent again is taken once)
            if new and not cam.frames:
                cam.since = time.monotonic()
            if new:
                cam.last_t = new[-1][0]
            for f in new:
                if len(cam.frames) == KEEP:
                    cam.dropped += 1
                cam.frames.append(f)
            cam.taken += len(new)
            self._judge_keeping_up(cam)
            cut, cam.cut = cam.cut, False
            self._cond.notify()
            return {"accepted": len(new), "dropped": cam.dropped, "cut_segment": cut, "take_back": cam.take_back}

    @staticmethod
    def _judge_keeping_up(cam: _Camera) -> None:
        """(under the lock) The agent's own rule (`vision.live_frames.Pace`), from this side: a board whose frames
        the pool drops too many of is handed back to its agent (this server's cores are taken: by other boards, or
        by the record's jobs), which then observes as well as it can, for good."""
        if not cam.take_back and cam.pace.behind(cam.taken, cam.dropped):
            cam.take_back = True
            taken, dropped, seconds = cam.pace.last
            log.warning("board %d: this server observed only %d of its %d live frames in %.0f s; its agent is asked "
                        "to observe them itself", cam.number, taken - dropped, taken, seconds)

    def _next(self) -> _Camera | None:
        """(under the lock) The board whose frames have waited longest and that no thread is observing."""
        ready = [c for c in self.cameras.values() if c.frames and not c.busy]
        return min(ready, key=lambda c: c.since) if ready else None

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stop and (cam := self._next()) is None:
                    self._cond.wait()
                if self._stop:
                    return
                cam.busy = True
                frames = list(cam.frames)
                cam.frames.clear()
            try:
                self._observe(cam, frames)
            except Exception:  # noqa: BLE001 - one board's trouble must not stop the others'
                log.exception("board %d: its live frames could not be observed", cam.number)
            finally:
                with self._cond:
                    cam.busy = False
                    if cam.frames:
                        cam.since = time.monotonic()
                    self._cond.notify()

    def _observe(self, cam: _Camera, frames: list[tuple[float, bytes]]) -> None:
        from vision.observe import live_observer

        obs = []
        for t, data in frames:
            bgr = picture(data)
            if bgr is None:
                cam.unreadable += 1
                if cam.unreadable in (1, 100):
                    log.warning("board %d: a live frame that does not decode (%d so far)", cam.number, cam.unreadable)
                continue
            if cam.observer is None or bgr.shape != cam.shape:  # (a camera at another size: the field anew)
                cam.observer, cam.shape = live_observer(bgr, self.fps, self.setup(cam.board_id)), bgr.shape
                cam.asked = time.monotonic()
            elif cam.observer.due_to_ask(cam.asked):
                cam.asked = time.monotonic()  # what the record has learnt of the board since (`Observer.adopt`)
                cam.observer.adopt(self.setup(cam.board_id).get("state"))
            obs.append(cam.observer.observe(cam.i, t, bgr))
            cam.i += 1
            cam.observed += 1
        if obs:
            answer = self.hub.board(cam.number).observe(obs, cam.board_id)
            if answer.get("cut_segment"):
                with self._cond:
                    cam.cut = True

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        for t in self._threads:
            t.join(timeout=10)


__all__ = ["LiveCameras", "live_setup"]
