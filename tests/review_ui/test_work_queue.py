"""The job queue (review_ui/work_queue.py): Dramatiq on a real Redis, `bgscribe worker` processes, a worker killed.

The claim rules are tested on the database alone; the rest goes through a real broker and real worker processes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from review_ui.app import create_app
from review_ui.config import Settings
from review_ui.models import Segment
from review_ui.pipeline import MAX_ATTEMPTS, Pipeline, observations_path, one_a_board
from review_ui.pipeline_models import DONE, FAILED, OBSERVE, QUEUED, RUNNING, TRANSCRIBE, PipelineJob
from review_ui.services import create_event, create_match, register_board
from review_ui.work_queue import QueueError, WorkQueue

from ..capture.helpers import needs_ffmpeg, wait_for
from ..redis_server import redis_url  # noqa: F401 - a fixture
from .conftest import ADMIN, TOKEN, auth
from .test_ingest import BASE
from .test_pipeline import footage  # noqa: F401 - a fixture

ROOT = Path(__file__).resolve().parents[2]


def _set(client, job_id, **values):
    with client.app_state.db.session() as s:
        j = s.get(PipelineJob, job_id)
        for k, v in values.items():
            setattr(j, k, v)
        s.commit()


def _row(client, job_id) -> PipelineJob:
    with client.app_state.db.session() as s:
        return s.get(PipelineJob, job_id)


@needs_ffmpeg
def test_a_job_is_claimed_by_its_delivery_once_and_a_duplicate_message_is_dropped(client, footage):  # noqa: F811
    st = client.app_state
    p = Pipeline(st.db, st.store, st.settings.data_dir)
    with st.db.session() as s:
        p.schedule(s)
        first = s.query(PipelineJob).filter_by(kind=OBSERVE).order_by(PipelineJob.id).first().id
    # A worker took it in message m1 and died: the row says running, under m1.
    _set(client, first, state=RUNNING, attempts=1, delivery="m1", worker="elsewhere:1")
    assert not p.execute(first, delivery="m2")  # a second message for the same job: taken, dropped
    assert not p.execute(first)  # nor may the server's own thread take a running job
    assert _row(client, first).attempts == 1
    assert p.execute(first, delivery="m1")  # m1 redelivered (its worker is dead): taken over and done
    row = _row(client, first)
    assert (row.state, row.attempts, row.delivery) == (DONE, 2, "m1") and row.worker.endswith(f":{os.getpid()}")
    finished = row.finished_at
    assert not p.execute(first, delivery="m1")  # delivered once more after it was done: nothing is redone
    assert _row(client, first).finished_at == finished
    # A job whose workers keep dying holding it (a video that kills them) fails instead of looping.
    with st.db.session() as s:
        second = s.query(PipelineJob).filter_by(kind=OBSERVE, state=QUEUED).one().id
    _set(client, second, state=RUNNING, attempts=MAX_ATTEMPTS, delivery="m3")
    assert p.execute(second, delivery="m3")
    row = _row(client, second)
    assert row.state == FAILED and "stopped mid-job too often" in row.error


@needs_ffmpeg
def test_the_server_sends_each_job_once_and_a_boards_segments_one_at_a_time(client, footage, redis_url):  # noqa: F811
    st = client.app_state
    queue = WorkQueue(redis_url)
    p = Pipeline(st.db, st.store, st.settings.data_dir, queue=queue)
    assert p.run_once()  # schedules both segments, sends the first: the second carries its board state on
    with st.db.session() as s:
        jobs = s.query(PipelineJob).filter_by(kind=OBSERVE).order_by(PipelineJob.id).all()
        assert [bool(j.delivery) for j in jobs] == [True, False] and all(j.state == QUEUED for j in jobs)
    assert queue.backlog() == 1
    assert queue.worker(p).queue_prefetch == 1  # a worker holds only the job it works on, none waits on it
    assert not p.run_once()  # nothing new to send
    _set(client, jobs[0].id, state=DONE)  # as a worker would
    assert p.run_once()
    assert queue.backlog() == 2 and all(_row(client, j.id).delivery for j in jobs)
    # no job is done by the server itself
    assert all(_row(client, j.id).attempts == 0 for j in jobs[1:])


def test_a_finished_matchs_transcription_comes_first_then_its_footage_then_other_footage_then_the_rest(client):
    """The order the server's own threads take queued jobs in, and the queue's dispatch sends them in."""
    from review_ui.models import Match
    from review_ui.pipeline_models import ANALYSE, FIRST, LEARN, NEXT_FIRST

    st = client.app_state
    with st.db.session() as s:
        ev = create_event(s, "Queue order")
        board = register_board(s, 1, TOKEN, ev)
        over = create_match(s, ev, board, datetime(2026, 12, 6, 10), "A", "B", datetime(2026, 12, 6, 11))
        playing = create_match(s, ev, board, datetime(2026, 12, 6, 11), "C", "D")

        def segment(n: int, *matches) -> Segment:  # (a minute of the board's footage, of these matches)
            start = datetime(2026, 12, 6, 10, 59) + timedelta(minutes=n)
            seg = Segment(board_id=board.id, event_id=ev.id, segment_id=f"s{n}", storage_key=f"k{n}", sha256="0" * 64,
                          bytes=1, start=start, end=start + timedelta(minutes=1), frames=1, manifest_json="{}",
                          received_at=start, matches=list(matches))
            s.add(seg)
            s.flush()
            return seg

        ending, later = segment(0, over, playing), segment(1, playing)  # (the end of one match, the next's start)
        before = segment(-1)  # (the camera on before the first match: footage of none)
        jobs = [(ANALYSE, over, None), (OBSERVE, None, later), (TRANSCRIBE, playing, None),
                (LEARN, over, None), (OBSERVE, None, ending), (TRANSCRIBE, over, None), (OBSERVE, None, before)]
        for kind, m, seg in jobs:
            s.add(PipelineJob(kind=kind, match_id=m.id if m else None, segment_id=seg.id if seg else None,
                              state=QUEUED, attempts=0, inputs="", result_json="", error="",
                              created_at=datetime(2026, 12, 6)))
        s.commit()
        ordered = s.query(PipelineJob).order_by(*NEXT_FIRST).all()
        got = [(j.kind, j.match_id, j.segment_id) for j in ordered]
        now = [(j.kind, j.match_id, j.segment_id) for j in one_a_board(s, ordered, set())]
        first = s.execute(select(PipelineJob.kind, PipelineJob.match_id, PipelineJob.segment_id).where(FIRST)).all()
        assert s.get(Match, over.id).ended_at is not None
        ids = (over.id, playing.id, ending.id, later.id, before.id)
    over, playing, ending, later, before = ids
    assert got == [(TRANSCRIBE, over, None), (OBSERVE, None, ending), (OBSERVE, None, later), (OBSERVE, None, before),
                   (ANALYSE, over, None), (TRANSCRIBE, playing, None), (LEARN, over, None)]
    # whatever the ranks, a board's footage is observed in order: its earliest segment first, one at a time
    assert now == [(TRANSCRIBE, over, None), (OBSERVE, None, before), (ANALYSE, over, None),
                   (TRANSCRIBE, playing, None), (LEARN, over, None)]
    assert sorted(first, key=str) == sorted([(TRANSCRIBE, over, None), (OBSERVE, None, ending)], key=str)


def test_a_final_transcription_is_not_kept_waiting_behind_footage_sent_before_it(redis_url):  # noqa: F811
    """Two boards' segments are sent, then a finished match's transcription: the worker (one job at a time) does
    the transcription before the second segment. (In one queue it waited behind every segment sent before it.)"""
    import threading

    queue = WorkQueue(redis_url)

    class Recorder:  # the worker's side of a pipeline: what it was given to do, in order
        stop_event = threading.Event()
        done: list[int] = []

        def execute(self, job_id: int, delivery: str = "") -> bool:
            time.sleep(0.5)  # (a job takes a while: the worker's consumers have fetched what there is)
            self.done.append(job_id)
            return True

    queue._send(1, "bgscribe-pipeline")
    queue._send(2, "bgscribe-pipeline")
    queue._send(3, "bgscribe-final")
    assert queue.backlog() == 3
    pipeline = Recorder()
    worker = queue.worker(pipeline, threads=1)
    worker.start()
    try:
        wait_for(lambda: len(pipeline.done) == 3, 30, "the three jobs")
    finally:
        worker.stop()
    assert pipeline.done.index(3) < pipeline.done.index(2), pipeline.done
    assert queue.backlog() == 0


def test_a_broker_that_does_not_answer_is_a_clear_error(tmp_path):
    dead = WorkQueue("redis://:queue-secret@127.0.0.1:9/0")  # nothing listens on the discard port
    with pytest.raises(QueueError, match="cannot reach the job queue at redis://:\\*\\*\\*@127.0.0.1:9/0") as e:
        dead.check()
    assert "queue-secret" not in str(e.value)
    with pytest.raises(QueueError, match="expected redis://"):
        WorkQueue("amqp://127.0.0.1/")
    r = subprocess.run([sys.executable, "-m", "bgscribe", "worker", "--data", str(tmp_path), "--broker",
                        "redis://127.0.0.1:9/0"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "bgscribe worker: cannot reach the job queue" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


# ---------------------------------------------------------------------------------------------- the whole way

def _render(tmp_path) -> tuple[bytes, dict]:
    video, truth = tmp_path / "g.mp4", tmp_path / "g.jsonl"
    p = subprocess.run([sys.executable, "-m", "bgscribe", "simulate", "random:9", "--games", "1", "--out",
                        str(video), "--truth", str(truth), "--fps", "2", "--size", "640x360"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return video.read_bytes(), json.loads(truth.read_text().splitlines()[0])


START = datetime(2026, 11, 30, 14, 0)


def _server(folder: Path, video: bytes, seconds: float, broker: str = "", database_url: str = ""):
    """A server (pipeline on, polling fast) with one match on board 7 whose footage is `video`."""
    import hashlib

    settings = Settings(data_dir=folder, admin_token=ADMIN, purge_interval_seconds=0, pipeline=True,
                        pipeline_poll_seconds=0.2, pr_ply=0, broker_url=broker, database_url=database_url)
    client = TestClient(create_app(settings))
    client.__enter__()
    st = client.app.state
    with st.db.session() as s:
        ev = create_event(s, "Queue test")
        b = register_board(s, 7, TOKEN, ev)
        create_match(s, ev, b, START, "Alice", "Bob", START + timedelta(seconds=seconds + 1))
        s.commit()
    sid = f"b07-{START:%Y%m%dT%H%M%S}000Z"
    iso = lambda d: d.isoformat(timespec="milliseconds") + "Z"  # noqa: E731
    manifest = {"board": 7, "segment_id": sid, "start": iso(START), "end": iso(START + timedelta(seconds=seconds)),
                "frames": 1, "dropped_frames": 0, "gaps": [], "sha256": hashlib.sha256(video).hexdigest(),
                "bytes": len(video)}
    assert client.post(f"{BASE}/7/segments", json=manifest, headers=auth()).status_code == 200
    chunk = 4 << 20
    for off in range(0, len(video), chunk):
        assert client.put(f"{BASE}/7/segments/{sid}/data", params={"offset": off}, content=video[off:off + chunk],
                          headers=auth()).status_code == 200
    assert client.post(f"{BASE}/7/segments/{sid}/complete", headers=auth()).status_code == 200
    return client


def _transcript(client):
    """The match's transcript once there is one; an AssertionError as soon as a job has failed for good."""
    from review_ui.review_models import Transcript

    failed = [j for j in _jobs(client) if j[1] == FAILED]
    assert not failed, failed
    with client.app.state.db.session() as s:
        t = s.query(Transcript).one_or_none()
        return None if t is None else json.loads(t.doc_json)


