"""The tournament desk's speed (JSON figures, not pass/fail).

    python tests/bench/bench_tournament.py [--sizes 48,256] [--rounds 6] [--plies 0,1,2] [--matches 3]

Pairing: a whole Swiss event of N players (random results), each round drawn by the swisspair engine through
tournament.pairing; the seconds a draw takes (median and worst over the rounds), and, as the baseline in the
same run, networkx's maximum-cardinality matching over the same no-repeat graph (what any pairing must at
least solve). PR: GNU Backgammon analysing a match at each ply (the three real 13-point matches and, as many,
generated 7-point ones), seconds per match and per decision; one core.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tournament.formats import EventState  # noqa: E402
from tournament.model import EventRules, Result  # noqa: E402
from tournament.pairing import opponents  # noqa: E402
from tournament.pr import GnubgError, analyse_mat, find_gnubg  # noqa: E402
from transcriber.generate import GenOptions, random_match  # noqa: E402
from transcriber.mat import write_mat  # noqa: E402

SAMPLES = sorted((ROOT / "bgscribe" / "samples").glob("*.txt"))


def bench_pairing(n: int, rounds: int, seed: int = 1) -> dict:
    import networkx as nx

    rng = random.Random(seed)
    players = [f"P{i:03d}" for i in range(n)]
    ev = EventState(players, EventRules(rounds=rounds))
    times, baseline = [], []
    for number in range(1, rounds + 1):
        met = opponents(ev.results)
        t = time.perf_counter()
        g = nx.complete_graph(players)
        g.remove_edges_from((a, b) for a in met for b in met[a])
        nx.max_weight_matching(g, maxcardinality=True)
        baseline.append(time.perf_counter() - t)
        t = time.perf_counter()
        draw = ev.next_draw()
        times.append(time.perf_counter() - t)
        for p in draw.pairings:
            ev.record(Result(number, p.a, p.b, rng.choice((p.a, p.b))))
    return {"players": n, "rounds": rounds, "draw_s_median": round(statistics.median(times), 4),
            "draw_s_max": round(max(times), 4), "networkx_matching_s_median": round(statistics.median(baseline), 4)}


def bench_pr(plies: list[int], matches: int) -> list[dict]:
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        files = [("real 13-point", p) for p in SAMPLES[:matches]]
        for i in range(matches):
            path = Path(tmp) / f"gen{i}.mat"
            write_mat(random_match(9000 + i, ("Ann", "Ben"), GenOptions(length=7)), path)
            files.append(("generated 7-point", path))
        for ply in plies:
            for kind in ("real 13-point", "generated 7-point"):
                secs, decisions = [], 0
                for k, path in files:
                    if k != kind:
                        continue
                    a = analyse_mat(path, ply=ply, timeout=1800)
                    secs.append(a.seconds)
                    decisions += sum(p.decisions for p in a.players)
                if secs:
                    out.append({"ply": ply, "matches": kind, "n": len(secs),
                                "s_per_match_median": round(statistics.median(secs), 2),
                                "s_per_match_max": round(max(secs), 2),
                                "ms_per_decision": round(1000 * sum(secs) / max(1, decisions), 2)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="48,256", help="field sizes to pair (default 48,256)")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--plies", default="0,1,2", help="gnubg plies to time (default 0,1,2)")
    ap.add_argument("--matches", type=int, default=3, help="real matches (and as many generated) per ply")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    out = {"pairing": [bench_pairing(int(n), args.rounds) for n in args.sizes.split(",")]}
    if find_gnubg() is None:
        out["pr"] = "GNU Backgammon is not installed (apt-get install gnubg): no PR figures"
    else:
        try:
            out["pr"] = bench_pr([int(p) for p in args.plies.split(",")], args.matches)
        except GnubgError as e:
            out["pr"] = str(e)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
