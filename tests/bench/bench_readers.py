"""Board readers on held-out rendered boards (JSON figures, not pass/fail).

    python tests/bench/bench_readers.py [--frames 200] [--noise 2.0] [--profiles standard hard] [--die-mm 16]
                                        [--models DIR] [--shaped] [--cube-ends] [--bar-free]

Boards: the colour scheme(s) never trained on (`HELD_OUT_SCHEMES`) and rig seeds from
`EVAL_SEED0`, rendered per profile, compressed (JPEG 60 standard / 40 hard), rectified with the
true corners plus N(0, --noise) px of noise on each corner coordinate. The figures are those of
`vision.train.readers_eval` (see its docstring); ``--train-schemes`` adds the same on the
training schemes (new rig seeds) for comparison. ``--die-mm`` renders smaller dice than the default
16 mm (real ones are often 12-16 mm): the same boards, the dice alone smaller, for the heat-map and the
dice classifier at those sizes. ``--shaped`` adds ``held_out_shaped``: held-out boards each of a shape of its own
(bar, points' length, the field's height against its width, six or seven checkers lined up on a point), rectified
as the observer rectifies a real board: the field's corners mapped onto the default board with the bar's and the
points' shares measured, so that a tall field's checkers show squashed, as a real board's do. ``--cube-ends``
adds ``held_out_cube_ends``: held-out boards whose cube lies in a tray or on the frame at either end (the readers
look for it there in the strips beyond the field's ends, `vision.rectify.rectify_ends`, as on every board).
``--bar-free`` adds ``held_out_bar_free``: held-out boards whose checkers on the bar lie as real players leave them
(either colour anywhere, across the middle, one now and then on another: `readers_data.bar_layout`).

Speed, beside a baseline measured in the same run: ``rectify_ms`` is `vision.rectify.rectify` of a
720p frame (the step before the readers), ``decode_ms`` decoding one 720p H.264 frame.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import av
import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from vision.geometry import BoardGeometry  # noqa: E402
from vision.readers import MODELS, Readers  # noqa: E402
from vision.rectify import homography, rectify  # noqa: E402
from vision.synth.rig import Rig  # noqa: E402
from vision.train.readers_data import TRAIN_SCHEMES  # noqa: E402
from vision.train.readers_eval import evaluate  # noqa: E402


def baselines(n: int = 60) -> dict:
    rig = Rig.build("standard", 10_999, (1280, 720))
    from vision.synth.scene import Scene

    lit, _ = rig.camera_image(Scene(counts=np.zeros((27, 2), np.int16)))
    frames = [rig.sensor.expose(lit, i / 15, i) for i in range(n)]
    g = BoardGeometry()
    H = homography(rig.corners(), g)
    t = time.perf_counter()
    for f in frames:
        rectify(f, H, g)
    rect_ms = (time.perf_counter() - t) / n * 1000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "b.mp4"
        with av.open(str(path), "w") as c:
            s = c.add_stream("libx264", rate=15)
            s.width, s.height, s.pix_fmt = 1280, 720, "yuv420p"
            s.options = {"preset": "ultrafast", "crf": "23"}
            for f in frames:
                vf = av.VideoFrame.from_ndarray(cv2.cvtColor(f, cv2.COLOR_BGR2YUV_I420), format="yuv420p")
                for p in s.encode(vf):
                    c.mux(p)
            for p in s.encode():
                c.mux(p)
        t = time.perf_counter()
        k = 0
        with av.open(str(path)) as c:
            for fr in c.decode(c.streams.video[0]):
                fr.to_ndarray(format="bgr24")
                k += 1
        dec_ms = (time.perf_counter() - t) / max(k, 1) * 1000
    return {"rectify_ms": round(rect_ms, 2), "decode_ms": round(dec_ms, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=200, help="boards per profile (default 200)")
    ap.add_argument("--noise", type=float, default=2.0, help="corner noise, px (default 2)")
    ap.add_argument("--profiles", nargs="+", default=["standard", "hard"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--train-schemes", action="store_true", help="also report the training schemes (new seeds)")
    ap.add_argument("--die-mm", type=float, default=16.0, help="the dice's side, mm (default: %(default)s)")
    ap.add_argument("--models", type=Path, default=MODELS, help="reader weights (default: the shipped models/)")
    ap.add_argument("--shaped", action="store_true", help="also report held-out boards of shapes of their own")
    ap.add_argument("--cube-ends", action="store_true", help="also report held-out boards whose cube lies in a tray "
                    "or on the frame")
    ap.add_argument("--bar-free", action="store_true", help="also report held-out boards whose checkers on the bar "
                    "lie anywhere on it, either colour")
    args = ap.parse_args()
    readers = Readers(args.models)
    out: dict = {"frames_per_profile": args.frames, "corner_noise_px": args.noise, "die_mm": args.die_mm,
                 "held_out": {}}
    for prof in args.profiles:
        out["held_out"][prof] = evaluate(readers, prof, args.frames, noise=args.noise, seed=args.seed,
                                         die_size=args.die_mm)
        if args.shaped:
            out.setdefault("held_out_shaped", {})[prof] = evaluate(readers, prof, args.frames, noise=args.noise,
                                                                   seed=args.seed, die_size=args.die_mm, shaped=1.0)
        if args.cube_ends:
            out.setdefault("held_out_cube_ends", {})[prof] = evaluate(readers, prof, args.frames, noise=args.noise,
                                                                      seed=args.seed, die_size=args.die_mm,
                                                                      cube_ends=1.0)
        if args.bar_free:
            out.setdefault("held_out_bar_free", {})[prof] = evaluate(readers, prof, args.frames, noise=args.noise,
                                                                     seed=args.seed, die_size=args.die_mm,
                                                                     bar_free=1.0)
        if args.train_schemes:
            out.setdefault("train_schemes_new_seeds", {})[prof] = evaluate(
                readers, prof, args.frames, noise=args.noise, seed=args.seed + 50, schemes=TRAIN_SCHEMES)
    out["baseline"] = baselines()
    ms = np.mean([v["ms_per_board"] for v in out["held_out"].values()])
    out["readers_vs_rectify"] = round(float(ms) / out["baseline"]["rectify_ms"], 2)
    out["readers_vs_decode"] = round(float(ms) / out["baseline"]["decode_ms"], 2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
