"""Benchmark: capture agent CPU and frame loss recording a live 720p/15 fps stream on 127.0.0.1.

Prints JSON. For each live source (HTTP MJPEG, UDP MPEG-TS/H.264) an ffmpeg test camera streams
1280x720 at 15 fps; the agent records it for --seconds into segments; its CPU time (user+system,
all threads, from /proc) is divided by wall time: the share of one core. Baseline in the same run:
ffmpeg itself only decoding the same stream (`-f null`), so the ratio says what recording costs
on top of reading the camera. Frames lost per hour: the test camera draws its frame number into every
frame; numbers missing between the first and last recorded frame are lost frames.

    .venv/bin/python tests/bench/bench_capture.py --seconds 600     # the 10-minute run
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from capture.manifest import parse_iso  # noqa: E402
from tests.capture.helpers import (  # noqa: E402
    FFMPEG,
    agent,
    frame_numbers,
    free_port,
    free_udp_port,
    manifests,
    mjpeg_server,
    udp_ts_stream,
    wait_for,
)

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def camera(kind: str, tmp: Path, n: int):
    if kind == "http":
        port = free_port()
        return mjpeg_server(port, tmp / f"cam-{n}.log"), f"http://127.0.0.1:{port}/cam.mjpg"
    port = free_udp_port()
    return udp_ts_stream(port, tmp / f"cam-{n}.log"), f"udp://127.0.0.1:{port}"


def measure(proc_pid: int, seconds: float, warmup: float) -> tuple[float, float]:
    time.sleep(warmup)
    c0, t0 = cpu_seconds(proc_pid), time.monotonic()
    time.sleep(seconds)
    return cpu_seconds(proc_pid) - c0, time.monotonic() - t0


def baseline(kind: str, tmp: Path, seconds: float, warmup: float) -> float:
    cam, url = camera(kind, tmp, 0)
    try:
        time.sleep(1.0)
        dec = subprocess.Popen([FFMPEG, "-hide_banner", "-loglevel", "error", "-i", url, "-f", "null", "-"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            cpu, wall = measure(dec.pid, seconds, warmup)
        finally:
            dec.terminate()
            dec.wait()
    finally:
        cam.stop()
    return cpu / wall


def run_agent(kind: str, tmp: Path, seconds: float, warmup: float, fps: int) -> dict:
    cam, url = camera(kind, tmp, 1)
    store = tmp / f"store-{kind}"
    a = agent(1, url, tmp, "--store", str(store), "--segment-seconds", "60", "--fps", str(fps), name=f"agent-{kind}")
    try:
        wait_for(lambda: "receiving frames" in a.text(), 60, "frames")
        cpu, wall = measure(a.p.pid, seconds, warmup)
    finally:
        rc = a.stop()
        cam.stop()
    ms = manifests(store)
    frames = sum(m["frames"] for m in ms)
    recorded = parse_iso(ms[-1]["end"]) - parse_iso(ms[0]["start"]) if ms else 0.0
    num = numbering(store, ms)
    return {
        "source": kind, "exit_status": rc, "segments": len(ms), "frames": frames,
        "recorded_seconds": round(recorded, 2),
        "camera_frames_during_recording": num["camera_frames"], "frames_lost": num["frames_lost"],
        "frames_lost_per_hour": round(num["frames_lost"] * 3600 / recorded, 1) if recorded else None,
        "duplicate_frames": num["duplicates"], "holes": num["holes"],
        "dropped_frames_reported": sum(m["dropped_frames"] for m in ms),
        "gaps": sum(len(m["gaps"]) for m in ms),
        "agent_cpu_share_of_one_core": round(cpu / wall, 4),
        "measured_seconds": round(wall, 1),
    }


def numbering(store: Path, ms: list[dict]) -> dict:
    """Frames lost, found from the frame numbers the test camera draws into each frame."""
    nums = [n for m in ms for n in frame_numbers(next(store.rglob(m["segment_id"] + ".mp4")))]
    if not nums:
        return {"camera_frames": 0, "frames_lost": 0, "duplicates": 0, "holes": []}
    seen = set(nums)
    span = max(nums) - min(nums) + 1
    holes = [{"after_frame": a, "frames": b - a - 1} for a, b in zip(nums, nums[1:], strict=False) if b - a > 1]
    return {"camera_frames": span, "frames_lost": span - len(seen), "duplicates": len(nums) - len(seen),
            "holes": holes[:10]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60, help="measured recording time per source (default 60)")
    ap.add_argument("--warmup", type=float, default=5, help="seconds before measuring (default 5)")
    ap.add_argument("--sources", default="http,udp", help="comma-separated: http (MJPEG), udp (MPEG-TS)")
    args = ap.parse_args()
    if FFMPEG is None:
        print(json.dumps({"benchmark": "capture", "skipped": "ffmpeg is not installed"}))
        return 0
    out = {"benchmark": "capture", "stream": "1280x720 @ 15 fps, ffmpeg testsrc2 on 127.0.0.1",
           "encoder": "libx264 ultrafast crf 23, keyframe every 1 s, fragmented MP4", "cpus": os.cpu_count(),
           "machine": platform.machine(), "python": platform.python_version(), "results": []}
    with tempfile.TemporaryDirectory(prefix="bench-capture-") as d:
        tmp = Path(d)
        for kind in args.sources.split(","):
            print(f"[bench_capture] {kind}: baseline decode {args.seconds:.0f} s ...", file=sys.stderr)
            base = baseline(kind, tmp, min(args.seconds, 30), args.warmup)
            print(f"[bench_capture] {kind}: agent recording {args.seconds:.0f} s ...", file=sys.stderr)
            r = run_agent(kind, tmp, args.seconds, args.warmup, 15)
            r["baseline_ffmpeg_decode_cpu_share"] = round(base, 4)
            r["agent_over_decode_ratio"] = round(r["agent_cpu_share_of_one_core"] / base, 2) if base else None
            out["results"].append(r)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
