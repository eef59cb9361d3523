"""The live overlay's last-play error: each board's last play judged by GNU Backgammon (`tournament.play_judge`) in
a thread of its own, so that a board's observations never wait on gnubg. Newest first: a board's play still
waiting is replaced by its newer one, so a slow gnubg (or a deep ply) never builds a backlog; it shows fewer
judgements, late, and never a wrong one (each is tied to the exact play and position it judged)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from tournament.pr import GnubgError, find_gnubg

log = logging.getLogger("bgscribe.live")


class LiveAnalyst:
    def __init__(self, ply: int = 0, exe: str | None = None):
        from tournament.play_judge import PlayJudge

        self.judge = PlayJudge(ply, exe=exe)
        self._pending: dict[int, tuple[tuple, dict, Callable]] = {}  # board number -> its newest play to judge
        self._cond = threading.Condition()
        self._stop = False
        self._said: set[str] = set()  # errors logged once each
        self._thread = threading.Thread(target=self._run, name="live-analysis", daemon=True)
        self._thread.start()

    @classmethod
    def if_available(cls, ply: int) -> LiveAnalyst | None:
        """An analyst where gnubg is installed and `ply` is not -1 (off); else None (logged)."""
        if ply < 0:
            return None
        exe = find_gnubg()
        if exe is None:
            log.info("GNU Backgammon is not installed: the live boards show no last-play error")
            return None
        return cls(ply, exe)

    def ask(self, board: int, key: tuple, play: dict, done: Callable[[tuple, dict | None], None]) -> None:
        """Judge `play` (PlayJudge.judge's arguments) for `board`; `done(key, judgement JSON or None)` is called
        from the analyst's thread, unless a newer play of the board replaced it first."""
        with self._cond:
            self._pending[board] = (key, play, done)
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._stop:
                    self._cond.wait()
                if self._stop:
                    return
                board = next(iter(self._pending))  # (the board waiting longest: dicts keep insertion order)
                key, play, done = self._pending.pop(board)
            try:
                j = self.judge.judge(**play)
                verdict = j.to_json() if j is not None else None
            except (GnubgError, ValueError) as e:  # (a play the rules refuse there: the live view will move on)
                if str(e) not in self._said:
                    self._said.add(str(e))
                    log.warning("board %d: no live analysis of %s: %s", board, play.get("play"), e)
                verdict = None
            try:
                done(key, verdict)
            except Exception:  # noqa: BLE001 - a board's publish failing must not stop every board's analysis
                log.exception("board %d: the live analysis could not be published", board)

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify()
        self._thread.join(timeout=5)
        self.judge.close()


__all__ = ["LiveAnalyst"]