def _jobs(client) -> list[tuple]:
    with client.app.state.db.session() as s:
        return [(j.kind, j.state, j.attempts, j.worker, j.error) for j in s.query(PipelineJob).order_by("id")]


def _worker(folder: Path, broker: str, database_url: str, name: str) -> subprocess.Popen:
    """A `bgscribe worker` process, its log in FOLDER/../worker-NAME.log (a file: a pipe nobody reads fills up)."""
    env = {**os.environ, "BGSCRIBE_BROKER_HEARTBEAT_SECONDS": "3", "PYTHONPATH": str(ROOT)}
    env.pop("BGSCRIBE_CONFIG", None)
    with open(folder.parent / f"worker-{name}.log", "w") as log:
        return subprocess.Popen([sys.executable, "-m", "bgscribe", "worker", "--data", str(folder), "--broker",
                                 broker, "--database-url", database_url],
                                stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)


@needs_ffmpeg
def test_a_worker_killed_mid_job_is_replaced_and_the_transcript_is_the_same(tmp_path, redis_url,  # noqa: F811
                                                                             postgres_databases):
    """Workers on other machines share a PostgreSQL database; the record to match is the one-box server's on
    SQLite: the same transcript on both backends, a worker killed or not."""
    video, header = _render(tmp_path)
    # The record to match: the same footage through the server's own pipeline (one box, SQLite, no queue).
    one_box = _server(tmp_path / "one-box", video, header["duration"])
    try:
        expected = wait_for(lambda: _transcript(one_box), 300, "the one-box transcript")
        with one_box.app.state.db.session() as s:
            expected_lines = observations_path(tmp_path / "one-box", s.query(Segment).one()).read_text()
    finally:
        one_box.__exit__(None, None, None)
    assert sum(len(g["actions"]) for g in expected["games"]) >= 20

    folder = tmp_path / "queued"
    with postgres_databases.fresh() as pg_url:
        _killed_and_replaced(folder, video, header, redis_url, pg_url, expected, expected_lines)


