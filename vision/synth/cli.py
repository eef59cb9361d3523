"""`bgscribe simulate`: render a match as footage with truth, or labelled still frames."""

from __future__ import annotations

import sys
import time
from pathlib import Path


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise SystemExit(f"bgscribe simulate: --size must look like 1280x720, not {text!r}") from None
    if w < 64 or h < 64 or w % 2 or h % 2:
        raise SystemExit(f"bgscribe simulate: --size needs even numbers of at least 64, not {text!r}")
    return w, h


def run(args) -> int:
    from transcriber.errors import MatchFormatError

    from .profiles import PROFILES
    from .style import RANDOM, SCHEMES

    if args.profile not in PROFILES:
        raise SystemExit(f"bgscribe simulate: --profile must be one of {', '.join(PROFILES)}")
    if args.scheme and args.scheme not in (*SCHEMES, RANDOM):
        raise SystemExit(f"bgscribe simulate: --scheme must be one of {', '.join((*SCHEMES, RANDOM))}")
    size = parse_size(args.size)
    if args.frames:
        from .stills import write_stills

        t = time.perf_counter()
        write_stills(args.out, args.frames, profile=args.profile, seed=args.seed, size=size)
        el = time.perf_counter() - t
        print(f"wrote {args.frames} labelled frames to {args.out} ({args.frames / el:.1f} frames/s)")
        return 0
    record = _load_match(args, MatchFormatError)
    if record is None:
        return 1
    from .video import render_match

    out = Path(args.out)
    if out.suffix.lower() not in (".mp4", ".mkv", ".mov"):
        raise SystemExit("bgscribe simulate: --out must name a video file (.mp4, .mkv or .mov)")
    t = time.perf_counter()
    try:
        stats = render_match(record, out, args.truth, profile=args.profile, seed=args.seed, fps=args.fps,
                             size=size, games=args.games, rules=args.rules,
                             schemes=[args.scheme] if args.scheme else None)
    except ValueError as e:  # e.g. a record whose plays the rules engine rejects
        print(f"bgscribe simulate: {e}", file=sys.stderr)
        return 1
    el = time.perf_counter() - t
    print(f"wrote {out}: {stats.frames} frames, {stats.seconds / 60:.1f} min of footage in {el:.0f} s "
          f"({stats.seconds / el:.1f}x real time)" + (f"; truth in {args.truth}" if args.truth else ""))
    return 0


def _load_match(args, MatchFormatError):
    from transcriber.generate import random_match
    from transcriber.mat import read_mat
    from transcriber.replay import replay_match

    if args.match is None:
        print("bgscribe simulate: give a MATCH file, --random-match SEED, or --frames N", file=sys.stderr)
        return None
    if args.match.startswith("random:"):
        try:
            return random_match(int(args.match.split(":", 1)[1]))
        except ValueError:
            print("bgscribe simulate: write a generated match as random:SEED (e.g. random:7)", file=sys.stderr)
            return None
    try:
        record = read_mat(args.match)
    except MatchFormatError as e:
        print(f"bgscribe simulate: {e}", file=sys.stderr)
        return None
    problems = replay_match(record).problems
    if problems:
        p = problems[0]
        print(f"bgscribe simulate: {args.match} does not replay cleanly (game {p.game}: {p.message}); "
              f"fix it first (bgscribe validate)", file=sys.stderr)
        return None
    return record


def add_arguments(p) -> None:
    p.add_argument("match", nargs="?", metavar="MATCH",
                   help="a match file (any format 'bgscribe convert' reads), or random:SEED for a generated match")
    p.add_argument("--out", required=True, metavar="PATH",
                   help="the video to write (.mp4), or with --frames the folder for the stills")
    p.add_argument("--truth", metavar="TRUTH.jsonl", help="write the per-frame and per-event truth (JSON Lines)")
    p.add_argument("--profile", default="standard", help="clean, standard or hard (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="board, camera, timing and dice placement (default: 0)")
    p.add_argument("--games", type=int, metavar="K", help="render only the first K games")
    p.add_argument("--fps", type=float, default=15.0, help="frames per second (default: %(default)s)")
    p.add_argument("--size", default="1280x720", metavar="WxH", help="frame size (default: %(default)s)")
    p.add_argument("--scheme", metavar="NAME",
                   help="the board's look: a named scheme (tournament_green, tan_cream, navy, burgundy, "
                        "grey_modern) or random (default: a named scheme chosen by the seed)")
    p.add_argument("--rules", default="bmab", choices=["bmab", "amberg"],
                   help="event rules: bmab (dice on a checker count) or amberg (rerolled)")
    p.add_argument("--frames", type=int, metavar="N",
                   help="instead of a match: write N labelled still frames (images, YOLO boxes, slot counts)")
