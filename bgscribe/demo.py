"""`bgscribe demo`: the whole product on one machine, on embedded defaults.

1. the simulator renders the opening game of a bundled real match under an overhead camera, and
   (as happens at a venue) the camera's cable is pulled for a few seconds in the middle of it;
2. the server starts (SQLite, footage store and the background pipeline in DIR/data);
3. a capture agent replays the video as if it were the board's camera and uploads its segments;
4. the pipeline observes each segment as it arrives and transcribes the match once it is over;
5. the review page serves the match, with its flags, until Ctrl-C.

With --live the agent replays at real pace and observes as it records: the hall and the stream overlay show the
board as it is played (their addresses, with the event's viewer token, are printed once the server is up).

Every run starts from an empty server (DIR/data and DIR/spool of an earlier run are removed: its footage,
stamped from the time it ran, would claim the new match's time), so a run gives the same match each time; the
video is rendered again only when the settings differ (or with --fresh).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

SAMPLES = sorted((Path(__file__).parent / "samples").glob("*.txt"))

BOARD = 1
USER, PASSWORD = "demo", "bgscribe-demo"


def say(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def free_port(preferred: int) -> int:
    for port in (preferred, 0):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise OSError("no free port on 127.0.0.1")


def unplug(video: Path, out: Path, at_s: float, seconds: float) -> tuple[float, float]:
    """The camera's cable pulled for a while, as happens at a venue: the packets from the keyframe at
    ``at_s`` to the one ``seconds`` later are left out (timestamps keep the hole). Returns the hole."""
    import av

    with av.open(str(video)) as src, av.open(str(out), "w") as dst:
        s_in = src.streams.video[0]
        s_out = dst.add_stream_from_template(s_in)
        cut, hole = None, None
        for p in src.demux(s_in):
            if p.dts is None:
                continue
            t = float(p.pts * s_in.time_base)
            if p.is_keyframe:
                if cut is None and t >= at_s:
                    cut = t
                elif cut is not None and hole is None and t >= cut + seconds:
                    hole = (cut, t)
            if cut is not None and hole is None:
                continue
            p.stream = s_out
            dst.mux(p)
    return hole or (at_s, at_s)


def render_settings(args) -> dict:
    return {"sample": SAMPLES[args.sample].name, "games": args.games, "profile": args.profile, "seed": args.seed,
            "fps": args.fps, "size": list(args.size), "unplug": args.unplug}


def render(out: Path, args) -> tuple[Path, object]:
    from transcriber.mat import read_mat
    from vision.synth.video import render_match

    record = read_mat(SAMPLES[args.sample])
    video = out / "board01.mp4"
    done = out / "render.json"
    settings = render_settings(args)
    if video.exists() and done.exists() and json.loads(done.read_text()) == settings:
        say(f"reusing the video the last run rendered with these settings ({video}; --fresh renders it again)")
        return video, record
    done.unlink(missing_ok=True)
    say(f"rendering game 1 of {record.players[0]} v {record.players[1]} ({record.length}-point match, "
        f"{args.profile} camera, {args.size[0]}x{args.size[1]} at {args.fps:g} fps) ...")
    t0 = time.perf_counter()
    stats = render_match(record, video, out / "truth.jsonl", profile=args.profile, seed=args.seed, fps=args.fps,
                         size=args.size, games=args.games, progress=True)
    say(f"rendered {stats.frames} frames ({stats.seconds:.0f} s of play) in {time.perf_counter() - t0:.0f} s")
    if args.unplug > 0:
        full = out / "board01-full.mp4"
        video.replace(full)
        a, b = unplug(full, video, stats.seconds * 0.4, args.unplug)
        say(f"the camera is unplugged from {a:.0f} s to {b:.0f} s of play: the transcript will flag what it missed")
    done.write_text(json.dumps(settings) + "\n")
    return video, record


SERVER_FILES = ("data", "spool", "capture-agent.log")  # what a run leaves that the next one must not reuse
RENDER_FILES = ("board01.mp4", "board01-full.mp4", "truth.jsonl", "render.json")


def clear(out: Path, fresh: bool) -> None:
    """An empty server for this run: the last run's database, footage and spool go (its video too with
    --fresh). Only the demo's own files: --out may name a folder that holds other things."""
    gone = [out / n for n in SERVER_FILES + (RENDER_FILES if fresh else ()) if (out / n).exists()]
    if gone:
        say(f"removing the last run's {'files' if fresh else 'server data'} ({', '.join(p.name for p in gone)} "
            f"in {out}): every run starts from an empty server")
    for p in gone:
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()


def folder_mb(out: Path) -> float:
    return sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 1e6


