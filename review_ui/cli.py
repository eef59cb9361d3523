"""`bgscribe serve`, `bgscribe worker`, `bgscribe purge` and `bgscribe make-cert`."""

from __future__ import annotations

import json
import logging
import os
import sys

log = logging.getLogger("bgscribe.server")


def _settings(args):
    from .config import load_settings
    from .security import read_secret_file

    admin = getattr(args, "admin_token", None)
    if admin:
        print("bgscribe: warning: --admin-token puts the staff token on the command line, where `ps` shows it "
              "to every user of this machine; use --admin-token-file FILE or $BGSCRIBE_ADMIN_TOKEN",
              file=sys.stderr)
    if getattr(args, "admin_token_file", None):
        admin = read_secret_file(args.admin_token_file, "the staff token")
    return load_settings(args.config, data_dir=args.data, admin_token=admin,
                         host=getattr(args, "host", None), port=getattr(args, "port", None),
                         purge_interval_seconds=getattr(args, "purge_interval", None),
                         pipeline=getattr(args, "pipeline", None), tls_cert=getattr(args, "tls_cert", None),
                         tls_key=getattr(args, "tls_key", None),
                         trusted_proxies=getattr(args, "trusted_proxies", None),
                         broker_url=getattr(args, "broker", None), database_url=getattr(args, "database_url", None))


def _parse_board_tokens(items: list[str], where: str = "--board") -> list[tuple[int, str]]:
    out = []
    for item in items or []:
        num, sep, token = item.strip().partition("=")
        if not sep or not num.isdigit() or not token:
            raise SystemExit(f"bgscribe serve: {where} must look like 7=TOKEN, not {item!r}")
        out.append((int(num), token))
    return out


def _board_tokens(args) -> list[tuple[int, str]]:
    """--board N=TOKEN (shown by `ps`: a warning) and the lines N=TOKEN of --board-tokens FILE."""
    from .security import read_secret_file

    if args.board:
        print("bgscribe: warning: --board N=TOKEN puts a board token on the command line, where `ps` shows it; "
              "use --board-tokens FILE (lines N=TOKEN)", file=sys.stderr)
    out = _parse_board_tokens(args.board)
    if getattr(args, "board_tokens", None):
        lines = [ln for ln in read_secret_file(args.board_tokens, "board tokens").splitlines()
                 if ln.strip() and not ln.lstrip().startswith("#")]
        out += _parse_board_tokens(lines, f"each line of {args.board_tokens}")
    return out


def uvicorn_config(app, settings, log_level: str = "info"):
    """How the app is served: HTTPS when a certificate is set, forwarded headers only from trusted proxies, no
    `server: uvicorn` header (the library and its version are nobody's business)."""
    import uvicorn

    if bool(settings.tls_cert) != bool(settings.tls_key):
        raise ValueError("give both tls_cert and tls_key (--tls-cert and --tls-key), or neither")
    for f in (settings.tls_cert, settings.tls_key):
        if f and not os.path.isfile(f):
            raise FileNotFoundError(f"TLS file {f} not found")
    proxies = [p.strip() for p in settings.trusted_proxies.split(",") if p.strip()]
    return uvicorn.Config(app, host=settings.host, port=settings.port, log_level=log_level,
                          ssl_certfile=str(settings.tls_cert) if settings.tls_cert else None,
                          ssl_keyfile=str(settings.tls_key) if settings.tls_key else None,
                          proxy_headers=bool(proxies), forwarded_allow_ips=proxies or "",
                          server_header=False,
                          timeout_graceful_shutdown=5)  # Ctrl-C does not wait on a browser's open connection


def serve(args) -> int:
    import uvicorn

    from .app import create_app, make_queue
    from .db import Database, DatabaseUnavailable
    from .security import InsecureSetting, check_token
    from .services import create_event, register_board
    from .work_queue import QueueError

    os.umask(0o077)  # the database, footage, logs of this process: readable by its user only
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = _settings(args)
        boards = _board_tokens(args)
        for num, token in boards:
            check_token(token, f"the token of board {num}")
        # Opened (and migrated) here, before the app's start-up, so that a database the server cannot reach is one
        # line on stderr rather than uvicorn's traceback.
        db = Database(settings.db_url)
        app = create_app(settings)  # refuses a placeholder staff token
        config = uvicorn_config(app, settings)
        if settings.pipeline:
            make_queue(settings)  # the broker answers, or the server does not start
    except QueueError as e:
        print(f"bgscribe serve: {e}", file=sys.stderr)
        return 2
    except (FileNotFoundError, ValueError, DatabaseUnavailable) as e:
        print(f"bgscribe serve: {'refusing to start: ' if isinstance(e, InsecureSetting) else ''}{e}",
              file=sys.stderr)
        return 2
    if not settings.tls_cert and not settings.trusted_proxies and settings.host not in ("127.0.0.1", "::1",
                                                                                        "localhost"):
        log.warning("serving plain HTTP on %s: passwords, session cookies, tokens and footage cross the network "
                    "readable by anyone on it; use --tls-cert/--tls-key (bgscribe make-cert) or a TLS proxy",
                    settings.host)
    if boards or args.event:
        from sqlalchemy import select

        from .models import Event

        with db.session() as s:
            ev = None
            if args.event:
                ev = s.scalar(select(Event).where(Event.name == args.event)) or create_event(s, args.event)
            for num, token in boards:
                register_board(s, num, token, ev)
            s.commit()
    db.dispose()
    uvicorn.Server(config).run()
    return 0


