"""Load test: N boards' capture agents upload at real-time pace into one server; W workers observe and decode.

Prints JSON. Everything runs on 127.0.0.1: a real Redis (the job queue), `bgscribe serve --broker`, W `bgscribe
worker` processes and N capture agents. At a venue each agent has a small machine of its own; N H.264 encoders
would not fit beside the server on this one, so each agent here replays segments encoded beforehand (one
rendered game at --size/--fps, cut at its keyframes into --segment-seconds pieces) through the agent's real
spool, uploader and heartbeats: a segment enters the spool when its last second has passed on the clock. The
boards start staggered over one segment's length, as agents started by hand do.

Half way through, one worker is killed (SIGKILL) while it holds a job, and a new one started: its job must be
redone (tried twice, no duplicate rows) and its board's transcript must equal every other board's (all replay
the same footage). Figures: segments sent, stored and lost (must be 0); per segment the lag from its end to its
observations and to the score that includes it (p50/p95/max seconds); the CPU of the server and the workers
(their camera-stage children included) per board, as a share of one core; transcripts made against matches
played, and their plays against the rendered truth's within the footage.

    .venv/bin/python tests/bench/bench_event.py --boards 8 --seconds 180 --workers 1
    .venv/bin/python tests/bench/bench_event.py --boards 24 --seconds 300 --workers 1 --size 1280x720 --fps 15
    .venv/bin/python tests/bench/bench_event.py --boards 24 --seconds 300 --workers 1 --jobs 1   # one job at a time
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from capture.manifest import Manifest, iso, segment_id  # noqa: E402
from capture.spool import Spool  # noqa: E402
from capture.uploader import Client, Uploader  # noqa: E402
from tests.capture.helpers import free_port  # noqa: E402
from tests.redis_server import redis_server  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
CACHE = Path(tempfile.gettempdir()) / "bgscribe-bench" / "event-footage"


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process and of its descendants: those alive, and those that ended (the children a
    process has waited for count in its own figures). A worker's camera-stage jobs are forked by its fork server
    (review_ui/job_processes.py), its child: they count there once ended, as they run while they run."""
    stats = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                f = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(d.name)] = (int(f[1]), sum(int(x) for x in f[11:15]))  # (parent, own + waited-for ticks)
    if pid not in stats:
        return 0.0
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += stats[p][1]
        todo += [c for c, (parent, _) in stats.items() if parent == p]
    return total / TICK


