"""Legal-play generation speed on positions from the real matches (JSON figures, not pass/fail).

    python tests/bench/bench_legal_moves.py [--seconds 5]

Figures: (position, roll) pairs per second on one core, generated from scratch (cache
cleared every call) and warm (the decoder asks again for positions it has seen); the
ratio to the brute-force reference generator measured in the same run; notation
parsing; and whole-match replay (rolls per second through the referee).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.transcriber.brute import brute_results  # noqa: E402
from tests.transcriber.positions import real_positions  # noqa: E402
from transcriber.mat import read_mat  # noqa: E402
from transcriber.moves import _generate, legal_plays, parse_play  # noqa: E402
from transcriber.replay import replay_match  # noqa: E402

FLOOR = 2000  # pairs per second the issue asks for at least


def rate(fn, items, seconds: float) -> float:
    n, start = 0, time.perf_counter()
    while True:
        for item in items:
            fn(item)
        n += len(items)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="time per figure (default 5)")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    pairs = real_positions()

    def cold(item):
        _generate.cache_clear()
        legal_plays(*item)

    cold_rate = rate(cold, pairs, args.seconds)
    warm_rate = rate(lambda item: legal_plays(*item), pairs, args.seconds)
    sample = pairs[:: max(1, len(pairs) // 150)]
    brute_rate = rate(lambda item: brute_results(*item), sample, args.seconds)
    plays = [(pos, pl, d, p.notation) for pos, pl, d in sample for p in legal_plays(pos, pl, d)[:3]]

    def parse(item):
        _generate.cache_clear()
        parse_play(*item)

    parse_rate = rate(parse, plays, args.seconds)
    records = [read_mat(p) for p in sorted((ROOT / "bgscribe" / "samples").glob("*.txt"))]
    rolls = sum(len(g.actions) for r in records for g in r.games)

    def replay_all(_):
        _generate.cache_clear()
        for r in records:
            replay_match(r)

    replay_rate = rate(replay_all, [None], args.seconds) * rolls
    print(json.dumps({
        "benchmark": "legal_moves",
        "positions": len(pairs),
        "pairs_per_s_cold": round(cold_rate),
        "pairs_per_s_warm": round(warm_rate),
        "brute_force_pairs_per_s": round(brute_rate, 1),
        "speedup_vs_brute_force": round(cold_rate / brute_rate, 1),
        "parse_play_per_s": round(parse_rate),
        "replay_actions_per_s": round(replay_rate),
        "floor_pairs_per_s": FLOOR,
        "meets_floor": cold_rate >= FLOOR,
    }, indent=2))


if __name__ == "__main__":
    main()
