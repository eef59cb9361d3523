"""Simulator speed (JSON figures, not pass/fail).

    python tests/bench/bench_render.py [--games 1] [--seconds S] [--profile standard] [--stills 200]

Renders the first games of a real match as 720p/15 fps footage with truth and
reports it as a multiple of real time (the issue's floor: 5x, i.e. a 45-minute
match in under 9 minutes), beside a baseline measured in the same run: encoding
the same number of frames without drawing anything (x264 on noisy frames).
Also reports labelled still frames per second (floor: 20).
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

from transcriber.mat import read_mat  # noqa: E402
from vision.synth.rig import Rig  # noqa: E402
from vision.synth.stills import write_stills  # noqa: E402
from vision.synth.video import render_match  # noqa: E402


def encode_only(n: int, size: tuple[int, int], profile: str, tmp: Path) -> float:
    """Frames per second of encoding alone: one lit frame, re-exposed with sensor noise each time."""
    rig = Rig.build(profile, 99, size)
    from vision.synth.scene import Scene

    lit, _ = rig.camera_image(Scene(counts=np.zeros((27, 2), np.int16)))
    t = time.perf_counter()
    with av.open(str(tmp / "enc.mp4"), "w") as c:
        s = c.add_stream("libx264", rate=15)
        s.width, s.height = size
        s.pix_fmt = "yuv420p"
        s.options = {"preset": "ultrafast", "crf": str(rig.profile.crf), "g": "30"}
        for i in range(n):
            frame = rig.sensor.expose(lit, i / 15, i)
            vf = av.VideoFrame.from_ndarray(cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420), format="yuv420p")
            for p in s.encode(vf):
                c.mux(p)
        for p in s.encode():
            c.mux(p)
    return n / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1, help="games of the first real match to render (default 1)")
    ap.add_argument("--seconds", type=float, help="only the first seconds of that footage (default: all of it)")
    ap.add_argument("--profile", default="standard")
    ap.add_argument("--stills", type=int, default=200, help="still frames to write (default 200)")
    args = ap.parse_args()
    size = (1280, 720)
    record = read_mat(ROOT / "bgscribe" / "samples" / "passy_adrien_raphaelgin.txt")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        t = time.perf_counter()
        stats = render_match(record, tmp / "m.mp4", tmp / "m.jsonl", profile=args.profile, seed=1, fps=15,
                             size=size, games=args.games, progress=False, until_s=args.seconds)
        wall = time.perf_counter() - t
        enc_fps = encode_only(min(stats.frames, 1500), size, args.profile, tmp)
        t = time.perf_counter()
        write_stills(tmp / "stills", args.stills, profile=args.profile, seed=1, size=size, progress=False)
        stills_rate = args.stills / (time.perf_counter() - t)
    render_fps = stats.frames / wall
    x_real = stats.seconds / wall
    print(json.dumps({
        "benchmark": "render",
        "profile": args.profile,
        "size": list(size),
        "fps": 15,
        "footage_s": round(stats.seconds, 1),
        "frames": stats.frames,
        "frames_drawn": stats.rendered,
        "wall_s": round(wall, 1),
        "x_real_time": round(x_real, 2),
        "minutes_for_45_min_match": round(45 / x_real, 1),
        "render_fps": round(render_fps, 1),
        "encode_only_fps": round(enc_fps, 1),
        "render_vs_encode_only": round(render_fps / enc_fps, 2),
        "stills_per_s": round(stills_rate, 1),
        "floor_x_real_time": 5,
        "floor_stills_per_s": 20,
    }, indent=2))


if __name__ == "__main__":
    main()
