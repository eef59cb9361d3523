"""`bgscribe serve` and `bgscribe purge`."""

from __future__ import annotations

import json
import logging
import sys


def _settings(args):
    from .config import load_settings

    return load_settings(args.config, data_dir=args.data, admin_token=getattr(args, "admin_token", None),
                         host=getattr(args, "host", None), port=getattr(args, "port", None),
                         purge_interval_seconds=getattr(args, "purge_interval", None),
                         pipeline=getattr(args, "pipeline", None))


def _parse_board_tokens(items: list[str]) -> list[tuple[int, str]]:
    out = []
    for item in items or []:
        num, sep, token = item.partition("=")
        if not sep or not num.isdigit() or not token:
            raise SystemExit(f"bgscribe serve: --board must look like 7=TOKEN, not {item!r}")
        out.append((int(num), token))
    return out


def serve(args) -> int:
    import uvicorn

    from .app import create_app
    from .db import Database
    from .services import create_event, register_board

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = _settings(args)
    except (FileNotFoundError, ValueError) as e:
        print(f"bgscribe serve: {e}", file=sys.stderr)
        return 2
    boards = _parse_board_tokens(args.board)
    if boards or args.event:
        from sqlalchemy import select

        from .models import Event

        db = Database(settings.db_url)
        with db.session() as s:
            ev = None
            if args.event:
                ev = s.scalar(select(Event).where(Event.name == args.event)) or create_event(s, args.event)
            for num, token in boards:
                register_board(s, num, token, ev)
            s.commit()
        db.dispose()
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_level="info",
                timeout_graceful_shutdown=5)  # Ctrl-C does not wait on a browser's open connection
    return 0


def purge(args) -> int:
    from .db import Database
    from .footage_frames import cache_dir
    from .retention import purge as run_purge
    from .storage import make_store

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    try:
        settings = _settings(args)
    except (FileNotFoundError, ValueError) as e:
        print(f"bgscribe purge: {e}", file=sys.stderr)
        return 2
    db = Database(settings.db_url)
    try:
        with db.session() as s:
            report = run_purge(s, make_store(settings), dry_run=args.dry_run,
                               frame_cache=cache_dir(settings.data_dir))
    finally:
        db.dispose()
    if args.json:
        print(json.dumps(report.as_dict(), indent=1, default=str))
    else:
        verb = "would delete" if args.dry_run else "deleted"
        for i in report.items:
            print(f"{verb} {i.segment} (board {i.board}, {i.bytes} bytes) by policy {i.policy}: {i.reason}")
        print(f"{report.checked} segments checked, {len(report.items)} {verb}"
              + (f", {len(report.errors)} errors" if report.errors else ""))
        for e in report.errors:
            print(f"error: {e}", file=sys.stderr)
    return 1 if report.errors else 0
