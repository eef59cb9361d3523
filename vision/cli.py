"""`bgscribe observe`, `bgscribe read` and `bgscribe eval vision`."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def add_observe_arguments(p) -> None:
    p.add_argument("video", metavar="VIDEO", help="a video file or stream address (anything FFmpeg opens)")
    p.add_argument("--out", required=True, metavar="OBS.jsonl", help="where to write the observations")
    p.add_argument("--every", type=int, default=1, metavar="N", help="analyse every N-th frame (default: 1)")
    p.add_argument("--read-every", type=float, default=1.0, metavar="S",
                   help="re-read the board every S seconds of a long quiet spell (default: 1.0)")
    p.add_argument("--board-state", type=Path, metavar="STATE.json",
                   help="what earlier footage of this board taught (its checker colours, which end its trays "
                        "are at): read first if the file exists, updated after. Give one file per board when "
                        "its footage comes in pieces, as the server does")
    p.add_argument("--field", metavar='"x,y x,y x,y x,y"',
                   help="the playing field's corners in the picture, any order round the field (as 'bgscribe "
                        "read' prints them): a calibration confirmed by a person, kept for the whole video, "
                        "instead of finding the board")
    p.add_argument("--adapter", metavar="ADAPTER.json",
                   help="what `bgscribe adapt` learnt of this board: its points read with its own head")
    p.add_argument("--threads", type=int, default=2, metavar="N",
                   help="threads for reading the board (default: 2; the server's pipeline runs each job on one)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def run_observe(args) -> int:
    import cv2

    from .observe import ObserveOptions, observe_video

    if args.every < 1:
        raise SystemExit("bgscribe observe: --every must be at least 1")
    if args.threads < 1:
        raise SystemExit("bgscribe observe: --threads must be at least 1")
    cv2.setNumThreads(args.threads)
    try:
        field = profile = None
        if args.field:
            field, profile = _field_of_video(args.video, args.field)
        adapter = load_adapter(args.adapter) if args.adapter else None
        opts = ObserveOptions(read_every_s=args.read_every, every=args.every, field=field, profile=profile,
                              adapter=adapter, threads=args.threads)
        stats = observe_video(args.video, args.out, opts,
                              progress=not args.quiet, board_state=args.board_state)
    except (ValueError, FileNotFoundError) as e:
        print(f"bgscribe observe: {e}", file=sys.stderr)
        return 1
    print(f"wrote {args.out}: {stats['frames']} frames ({stats['analysed']} analysed, the rest still), "
          f"{stats['reads']} full board reads, {stats['fps']:.0f} frames/s")
    return 0


def add_read_arguments(p) -> None:
    p.add_argument("image", metavar="IMAGE", help="a picture of a board (JPEG, PNG, ...)")
    p.add_argument("--field", metavar='"x,y x,y x,y x,y"',
                   help="the playing field's four corners in picture pixels (any order round the field), "
                        "when the board is not found by itself or to check a known calibration")
    p.add_argument("--board", metavar="STATE.json",
                   help="what is known of this board: the state `bgscribe observe --board-state` keeps (its "
                        "field as confirmed and followed, its profile: the bar's and points' shares, and how big "
                        "its dice look)")
    p.add_argument("--adapter", metavar="ADAPTER.json", help="what `bgscribe adapt` learnt of this board")
    p.add_argument("--json", action="store_true", help="print the reading as JSON (the default prints a summary)")


def run_read(args) -> int:
    """Exit status: 0 a board read, 1 no board found, 2 the picture or --field is unusable."""
    from .still import PictureError, load_picture, parse_field, read_picture, to_json

    try:
        img = load_picture(args.image)
        field = parse_field(args.field) if args.field else None
        profile = dice_size = None
        if args.board:
            field_known, profile, dice_size = board_of_state(args.board)
            field = field if field is not None else field_known
        adapter = load_adapter(args.adapter) if args.adapter else None
    except (PictureError, ValueError, OSError) as e:
        print(f"bgscribe read: {e}", file=sys.stderr)
        return 2
    out = to_json(read_picture(img, field, profile=profile, adapter=adapter, dice_size=dice_size))
    if args.json:
        print(json.dumps(out))
    elif not out["board_found"]:
        print(f"{args.image}: no board found (quality {out['quality']:.2f}); give its corners with --field")
    else:
        print(f"{args.image}: board found, quality {out['quality']:.2f}, field corners "
              + " ".join(f"{x:.0f},{y:.0f}" for x, y in out["field"]))
        print("  top:    " + " ".join(p or "." for p in out["top"]))
        print("  bottom: " + " ".join(p or "." for p in out["bottom"]))
        print(f"  bar: {out['bar']}  trays: {out['trays']}  dice: {[d['value'] for d in out['dice']]}  "
              f"cube: {out['cube']}")
    return 0 if out["board_found"] else 1


def add_adapt_arguments(p) -> None:
    p.add_argument("image", metavar="IMAGE", nargs="?",
                   help="a picture of the board (JPEG, PNG, ...: a frame saved from its video will do)")
    p.add_argument("--out", required=True, metavar="ADAPTER.json",
                   help="where to write what was learnt (give it to `observe --adapter` and `read --adapter`)")
    p.add_argument("--field", metavar='"x,y x,y x,y x,y"', help="the playing field's corners in the picture")
    p.add_argument("--board", metavar="STATE.json",
                   help="the board's state (`observe --board-state`): its field and profile, where --field is "
                        "not given")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--frames", metavar="FRAMES.json",
                      help="instead of IMAGE: many labelled frames of the board's footage, {\"frames\": [{\"video\", "
                           "\"offset\" (s), \"field\", \"top\", \"bottom\"}]} (what the server's pipeline gathers "
                           "from an approved transcript); every fourth is held out, and ADAPTER.json is written "
                           "only if what was learnt reads those at least as well as --adapter (or the shipped "
                           "reader) does; the figures are printed as JSON")
    p.add_argument("--adapter", metavar="ADAPTER.json",
                   help="with --frames: what the board had learnt so far, to beat")
    what.add_argument("--opening", action="store_true",
                      help="the picture shows the opening position (which way round is judged from the picture)")
    what.add_argument("--rows", nargs=2, metavar=("TOP", "BOTTOM"),
                      help="the points as `bgscribe read` prints them, each row left to right, comma-separated, "
                           "e.g. 'L2,,,,,D5,,D3,,,,L5'")


def run_adapt(args) -> int:
    """Exit status: 0 adapted (or, with --frames, judged), 2 the picture, field, rows or state are unusable."""
    from transcriber.fileio import write_text_atomic

    if args.frames:
        return _adapt_frames(args)
    if not args.image or not (args.opening or args.rows):
        print("bgscribe adapt: give IMAGE with --opening or --rows (or --frames FRAMES.json)", file=sys.stderr)
        return 2

    from .adapt import adapt_to_picture, looks_like_opening, opening_rows
    from .still import PictureError, load_picture, parse_field, read_picture, to_json

    try:
        img = load_picture(args.image)
        field, profile, _ = board_of_state(args.board) if args.board else (None, None, None)
        if args.field:
            field = parse_field(args.field)
        if field is None:
            raise ValueError("no field: give --field, or --board with a board state that holds its corners")
        reading = read_picture(img, field, profile=profile)  # as the shipped reader sees it
        before = to_json(reading)
        rows = opening_rows(before["top"], before["bottom"]) if args.opening else \
            [[p.strip() for p in r.split(",")] for r in args.rows]
        if args.opening and not looks_like_opening(before["top"], before["bottom"], rows):
            raise ValueError(f"{args.image} does not look like the opening position (read: "
                             f"{' '.join(p or '.' for p in before['top'])} / "
                             f"{' '.join(p or '.' for p in before['bottom'])}); give the points with --rows")
        adapter = adapt_to_picture(img, reading.corners, reading.fit.geometry(), rows[0], rows[1])
    except (PictureError, ValueError, OSError) as e:
        print(f"bgscribe adapt: {e}", file=sys.stderr)
        return 2
    right = sum(a == b for a, b in zip(before["top"] + before["bottom"], rows[0] + rows[1]))
    write_text_atomic(args.out, json.dumps(adapter.to_json()))
    print(f"board learnt from {args.image}: the shipped reader had {right} of 24 points right on it; "
          f"wrote {args.out} (give it to observe --adapter and read --adapter)")
    return 0


HOLD_OUT = 4  # with --frames, every this many-th frame is held out to judge what was learnt


def _adapt_frames(args) -> int:
    from transcriber.fileio import write_text_atomic

    from .adapt import adapt_to_pictures
    from .frames import NoFrame, frame_at
    from .still import PictureError, parse_field, read_picture, to_json

    try:
        items = json.loads(Path(args.frames).read_text(encoding="utf-8"))["frames"]
        if not isinstance(items, list) or len(items) < 2:
            raise ValueError("needs at least two labelled frames")
        current = load_adapter(args.adapter) if args.adapter else None
        samples = []
        for k, it in enumerate(items):
            rows = (list(it["top"]), list(it["bottom"]))
            if any(len(r) != 12 for r in rows):
                raise ValueError(f"frame {k}: 'top' and 'bottom' need 12 points each")
            img = frame_at(it["video"], float(it["offset"])).to_ndarray(format="bgr24")
            reading = read_picture(img, parse_field(it["field"]))  # the field's orientation and profile
            samples.append((img, reading.corners, reading.fit.geometry(), *rows))
    except (PictureError, ValueError, KeyError, TypeError, OSError, NoFrame) as e:
        print(f"bgscribe adapt: {args.frames}: {e}", file=sys.stderr)
        return 2
    held = samples[::HOLD_OUT]
    learnt = adapt_to_pictures([x for k, x in enumerate(samples) if k % HOLD_OUT])

    def right(adapter) -> int:
        out = 0
        for img, corners, _, top, bottom in held:
            seen = to_json(read_picture(img, corners, adapter=adapter))
            out += sum(a == b for a, b in zip(seen["top"] + seen["bottom"], top + bottom))
        return out

    before, after = right(current), right(learnt)
    kept = after >= before  # never leave a board read worse than before
    if kept:
        write_text_atomic(args.out, json.dumps(learnt.to_json()))
    print(json.dumps({"frames": len(samples), "held_out": len(held), "points": 24 * len(held),
                      "right_before": before, "right_after": after, "kept": kept}))
    return 0


def load_adapter(path: str):
    """`bgscribe adapt`'s file -> the board's PointAdapter; ValueError with what is wrong."""
    from .adapt import PointAdapter

    try:
        return PointAdapter.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{path}: not what bgscribe adapt writes ({e})") from None


def board_of_state(path: str) -> tuple:
    """A board state file (`observe --board-state`) -> (its field's corners as now, its profile, each None where
    it holds none; how big its dice look, `vision.dicesize`). ValueError with what is wrong."""
    from .dicesize import DiceSize
    from .observe import field_of_state

    try:
        state = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not a board state (JSON: {e})") from None
    if not isinstance(state, dict):
        raise ValueError(f"{path}: not a board state (a JSON object)")
    try:
        _, now, profile = field_of_state(state)
        dice_size = DiceSize.from_json(state.get("dice_size"))
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    return now, profile, dice_size


def _field_of_video(video: str, text: str) -> tuple[tuple, tuple]:
    """--field's corners placed on the video's first picture (`observe.field_on_picture`)."""
    from .decoding import video_frames
    from .observe import field_on_picture
    from .still import parse_field

    corners = parse_field(text)
    for _, _, frame in video_frames(video, 1, False):
        if frame is not None:
            return field_on_picture(frame.bgr, corners)
    raise ValueError(f"{video}: no picture to place --field on")


def add_eval_arguments(p) -> None:
    sub = p.add_subparsers(dest="what", metavar="WHAT")
    v = sub.add_parser("vision", help="observations against simulator truth",
                       description="Compare observations (bgscribe observe) with the simulator's truth "
                                   "(bgscribe simulate --truth): per-slot counts, whole positions, dice, cube, "
                                   "calibration, and how often confident reads are wrong.")
    v.add_argument("--truth", required=True, metavar="TRUTH.jsonl")
    v.add_argument("--obs", required=True, metavar="OBS.jsonl")
    v.add_argument("--json", action="store_true", help="print the figures as JSON")
    v.add_argument("--corner-tol", type=float, default=8.0, metavar="PX",
                   help="a calibration counts as found within this many pixels (default: 8)")
    v.set_defaults(eval_func=_eval_vision)
    add_transcript_eval(sub)


def run_eval(args) -> int:
    func = getattr(args, "eval_func", None)
    if func is None:
        print("bgscribe eval: say what to evaluate: vision or transcript", file=sys.stderr)
        return 2
    return func(args)


def _eval_vision(args) -> int:
    from .eval import eval_vision

    for path in (args.truth, args.obs):
        if not Path(path).exists():
            print(f"bgscribe eval: {path} does not exist", file=sys.stderr)
            return 1
    try:
        figures = eval_vision(args.truth, args.obs, args.corner_tol)
    except (ValueError, KeyError) as e:
        print(f"bgscribe eval: cannot compare: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for k, v in figures.items():
            print(f"{k:28s} {v}")
    return 0


def add_transcript_eval(sub) -> None:
    t = sub.add_parser("transcript", help="a transcript against simulator truth",
                       description="Compare a transcript (.mat and its report) with the match the simulator "
                                   "played: plays and cube actions right, results right, flags per game, and "
                                   "silent errors (wrong and unflagged).")
    t.add_argument("--truth", required=True, metavar="TRUTH.jsonl")
    t.add_argument("--mat", required=True, metavar="MATCH.mat")
    t.add_argument("--report", required=True, metavar="REPORT.json")
    t.add_argument("--json", action="store_true", help="print the figures as JSON")
    t.set_defaults(eval_func=_eval_transcript)


def _eval_transcript(args) -> int:
    from transcriber.errors import MatchFormatError
    from transcriber.evaluate import evaluate_transcript
    from transcriber.mat import read_mat

    from .synth.truth import match_from_truth

    try:
        truth = match_from_truth(args.truth)
        transcript = read_mat(args.mat)
        report = json.loads(Path(args.report).read_text(encoding="utf-8"))
    except (OSError, ValueError, MatchFormatError) as e:
        print(f"bgscribe eval: {e}", file=sys.stderr)
        return 1
    align_players(truth, transcript)
    figures = evaluate_transcript(truth, transcript, report.get("flags", []))
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for k, v in figures.items():
            if k != "silent_error_list":
                print(f"{k:24s} {v}")
    return 0


def align_players(truth, transcript) -> None:
    """Number the transcript's players as the truth does (by name, when the names were given)."""
    if tuple(transcript.players) == tuple(truth.players[::-1]):
        for g in transcript.games:
            for a in g.actions:
                a.player = 1 - a.player
            g.score = g.score[::-1]
            if g.winner is not None:
                g.winner = 1 - g.winner
        transcript.players = tuple(transcript.players[::-1])
