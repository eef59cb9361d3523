"""Provisional PR from GNU Backgammon, run at arm's length: Debian's `gnubg` as a separate process
(`gnubg -t -q -p SCRIPT`, its embedded Python module driving the analysis), never imported here, so a crash
or a hang in it costs one match's PR, never the server.

XG's PR is 500 x the equity lost per non-forced decision (checker plays with a choice, and cube decisions
close enough to count); gnubg's "error rate" is the same total in thousandths of an equity point (mEMG) per
decision, so PR ~ error rate / 2. From `gnubg.match(analysis=1, statistics=1)`, per player: `moves.error-skill`
is the total equity lost on checker plays over `moves.unforced-moves` decisions; `cube.error-skill` is a rate
per close cube decision (`cube.close-cube` of them). Our figures estimate XG's (different bots, different
plies): they are provisional until BMAB's official PR replaces them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

GNUBG_CANDIDATES = ("gnubg", "/usr/games/gnubg")
PLIES = (0, 1, 2, 3)  # 0 is about 1 s an 11-point match, 2 (the default) about 20 s on one core
DEFAULT_PLY = 2


class GnubgError(RuntimeError):
    """GNU Backgammon is missing, failed or ran too long; the message says which, for the page and the log."""


@dataclass
class PlayerPR:
    name: str
    pr: float  # XG-style: 500 x equity lost per decision
    error_rate: float  # gnubg's: 1000 x equity lost per decision (mEMG)
    decisions: int  # unforced checker plays + close cube decisions
    checker_decisions: int
    cube_decisions: int
    checker_error: float  # total equity lost (EMG)
    cube_error: float


@dataclass
class Decision:
    game: int
    move: int  # the game's action number, 1-based
    player: str
    kind: str  # "move", "double", "take", "drop", ...
    dice: list[int] | None = None
    played: str = ""
    best: str = ""
    error: float | None = None  # equity lost against gnubg's best (None where gnubg gives only a mark)
    skill: str = ""  # gnubg's mark ("doubtful", "bad", "very bad") where it gives one
    forced: bool = False


@dataclass
class Analysis:
    players: list[PlayerPR]
    ply: int
    seconds: float
    decisions: list[Decision] = field(default_factory=list)
    gnubg: str = ""

    def by_name(self, name: str) -> PlayerPR | None:
        return next((p for p in self.players if p.name == name), None)

    def to_json(self, with_decisions: bool = False) -> dict:
        out = {"ply": self.ply, "seconds": round(self.seconds, 2), "provisional": True,
               "engine": "GNU Backgammon", "players": [asdict(p) for p in self.players]}
        for p in out["players"]:
            for k in ("pr", "error_rate", "checker_error", "cube_error"):
                p[k] = round(p[k], 4 if k.endswith("_error") else 2)
        if with_decisions:
            out["decisions"] = [asdict(d) for d in self.decisions]
        return out


def find_gnubg() -> str | None:
    env = os.environ.get("BGSCRIBE_GNUBG")  # set: that one only (or none, if it is not there)
    for c in (env,) if env else GNUBG_CANDIDATES:
        found = shutil.which(c)
        if found:
            return found
    return None


# Runs inside gnubg's own Python. Settings are set before the import so the analysis uses them.
_SCRIPT = r'''
import json
import gnubg
IN, OUT, PLY, THREADS = {inp}, {out}, {ply}, {threads}
gnubg.command("set threads %d" % THREADS)
for what in ("chequerplay", "cubedecision"):
    gnubg.command("set analysis %s evaluation plies %d" % (what, PLY))
    gnubg.command("set analysis %s evaluation cubeful on" % what)
gnubg.command("import mat " + IN)
gnubg.command("analyse match")
m = gnubg.match(analysis=1, statistics=1)
with open(OUT, "w") as f:
    json.dump(m, f, default=str)
'''


def _notation(move) -> str:
    def point(n):
        return "bar" if n == 25 else "off" if n <= 0 else str(n)

    return " ".join(f"{point(a)}/{point(b)}" for a, b in move or [])


def analyse_mat(mat_path: str | Path, ply: int = DEFAULT_PLY, timeout: float = 600, threads: int = 1) -> Analysis:
    """Analyse one .mat with gnubg at `ply` plies; GnubgError (never a traceback) when gnubg is missing, fails
    or takes longer than `timeout` seconds."""
    if ply not in PLIES:
        raise ValueError(f"ply must be one of {', '.join(map(str, PLIES))}, not {ply}")
    mat_path = Path(mat_path)
    if not mat_path.is_file():
        raise FileNotFoundError(f"{mat_path}: no such file")
    from transcriber.mat import read_mat, write_mat

    record = read_mat(mat_path)  # MatchFormatError naming the line (whether or not gnubg is here); any format we
    # read, written as gnubg reads
    exe = find_gnubg()
    if exe is None:
        raise GnubgError("GNU Backgammon is not installed (Debian: apt-get install gnubg), so no PR was computed")
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bgscribe-pr-") as tmp:
        src = Path(tmp) / "match.mat"  # gnubg's command line splits on spaces: a plain path
        write_mat(record, src, allow_invalid=True)
        out = Path(tmp) / "analysis.json"
        script = Path(tmp) / "analyse.py"
        script.write_text(_SCRIPT.format(inp=json.dumps(str(src)), out=json.dumps(str(out)), ply=int(ply),
                                         threads=int(threads)))
        try:
            proc = subprocess.run([exe, "-t", "-q", "-p", str(script)], capture_output=True, text=True,
                                  timeout=timeout, cwd=tmp, stdin=subprocess.DEVNULL,
                                  env={**os.environ, "HOME": tmp})  # gnubg writes its settings under $HOME
        except subprocess.TimeoutExpired:
            raise GnubgError(f"GNU Backgammon took longer than {timeout:g} s on {mat_path.name} "
                             f"at {ply}-ply; no PR") from None
        except OSError as e:
            raise GnubgError(f"GNU Backgammon ({exe}) could not be started: {e.strerror or e}") from None
        if not out.exists():
            tail = (proc.stderr.strip() or proc.stdout.strip())[-400:]
            raise GnubgError(f"GNU Backgammon did not analyse {mat_path.name} (exit status {proc.returncode})"
                             + (f": {tail}" if tail else ""))
        try:
            data = json.loads(out.read_text())
        except ValueError as e:
            raise GnubgError(f"GNU Backgammon's analysis of {mat_path.name} did not read: {e}") from None
    return _figures(data, ply, time.perf_counter() - t0, exe)


def _figures(m: dict, ply: int, seconds: float, exe: str) -> Analysis:
    info = m.get("match-info") or {}
    stats = m.get("stats") or {}
    players = []
    for side in ("X", "O"):  # X is the .mat's player 1
        name = (info.get(side) or {}).get("name", side)
        st = stats.get(side)
        if st is None:
            raise GnubgError(f"GNU Backgammon gave no statistics for {name}")
        mv, cube = st.get("moves", {}), st.get("cube", {})
        checker_n = int(mv.get("unforced-moves", 0))
        cube_n = int(cube.get("close-cube", 0))
        checker_err = float(mv.get("error-skill", 0.0))  # a total
        cube_err = float(cube.get("error-skill", 0.0)) * cube_n  # a rate per close decision: back to a total
        n = checker_n + cube_n
        rate = 1000 * (checker_err + cube_err) / n if n else 0.0
        players.append(PlayerPR(name, rate / 2, rate, n, checker_n, cube_n, checker_err, cube_err))
    decisions = []
    for gi, g in enumerate(m.get("games") or [], start=1):
        for ai, a in enumerate(g.get("game") or [], start=1):
            who = (info.get(a.get("player")) or {}).get("name", a.get("player", ""))
            kind = a.get("action", "")
            an = a.get("analysis") or {}
            d = Decision(gi, ai, who, kind, skill=str(an.get("skill", "")))
            if kind == "move":
                d.dice = list(a.get("dice") or [])
                d.played = _notation(a.get("move"))
                cands = an.get("moves") or []
                if cands:
                    best = max(cands, key=lambda c: c.get("score", 0.0))
                    d.best = _notation(best.get("move"))
                    i = an.get("imove")
                    if i is not None and 0 <= i < len(cands):
                        d.error = max(0.0, best.get("score", 0.0) - cands[i].get("score", 0.0))
                d.forced = len(cands) <= 1
            elif kind == "double" and "nd-cubeful-eq" in an:
                nd, dt = an["nd-cubeful-eq"], an.get("dt-cubeful-eq", 0.0)
                right = max(nd, min(dt, 1.0))
                d.best = "double" if min(dt, 1.0) >= nd else "no double"
                d.error = max(0.0, right - min(dt, 1.0))
            decisions.append(d)
    return Analysis(players, ply, seconds, decisions, exe)
