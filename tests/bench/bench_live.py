"""Live boards under load: N boards observed live by their agents, decoded as they come, sent to V viewers.

Prints JSON. Everything runs on 127.0.0.1: `bgscribe serve` (its own pipeline thread observes the segments for the
record, or W `bgscribe worker`s with a real Redis), N agent processes and one viewers' process. Each agent replays
one rendered game at real-time pace, as bench_event.py's agents do: its 60-s segments were encoded beforehand and go
through the real spool and uploader, so that N H.264 encoders are not counted; beside them the agent's real live
observer (capture/live_observer.py) takes the camera's frames at 5 a second and posts its observations. (The frames
come from a 5-fps copy of the footage, decoded once into shared memory: a camera hands its agent frames that it
decodes to record anyway; 24 more decoders would be this test's cost, not the product's.) The viewers hold V
Server-Sent-Events connections to the boards' feeds, spread over the boards; one per board records every state it
is sent.

Figures:
- latency of each play: from the footage time its last checker is set down to the first state a viewer receives
  that shows the position after it, p50 / p95 / max seconds (the issue's target: p95 <= 5 s with 24 boards);
  plays never shown;
- the feed against the record: per board, whether the live feed's last actions equal the final transcript's, and
  how many positions the feed showed that the record never passed through (guesses corrected later);
- the transcript's readiness: seconds from the match's last play to its transcript (target: 60);
- the server's own CPU (the live decoding and the feeds; its observe children apart) as a share of one core,
  the agents' and the viewers', over the live part; states sent and bytes;
- segments the agents never uploaded (each drains its spool before it exits, as `capture` does at shutdown: 0),
  and how long staff wait for the server while it finishes the record (`staff_answer_s`).

    .venv/bin/python tests/bench/bench_live.py --boards 4 --seconds 120 --viewers 40
    .venv/bin/python tests/bench/bench_live.py --boards 24 --seconds 180 --viewers 200
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.bench_event import (  # noqa: E402
    CACHE,
    TICK,
    ReplayAgent,
    _settled,
    _wait_http,
    cpu_seconds,
    footage,
    pct,
    stop_all,
)
from tests.capture.helpers import free_port  # noqa: E402

LIVE_FPS = 5.0


def own_cpu(pid: int) -> float:
    """utime + stime of the process itself (not its children)."""
    try:
        f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(f[11]) + int(f[12])) / TICK


def raw_frames(video: Path, seconds: float) -> Path:
    """The 5-fps copy's frames decoded once into shared memory (BGR, frame after frame; the shape beside it):
    what a camera hands its agent, which decodes it to record anyway. Decoding it again in 24 agents would cost
    this test a core that the product does not spend."""
    import av
    import numpy as np

    out = Path("/dev/shm") / f"bgscribe-bench-{video.stem}-{seconds:g}s.bgr"
    if out.is_file() and out.with_suffix(".bgr.json").is_file():
        return out
    with av.open(str(video)) as src:
        s = src.streams.video[0]
        n = min(int(s.frames or 10 ** 6), int(seconds * LIVE_FPS))
        frames = np.memmap(out, np.uint8, "w+", shape=(n, s.height, s.width, 3))
        k = 0
        for frame in src.decode(s):
            if k >= n:
                break
            frames[k] = frame.to_ndarray(format="bgr24")
            k += 1
        frames.flush()
    out.with_suffix(".bgr.json").write_text(json.dumps([k, s.height, s.width, 3]))
    return out


def rendition(video: Path, fps: float) -> Path:
    """The footage at `fps` frames a second (every n-th frame, encoded once, cached): what the live observer takes."""
    import av

    out = video.with_name(f"{video.stem}-live{fps:g}.mp4")
    if out.is_file():
        return out
    part = out.with_suffix(".part.mp4")
    with av.open(str(video)) as src, av.open(str(part), "w") as dst:
        s_in = src.streams.video[0]
        step = max(1, round(float(s_in.average_rate) / fps))
        s_out = dst.add_stream("libx264", rate=int(fps))
        s_out.width, s_out.height, s_out.pix_fmt = s_in.width, s_in.height, "yuv420p"
        s_out.codec_context.time_base = Fraction(1, int(fps))
        s_out.options = {"preset": "veryfast", "crf": "20", "g": str(int(fps * 2))}
        for k, frame in enumerate(src.decode(s_in)):
            if k % step:
                continue
            frame.pts, frame.time_base = k // step, Fraction(1, int(fps))
            for p in s_out.encode(frame):
                dst.mux(p)
        for p in s_out.encode(None):
            dst.mux(p)
    part.replace(out)
    return out


# ------------------------------------------------------------------------------------------------ one agent

def agent_main(a) -> int:
    """(a child process) One board: segments replayed through the spool and uploader, frames to the live observer."""
    import numpy as np

    from capture.live_observer import LiveObserver
    from capture.uploader import Client

    segments = sorted(Path(a.segments).glob("*.mp4"))[: a.count]
    rep = ReplayAgent(a.board, a.token, a.url, Path(a.spool), segments, a.segment_seconds, a.fps, a.t0)
    live = LiveObserver(Client(a.url, a.token, a.board), LIVE_FPS)
    live.start()
    rep.start()
    shape = json.loads(Path(a.live + ".json").read_text())
    frames = np.memmap(a.live, np.uint8, "r", shape=tuple(shape))  # the camera's frames, as the agent has them
    for k in range(len(frames)):
        ft = k / LIVE_FPS
        if ft >= a.seconds:
            break
        wall = a.t0 + ft
        delay = wall - time.time()
        if delay > 0:
            time.sleep(delay)
        live.offer(wall, np.array(frames[k]))
    rep.join()
    time.sleep(2 * 0.5 + 1)  # the last posts
    live.stop()
    live.join(5)
    cpu = time.process_time()  # (the live part's: the footage and its last posts)
    # a real agent goes on uploading what its spool holds (`capture` drains it at shutdown): this one too, or the
    # record is cut short wherever uploads lag behind a loaded server
    rep.uploader.drain(a.drain_seconds)
    print(json.dumps({"board": a.board, "observed": live.observed, "dropped": live.dropped, "posted": live.posted,
                      "where": live.where, "frames_sent": live.sent, "sent": rep.sent, "left": rep.spool.count(),
                      "cpu_s": round(cpu, 2),
                      "error": live.last_error}), flush=True)
    return 0


# ------------------------------------------------------------------------------------------------ the viewers

def viewers_main(a) -> int:
    """(a child process) V feed connections over the boards until SIGTERM; then one JSON line: per board the
    states its recorder got (wall time received, version, phase, actions, checkers), and the totals."""
    import httpx

    boards = [int(x) for x in a.boards.split(",")]
    states: dict[int, list] = {b: [] for b in boards}
    counts = {"events": 0, "bytes": 0, "connections": 0, "errors": 0}
    stop = asyncio.Event()

    async def one(client, board: int, record: bool):
        url = f"/api/v1/live/boards/{board}/feed"
        while not stop.is_set():
            try:
                async with client.stream("GET", url) as r:
                    counts["connections"] += 1
                    data = None
                    async for line in r.aiter_lines():
                        counts["bytes"] += len(line) + 1
                        if line.startswith("data: "):
                            data = line[6:]
                        elif not line and data is not None:
                            counts["events"] += 1
                            if record:
                                st = json.loads(data)
                                states[board].append([time.time(), st["version"], st["phase"], st["game"],
                                                      [[x["player"], x["kind"], x["dice"], x["play"], x["settled"]]
                                                       for x in st["actions"]],
                                                      st["position"]["checkers"] if st["position"] else None])
                            data = None
                        if stop.is_set():
                            return
            except httpx.HTTPError:
                counts["errors"] += 1
                await asyncio.sleep(0.5)

    async def main():
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        limits = httpx.Limits(max_connections=a.viewers + 10, max_keepalive_connections=a.viewers + 10)
        async with httpx.AsyncClient(base_url=a.url, timeout=httpx.Timeout(30, read=None), limits=limits) as c:
            tasks = [asyncio.create_task(one(c, boards[k % len(boards)], k < len(boards))) for k in range(a.viewers)]
            await stop.wait()
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())
    Path(a.out).write_text(json.dumps({"states": states, **counts}))
    return 0


# ------------------------------------------------------------------------------------------------ the run

def _truth_positions(plays: list[dict]):
    """The position after each of the footage's plays, from the truth's notation."""
    from transcriber.position import Position

    pos, out = Position.opening(), []
    for p in plays:
        dice = None
        for play in _candidates(pos, p["player"]):
            if play.notation == p["play"]:
                dice = play
                break
        if dice is None:
            raise RuntimeError(f"the truth's play {p['play']} is not legal")
        pos = dice.result
        out.append(pos)
    return out


def _candidates(pos, player):
    from transcriber.moves import legal_plays

    for a in range(1, 7):
        for b in range(1, a + 1):
            yield from legal_plays(pos, player, (a, b))


def run(args) -> dict:
    import httpx

    from review_ui.db import Database
    from review_ui.models import Event

    w, h = (int(x) for x in args.size.split("x"))
    segments, plays = footage((w, h), args.fps, args.seconds, args.segment_seconds)
    key = segments[0].parent.name.rsplit("-", 1)[0]
    live_video = raw_frames(rendition(CACHE / f"{key}.mp4", LIVE_FPS), args.seconds)
    tmp = Path(tempfile.mkdtemp(prefix="bgscribe-live-"))
    data = tmp / "data"
    data.mkdir()
    admin = secrets.token_urlsafe(24)
    (tmp / "admin-token").write_text(admin)
    tokens = {n: secrets.token_urlsafe(18) for n in range(1, args.boards + 1)}
    (tmp / "board-tokens").write_text("".join(f"{n}={t}\n" for n, t in tokens.items()))
    db_url = f"sqlite:///{(data / 'bgscribe.db').resolve()}"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "BGSCRIBE_DATABASE_URL": db_url,
           "BGSCRIBE_PIPELINE_POLL_SECONDS": "0.5", "PYTHONPATH": str(ROOT)}
    env.pop("BGSCRIBE_CONFIG", None)
    procs: list[subprocess.Popen] = []
    out: dict = {"benchmark": "live", "boards": args.boards, "viewers": args.viewers, "seconds": args.seconds,
                 "size": args.size, "fps": args.fps, "live_fps": LIVE_FPS,
                 "segment_seconds": args.segment_seconds, "truth_plays_per_board": len(plays)}
    try:
        server = subprocess.Popen(
            [sys.executable, "-m", "bgscribe", "serve", "--data", str(data), "--port", str(port),
             "--admin-token-file", str(tmp / "admin-token"), "--board-tokens", str(tmp / "board-tokens"),
             "--event", "Live test", "--purge-interval", "0"],
            stdout=open(tmp / "server.log", "w"), stderr=subprocess.STDOUT, env=env,  # noqa: SIM115
            start_new_session=True)
        procs.append(server)
        _wait_http(url)
        staff = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {admin}"}, timeout=30)
        event_id = staff.get("/api/v1/events").json()[0]["id"]
        db = Database(db_url, run_migrations=False)
        with db.session() as s:  # (the director's switch, set here directly: the bench owns the database)
            ev = s.get(Event, event_id)
            ev.live_public = True
            s.commit()
        t0 = time.time() + 8  # (the agents load their models meanwhile)
        started = datetime.fromtimestamp(t0 - 1, UTC).replace(tzinfo=None)
        matches = {}
        for n in tokens:
            r = staff.post("/api/v1/matches", json={"event_id": event_id, "board": n, "player1": f"A{n}",
                                                    "player2": f"B{n}", "started_at": started.isoformat()})
            r.raise_for_status()
            matches[n] = r.json()["id"]
        viewers = subprocess.Popen([sys.executable, __file__, "--viewers-mode", "--url", url, "--viewers",
                                    str(args.viewers), "--board-list", ",".join(map(str, tokens)),
                                    "--out", str(tmp / "viewers.json")], env=env, start_new_session=True)
        procs.append(viewers)
        agents = []
        for n in tokens:
            start_n = t0 + args.segment_seconds * (n - 1) / args.boards
            agents.append(subprocess.Popen(
                [sys.executable, __file__, "--agent-mode", "--board", str(n), f"--token={tokens[n]}", "--url", url,
                 "--t0", repr(start_n), "--segments-dir", str(segments[0].parent), "--count", str(len(segments)),
                 "--spool", str(tmp / "spool" / f"b{n:02d}"), "--live", str(live_video),
                 "--seconds", str(args.seconds), "--segment-seconds", str(args.segment_seconds),
                 "--fps", str(args.fps), "--drain-seconds", str(args.drain_seconds)],
                stdout=subprocess.PIPE, stderr=open(tmp / f"agent-{n}.log", "w"), env=env,  # noqa: SIM115
                text=True, start_new_session=True))
        procs += agents
        time.sleep(max(0.0, t0 - time.time()))
        c_server, c_tree = own_cpu(server.pid), cpu_seconds(server.pid)
        c_view = own_cpu(viewers.pid)
        wall0 = time.time()
        # the CPU shares are those of the live part: until the last board's footage and its last posts end
        time.sleep(max(0.0, t0 + args.segment_seconds * (args.boards - 1) / args.boards + args.seconds + 3
                       - time.time()))
        wall = time.time() - wall0
        out["cpu_server_own_core_share"] = round((own_cpu(server.pid) - c_server) / wall, 3)
        out["cpu_server_children_core_share"] = round((cpu_seconds(server.pid) - c_tree - own_cpu(server.pid)
                                                       + c_server) / wall, 3)
        out["cpu_viewers_core_share"] = round((own_cpu(viewers.pid) - c_view) / wall, 3)
        reports = []
        for n, p in zip(tokens, agents):  # (each has uploaded its spool, or given up after --drain-seconds)
            got, _ = p.communicate(timeout=args.seconds + args.segment_seconds + args.drain_seconds + 600)
            if got.strip():
                reports.append(json.loads(got.strip().splitlines()[-1]))
            else:  # (what it said last: an agent that never started is otherwise one board short, unexplained)
                said = (tmp / f"agent-{n}.log").read_text(errors="replace").strip().splitlines()
                reports.append({"error": f"board {n}: no report (exit status {p.returncode}): "
                                         f"{said[-1] if said else 'nothing said'}"})
        # each agent's own CPU over its footage (loading its models included), summed: a share of one core
        out["cpu_agents_core_share"] = round(sum(r.get("cpu_s", 0.0) for r in reports) / args.seconds, 3)
        out["agents"] = {"observed": sum(r.get("observed", 0) for r in reports),
                         "dropped_frames": sum(r.get("dropped", 0) for r in reports),
                         "posted": sum(r.get("posted", 0) for r in reports),
                         "handed_to_the_server": sum(r.get("where") == "server" for r in reports),
                         "frames_sent": sum(r.get("frames_sent", 0) for r in reports),
                         "segments_never_uploaded": sum(r.get("left", 0) for r in reports),
                         "errors": [r["error"] for r in reports if r.get("error")]}
        # the match ends with its footage (as staff would set it); then the record is finished
        ended, answers = {}, []
        for n in tokens:
            last_end = t0 + args.segment_seconds * (n - 1) / args.boards + len(segments) * args.segment_seconds
            ended[n] = last_end
            end = datetime.fromtimestamp(last_end + 1, UTC).replace(tzinfo=None)
            answers.append(_staff_patch(staff, f"/api/v1/matches/{matches[n]}", {"ended_at": end.isoformat()}))
        # how long the staff wait for the server while it finishes the record (a desk that hangs is a broken desk)
        out["staff_answer_s"] = pct(answers)
        settled = _settled(db, len(tokens) * len(segments), len(tokens), time.time() + args.drain_seconds, [])
        out["pipeline_settled"] = settled
        ready = _transcripts_ready(db, matches)
        viewers.send_signal(signal.SIGTERM)
        viewers.wait(60)
        seen = json.loads((tmp / "viewers.json").read_text())
        out.update(_figures(db, seen, plays, matches, ready, {n: t0 + args.segment_seconds * (n - 1) / args.boards
                                                              for n in tokens}))
        # (here the match ends when its footage does: staff mark it when the score sheet is signed)
        out["transcript_ready_after_match_end_s"] = pct([ready[n] - ended[n] for n in ready])
        out["wall_s"] = round(wall, 1)
        db.dispose()
    finally:
        stop_all(procs)
        live_video.unlink(missing_ok=True)
        live_video.with_suffix(".bgr.json").unlink(missing_ok=True)
    if args.keep:
        shutil.copytree(tmp, args.keep, dirs_exist_ok=True)
    shutil.rmtree(tmp, ignore_errors=True)
    return out


def _staff_patch(staff, path: str, body: dict, tries: int = 4) -> float:
    """PATCH as the staff do; a timeout is tried again, up to ``tries`` in all (a slow server is a figure, not a
    crash). The seconds until the server answered."""
    import httpx

    t = time.time()
    for _ in range(tries - 1):
        try:
            staff.patch(path, json=body).raise_for_status()
            return time.time() - t
        except httpx.TimeoutException:
            pass
    staff.patch(path, json=body).raise_for_status()
    return time.time() - t


def _transcripts_ready(db, matches: dict[int, int]) -> dict[int, float]:
    """Per board, when its match's transcript was last written (wall time): the one of all its footage, once the
    pipeline has settled (a transcript made before the last segment was observed is replaced after it)."""
    from sqlalchemy import select

    from review_ui.review_models import Transcript

    boards = {m: n for n, m in matches.items()}
    with db.session() as s:
        return {boards[t.match_id]: t.updated_at.replace(tzinfo=UTC).timestamp()
                for t in s.scalars(select(Transcript)) if t.match_id in boards}


def _figures(db, seen: dict, plays: list[dict], matches: dict, ready: dict, t0s: dict) -> dict:
    from sqlalchemy import select

    from review_ui.review_models import Transcript

    truth = _truth_positions(plays)
    with db.session() as s:
        docs = {}
        for t in s.scalars(select(Transcript)):
            board = next(n for n, m in matches.items() if m == t.match_id)
            docs[board] = json.loads(t.doc_json)
    latency, never, equal, strays, sent = [], 0, {}, 0, 0
    ready_lag = []
    for board_s, states in seen["states"].items():
        board = int(board_s)
        sent += len(states)
        t0 = t0s[board]
        # latency: the first state (of game 1) showing the position after play k, with at least k plays in it
        for k, (p, pos) in enumerate(zip(plays, truth)):
            # (the decoder numbers the light player 0, the truth may not: either way round)
            want = ([list(pos.sides[0]), list(pos.sides[1])], [list(pos.sides[1]), list(pos.sides[0])])
            first = next((st[0] for st in states if st[3] == 1 and st[5] in want
                          and sum(a[1] == "move" for a in st[4]) >= k + 1), None)
            if first is None:
                never += 1
            else:
                latency.append(first - (t0 + p["t"]))
        doc = docs.get(board)
        if doc is not None and states:
            # the plays (dice in either order: the live and the recorded footage are read apart); the record may
            # hold one more, being played when the footage ended (the live view shows it as "playing")
            record = [(a["player"], sorted(a["dice"]), a.get("play") or "Cannot Move") for g in doc["games"]
                      for a in g["actions"] if a["kind"] == "move"]
            shown = [(a[0], sorted(a[2]), a[3]) for a in states[-1][4] if a[1] == "move"]
            equal[board] = record[:len(shown)] == shown and len(shown) >= len(record) - 1
            positions = {json.dumps(x) for x in _record_positions(doc)}
            strays += len({json.dumps(st[5]) for st in states if st[5] is not None} - positions)
        if board in ready:
            last_play = t0 + plays[-1]["t"]
            ready_lag.append(ready[board] - last_play)
    return {"latency_s": pct(latency), "plays_never_shown": never,
            "feed_equals_record": {"boards": len(equal), "equal": sum(equal.values())},
            "positions_shown_not_in_record": strays, "transcripts": len(docs),
            "transcript_ready_after_last_play_s": pct(ready_lag), "states_recorded": sent,
            "events_sent": seen["events"], "bytes_sent": seen["bytes"], "viewer_connections": seen["connections"],
            "viewer_errors": seen["errors"]}


def _record_positions(doc) -> list:
    """Every position the transcript passes through (each game from the opening)."""
    from transcriber.moves import legal_plays
    from transcriber.position import Position

    out = []
    for g in doc["games"]:
        pos = Position.opening()
        out.append([list(pos.sides[0]), list(pos.sides[1])])
        for a in g["actions"]:
            if a["kind"] == "move" and a.get("play") and a["play"] != "Cannot Move":
                pos = next(p.result for p in legal_plays(pos, a["player"], tuple(a["dice"]))
                           if p.notation == a["play"])
                out.append([list(pos.sides[0]), list(pos.sides[1])])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", type=int, default=4)
    ap.add_argument("--viewers", type=int, default=40, help="feed connections, spread over the boards (default 40)")
    ap.add_argument("--seconds", type=float, default=120, help="footage each board replays (default 120)")
    ap.add_argument("--segment-seconds", type=float, default=60)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--fps", type=float, default=15)
    ap.add_argument("--drain-seconds", type=float, default=300,
                    help="how long to wait after the footage for the transcripts (default 300)")
    ap.add_argument("--keep", metavar="DIR", help="copy the run's data and logs here")
    # (the child processes' own modes)
    ap.add_argument("--agent-mode", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--viewers-mode", action="store_true", help=argparse.SUPPRESS)
    for name in ("--board", "--count"):
        ap.add_argument(name, type=int, help=argparse.SUPPRESS)
    for name in ("--token", "--url", "--segments-dir", "--spool", "--live", "--board-list", "--out"):
        ap.add_argument(name, help=argparse.SUPPRESS)
    ap.add_argument("--t0", type=float, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.agent_mode:
        args.segments = args.segments_dir
        return agent_main(args)
    if args.viewers_mode:
        args.boards = args.board_list
        return viewers_main(args)
    print(json.dumps(run(args), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
