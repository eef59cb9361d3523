"""A play judged as it is made, for the live overlay: GNU Backgammon kept running in one process of its own
(`gnubg -t -q -p SCRIPT`, at arm's length as for the PR), asked for every legal play's equity in the position the
play was made from. A few milliseconds a play at 0-ply (the default), so one process serves every board.

Shown after the play, never before: the judge is given plays already made, and what it says is the equity the
mover had with the roll (a past position) and what the play gave up against gnubg's best.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import tempfile
import threading
from dataclasses import asdict, dataclass
from pathlib import Path

from transcriber.ids import XgState, position_id, xgid
from transcriber.moves import legal_plays, parse_play
from transcriber.position import Position

from .pr import GnubgError, find_gnubg

PLIES = (0, 1, 2)  # 0: ~8 ms a play on one core; 2: ~0.1 s

# Runs inside gnubg's own Python: one request a line on stdin, one reply a line on the pipe RESULT (gnubg's own
# chatter goes to its stdout, which is discarded).
_SCRIPT = r'''
import json, os, sys
import gnubg
out = os.fdopen({fd}, "w")
gnubg.command("set threads 1")
gnubg.command("set evaluation chequerplay evaluation plies {ply}")
gnubg.command("set evaluation chequerplay evaluation cubeful on")
out.write(json.dumps({{"ready": True}}) + "\n")
out.flush()
for line in sys.stdin:
    try:
        gnubg.command("set xgid " + json.loads(line)["xgid"])
        h = gnubg.hint(10000)
        reply = {{"pid": gnubg.positionid(), "dice": list(gnubg.posinfo()["dice"]),
                  "moves": [[m["move"], m["equity"]] for m in h["hint"]]}}
    except Exception as e:
        reply = {{"error": "%s: %s" % (type(e).__name__, e)}}
    out.write(json.dumps(reply) + "\n")
    out.flush()
'''


@dataclass
class Judgement:
    equity: float  # the mover's cubeful equity with this roll, playing gnubg's best (EMG: +1 a single game)
    error: float  # equity the play gave up against gnubg's best (0: the best)
    best: str  # gnubg's best play, in our notation
    rank: int  # the play's place in gnubg's list (1: the best, or as good)
    plays: int  # legal plays there were
    ply: int

    def to_json(self) -> dict:
        out = asdict(self)
        out["equity"], out["error"] = round(self.equity, 3), round(self.error, 3)
        out["engine"] = "GNU Backgammon"
        return out


class PlayJudge:
    """One gnubg process, started on the first play and again if it dies; plays judged one at a time (a lock).
    `judge` raises GnubgError (one line, for the log) when gnubg is missing, fails or takes over `timeout` s."""

    def __init__(self, ply: int = 0, timeout: float = 20.0, exe: str | None = None):
        if ply not in PLIES:
            raise ValueError(f"ply must be one of {', '.join(map(str, PLIES))}, not {ply}")
        self.ply, self.timeout, self.exe = ply, timeout, exe
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._tmp: tempfile.TemporaryDirectory | None = None
        self._read_fd: int | None = None
        self._buf = b""

    # ------------------------------------------------------------------ the process
    def _start(self) -> None:
        exe = self.exe or find_gnubg()
        if exe is None:
            raise GnubgError("GNU Backgammon is not installed (Debian: apt-get install gnubg): no live analysis")
        self._tmp = tempfile.TemporaryDirectory(prefix="bgscribe-judge-")
        tmp = Path(self._tmp.name)
        r, w = os.pipe()
        script = tmp / "judge.py"
        script.write_text(_SCRIPT.format(fd=w, ply=self.ply))
        try:
            self._proc = subprocess.Popen(
                [exe, "-t", "-q", "-p", str(script)], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                stderr=(tmp / "stderr").open("wb"), pass_fds=(w,), cwd=tmp,
                env={**os.environ, "HOME": str(tmp)})  # gnubg writes its settings under $HOME
        except OSError as e:
            os.close(r)
            raise GnubgError(f"GNU Backgammon ({exe}) could not be started: {e.strerror or e}") from None
        finally:
            os.close(w)
        self._read_fd, self._buf = r, b""
        if not self._reply().get("ready"):
            raise self._failed("did not start")

    def _reply(self) -> dict:
        while b"\n" not in self._buf:
            ready, _, _ = select.select([self._read_fd], [], [], self.timeout)
            if not ready:
                raise self._failed(f"gave no answer in {self.timeout:g} s")
            chunk = os.read(self._read_fd, 65536)
            if not chunk:
                raise self._failed("stopped")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return json.loads(line)

    def _failed(self, what: str) -> GnubgError:
        tail = ""
        if self._tmp is not None:
            err = Path(self._tmp.name) / "stderr"
            tail = err.read_text(errors="replace").strip()[-300:] if err.is_file() else ""
        self.close()
        return GnubgError(f"GNU Backgammon {what}" + (f": {tail}" if tail else ""))

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait()
            if self._proc.stdin:
                self._proc.stdin.close()
        if self._read_fd is not None:
            os.close(self._read_fd)
        if self._tmp is not None:
            self._tmp.cleanup()
        self._proc, self._read_fd, self._tmp = None, None, None

    def _ask(self, xg: str) -> dict:
        if self._proc is None or self._proc.poll() is not None:
            self.close()
            self._start()
        try:
            self._proc.stdin.write(json.dumps({"xgid": xg}).encode() + b"\n")
            self._proc.stdin.flush()
        except OSError:
            raise self._failed("stopped") from None
        return self._reply()

    # ------------------------------------------------------------------ plays
    def judge(self, position: Position, player: int, dice: tuple[int, int], play: str, cube: int = 1,
              owner: int | None = None, score: tuple[int, int] = (0, 0), crawford: bool = False,
              length: int = 0) -> Judgement | None:
        """gnubg's view of `play` (our notation) made by `player` with `dice` from `position` (players numbered
        as in the match record, 0 the XGID's bottom player); None where there was no choice (one legal play).
        IllegalPlayError where the play is not legal there."""
        dice = (max(dice), min(dice))
        played = parse_play(position, player, dice, play)
        legal = legal_plays(position, player, dice)
        if len(legal) <= 1:
            return None
        xg = xgid(XgState(position, cube, owner, player, dice, score, crawford, length))
        with self._lock:
            reply = self._ask(xg)
        if "error" in reply:
            raise GnubgError(f"GNU Backgammon could not judge {xg}: {reply['error']}")
        # (gnubg's Python `positionid()` puts the player not on roll first: its board as kept, not as pasted)
        if reply.get("pid") != position_id(position, 1 - player) or sorted(reply.get("dice") or ()) != sorted(dice):
            raise GnubgError(f"GNU Backgammon read {xg} as another position ({reply.get('pid')})")
        ranked = []
        for text, equity in reply["moves"]:
            ranked.append((parse_play(position, player, dice, text), float(equity)))
        if not ranked:
            raise GnubgError(f"GNU Backgammon gave no play for {xg}")
        best, best_eq = ranked[0]
        mine = next((eq for p, eq in ranked if p.result == played.result), None)
        if mine is None:
            raise GnubgError(f"GNU Backgammon did not list the play {play!r} for {xg}")
        rank = 1 + sum(eq > mine for _, eq in ranked)  # (plays of equal equity share a place)
        return Judgement(best_eq, max(0.0, best_eq - mine), best.notation, rank, len(legal), self.ply)


__all__ = ["Judgement", "PlayJudge"]
