"""The job queue between the server and its workers: Dramatiq on Redis.

Why these: Dramatiq acknowledges a message only once its job has returned, and its Redis broker hands the
unacknowledged messages of a worker whose heartbeats stopped (killed, unplugged, out of memory) to the others;
Redis is one small server with no schema to keep, started beside PostgreSQL or alone, and the queue holds
only job ids, so footage waits on disk and in the database however far the workers fall behind.

The `pipeline_jobs` rows stay the record (state, tries, results, errors: what the dashboard shows); a message
carries a row's id. The server's pipeline thread schedules rows and sends the queued ones (`dispatch`); a
worker (`bgscribe worker`) claims a row with the message's id and does it (`Pipeline.execute`):

- a worker that dies mid-job: its message is redelivered (same id) after `heartbeat_seconds`; the row still
  names that delivery, so the next worker takes the job over and redoes it;
- a message sent twice (the server stopped between sending and recording it): the second finds the row
  claimed under another delivery, or done, and is dropped;
- a job that fails: recorded on its row, and sent again in a new message while it has tries left;
- a message the broker lost (a Redis restarted without its data, flushed or replaced): the server looks for
  every outstanding job's message once a minute and sends again those it no longer holds.

A board's segments go out one at a time, in order: each observation carries the board's state (its checker
colours, its tray end) to the next, and a board makes one segment a minute, which one worker keeps up with.
The transcriptions of matches that are over, and the footage they still wait for, go on a queue of their own
(`QUEUE_FIRST`), which workers take from first (the actor's priority): in the broker's one queue, the transcript
the staff wait for waited behind every board's footage sent before it (`pipeline_models.NEXT_FIRST`).
"""

from __future__ import annotations

import logging
import time

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from .pipeline_models import FIRST, NEXT_FIRST, QUEUED, RUNNING, PipelineJob

log = logging.getLogger("bgscribe.queue")

QUEUE = "bgscribe-pipeline"  # the other jobs
QUEUE_FIRST = "bgscribe-final"  # matches that are over: their transcriptions and footage, taken first
QUEUES = (QUEUE_FIRST, QUEUE)
ACTOR = "pipeline_job"
LOST_CHECK_S = 60.0  # how often the server looks for jobs whose message the broker no longer holds


class QueueError(Exception):
    """The broker cannot be reached or refused us (the message says which and why)."""


def _redact(url: str) -> str:
    from urllib.parse import urlsplit

    u = urlsplit(url)
    return url.replace(f":{u.password}@", ":***@") if u.password else url