def worker(args) -> int:
    """`bgscribe worker`: do the pipeline's jobs (observe, transcribe, PR, learn) that the server sends through its
    job queue, until SIGTERM or Ctrl-C; a job in hand then goes back to the queue."""
    import signal
    import threading

    from .app import make_queue
    from .db import Database, DatabaseUnavailable, schema_behind
    from .pipeline import Pipeline, worker_name
    from .storage import StoreError, worker_store
    from .work_queue import QueueError

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = _settings(args)
        if not settings.broker_url:
            raise ValueError("no job queue to take jobs from: give --broker redis://HOST:PORT/DB (the server's "
                             "broker_url), or set it in --config / $BGSCRIBE_BROKER_URL")
        queue = make_queue(settings)
        db = Database(settings.db_url, run_migrations=False)  # the server migrates; a worker only reads the schema
        behind = schema_behind(db.engine)
        if behind:
            raise ValueError(behind)
        store = worker_store(settings)  # an unmounted share or an unreachable bucket: said now, not per job
    except (QueueError, DatabaseUnavailable, FileNotFoundError, ValueError, StoreError) as e:
        print(f"bgscribe worker: {e}", file=sys.stderr)
        return 2
    pipeline = Pipeline(db, store, settings.data_dir, pr_ply=settings.pr_ply, queue=queue)
    w = queue.worker(pipeline, threads=args.jobs)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    w.start()
    log.info("bgscribe worker %s: %d job(s) at a time from %s, database %s, data in %s", worker_name(), args.jobs,
             queue.shown_url, db.engine.url.render_as_string(hide_password=True), settings.data_dir)
    stop.wait()
    log.info("stopping: a job in hand goes back to the queue")
    pipeline.stop()  # ends the job's child process; `execute` hands the job back
    w.stop(timeout=30_000)
    db.dispose()
    return 0


def make_cert(args) -> int:
    """`bgscribe make-cert`: a self-signed certificate for the venue's server, and its fingerprint to pin."""
    from pathlib import Path

    from .tls import make_self_signed

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cert, key = out / "server.crt", out / "server.key"
    if (cert.exists() or key.exists()) and not args.force:
        print(f"bgscribe make-cert: {cert} or {key} exists; --force to replace them (agents pinned to the old "
              "fingerprint then refuse the server until they get the new one)", file=sys.stderr)
        return 2
    try:
        fp = make_self_signed(cert, key, args.name, days=args.days)
    except ValueError as e:
        print(f"bgscribe make-cert: {e}", file=sys.stderr)
        return 2
    print(f"certificate {cert} and key {key} (mode 600) for {', '.join(args.name)}, valid {args.days} days")
    print(f"SHA-256 fingerprint: {fp}")
    print(f"serve with:   bgscribe serve --tls-cert {cert} --tls-key {key} ...")
    print(f"agents pin:   BGSCRIBE_SERVER_FINGERPRINT={fp}   (or copy {cert} to them: --ca-file)")
    return 0


def purge(args) -> int:
    from .db import Database
    from .footage_frames import cache_dir
    from .retention import purge as run_purge
    from .storage import StoreError, server_store

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    try:
        settings = _settings(args)
    except (FileNotFoundError, ValueError) as e:
        print(f"bgscribe purge: {e}", file=sys.stderr)
        return 2
    try:
        store = server_store(settings)
    except StoreError as e:
        print(f"bgscribe purge: nothing deleted: {e}", file=sys.stderr)
        return 2
    db = Database(settings.db_url)
    try:
        with db.session() as s:
            report = run_purge(s, store, dry_run=args.dry_run, frame_cache=cache_dir(settings.data_dir))
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
