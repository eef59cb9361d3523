"""Totals over several end-to-end runs: the issue's targets are per thousands of plays, one run is a match.

    python tests/bench/sum_transcribe.py RUN.json... [--redecode]

Each RUN.json is what `bench_transcribe.py` printed (runs can take an hour each, so they are made
one by one, in the background, and summed here). Prints, per profile: plays, plays right, silent
errors (and per 1,000 / 5,000 plays), flags per game, results and final scores right, and the range
of x real time. `--redecode` decodes and scores each run's kept observations again with the code
as it is now (the run's `--keep` folder: named in the JSON, or the JSON's own name without .json);
the vision and speed figures stay those measured.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

COUNTS = ("games", "plays", "plays_right", "cube_actions", "cube_actions_right", "results_right",
          "silent_errors", "flags")


def summarise(runs: list[dict]) -> dict:
    out: dict[str, dict] = {}
    for r in runs:
        t = r["transcript"]
        s = out.setdefault(r["profile"], {"runs": 0, **{k: 0 for k in COUNTS}, "final_scores_right": 0,
                                          "footage_h": 0.0, "x_real_time": [], "boards": []})
        s["runs"] += 1
        s["boards"] = sorted({*s["boards"], r["scheme"]})
        for k in COUNTS:
            s[k] += t[k]
        s["final_scores_right"] += bool(t["final_score_right"])
        s["footage_h"] += r["footage_s"] / 3600
        s["x_real_time"].append(r["x_real_time_observe_plus_decode"])
    for s in out.values():
        s["plays_right_rate"] = round(s["plays_right"] / s["plays"], 5) if s["plays"] else None
        s["silent_per_1000_plays"] = round(1000 * s["silent_errors"] / s["plays"], 3) if s["plays"] else None
        s["silent_per_5000_plays"] = round(5000 * s["silent_errors"] / s["plays"], 3) if s["plays"] else None
        s["flags_per_game"] = round(s["flags"] / s["games"], 3) if s["games"] else None
        s["footage_h"] = round(s["footage_h"], 1)
        x = s.pop("x_real_time")
        s["x_real_time_min"], s["x_real_time_max"] = min(x), max(x)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path, metavar="RUN.json")
    ap.add_argument("--redecode", action="store_true", help="decode the kept observations again with this code")
    args = ap.parse_args()
    if args.redecode:
        from bench_transcribe import decode_and_score  # (the decoder and its imports only when asked)
    runs = []
    for p in args.runs:
        try:
            run = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            print(f"sum_transcribe: {p}: not a finished run ({e})", file=sys.stderr)
            return 1
        if args.redecode:
            kept = Path(run.get("kept") or p.with_suffix(""))
            if not (kept / "obs.jsonl").is_file() or not (kept / "truth.jsonl").is_file():
                print(f"sum_transcribe: {p}: no kept truth.jsonl and obs.jsonl in {kept}", file=sys.stderr)
                return 1
            run["transcript"], run["decode_match_s"] = decode_and_score(kept / "truth.jsonl", kept / "obs.jsonl")
        t = run["transcript"]
        print(f"{p.stem}: {run['profile']} {run['match']} plays {t['plays_right']}/{t['plays']} silent "
              f"{t['silent_errors']} flags {t['flags']} {t['silent_error_list'][:3]}", file=sys.stderr)
        runs.append(run)
    print(json.dumps({"benchmark": "transcribe_total", "by_profile": summarise(runs)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
