"""Board-finding accuracy and cost on a colour scheme and seeds the corner model never saw (JSON).

    python tests/bench/bench_calibrate.py [--frames 40] [--scheme grey_modern|random|...]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.vision.test_calibrate import held_out_frames  # noqa: E402
from vision.calibrate import BoardLocator  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--scheme", help="the boards' looks (default: the held-out scheme; random: a new look per board)")
    args = ap.parse_args()
    locator = BoardLocator()
    out: dict = {"benchmark": "calibrate", "scheme": args.scheme or "held-out"}
    for profile in ("standard", "hard"):
        coarse, refined, ms = [], [], []
        for frame, truth, _ in held_out_frames(args.frames, profile, seed=9,
                                                  schemes=[args.scheme] if args.scheme else None):
            t0 = time.perf_counter()
            cal = locator.locate(frame)
            ms.append(1000 * (time.perf_counter() - t0))
            pts, _ = locator.coarse(frame)
            coarse.append(np.linalg.norm(pts - truth, axis=1).max())
            refined.append(np.linalg.norm(cal.corners - truth, axis=1).max())
        c, r = np.array(coarse), np.array(refined)
        out[profile] = {"frames": len(r), "coarse_median_px": round(float(np.median(c)), 2),
                        "median_px": round(float(np.median(r)), 2), "p95_px": round(float(np.percentile(r, 95)), 2),
                        "within_8px": round(float((r < 8).mean()), 3), "ms_per_locate": round(float(np.median(ms)), 1)}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
