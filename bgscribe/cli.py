"""The `bgscribe` command line: a thin layer over the packages."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from transcriber.fileio import write_text_atomic

from . import __version__

SAMPLES = Path(__file__).parent / "samples"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="bgscribe",
        description="Transcribe live backgammon matches from overhead cameras into XG-importable .mat files.",
        epilog="Run 'bgscribe COMMAND --help' for each command's options.",
    )
    parser.add_argument("--version", action="version", version=f"bgscribe {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("validate", help="replay match files through the rules and report every problem",
                       description="Replay each match file (.mat, XG text export) through the rules engine and "
                                   "report every problem with file, line, game, move and player. Exit status 1 "
                                   "if any file has an error.")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--json", action="store_true", help='print {"files": [{"path", "games", "plays", "errors"}]}')
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("convert", help="read any supported match file and write canonical .mat",
                       description="Read a match file in any supported format and write the canonical .mat "
                                   "that GNU Backgammon and eXtreme Gammon import. The match is validated first; "
                                   "an invalid match is not written unless --force.")
    p.add_argument("input", metavar="IN")
    p.add_argument("--out", required=True, metavar="OUT.mat", help="where to write ('-' for standard output)")
    p.add_argument("--force", action="store_true",
                   help="write even if the rules engine finds problems (each is listed, and the exit status is 1)")
    p.set_defaults(func=cmd_convert)

    p = sub.add_parser(
        "demo", help="the whole product on this machine: simulated board -> capture agent -> server -> review page",
        description="Renders the opening game of a bundled real match on a simulated tournament board, starts the "
                    "server, replays the video through a capture agent that uploads it, lets the pipeline observe "
                    "and transcribe it, and serves the review page with the match (and its flags) until Ctrl-C. "
                    "Prints the address and a demo login. Everything lives in --out.")
    p.add_argument("--out", default="demo-out", metavar="DIR", help="working folder (default: %(default)s)")
    p.add_argument("--port", type=int, default=8000, help="port for the server; a free one if taken (default: 8000)")
    p.add_argument("--sample", type=int, default=0, choices=(0, 1, 2), help="which bundled match (default: 0)")
    p.add_argument("--games", type=int, default=1, help="how many of its games to play (default: 1)")
    p.add_argument("--profile", default="standard", choices=("clean", "standard", "hard"),
                   help="simulated camera and lighting (default: standard)")
    p.add_argument("--seed", type=int, default=7, help="simulator seed (default: 7)")
    p.add_argument("--fps", type=float, default=10.0, help="camera frame rate (default: 10)")
    p.add_argument("--size", type=_size, default=(1280, 720), metavar="WxH", help="camera size (default: 1280x720)")
    p.add_argument("--unplug", type=float, default=15.0, metavar="S",
                   help="pull the camera's cable for S seconds in the middle of the game, so the review page has "
                        "a real gap to show; 0: never (default: 15)")
    p.add_argument("--timeout", type=float, default=600, metavar="S",
                   help="give up if the transcript is not ready this long after the upload (default: 600)")
    p.add_argument("--fresh", action="store_true",
                   help="render the video again; without it a video rendered with the same settings is reused "
                        "(the last run's server data always goes: every run starts from an empty server)")
    p.add_argument("--live", action="store_true",
                   help="replay the game at real pace with the live boards on: the hall's and the stream overlay's "
                        "addresses are printed as soon as the server is up, and the board is seen there as it is "
                        "played (the plain demo replays as fast as it can)")
    p.add_argument("--exit-when-ready", action="store_true", help="stop once the match is ready (for tests)")
    p.set_defaults(func=cmd_demo)

    add_footage_commands(sub)

    p = sub.add_parser("simulate", help="render a match as overhead-camera footage with truth, or training frames",
                       description="Play a match on a simulated tournament board under a simulated camera and "
                                   "write an H.264 video plus, with --truth, exactly what was on the board at "
                                   "every frame and when each roll, play and cube action happened. With --frames "
                                   "N, write N labelled still frames for training instead.")
    from vision.synth.cli import add_arguments

    add_arguments(p)
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("train", help="reproduce a shipped model from scratch (needs the [train] extra)",
                       description="Render training data with the simulator, train, and export ONNX weights "
                                   "and metrics to models/. Needs torch: pip install -e '.[train]'.")
    from vision.train.cli import add_arguments as add_train_arguments

    add_train_arguments(p)
    p.set_defaults(func=cmd_train)

    from vision.cli import add_adapt_arguments, add_eval_arguments, add_observe_arguments, add_read_arguments

    p = sub.add_parser("observe", help="read a board video into per-frame observations (JSON Lines)",
                       description="Find the board, tell quiet frames from moving ones, and read checkers per "
                                   "slot, dice and cube on quiet frames, with probabilities.")
    add_observe_arguments(p)
    p.set_defaults(func=lambda a: _run("vision.cli", "run_observe", a))
    p = sub.add_parser("read", help="one picture in, the board the camera stage sees in it out",
                       description="Find the board's playing field in one picture by its structure (or take its "
                                   "corners from --field), and read checkers per point, the bar, the trays, dice "
                                   "and cube. Rows are given as the picture shows them turned so that the bar runs "
                                   "top to bottom, each left to right: '' empty, 'D3' three dark checkers, 'L2' "
                                   "two light ones. Exit status: 0 read, 1 no board found, 2 unusable input.")
    add_read_arguments(p)
    p.set_defaults(func=lambda a: _run("vision.cli", "run_read", a))
    p = sub.add_parser("adapt", help="teach the camera stage one board from a picture whose checkers are known",
                       description="Refit the points reader's last layer on one picture of a board whose checkers "
                                   "are known (the opening position every game starts from, or rows given), or on "
                                   "many labelled frames of its footage (--frames: what the server learns from an "
                                   "approved transcript); `observe --adapter` and `read --adapter` read that board "
                                   "with it: seconds on one core. Exit status: 0 adapted (with --frames: judged, "
                                   "kept or not), 2 unusable input.")
    add_adapt_arguments(p)
    p.set_defaults(func=lambda a: _run("vision.cli", "run_adapt", a))
    p = sub.add_parser("transcribe", help="footage or observations in, a checked .mat and a flag report out",
                       description="Decode a board video (or its observations, .jsonl) into the legal plays and "
                                   "cube actions that best explain it, validate the match, write the .mat (only if "
                                   "it validates) and a JSON report of every flag with its reason, confidence, "
                                   "alternatives and footage time.")
    p.add_argument("source", metavar="VIDEO|OBS.jsonl")
    p.add_argument("--out", required=True, metavar="MATCH.mat")
    p.add_argument("--report", metavar="REPORT.json", help="write the flags and every action's provenance here")
    p.add_argument("--players", nargs=2, default=["Light", "Dark"], metavar=("FIRST", "SECOND"),
                   help="player names; FIRST plays the light checkers unless --first-dark")
    p.add_argument("--first-dark", action="store_true", help="the first named player plays the dark checkers")
    p.add_argument("--length", type=int, default=7, help="match length (default: 7)")
    p.add_argument("--profile", default="bmab", help="event rules: bmab or amberg (default: bmab)")
    p.set_defaults(func=cmd_transcribe)
    p = sub.add_parser("eval", help="measure a stage against simulator truth",
                       description="Measure the vision stage or a transcript against the simulator's truth.")
    add_eval_arguments(p)
    p.set_defaults(func=lambda a: _run("vision.cli", "run_eval", a))

    from .hardware_cli import add_hardware_commands

    add_hardware_commands(sub)  # hardware plan / markers, check-camera, register-board

    from .event_cli import add_event_commands

    add_event_commands(sub)  # pr, event simulate / pair / standings / prizes

    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as e:
        # Any server command (serve, purge, adduser, event ...) whose database cannot be opened: one line, no
        # traceback. Looked up, not imported: the other commands never load the database code.
        db = sys.modules.get("review_ui.db")
        if db is not None and isinstance(e, db.DatabaseUnavailable):
            print(f"bgscribe {args.command}: {e}", file=sys.stderr)
            return 2
        raise


def cmd_simulate(args) -> int:
    from vision.synth.cli import run

    return run(args)


def _run(module: str, name: str, args) -> int:
    import importlib

    return getattr(importlib.import_module(module), name)(args)


def cmd_transcribe(args) -> int:
    from transcriber.transcribe import transcribe

    src = Path(args.source)
    if not src.exists():
        print(f"bgscribe transcribe: {src} does not exist", file=sys.stderr)
        return 1
    try:
        doc = transcribe(src, Path(args.out), Path(args.report) if args.report else None, tuple(args.players),
                         args.length, args.profile, first_light=not args.first_dark)
    except ValueError as e:
        print(f"bgscribe transcribe: {e}", file=sys.stderr)
        return 1
    if not doc["mat_written"]:
        print(f"bgscribe transcribe: the decoded match does not validate ({len(doc['problems'])} problems); "
              f"{args.out} not written - see the report", file=sys.stderr)
        return 1
    print(f"wrote {args.out} ({len(doc['games'])} games, {len(doc['flags'])} flags)")
    return 0


def cmd_train(args) -> int:
    from vision.train.cli import run

    return run(args)


def cmd_validate(args) -> int:
    from transcriber.validate import format_report, validate_file

    reports = [validate_file(f) for f in args.files]
    if args.json:
        print(json.dumps({"files": [r.as_dict() for r in reports]}, indent=2))
    else:
        for r in reports:
            for line in format_report(r):
                print(line)
    return 0 if all(r.ok for r in reports) else 1


def cmd_convert(args) -> int:
    from transcriber.errors import MatchFormatError
    from transcriber.mat import read_mat, write_mat
    from transcriber.replay import replay_match

    try:
        record = read_mat(args.input)
        text = write_mat(record, allow_invalid=args.force)
    except MatchFormatError as e:
        print(f"bgscribe convert: {e}", file=sys.stderr)
        return 1
    problems = replay_match(record).problems if args.force else []
    if args.out == "-":
        sys.stdout.write(text)
    else:
        try:
            write_text_atomic(Path(args.out), text)
        except OSError as e:
            print(f"bgscribe convert: cannot write {args.out}: {e.strerror}", file=sys.stderr)
            return 1
        print(f"wrote {args.out} ({len(record.games)} games)")
    if problems:  # --force wrote it: say so loudly, and exit 1
        n = len(problems)
        print(f"bgscribe convert: warning: {args.out} was written with --force but is NOT a valid match "
              f"({n} problem{'s' if n != 1 else ''}); XG and BMAB may refuse or misread it:", file=sys.stderr)
        for p in problems:
            d = p.as_dict()
            where = ", ".join(x for x in (f"game {d['game']}" if d.get("game") else "",
                                         f"move {d['move']}" if d.get("move") else "") if x)
            print(f"  {d['kind']}: {d['message']}" + (f" [{where}]" if where else ""), file=sys.stderr)
        return 1
    return 0


def _size(text: str) -> tuple[int, int]:
    from vision.synth.cli import parse_size

    return parse_size(text)


def cmd_demo(args) -> int:
    from .demo import run

    return run(args)

def add_footage_commands(sub) -> None:
    """`capture`, `serve` and `purge`: the capture agent and the server (footage, retention)."""
    from .hardware_cli import add_tls_options

    p = sub.add_parser(
        "capture", help="record one board's camera into segments and send them to the server",
        description="Capture agent for one board: records the camera as H.264 in crash-safe fragmented MP4 "
                    "segments with a manifest each (board, start, end, frames, dropped frames, gaps, sha256), "
                    "reconnects when the camera drops, spools segments locally while the server is down and "
                    "uploads them (resumable, checksum-verified) when it is back. SIGTERM closes the current "
                    "segment cleanly. Exit status: 0 stopped, 1 error, 2 bad options.")
    p.add_argument("--board", type=int, required=True, help="board number (1-999)")
    p.add_argument("--source", required=True, metavar="SRC",
                   help="V4L2 device (/dev/video0), rtsp://, http:// (MJPEG), udp:// (MPEG-TS), "
                        "or a video file (replayed at real-time pace)")
    dest = p.add_mutually_exclusive_group(required=True)
    dest.add_argument("--store", metavar="DIR", help="keep segments in this local folder (no server)")
    dest.add_argument("--server", metavar="URL", help="bgscribe server to upload to, e.g. http://10.0.0.2:8000")
    p.add_argument("--token", help="the board's ingest token; shown by `ps`, so prefer --token-file or "
                                   "$BGSCRIBE_TOKEN (default)")
    p.add_argument("--token-file", metavar="FILE", help="read the board's ingest token from this file")
    add_tls_options(p)
    p.add_argument("--spool", metavar="DIR",
                   help="local folder for segments not yet confirmed by the server "
                        "(default: ~/.local/share/bgscribe/spool/boardNN, or DIR/.spool with --store)")
    p.add_argument("--segment-seconds", type=float, default=60.0, help="segment length (default: %(default)s)")
    p.add_argument("--size", metavar="WxH", help="recording resolution, e.g. 1280x720 (default: the camera's)")
    p.add_argument("--fps", type=float, default=15.0, help="recording frame rate (default: %(default)s)")
    p.add_argument("--keyframe-interval", type=float, default=1.0, metavar="SECONDS",
                   help="seconds between keyframes; also the most a crash can lose (default: %(default)s)")
    p.add_argument("--preset", default="ultrafast", help="x264 preset (default: %(default)s)")
    p.add_argument("--crf", type=int, default=23, help="x264 quality, lower is better (default: %(default)s)")
    p.add_argument("--stall-timeout", type=float, default=3.0, metavar="SECONDS",
                   help="no frame for this long counts as a camera loss (default: %(default)s)")
    p.add_argument("--reconnect-max", type=float, default=10.0, metavar="SECONDS",
                   help="longest wait between camera reconnect attempts (default: %(default)s)")
    p.add_argument("--warn-free-mb", type=float, default=1024.0,
                   help="warn when free disk falls below this (default: %(default)s)")
    p.add_argument("--min-free-mb", type=float, default=200.0,
                   help="close the segment and pause recording below this much free disk (default: %(default)s)")
    p.add_argument("--heartbeat", type=float, default=10.0, metavar="SECONDS",
                   help="status and preview to the server every so often (default: %(default)s)")
    p.add_argument("--camera-check", type=float, default=300.0, metavar="SECONDS",
                   help="grade the camera (board in view, sharpness, exposure, glare, frame rate) this often and "
                        "show it on the server's dashboard; 0 turns it off (default: %(default)s)")
    p.add_argument("--upload-retry-max", type=float, default=30.0, metavar="SECONDS",
                   help="longest wait between upload retries while the server is down (default: %(default)s)")
    p.add_argument("--drain", type=float, default=10.0, metavar="SECONDS",
                   help="at shutdown, keep uploading the spool this long (default: %(default)s)")
    p.add_argument("--loop", action="store_true", help="replay a video file forever (demo)")
    p.add_argument("--live-fps", type=float, default=5.0, metavar="FPS",
                   help="with --server: observe this many frames a second on this machine and post them to the "
                        "server for the live boards (stream overlay, hall); 0 turns it off (default: %(default)s)")
    p.add_argument("--live-where", default="agent", choices=("agent", "server", "auto"),
                   help="who runs the camera stage on the live frames: this machine (agent), the server (this "
                        "machine sends the frames as JPEG, about 0.5 MB/s at 720p and 5 a second; for an agent "
                        "machine too small to observe, where the server has cores to spare), or auto: this "
                        "machine until it drops more than a third of them over 20 s, then the server, which hands "
                        "the board back when it cannot keep up either (default: %(default)s)")
    p.add_argument("--replay-speed", type=float, default=1.0, metavar="X",
                   help="replay a video file at X times real time (0: as fast as possible); timestamps keep "
                        "the footage's own times (default 1)")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    p.set_defaults(func=cmd_capture)

    p = sub.add_parser(
        "serve", help="run the server: segment ingest, staff API, retention job",
        description="Run the bgscribe server (FastAPI on uvicorn). Settings come from --config (TOML), "
                    "BGSCRIBE_* environment variables, and these options; the database is migrated at start-up. "
                    "Retention runs every purge_interval_seconds.")
    p.add_argument("--config", metavar="FILE", help="TOML settings file (default: $BGSCRIBE_CONFIG)")
    p.add_argument("--data", metavar="DIR", help="data folder: database, footage, staging (default: bgscribe-data)")
    p.add_argument("--host", help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (default: 8000)")
    p.add_argument("--admin-token-file", metavar="FILE",
                   help="read the staff API's bearer token from FILE (default: $BGSCRIBE_ADMIN_TOKEN, the config, "
                        "else one is made on first start and kept in DATA/admin-token)")
    p.add_argument("--admin-token", help=argparse.SUPPRESS)  # still works, with a warning: `ps` shows it
    p.add_argument("--tls-cert", metavar="PEM", help="serve HTTPS with this certificate (`bgscribe make-cert`)")
    p.add_argument("--tls-key", metavar="PEM", help="the certificate's private key")
    p.add_argument("--trusted-proxies", metavar="ADDRS",
                   help="behind a TLS reverse proxy: its addresses (comma-separated), whose X-Forwarded-For and "
                        "X-Forwarded-Proto headers are believed (default: none)")
    p.add_argument("--purge-interval", type=float, metavar="SECONDS",
                   help="how often retention is applied; 0 turns the job off (default: 300)")
    p.add_argument("--no-pipeline", dest="pipeline", action="store_false", default=None,
                   help="do not observe and transcribe arriving footage in this process")
    p.add_argument("--broker", metavar="URL",
                   help="send the pipeline's jobs through this job queue (Redis, e.g. redis://127.0.0.1:6379/0) to "
                        "`bgscribe worker` processes instead of doing them here (default: $BGSCRIBE_BROKER_URL, "
                        "else none)")
    p.add_argument("--board-tokens", metavar="FILE",
                   help="register boards with the ingest tokens in FILE, one N=TOKEN a line (stored hashed)")
    p.add_argument("--board", action="append", metavar="N=TOKEN", help=argparse.SUPPRESS)  # `ps` shows it
    p.add_argument("--event", metavar="NAME",
                   help="attach the --board-tokens boards to this event (created with the default policy if new)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser(
        "worker", help="do the server's pipeline jobs (observe, transcribe, PR, learn) from its job queue",
        description="A worker for a server started with --broker: it takes jobs from the job queue (Redis), "
                    "--jobs at a time, reads the footage and writes observations in the server's data folder "
                    "(shared with the server, e.g. over NFS), and records results in the server's database. Start "
                    "one on each machine that reaches the three and has cores to spare. A worker "
                    "that dies mid-job loses nothing: after --config's broker_heartbeat_seconds (default 60) its "
                    "job is redone by another. SIGTERM or Ctrl-C stops it, handing back its job. Exit status: 0 "
                    "stopped, 2 bad settings (broker, database or schema).")
    p.add_argument("--config", metavar="FILE", help="the server's TOML settings file (default: $BGSCRIBE_CONFIG)")
    p.add_argument("--broker", metavar="URL", help="the job queue, e.g. redis://10.0.0.2:6379/0 (default: the "
                                                   "config's broker_url, $BGSCRIBE_BROKER_URL)")
    p.add_argument("--database-url", metavar="URL", help="the server's database (SQLAlchemy URL; default: the "
                                                         "config's, $BGSCRIBE_DATABASE_URL, else SQLite in DATA)")
    p.add_argument("--data", metavar="DIR", help="the server's data folder as this machine sees it (default: "
                                                 "the config's data_dir)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                   help="jobs at a time (each runs the camera stage in a process of its own, on one core; default: "
                        "this machine's cores, %(default)s)")
    p.set_defaults(func=cmd_worker)

    p = sub.add_parser(
        "make-cert", help="make a self-signed TLS certificate for the server and print its fingerprint",
        description="Write DIR/server.crt and DIR/server.key (mode 600): an ECDSA certificate for the names "
                    "and addresses the server is reached by, for `bgscribe serve --tls-cert --tls-key`. Capture "
                    "agents pin its SHA-256 fingerprint (--server-fingerprint); browsers show the same one.")
    p.add_argument("--name", action="append", required=True, metavar="HOST",
                   help="a host name or IP address of the server (repeatable), e.g. --name 192.168.10.2")
    p.add_argument("--out", metavar="DIR", default=".", help="folder for the two files (default: here)")
    p.add_argument("--days", type=int, default=825, help="validity in days (default: %(default)s)")
    p.add_argument("--force", action="store_true", help="replace existing files")
    p.set_defaults(func=cmd_make_cert)

    p = sub.add_parser(
        "purge", help="apply each event's footage retention policy now",
        description="Delete the footage each event's retention policy says to delete now (purge at match end, "
                    "N days after the transcript is approved; never under legal hold, never unapproved footage "
                    "unless the policy says so). Every deletion is logged in the purge log. Exit status 1 if "
                    "any deletion failed.")
    p.add_argument("--dry-run", action="store_true", help="list what would be deleted; delete nothing")
    p.add_argument("--config", metavar="FILE", help="TOML settings file (default: $BGSCRIBE_CONFIG)")
    p.add_argument("--data", metavar="DIR", help="data folder (default: bgscribe-data)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_purge)

    p = sub.add_parser(
        "adduser", help="create a review-page account (staff or director)",
        description="Create an account for the review page. The password comes from $BGSCRIBE_PASSWORD, else "
                    "it is asked for twice; it is stored as an argon2id hash.")
    p.add_argument("username")
    p.add_argument("--role", choices=("staff", "director"), default="staff",
                   help="staff review and approve; a director also creates accounts and reopens approved "
                        "transcripts (default: staff)")
    p.add_argument("--config", metavar="FILE", help="TOML settings file (default: $BGSCRIBE_CONFIG)")
    p.add_argument("--data", metavar="DIR", help="data folder (default: bgscribe-data)")
    p.set_defaults(func=cmd_adduser)


def cmd_capture(args) -> int:
    from capture.cli import run

    return run(args)


def cmd_serve(args) -> int:
    from review_ui.cli import serve

    return serve(args)


def cmd_worker(args) -> int:
    from review_ui.cli import worker

    if args.jobs < 1:
        print("bgscribe worker: --jobs must be 1 or more", file=sys.stderr)
        return 2
    return worker(args)


def cmd_make_cert(args) -> int:
    from review_ui.cli import make_cert

    return make_cert(args)


def cmd_purge(args) -> int:
    from review_ui.cli import purge

    return purge(args)


def cmd_adduser(args) -> int:
    from review_ui.accounts_cli import adduser

    return adduser(args)

if __name__ == "__main__":
    sys.exit(main())