def pct(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    v = sorted(values)
    return {"n": len(v), "p50": round(statistics.median(v), 2), "p95": round(v[min(len(v) - 1, int(0.95 * len(v)))], 2),
            "max": round(v[-1], 2)}


# ------------------------------------------------------------------------------------------------ footage

def footage(size: tuple[int, int], fps: float, seconds: float, seg_s: float) -> tuple[list[Path], list[dict]]:
    """The first game of a bundled real match rendered once (cached), cut at keyframes into `seg_s`-second
    segments covering `seconds`; and the truth's plays within them."""
    import av

    from bgscribe.demo import SAMPLES
    from transcriber.mat import parse_mat
    from vision.synth.video import render_match

    key = f"{SAMPLES[0].stem}-{size[0]}x{size[1]}-{fps:g}-{seconds:g}s"
    video, truth = CACHE / f"{key}.mp4", CACHE / f"{key}.jsonl"
    if not video.is_file() or not truth.is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        print(f"rendering the footage once ({key}) ...", file=sys.stderr)
        record = parse_mat(SAMPLES[0].read_text(), SAMPLES[0].name)
        render_match(record, video.with_suffix(".part.mp4"), truth.with_suffix(".part"), fps=fps, size=size,
                     games=1, progress=False, until_s=seconds + 2)
        truth.with_suffix(".part").replace(truth)
        video.with_suffix(".part.mp4").replace(video)
    cut = CACHE / f"{key}-{seg_s:g}s"
    n = int(seconds // seg_s)
    paths = [cut / f"{k:03d}.mp4" for k in range(n)]
    if not all(p.is_file() for p in paths):
        cut.mkdir(parents=True, exist_ok=True)
        with av.open(str(video)) as src:
            s_in = src.streams.video[0]
            k, dst, s_out = -1, None, None
            for p in src.demux(s_in):
                if p.dts is None:
                    continue
                t = float(p.pts * s_in.time_base)
                if p.is_keyframe and t >= (k + 1) * seg_s - 1e-6:
                    if dst is not None:
                        dst.close()
                    k += 1
                    if k >= n:
                        dst = None
                        break
                    dst = av.open(str(cut / f"{k:03d}.mp4"), "w")
                    s_out = dst.add_stream_from_template(s_in)
                if dst is not None:
                    p.stream = s_out
                    dst.mux(p)
            if dst is not None:
                dst.close()
    lines = [json.loads(x) for x in truth.read_text().splitlines()]
    plays = [e for e in lines if e.get("type") == "event" and e.get("kind") == "play" and e["t"] < n * seg_s]
    return paths[:n], plays


# ------------------------------------------------------------------------------------------------ agents

class ReplayAgent(threading.Thread):
    """One board's agent without camera and encoder: the real spool, uploader and heartbeat client."""

    def __init__(self, board: int, token: str, url: str, spool: Path, segments: list[Path], seg_s: float,
                 fps: float, t0: float):
        super().__init__(name=f"agent-{board}", daemon=True)
        self.board, self.segments, self.seg_s, self.t0 = board, segments, seg_s, t0
        self.spool = Spool(spool)
        self.client = Client(url, token, board)
        self.uploader = Uploader(self.spool, Client(url, token, board), retry_max=5.0)
        self.sent: list[str] = []
        self.frames = int(round(seg_s * fps))
        self.stop_event = threading.Event()

    def run(self) -> None:
        self.uploader.start()
        beat = 0.0
        for k, video in enumerate(self.segments):
            start, end = self.t0 + k * self.seg_s, self.t0 + (k + 1) * self.seg_s
            while time.time() < end and not self.stop_event.is_set():
                if time.time() - beat >= 10:
                    self._heartbeat()
                    beat = time.time()
                time.sleep(min(0.5, max(0.0, end - time.time())))
            if self.stop_event.is_set():
                break
            sid = segment_id(self.board, start)
            dest = self.spool.folder / f"{sid}.mp4"
            shutil.copyfile(video, dest)
            data = dest.read_bytes()
            Manifest(board=self.board, segment_id=sid, start=iso(start), end=iso(end), frames=self.frames,
                     dropped_frames=0, sha256=hashlib.sha256(data).hexdigest(), bytes=len(data), source="bench replay",
                     closed="length").write(self.spool.folder / f"{sid}.json")
            self.sent.append(sid)
            self.uploader.wake.set()
        self._heartbeat()

    def _heartbeat(self) -> None:
        with contextlib.suppress(Exception):  # the uploader says when the server is down
            self.client.heartbeat({"board": self.board, "state": "recording", "fps": 15.0, "frames": 0,
                                   "dropped_frames": 0, "spool_segments": self.spool.count(),
                                   "spool_bytes": self.spool.size_bytes(), "free_disk_bytes": self.spool.free_bytes(),
                                   "last_segment": self.sent[-1] if self.sent else "", "error": "",
                                   "sent_at": iso(time.time())})


# ------------------------------------------------------------------------------------------------ the run

def _wait_http(url: str, seconds: float = 60) -> None:
    import httpx

    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if httpx.get(f"{url}/api/v1/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"the server at {url} did not come up")


def _worker(data: Path, broker: str, env: dict, log: Path, jobs: int = 1) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bgscribe", "worker", "--data", str(data), "--broker", broker,
                             "--jobs", str(jobs)],
                            stdout=open(log, "a"), stderr=subprocess.STDOUT, env=env, start_new_session=True)


def _running_job_of(db, pid: int):
    from sqlalchemy import select

    from review_ui.pipeline_models import RUNNING, PipelineJob

    with db.session() as s:
        return s.scalars(select(PipelineJob).where(PipelineJob.state == RUNNING,
                                                   PipelineJob.worker.like(f"%:{pid}"))).first()


def stop_all(procs: list[subprocess.Popen]) -> None:
    """SIGTERM to each process group still running, then SIGKILL to any not gone within 30 s."""
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)


