"""`bgscribe capture`: build the agent's configuration from the command line and run it."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from .agent import EXIT_ERROR, Agent, AgentConfig
from .recorder import EncoderSettings


def parse_size(s: str | None) -> tuple[int | None, int | None]:
    if not s:
        return None, None
    try:
        w, h = (int(x) for x in s.lower().split("x"))
    except ValueError:
        raise SystemExit(f"bgscribe capture: --size must look like 1280x720, not {s!r}") from None
    if w <= 0 or h <= 0 or w % 2 or h % 2:
        raise SystemExit(f"bgscribe capture: --size needs positive even numbers, not {s!r}")
    return w, h


def run(args) -> int:
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    w, h = parse_size(args.size)
    if args.token:
        print("bgscribe capture: warning: --token puts the board token on the command line, where `ps` shows it; "
              "use --token-file FILE or $BGSCRIBE_TOKEN", file=sys.stderr)
    token = args.token or os.environ.get("BGSCRIBE_TOKEN")
    if args.token_file:
        try:
            token = Path(args.token_file).read_text().strip()
        except OSError as e:
            print(f"bgscribe capture: cannot read the token from {args.token_file}: {e.strerror}", file=sys.stderr)
            return 2
    spool = Path(args.spool) if args.spool else (
        Path(args.store) / ".spool" / f"board{args.board:02d}" if args.store
        else Path.home() / ".local/share/bgscribe/spool" / f"board{args.board:02d}")
    try:
        cfg = AgentConfig(
            board=args.board, source=args.source, spool=spool, store=Path(args.store) if args.store else None,
            server=args.server, token=token, segment_seconds=args.segment_seconds,
            server_fingerprint=args.server_fingerprint or os.environ.get("BGSCRIBE_SERVER_FINGERPRINT") or None,
            ca_file=args.ca_file or os.environ.get("BGSCRIBE_CA_FILE") or None,
            encoder=EncoderSettings(width=w, height=h, fps=args.fps, keyframe_interval=args.keyframe_interval,
                                    preset=args.preset, crf=args.crf),
            stall_timeout=args.stall_timeout, reconnect_max=args.reconnect_max, warn_free_mb=args.warn_free_mb,
            min_free_mb=args.min_free_mb, heartbeat_seconds=args.heartbeat,
            camera_check_seconds=args.camera_check, upload_retry_max=args.upload_retry_max,
            drain_seconds=args.drain, loop=args.loop,
            replay_speed=args.replay_speed, live_fps=args.live_fps if args.server else 0.0,
            live_where=args.live_where)
    except ValueError as e:
        print(f"bgscribe capture: {e}", file=sys.stderr)
        return 2
    agent = Agent(cfg)
    agent.install_signal_handlers()
    try:
        return agent.run()
    except OSError as e:
        logging.getLogger("bgscribe.capture").error("stopped: %s", e)
        return EXIT_ERROR