def _killed_and_replaced(folder, video, header, redis_url, pg_url, expected, expected_lines):  # noqa: F811
    server = _server(folder, video, header["duration"], broker=redis_url, database_url=pg_url)
    a = b = None
    try:
        a = _worker(folder, redis_url, pg_url, "a")
        # Worker A takes the segment; once its camera stage is under way, A dies (SIGKILL: no goodbye).
        wait_for(lambda: any(k == OBSERVE and st == RUNNING and w.endswith(f":{a.pid}")
                             for k, st, _, w, _ in _jobs(server)), 120, "worker A to take the segment")
        time.sleep(3)
        os.kill(a.pid, signal.SIGKILL)
        a.wait(10)
        b = _worker(folder, redis_url, pg_url, "b")
        got = wait_for(lambda: _transcript(server), 400, "the transcript from worker B")
        jobs = _jobs(server)
        b.send_signal(signal.SIGTERM)  # stops cleanly when idle
        assert b.wait(60) == 0
    finally:
        for w in (a, b):
            if w is not None and w.poll() is None:
                os.killpg(w.pid, signal.SIGKILL)
        server.__exit__(None, None, None)
    observe = [j for j in jobs if j[0] == OBSERVE]
    assert len(observe) == 1, jobs  # no duplicate rows
    kind, state, attempts, worker, error = observe[0]
    assert (state, attempts) == (DONE, 2) and worker.endswith(f":{b.pid}"), (
        jobs, (folder.parent / "worker-b.log").read_text()[-3000:])
    assert [j[1] for j in jobs if j[0] == TRANSCRIBE] == [DONE]
    assert got["games"] == expected["games"]  # the transcript is the one the uninterrupted pipeline makes
    # B's observations are the one box's, line for line: nothing of what A's child wrote got in
    with server.app.state.db.session() as s:
        seg = s.query(Segment).one()
        assert observations_path(folder, seg).read_text() == expected_lines
    assert not list(observations_path(folder, seg).parent.glob(".*.part"))  # A's half-written file is gone



@needs_ffmpeg
def test_jobs_whose_message_the_broker_lost_are_sent_again(client, footage, redis_url):  # noqa: F811
    import redis

    st = client.app_state
    queue = WorkQueue(redis_url)
    p = Pipeline(st.db, st.store, st.settings.data_dir, queue=queue)
    assert p.run_once()
    with st.db.session() as s:
        sent = s.query(PipelineJob).filter(PipelineJob.delivery != "").one()
        first, delivery = sent.id, sent.delivery
    assert delivery in queue.held()
    with st.db.session() as s:
        assert queue.resend_lost(s) == 0  # nothing lost: nothing resent
    redis.Redis.from_url(redis_url).flushall()  # the broker restarted without its data
    assert delivery not in queue.held() and queue.backlog() == 0
    with st.db.session() as s:
        assert queue.resend_lost(s) == 1
    assert _row(client, first).delivery == ""  # to be sent again
    assert p.run_once() and queue.backlog() == 1
    assert _row(client, first).delivery not in ("", delivery)