class WorkQueue:
    """One broker connection: `dispatch` on the server, `worker` on a worker machine."""

    def __init__(self, url: str, heartbeat_seconds: float = 60.0, job_timeout_s: float = 3600.0):
        import dramatiq
        from dramatiq.brokers.redis import MAINTENANCE_SCALE, RedisBroker
        from dramatiq.middleware import CurrentMessage

        if not url.startswith(("redis://", "rediss://", "unix://")):
            raise QueueError(f"job queue URL {url!r}: expected redis://HOST:PORT/DB (or rediss://, unix://)")
        self.url = url
        self.shown_url = _redact(url)  # for logs and errors: never the password
        # Each broker command checks for dead workers with this chance (Dramatiq's default, 1 in 1,000, can
        # leave a dead worker's job waiting for many minutes on a quiet queue).
        self.broker = RedisBroker(url=url, heartbeat_timeout=int(heartbeat_seconds * 1000),
                                  maintenance_chance=MAINTENANCE_SCALE // 5)
        self.broker.add_middleware(CurrentMessage())
        self.pipeline = None  # set by `worker`
        self.lost_checked = 0.0  # time.monotonic() of the last look for lost messages (0: at the first dispatch)
        # Retries only for what `execute` cannot settle on the row itself (the database unreachable, the footage
        # store down: `Deferred`): the same message comes back, so it can still claim the job. Job failures are
        # the row's business.
        # (Dramatiq: a lower priority number is done first of the messages a worker holds)
        self.actors = {queue: dramatiq.actor(self._perform, broker=self.broker, actor_name=name, queue_name=queue,
                                             priority=k, max_retries=50, min_backoff=2000, max_backoff=60000,
                                             time_limit=int(job_timeout_s * 1000) + 120_000)
                       for k, (queue, name) in enumerate(zip(QUEUES, (f"{ACTOR}_final", ACTOR)))}

    def check(self) -> None:
        """QueueError, saying where, when the broker does not answer."""
        import redis

        try:
            self.broker.client.ping()
        except redis.RedisError as e:
            raise QueueError(f"cannot reach the job queue at {self.shown_url}: {e}") from None

    def backlog(self) -> int:
        """Messages waiting in the broker (not yet taken by a worker)."""
        return sum(self.broker.do_qsize(q) for q in QUEUES)

    def held(self) -> set[str]:
        """The ids of the messages the broker still has: waiting, being worked on (Dramatiq deletes a message's
        body only once it is acknowledged) or waiting to be retried. This reads where Dramatiq's Redis broker
        keeps message bodies (its dispatch.lua: NAMESPACE:QUEUE.msgs, and .DQ.msgs for delayed retries, keyed by
        an id of each enqueue; the body carries the message's own id, which stays the same across retries)."""
        from dramatiq import Message

        ns = self.broker.namespace
        out = set()
        for key in (f"{ns}:{q}{dq}.msgs" for q in QUEUES for dq in ("", ".DQ")):
            for body in self.broker.client.hvals(key):
                out.add(Message.decode(body).message_id)
        return out

    def resend_lost(self, s: Session) -> int:
        """Jobs sent (queued or running) whose message the broker no longer holds go back to be sent again; how
        many. A job that finished meanwhile is left alone (the update names the state and delivery it saw)."""
        import redis

        self.lost_checked = time.monotonic()
        rows = s.execute(select(PipelineJob.id, PipelineJob.state, PipelineJob.delivery).where(
            PipelineJob.delivery != "", PipelineJob.state.in_((QUEUED, RUNNING)))).all()
        if not rows:
            return 0
        try:
            held = self.held()
        except redis.RedisError as e:
            raise QueueError(f"cannot reach the job queue at {self.shown_url}: {e}") from None
        lost = 0
        for r in rows:
            if r.delivery not in held:
                lost += s.execute(update(PipelineJob).where(
                    PipelineJob.id == r.id, PipelineJob.state == r.state, PipelineJob.delivery == r.delivery)
                    .values(state=QUEUED, delivery="", worker="")).rowcount
        s.commit()
        if lost:
            log.warning("queue: the broker had lost the messages of %d jobs; they are sent again", lost)
        return lost

    # ------------------------------------------------------------------ server side
    def dispatch(self, s: Session) -> int:
        """Send the queued jobs that have not been sent; how many were sent."""
        if time.monotonic() - self.lost_checked >= LOST_CHECK_S:
            self.resend_lost(s)
        from .pipeline import observing_boards, one_a_board

        rows = s.execute(select(PipelineJob, FIRST).where(
            PipelineJob.state == QUEUED, PipelineJob.delivery == "").order_by(*NEXT_FIRST)).all()
        if not rows:
            return 0
        first = {job.id for job, final in rows if final}
        sent = 0
        for job in one_a_board(s, [job for job, _ in rows], observing_boards(s, sent=True)):
            job.delivery = self._send(job.id, QUEUE_FIRST if job.id in first else QUEUE)
            s.commit()  # one at a time: a stop between sending and this leaves at most one duplicate message
            sent += 1
        if sent:
            log.info("queue: %d jobs sent to the workers", sent)
        return sent

    def _send(self, job_id: int, queue: str) -> str:
        import redis

        try:
            return self.actors[queue].send(job_id).message_id
        except redis.RedisError as e:
            raise QueueError(f"cannot send job {job_id} to the job queue at {self.shown_url}: {e}") from None

    # ------------------------------------------------------------------ worker side
    def _perform(self, job_id: int) -> None:
        from dramatiq.middleware import CurrentMessage

        msg = CurrentMessage.get_current_message()
        if self.pipeline is None:
            raise RuntimeError("this process is not a bgscribe worker")
        if self.pipeline.stop_event.is_set():  # taken while stopping: raised, so that it is retried elsewhere
            raise RuntimeError(f"worker stopping: job {job_id} left to the others")
        done = self.pipeline.execute(job_id, delivery=msg.message_id)
        if not done:
            log.info("queue: job %d is done or taken already; message %s dropped", job_id, msg.message_id)

    def worker(self, pipeline, threads: int = 1):
        """A Dramatiq worker doing `pipeline`'s jobs in `threads` threads (not started)."""
        from dramatiq import Worker

        self.pipeline = pipeline
        w = Worker(self.broker, queues=set(QUEUES), worker_threads=threads, worker_timeout=1000)
        # Take no more than it works on (of each queue): a prefetched job would wait here while another worker is
        # idle.
        w.queue_prefetch = threads
        return w