def run(args) -> dict:
    import httpx

    from review_ui.db import Database

    w, h = (int(x) for x in args.size.split("x"))
    segments, plays = footage((w, h), args.fps, args.seconds, args.segment_seconds)
    tmp = Path(tempfile.mkdtemp(prefix="bgscribe-event-"))
    data = tmp / "data"
    data.mkdir()
    admin = secrets.token_urlsafe(24)
    (tmp / "admin-token").write_text(admin)
    tokens = {n: secrets.token_urlsafe(18) for n in range(1, args.boards + 1)}
    (tmp / "board-tokens").write_text("".join(f"{n}={t}\n" for n, t in tokens.items()))
    db_url = args.database_url or f"sqlite:///{(data / 'bgscribe.db').resolve()}"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "BGSCRIBE_DATABASE_URL": db_url,
           "BGSCRIBE_PIPELINE_POLL_SECONDS": "0.5", "BGSCRIBE_BROKER_HEARTBEAT_SECONDS": "10",
           "PYTHONPATH": str(ROOT)}
    env.pop("BGSCRIBE_CONFIG", None)
    procs: list[subprocess.Popen] = []
    out: dict = {"boards": args.boards, "workers": args.workers, "jobs_per_worker": args.jobs, "seconds": args.seconds,
                 "segment_seconds": args.segment_seconds, "size": args.size, "fps": args.fps,
                 "database": db_url.split(":", 1)[0], "segments_per_board": len(segments)}
    with redis_server(tmp / "redis") as broker:
        try:
            server = subprocess.Popen(
                [sys.executable, "-m", "bgscribe", "serve", "--data", str(data), "--port", str(port), "--broker",
                 broker, "--admin-token-file", str(tmp / "admin-token"), "--board-tokens", str(tmp / "board-tokens"),
                 "--event", "Load test", "--purge-interval", "0"],
                stdout=open(tmp / "server.log", "w"),  # noqa: SIM115 - the child's
                stderr=subprocess.STDOUT, env=env, start_new_session=True)
            procs.append(server)
            _wait_http(url)
            staff = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {admin}"}, timeout=30)
            event_id = staff.get("/api/v1/events").json()[0]["id"]
            t0 = time.time() + 2
            started = datetime.fromtimestamp(t0 - 1, UTC).replace(tzinfo=None)
            matches = {}
            for n in tokens:
                r = staff.post("/api/v1/matches", json={"event_id": event_id, "board": n, "player1": f"A{n}",
                                                        "player2": f"B{n}", "started_at": started.isoformat()})
                r.raise_for_status()
                matches[n] = r.json()["id"]
            workers = [_worker(data, broker, env, tmp / f"worker-{i}.log", args.jobs) for i in range(args.workers)]
            procs += workers
            db = Database(db_url, run_migrations=False)
            agents = [ReplayAgent(n, tokens[n], url, tmp / "spool" / f"b{n:02d}", segments, args.segment_seconds,
                                  args.fps, t0 + args.segment_seconds * (n - 1) / args.boards) for n in tokens]
            c0 = {p.pid: cpu_seconds(p.pid) for p in procs}
            wall0 = time.time()
            for a in agents:
                a.start()
            killed = None
            deadline = t0 + args.seconds + args.segment_seconds
            while any(a.is_alive() for a in agents):
                time.sleep(1)
                if killed is None and workers and args.kill and time.time() >= t0 + args.seconds / 2:
                    job = _running_job_of(db, workers[0].pid)
                    if job is not None:
                        cpu_dead = cpu_seconds(workers[0].pid)
                        os.killpg(workers[0].pid, signal.SIGKILL)
                        workers[0].wait(10)
                        killed = {"job": job.id, "kind": job.kind, "at_s": round(time.time() - t0, 1),
                                  "cpu_s": cpu_dead}
                        fresh = _worker(data, broker, env, tmp / "worker-replacement.log", args.jobs)
                        workers.append(fresh)
                        procs.append(fresh)
                        c0[fresh.pid] = cpu_seconds(fresh.pid)
            for n in tokens:
                last_end = t0 + args.segment_seconds * (n - 1) / args.boards + len(segments) * args.segment_seconds
                end = datetime.fromtimestamp(last_end + 1, UTC).replace(tzinfo=None)
                staff.patch(f"/api/v1/matches/{matches[n]}", json={"ended_at": end.isoformat()}).raise_for_status()
            # wait for the spools to drain and the pipeline to finish (a backlog is worked off, never dropped)
            finish_by = max(deadline, time.time()) + args.drain_seconds
            done = _settled(db, len(tokens) * len(segments), len(tokens), finish_by, agents)
            cpu = sum(cpu_seconds(p.pid) - c0.get(p.pid, 0) for p in procs if p.poll() is None)
            cpu += killed["cpu_s"] - c0.get(workers[0].pid, 0) if killed else 0
            wall = time.time() - wall0
            out.update(figures(db, agents, plays, killed, done))
            out["cpu_per_board_core_share"] = round(cpu / wall / args.boards, 3)
            out["cpu_total_core_share"] = round(cpu / wall, 2)
            out["cpu_server_core_share"] = round((cpu_seconds(server.pid) - c0[server.pid]) / wall, 3)
            out["wall_s"] = round(wall, 1)
            db.dispose()
        finally:
            stop_all(procs)
    if args.keep:
        shutil.copytree(tmp, args.keep, dirs_exist_ok=True)
    shutil.rmtree(tmp, ignore_errors=True)
    return out