class DemoServer:
    """The real server (uvicorn) in a thread of this process, so one Ctrl-C stops everything."""

    def __init__(self, data: Path, port: int):
        import uvicorn

        from review_ui.app import create_app
        from review_ui.config import Settings

        self.settings = Settings(data_dir=data, port=port, admin_token=secrets.token_urlsafe(16),
                                 purge_interval_seconds=0, pipeline_poll_seconds=0.5)
        self.app = create_app(self.settings)
        # (Ctrl-C must not wait on a browser's open connection: 5 s of grace, then they are closed)
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=port, log_level="warning",
                                                    timeout_graceful_shutdown=5))
        self.thread = threading.Thread(target=self.server.run, name="uvicorn", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.settings.port}"

    def start(self) -> None:
        self.thread.start()
        deadline = time.time() + 60
        while not self.server.started:
            if not self.thread.is_alive() or time.time() > deadline:
                raise RuntimeError("the server did not start (is the port taken?)")
            time.sleep(0.1)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def set_up(app_state, record, token: str, viewer_token: str | None = None) -> int:
    from review_ui.auth import create_user
    from review_ui.models import Event
    from review_ui.review_models import User
    from review_ui.services import create_event, create_match, hash_token, register_board, utcnow

    with app_state.db.session() as s:
        ev = s.query(Event).filter_by(name="bgscribe demo").one_or_none() or create_event(s, "bgscribe demo")
        ev.match_length = record.length
        if viewer_token:  # (what the director's "viewer link" does: the live boards to whoever holds the token)
            ev.live_token_hash = hash_token(viewer_token)
        board = register_board(s, BOARD, token, ev)
        if not s.query(User).filter_by(username=USER).one_or_none():
            create_user(s, USER, PASSWORD, "director")
        m = create_match(s, ev, board, utcnow() - timedelta(seconds=2), record.players[0], record.players[1])
        s.commit()
        return m.id


def capture(video: Path, url: str, token: str, spool: Path, fps: float, live: bool = False) -> int:
    cmd = [sys.executable, "-m", "bgscribe", "capture", "--board", str(BOARD), "--source", str(video),
           "--server", url, "--spool", str(spool), "--fps", f"{fps:g}", "--segment-seconds", "60",
           "--heartbeat", "2", *(["--replay-speed", "1", "--live-fps", "5"] if live else
                                 ["--replay-speed", "0", "--live-fps", "0"])]
    say("capture agent: replaying the video as board 1's camera" + (" at real pace, observing it live" if live
                                                                       else "") + ", uploading 60-second segments ...")
    log = spool.parent / "capture-agent.log"
    with open(log, "w") as f:
        code = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env={**os.environ, "BGSCRIBE_TOKEN": token},
                              check=False).returncode
    if code != 0:
        raise RuntimeError(f"the capture agent exited with {code}; see {log}")
    return code


def end_match(app_state, match_id: int) -> int:
    """What staff do when the players sign the score sheet: the match ends after its last footage."""
    from review_ui.models import Match
    from review_ui.services import update_match

    with app_state.db.session() as s:
        m = s.get(Match, match_id)
        segs = sorted(m.segments, key=lambda g: g.end)
        update_match(s, m, ended_at=segs[-1].end + timedelta(seconds=1))
        s.commit()
        return len(segs)


def wait_for_transcript(app_state, match_id: int, timeout: float) -> dict:
    from review_ui.pipeline import match_stage
    from review_ui.review_models import Transcript

    deadline, last = time.time() + timeout, None
    while time.time() < deadline:
        with app_state.db.session() as s:
            t = s.query(Transcript).filter_by(match_id=match_id).one_or_none()
            if t is not None:
                doc = json.loads(t.doc_json)
                flags = sum(len(a.get("flags", [])) for g in doc["games"] for a in g["actions"])
                return {"games": len(doc["games"]), "actions": sum(len(g["actions"]) for g in doc["games"]),
                        "flags": flags}
            st = match_stage(s, match_id)
        if st["stage"] == "failed":
            raise RuntimeError(f"the pipeline failed: {st['error']}")
        if st["stage"] != last:
            say(f"pipeline: {st['stage']} ...")
            last = st["stage"]
        time.sleep(0.5)
    raise RuntimeError(f"no transcript after {timeout:.0f} s")


def run(args) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    clear(out, args.fresh)
    video, record = render(out, args)
    port = free_port(args.port)
    server = DemoServer(out / "data", port)
    server.start()
    say(f"server up at {server.url} (data in {out / 'data'})")
    try:
        token = secrets.token_urlsafe(16)
        viewer = secrets.token_urlsafe(16) if args.live else None
        match_id = set_up(server.app.state, record, token, viewer)
        if viewer:
            print(f"\nLive boards: the hall at {server.url}/live/hall?token={viewer}\n"
                  f"board {BOARD}'s stream overlay (an OBS browser source, 1920x1080) at "
                  f"{server.url}/live/boards/{BOARD}/overlay?token={viewer}\n", flush=True)
        capture(video, server.url, token, out / "spool", args.fps, live=args.live)
        n = end_match(server.app.state, match_id)
        say(f"all {n} segments uploaded; the match is over: transcribing ...")
        got = wait_for_transcript(server.app.state, match_id, args.timeout)
        say(f"transcribed in {time.perf_counter() - t_start:.0f} s from the start: {got['games']} game(s), "
            f"{got['actions']} actions, {got['flags']} flags to review")
        print(f"\nReview the match at {server.url}/matches/{match_id}\nLog in as {USER} / {PASSWORD}\n", flush=True)
        say(f"{out} holds {folder_mb(out):.0f} MB (video, footage, database); delete it when done (rm -r {out}); "
            "the next run starts from an empty server, --fresh renders the video again too")
        if args.exit_when_ready:
            return 0
        say("serving until Ctrl-C")
        while server.thread.is_alive():
            time.sleep(0.5)
        return 0
    except KeyboardInterrupt:
        say("stopping ...")
        return 0
    except RuntimeError as e:
        print(f"bgscribe demo: {e}", file=sys.stderr)
        return 1
    finally:
        server.stop()
