"""End to end: simulate -> observe -> transcribe, against the simulator's truth (JSON figures).

    python tests/bench/bench_transcribe.py [--games 1] [--profile standard] [--seed 20001]
        [--match 0|1|2|random:SEED] [--scheme grey_modern] [--keep DIR]

Renders the first games of a real match at 720p/15 fps (a keyframe a second, as the capture
agent records) on a board (the held-out colour scheme), camera and seed the models were not
trained on, observes the video (reporting frames per second and the ratio to pure decoding of the
same video measured in the same run), scores the observations against the truth (`eval vision`),
decodes them into a match and scores that (`eval transcript`: plays right, silent errors, flags
per game).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import av

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from transcriber.decode import decode  # noqa: E402
from transcriber.evaluate import evaluate_transcript  # noqa: E402
from transcriber.generate import GenOptions, random_match  # noqa: E402
from transcriber.mat import read_mat  # noqa: E402
from transcriber.observation import FrameObservation  # noqa: E402
from vision.cli import align_players  # noqa: E402
from vision.eval import eval_vision  # noqa: E402
from vision.observe import observe_video  # noqa: E402
from vision.synth.truth import match_from_truth, read_truth  # noqa: E402
from vision.synth.video import render_match  # noqa: E402
from vision.train.readers_data import HELD_OUT_SCHEMES  # noqa: E402


def decode_only(path: Path) -> tuple[int, float]:
    t0 = time.perf_counter()
    n = 0
    with av.open(str(path)) as c:
        s = c.streams.video[0]
        s.thread_type = "AUTO"
        for _ in c.decode(s):  # decoding alone: no colour conversion
            n += 1
    return n, time.perf_counter() - t0


def decode_and_score(truth_path: Path, obs_path: Path) -> tuple[dict, float]:
    """Decode the observations into a match and score it against the truth (`eval transcript`): the
    figures (the first silent errors listed, flags counted by reason) and the decoding time."""
    observations = [FrameObservation.from_json(line) for line in obs_path.read_text().splitlines()]
    header = next(read_truth(truth_path))
    truth = match_from_truth(truth_path)
    light_first = header["rig"]["seating"]["p0_light"]
    t0 = time.perf_counter()
    res = decode(observations, players=truth.players if light_first else truth.players[::-1], length=truth.length)
    seconds = time.perf_counter() - t0
    rec = res.record
    align_players(truth, rec)
    transcript = evaluate_transcript(truth, rec, res.flags)
    transcript["silent_error_list"] = transcript["silent_error_list"][:5]
    reasons: dict[str, int] = {}
    for f in res.flags:
        reasons[f["reason"]] = reasons.get(f["reason"], 0) + 1
    transcript["flag_reasons"] = reasons
    return transcript, seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--profile", default="standard")
    ap.add_argument("--seed", type=int, default=20001, help="a seed no model was trained on")
    ap.add_argument("--match", default="0", help="a real match (0-2), or a generated 7-point one: random:SEED")
    ap.add_argument("--scheme", default=HELD_OUT_SCHEMES[0], help="the board's colours (default: one no model "
                    "was trained on)")
    ap.add_argument("--keep", metavar="DIR", help="keep the footage, truth and observations in DIR")
    ap.add_argument("--cube-ends", action="store_true", help="the players keep the cube in the tray end's middle, "
                    "not on the bar, as at tournaments")
    args = ap.parse_args()
    if args.match.startswith("random:"):
        record = random_match(int(args.match.split(":", 1)[1]), opts=GenOptions(length=7))
    else:
        record = read_mat(sorted((ROOT / "bgscribe" / "samples").glob("*.txt"))[int(args.match)])
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(args.keep or tmp)
        d.mkdir(parents=True, exist_ok=True)
        video, truth_path, obs_path = d / "m.mp4", d / "truth.jsonl", d / "obs.jsonl"
        stats = render_match(record, video, truth_path, profile=args.profile, seed=args.seed,
                             games=args.games, progress=False, schemes=[args.scheme], cube_ends=args.cube_ends)
        frames, dec_s = decode_only(video)
        t0 = time.perf_counter()
        ob = observe_video(video, obs_path, progress=False)
        obs_s = time.perf_counter() - t0
        vision = eval_vision(truth_path, obs_path)
        transcript, dec_match_s = decode_and_score(truth_path, obs_path)
    print(json.dumps({
        "benchmark": "transcribe",
        "match": args.match,
        "scheme": args.scheme,
        "profile": args.profile,
        "seed": args.seed,
        "games_asked": args.games,
        "cube_ends": args.cube_ends,
        "kept": str(Path(args.keep).resolve()) if args.keep else None,
        "footage_s": round(stats.seconds, 1),
        "frames": frames,
        "pure_decode_fps": round(frames / dec_s, 1),
        "observe_fps": round(frames / obs_s, 1),
        "observe_vs_decode": round(dec_s / obs_s, 3),
        "analysed_frames": ob["analysed"],  # the rest lay in still stretches between identical keyframes
        "full_reads": ob["reads"],
        "decode_match_s": round(dec_match_s, 2),
        "x_real_time_observe_plus_decode": round(stats.seconds / (obs_s + dec_match_s), 2),
        "vision": vision,
        "transcript": transcript,
    }, indent=2))


if __name__ == "__main__":
    main()