def _settled(db, segments: int, matches: int, until: float, agents) -> bool:
    """Wait until every segment is stored and observed, every match has its transcript and no job is left to do,
    twice in a row some seconds apart (the server schedules a last transcription after the last observation)."""
    from sqlalchemy import func, select

    from review_ui.models import Segment
    from review_ui.pipeline_models import DONE, FAILED, OBSERVE, QUEUED, RUNNING, PipelineJob
    from review_ui.review_models import Transcript

    quiet = 0
    while time.time() < until:
        with db.session() as s:
            stored = s.scalar(select(func.count(Segment.id)))
            observed = s.scalar(select(func.count(PipelineJob.id)).where(PipelineJob.kind == OBSERVE,
                                                                       PipelineJob.state.in_((DONE, FAILED))))
            transcripts = s.scalar(select(func.count(Transcript.id)))
            busy = s.scalar(select(func.count(PipelineJob.id)).where(PipelineJob.state.in_((QUEUED, RUNNING))))
        done = stored >= segments and observed >= segments and transcripts >= matches and not busy
        quiet = quiet + 1 if done else 0
        if quiet >= 3:
            return True
        time.sleep(2)
    return False


def figures(db, agents, plays: list[dict], killed: dict | None, settled: bool) -> dict:
    import json as _json

    from sqlalchemy import select

    from review_ui.models import Board, Match, Segment
    from review_ui.pipeline_models import DONE, OBSERVE, TRANSCRIBE, PipelineJob
    from review_ui.review_models import Transcript

    sent = sum(len(a.sent) for a in agents)
    left = sum(a.spool.count() for a in agents)
    with db.session() as s:
        segs = {g.id: g for g in s.scalars(select(Segment))}
        jobs = s.scalars(select(PipelineJob)).all()
        observe = [j for j in jobs if j.kind == OBSERVE]
        obs_lag = [(j.finished_at - segs[j.segment_id].end).total_seconds() for j in observe
                   if j.state == DONE and j.finished_at]
        first_score: dict[int, datetime] = {}
        for j in sorted((j for j in jobs if j.kind == TRANSCRIBE and j.state == DONE), key=lambda j: j.finished_at):
            for sid in j.inputs.split(";")[0].split(","):
                if sid.isdigit():
                    first_score.setdefault(int(sid), j.finished_at)
        score_lag = [(t - segs[i].end).total_seconds() for i, t in first_score.items() if i in segs]
        per_segment = {}
        for j in observe:
            per_segment[j.segment_id] = per_segment.get(j.segment_id, 0) + 1
        docs = {}
        for t in s.scalars(select(Transcript)):
            m = s.get(Match, t.match_id)
            board = s.get(Board, m.board_id).number
            docs[board] = _json.loads(t.doc_json)
        matches = s.scalars(select(Match)).all()
        kill = None
        if killed:
            j = s.get(PipelineJob, killed["job"])
            kill = {"job": j.id, "kind": j.kind, "killed_at_s": killed["at_s"], "state": j.state,
                    "attempts": j.attempts}
    # plays in order (who is player 1 on the match sheet is the staff's business, not the footage's)
    truth = [p["play"] for p in plays]

    def moves(doc):
        return [a.get("play", "") for g in doc["games"] for a in g["actions"] if a["kind"] == "move"]

    right = {b: sum(x == y for x, y in zip(moves(d), truth)) for b, d in docs.items()}
    reference = next(iter(docs.values()), None)
    out = {"segments_sent": sent, "segments_stored": len(segs), "segments_lost": sent - len(segs) - left,
           "segments_left_in_spools": left, "settled": settled,
           "duplicate_observe_rows": sum(1 for c in per_segment.values() if c > 1),
           "observe_lag_s": pct(obs_lag), "score_lag_s": pct(score_lag),
           "matches": len(matches), "transcripts": len(docs),
           "truth_plays_in_footage": len(truth),
           "transcript_plays_right": {"min": min(right.values(), default=0), "max": max(right.values(), default=0)},
           "transcripts_identical": bool(docs) and all(d["games"] == reference["games"] for d in docs.values()),
           "worker_killed": kill}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=180, help="footage each board replays (default 180)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="jobs at a time in each worker (`bgscribe worker --jobs`; default: its default, this "
                         "machine's cores)")
    ap.add_argument("--segment-seconds", type=float, default=60, help="segment length (the agent's default: 60)")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--fps", type=float, default=15)
    ap.add_argument("--database-url", help="SQLAlchemy URL (default: SQLite in the run's data folder)")
    ap.add_argument("--no-kill", dest="kill", action="store_false", help="do not kill a worker half way")
    ap.add_argument("--drain-seconds", type=float, default=600,
                    help="how long to wait after the last segment for the backlog to be worked off (default 600)")
    ap.add_argument("--keep", metavar="DIR", help="copy the run's data, logs and database here")
    ap.add_argument("--json", action="store_true", help="(the output is always JSON)")
    args = ap.parse_args()
    print(json.dumps(run(args), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
