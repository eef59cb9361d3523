"""The `bgscribe` command line: a thin layer over the packages."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

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
    p.add_argument("--force", action="store_true", help="write even if the rules engine finds problems")
    p.set_defaults(func=cmd_convert)

    p = sub.add_parser("demo", help="validate and convert the bundled sample matches",
                       description="The end-to-end demo. For now: validate the bundled real matches and convert "
                                   "them to canonical .mat files in --out.")
    p.add_argument("--out", default="demo-out", metavar="DIR",
                   help="folder for the converted files (default: %(default)s)")
    p.set_defaults(func=cmd_demo)

    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


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

    try:
        record = read_mat(args.input)
        text = write_mat(record, allow_invalid=args.force)
    except MatchFormatError as e:
        print(f"bgscribe convert: {e}", file=sys.stderr)
        return 1
    if args.out == "-":
        sys.stdout.write(text)
        return 0
    try:
        write_atomic(Path(args.out), text)
    except OSError as e:
        print(f"bgscribe convert: cannot write {args.out}: {e.strerror}", file=sys.stderr)
        return 1
    print(f"wrote {args.out} ({len(record.games)} games)")
    return 0


def cmd_demo(args) -> int:
    from transcriber.errors import MatchFormatError
    from transcriber.mat import read_mat, write_mat
    from transcriber.validate import format_report, validate_file

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    status = 0
    for src in sorted(SAMPLES.glob("*.txt")):
        report = validate_file(src)
        print("\n".join(format_report(report)))
        if not report.ok:
            status = 1
            continue
        try:
            dest = out / (src.stem + ".mat")
            write_atomic(dest, write_mat(read_mat(src)))
            print(f"  -> {dest}")
        except (MatchFormatError, OSError) as e:
            print(f"  cannot convert: {e}", file=sys.stderr)
            status = 1
    return status


def write_atomic(path: Path, text: str) -> None:
    """Write via a temporary file and rename: a full disk never leaves half a file behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


if __name__ == "__main__":
    sys.exit(main())
