"""The background pipeline: footage segments are observed as they arrive, matches transcribed as they grow.

Jobs are rows of the `pipeline_jobs` table. On one box a thread of the server process takes one at a time; with a
job queue (review_ui/work_queue.py: Dramatiq on Redis) the server only schedules and sends them, and `bgscribe
worker` processes on any machine that reaches the database, the broker and the footage do them. The kinds:

- `observe`: one stored segment -> `data_dir/observations/boardNN/SEGMENT.jsonl` (times relative to the
  segment). The camera stage runs in a process of its own (`bgscribe observe`, review_ui/job_processes.py): it
  is CPU-bound and decodes untrusted video, so it neither holds the server's interpreter nor takes the server
  down with it.
- `transcribe`: every observed segment of a match, shifted to match time and joined, decoded into the
  score so far; once the match is over (the decoder sees it won, or staff set its end), the transcript
  is loaded for review. A transcript staff have already edited is never replaced.
- `pr`: an approved transcript's .mat analysed by GNU Backgammon (tournament/pr.py: gnubg runs as a child
  process, never inside the server) into each player's provisional PR and every decision's error and best
  play, kept for the tournament desk (review_ui/desk.py); a missing or failing gnubg leaves the match
  without PR, the reason kept where the desk page shows it. Approved again after a reopen: analysed again.
- `learn`: an approved transcript's positions label the quiet frames of its footage; the board's points head
  is refitted on them in a child process (`bgscribe adapt --frames`, review_ui/board_learning.py) and kept
  where it reads the held-out frames at least as well as before: each board reads better as the day goes on.

Every job is a row that is committed before and after the work, so a restart resumes what was running and
never repeats what is done; the same inputs are never transcribed twice. A job's results are written in the
transaction that marks it done (or to a file put in place just before), so a job redone after its worker died
is done once in effect.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import threading
import traceback
import uuid
from datetime import datetime
from pathlib import Path

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.orm import Session

from transcriber.observation import FrameObservation

from .board_field import board_field
from .job_processes import JobProcess, JobTimeout
from .models import Event, Match, Segment, segment_matches
from .pipeline_models import (
    ANALYSE,
    DONE,
    FAILED,
    LEARN,
    NEXT_FIRST,
    OBSERVE,
    QUEUED,
    RUNNING,
    TRANSCRIBE,
    PipelineJob,
)
from .review_models import STATUS_NEEDS_REVIEW, Transcript, TranscriptRevision
from .services import utcnow
from .storage import FootageNotFound, StoreError

log = logging.getLogger("bgscribe.pipeline")

MAX_ATTEMPTS = 3  # a job that fails (or dies with the server) this often is marked failed
OBSERVE_TIMEOUT_S = 1800


def worker_name() -> str:
    """Who runs a job, as the dashboard shows it: host:pid."""
    return f"{socket.gethostname()}:{os.getpid()}"


class JobError(Exception):
    """A job that cannot succeed as things stand (the message says why; it is stored on the job)."""


class Deferred(Exception):
    """A job that cannot run until something outside it is back (the footage store): handed back untried, to
    be tried again later (on one box at the next poll; with a queue, its message is retried with a backoff)."""


def observations_path(data_dir: Path, seg: Segment) -> Path:
    return data_dir / "observations" / f"board{seg.board.number:02d}" / f"{seg.segment_id}.jsonl"


def board_state_path(data_dir: Path, board_number: int) -> Path:
    """What `bgscribe observe --board-state` learnt of a board (colours, tray end, the field given by hand)."""
    return data_dir / "observations" / f"board{board_number:02d}" / "board_state.json"


def adapter_path(data_dir: Path, board_number: int) -> Path:
    """What `bgscribe adapt` learnt of a board (the staff's "Learn this board"), given to `observe --adapter`."""
    return data_dir / "observations" / f"board{board_number:02d}" / "adapter.json"


def forget_board_field(data_dir: Path, board_number: int) -> None:
    """Drop the field kept in a board's state, so that the camera stage finds it again (the staff cleared it)."""
    path = board_state_path(data_dir, board_number)
    try:
        state = json.loads(path.read_text())
    except (OSError, ValueError):
        return
    if isinstance(state, dict) and state.pop("field", None) is not None:
        tmp = path.with_name(f".{path.name}.part")
        tmp.write_text(json.dumps(state))
        tmp.replace(path)


def video_size(path: Path) -> tuple[int, int] | None:
    """(width, height) of a video file's picture; None if it cannot be read (observe then says why)."""
    import av

    try:
        with av.open(str(path)) as c:
            st = c.streams.video[0]
            return (st.codec_context.width, st.codec_context.height) if st.codec_context.width else None
    except (av.FFmpegError, IndexError, OSError):
        return None


def live_segments(s: Session, matches: list[Match]) -> dict[int, list[Segment]]:
    """Per match id, its live segments in time order, cut at the start of the next match on the same board
    (a match whose end nobody set would otherwise take in the next round's footage). Two queries for any
    number of matches: the scheduler asks this for the whole room every few seconds."""
    if not matches:
        return {}
    starts: dict[int, list[datetime]] = {}
    for board, t in s.execute(select(Match.board_id, Match.started_at).where(
            Match.board_id.in_({m.board_id for m in matches}))):
        starts.setdefault(board, []).append(t)
    out: dict[int, list[Segment]] = {m.id: [] for m in matches}
    for mid, seg in s.execute(select(segment_matches.c.match_id, Segment)
                              .join(Segment, Segment.id == segment_matches.c.segment_id)
                              .where(segment_matches.c.match_id.in_(out), Segment.deleted_at.is_(None))):
        out[mid].append(seg)
    for m in matches:
        nxt = min((t for t in starts[m.board_id] if t > m.started_at), default=None)
        out[m.id] = sorted((g for g in out[m.id] if nxt is None or g.start < nxt), key=lambda g: g.start)
    return out


def match_segments(s: Session, m: Match) -> list[Segment]:
    """The live segments of one match (see `live_segments`)."""
    return live_segments(s, [m])[m.id]


def _latest(s: Session, kinds: tuple[str, ...]) -> dict[tuple[str, int], PipelineJob]:
    """The newest job of each kind in `kinds` for each match, by (kind, match id): one query."""
    newest = select(func.max(PipelineJob.id)).where(PipelineJob.kind.in_(kinds)).group_by(PipelineJob.kind,
                                                                                          PipelineJob.match_id)
    return {(j.kind, j.match_id): j for j in s.scalars(select(PipelineJob).where(PipelineJob.id.in_(newest)))}


def _job(s: Session, **where) -> PipelineJob | None:
    q = select(PipelineJob)
    for k, v in where.items():
        q = q.where(getattr(PipelineJob, k) == v)
    return s.scalars(q.order_by(PipelineJob.id.desc()).limit(1)).first()


def observing_boards(s: Session, sent: bool = False) -> set[int]:
    """Boards with a segment being observed (and, with `sent`, one sent to the workers): their next segment waits,
    since each segment carries its board's state to the next."""
    out = PipelineJob.state == RUNNING
    if sent:
        out = out | ((PipelineJob.state == QUEUED) & (PipelineJob.delivery != ""))
    return set(s.scalars(select(Segment.board_id).join(PipelineJob, PipelineJob.segment_id == Segment.id).where(
        PipelineJob.kind == OBSERVE, out)))


def one_a_board(s: Session, jobs: list[PipelineJob], busy: set[int]) -> list[PipelineJob]:
    """Of `jobs` (queued, in `NEXT_FIRST` order), those that may start now: a board's segments are observed one at
    a time and in order, so only each board's earliest (whatever rank `NEXT_FIRST` gives it: footage of a match that
    is over goes before other footage, and a board's footage from before any match has none), and none of a board
    in `busy` (`observing_boards`)."""
    rows = s.execute(select(Segment.id, Segment.board_id, Segment.start).where(
        Segment.id.in_([j.segment_id for j in jobs if j.segment_id is not None]))).all()
    boards = {i: b for i, b, _ in rows}
    earliest: dict[int, int] = {}
    for i, b, _ in sorted(rows, key=lambda r: (r[2], r[0])):
        earliest.setdefault(b, i)
    busy, out = set(busy), []
    for job in jobs:
        if job.kind == OBSERVE:
            board = boards.get(job.segment_id)
            if board in busy or (board is not None and earliest[board] != job.segment_id):
                continue
            busy.add(board)
        out.append(job)
    return out


class Pipeline:
    def __init__(self, db, store, data_dir: Path, poll_seconds: float = 2.0, pr_ply: int = 2, queue=None,
                 jobs: int = 1):
        self.db = db
        self.jobs = max(1, jobs)  # jobs at a time where this process does them (no job queue)
        self.queue = queue  # a work_queue.WorkQueue: workers elsewhere do the jobs; None: this process does them
        self.pr_ply = pr_ply  # gnubg's depth for the provisional PR (2: ~20 s an 11-point match; 0: ~1 s)
        self.store = store
        self.data_dir = Path(data_dir)
        self.poll = poll_seconds
        self.stop_event = threading.Event()
        self.wake = threading.Event()
        self.threads: list[threading.Thread] = []
        self.scheduling = threading.Lock()
        self.children: set[JobProcess] = set()  # one per thread doing a job (a worker may run several)

    # ------------------------------------------------------------------ life cycle
    def start(self) -> None:
        if self.queue is None:
            self.recover()  # with a queue, the broker gives a dead worker's job to another one
        # (with a job queue one thread sends the jobs; without, `jobs` threads do them, each claiming its own)
        n = 1 if self.queue is not None else self.jobs
        self.threads = [threading.Thread(target=self._run, name=f"pipeline-{k}", daemon=True) for k in range(n)]
        for t in self.threads:
            t.start()

    def stop(self, timeout: float = 10.0) -> None:
        self.stop_event.set()
        self.wake.set()
        for child in list(self.children):
            child.terminate()  # its job goes back to the queue (see `execute`)
        for t in self.threads:
            t.join(timeout)

    def recover(self) -> int:
        """Jobs left `running` by a server that died mid-job go back to the queue (one box, no job queue)."""
        with self.db.session() as s:
            jobs = s.scalars(select(PipelineJob).where(PipelineJob.state == RUNNING)).all()
            for j in jobs:
                j.state = QUEUED if j.attempts < MAX_ATTEMPTS else FAILED
                if j.state == FAILED:
                    j.error = j.error or "stopped mid-job too often"
            s.commit()
            if jobs:
                log.info("pipeline: %d interrupted jobs resumed", len(jobs))
            return len(jobs)

    def _run(self) -> None:
        from .work_queue import QueueError

        said = ""
        while not self.stop_event.is_set():
            try:
                busy = self.run_once()
            except (QueueError, Deferred) as e:  # the broker or the store is down: jobs wait until it is back
                if str(e) != said:
                    log.warning("pipeline: %s (jobs wait until it is back)", e)
                said, busy = str(e), False
            except Exception:  # keep the worker alive; the job's row says what failed
                log.exception("pipeline worker")
                busy = False
            if not busy:
                self.wake.wait(self.poll)
                self.wake.clear()

    def run_once(self) -> bool:
        """Queue what is new, then do the oldest queued job here (or, with a job queue, send the queued jobs to
        the workers). False when there was nothing to do."""
        with self.db.session() as s:
            with self.scheduling:  # (one thread at a time: two would queue the same new work twice)
                self.schedule(s)
            if self.queue is not None:
                return self.queue.dispatch(s) > 0
            queued = s.scalars(select(PipelineJob).where(PipelineJob.state == QUEUED).order_by(*NEXT_FIRST)).all()
            ready = [j.id for j in one_a_board(s, queued, observing_boards(s))]
        return any(self.execute(job_id) for job_id in ready)  # (another thread may have claimed one: the next)

    def execute(self, job_id: int, delivery: str = "") -> bool:
        """Claim job `job_id` and do it; False when it was not this worker's to do (done already, or claimed by
        another). `delivery`: the queue message that brought it, which may take over the job from a worker that
        died holding that same message; a duplicate message finds the job taken and is dropped."""
        claim = PipelineJob.state == QUEUED
        if delivery:
            claim = or_(claim, and_(PipelineJob.state == RUNNING, PipelineJob.delivery == delivery))
        with self.db.session() as s:
            taken = s.execute(update(PipelineJob).where(PipelineJob.id == job_id, claim).values(
                state=RUNNING, started_at=utcnow(), attempts=PipelineJob.attempts + 1, delivery=delivery,
                worker=worker_name())).rowcount
            s.commit()
            if not taken:
                return False
            job = s.get(PipelineJob, job_id)
            if job.attempts > MAX_ATTEMPTS:  # its workers died holding it this often (a video that kills them?)
                job.state, job.finished_at = FAILED, utcnow()
                job.error = job.error or "its worker stopped mid-job too often"
                s.commit()
                return True
            try:
                work = {OBSERVE: self._observe, TRANSCRIBE: self._transcribe, ANALYSE: self._analyse,
                        LEARN: self._learn}[job.kind]
                result = work(s, job)
            except Exception as e:  # noqa: BLE001 - every failure is recorded on the job
                s.rollback()
                job = s.get(PipelineJob, job.id)
                if self.stop_event.is_set():  # stopped mid-job: handed back, not counted as a try
                    job.state, job.attempts, job.delivery, job.worker = QUEUED, job.attempts - 1, "", ""
                    s.commit()
                    return True
                if isinstance(e, StoreError) and not isinstance(e, FootageNotFound):
                    # the store is down or not mounted: no fault of the job's, whatever the outage's length
                    job.state, job.attempts, job.worker = QUEUED, job.attempts - 1, ""
                    job.error = f"waiting for the footage store: {e}"
                    s.commit()
                    raise Deferred(job.error) from None
                known = isinstance(e, (JobError, RuntimeError))
                job.error = str(e) if known else traceback.format_exc(limit=3)
                job.state = QUEUED if job.attempts < MAX_ATTEMPTS and not isinstance(e, JobError) else FAILED
                job.delivery = ""  # tried again in a message of its own
                job.finished_at = utcnow()
                s.commit()
                log.warning("pipeline: %s job %d failed: %s", job.kind, job.id, str(e).splitlines()[0] if str(e) else e)
                return True
            job.state, job.finished_at, job.error = DONE, utcnow(), ""
            job.result_json = json.dumps(result)
            s.commit()
            return True

    # ------------------------------------------------------------------ scheduling
    def schedule(self, s: Session) -> None:
        # a few queries for the whole room, however many boards, matches and segments it has had
        unobserved = ~select(PipelineJob.id).where(PipelineJob.kind == OBSERVE,
                                                   PipelineJob.segment_id == Segment.id).exists()
        for seg_id in s.scalars(select(Segment.id).where(Segment.deleted_at.is_(None), unobserved)):
            s.add(PipelineJob(kind=OBSERVE, segment_id=seg_id, state=QUEUED, attempts=0, inputs="",
                              result_json="", error="", created_at=utcnow()))
        s.flush()
        # staff are working on these (edited, approved, submitted): new footage does not overrule them
        settled = select(Transcript.match_id).where(
            (Transcript.version > 1) | (Transcript.status != STATUS_NEEDS_REVIEW))
        matches = list(s.scalars(select(Match).where(Match.id.not_in(settled))))
        segs_of = live_segments(s, matches)
        ids = {g.id for segs in segs_of.values() for g in segs}
        states = dict(s.execute(select(PipelineJob.segment_id, PipelineJob.state).where(
            PipelineJob.kind == OBSERVE, PipelineJob.segment_id.in_(ids))).all()) if ids else {}
        latest = _latest(s, (TRANSCRIBE, ANALYSE, LEARN))
        for m in matches:
            segs = segs_of[m.id]
            # (a segment stored since the first query above has no observe job yet: it waits for the next round,
            # or the match would be transcribed without it)
            if not segs or any(states.get(g.id) in (None, QUEUED, RUNNING) for g in segs):
                continue
            inputs = ",".join(str(g.id) for g in segs if states.get(g.id) == DONE)
            inputs += f";ended={m.ended_at.isoformat() if m.ended_at else ''}"
            last = latest.get((TRANSCRIBE, m.id))
            if last is not None and (last.inputs == inputs or last.state in (QUEUED, RUNNING)):
                continue
            s.add(PipelineJob(kind=TRANSCRIBE, match_id=m.id, state=QUEUED, attempts=0, inputs=inputs,
                              result_json="", error="", created_at=utcnow()))
        for t in s.scalars(select(Transcript).where(Transcript.status.in_(("approved", "submitted")))):
            inputs = f"transcript v{t.version}"  # re-approved after a reopen: analysed (and learnt from) again
            for kind in (ANALYSE, LEARN):
                last = latest.get((kind, t.match_id))
                if last is not None and (last.inputs == inputs or last.state in (QUEUED, RUNNING)):
                    continue
                s.add(PipelineJob(kind=kind, match_id=t.match_id, state=QUEUED, attempts=0, inputs=inputs,
                                  result_json="", error="", created_at=utcnow()))
        s.commit()

    # ------------------------------------------------------------------ jobs
    def _child(self, args: list[str], doing: str) -> str:
        """Run `bgscribe ARGS...` in a process of its own (`job_processes`; kept in `self.children`, so that `stop`
        can end it); its stdout. RuntimeError, with what it said, when it fails or takes over `OBSERVE_TIMEOUT_S`."""
        child = JobProcess(args)
        self.children.add(child)
        try:
            code, stdout, stderr = child.run(OBSERVE_TIMEOUT_S)
        except JobTimeout:
            raise RuntimeError(f"{doing} took over {OBSERVE_TIMEOUT_S} s") from None
        finally:
            self.children.discard(child)
        if code != 0:
            raise RuntimeError(f"bgscribe {args[0]} exited with {code}: {(stderr or stdout).strip()[-500:]}")
        return stdout

    def _observe(self, s: Session, job: PipelineJob) -> dict:
        seg = s.get(Segment, job.segment_id)
        if seg is None or seg.deleted_at is not None:
            raise JobError("the segment has been purged")
        out = observations_path(self.data_dir, seg)
        out.parent.mkdir(parents=True, exist_ok=True)
        for stale in out.parent.glob(f".{out.name}.*.part"):  # what a worker that died mid-job left
            stale.unlink(missing_ok=True)
        tmp = out.with_name(f".{out.name}.{uuid.uuid4().hex[:8]}.part")  # a name per try: no two writers meet
        with contextlib.ExitStack() as stack:
            try:  # (a store on another machine: a local copy)
                video = stack.enter_context(self.store.local_copy(seg.storage_key))
            except FootageNotFound:
                raise JobError(f"the footage file {seg.storage_key} is missing from the store") from None
            # the board's checker colours and tray end, learnt from its earlier segments (most never show an
            # opening)
            state = board_state_path(self.data_dir, seg.board.number)
            # one thread: jobs run one a core (`pipeline_jobs`), beside the server and, on one box, the live boards
            cmd = ["observe", str(video), "--out", str(tmp), "--quiet", "--threads", "1",
                   "--board-state", str(state)]
            adapter = adapter_path(self.data_dir, seg.board.number)
            if adapter.is_file():  # what the camera stage learnt of this board
                cmd += ["--adapter", str(adapter)]
            field = board_field(seg.board)
            if field is not None:  # the corners the staff confirmed, in this segment's pixels
                size = video_size(video)
                if size is not None:
                    cmd += ["--field", field.pixels(*size)]
            try:
                stdout = self._child(cmd, f"observing {seg.segment_id}")
            except RuntimeError:
                tmp.unlink(missing_ok=True)
                raise
        tmp.replace(out)
        return {"observations": str(out.relative_to(self.data_dir)), "summary": stdout.strip()}

    def _transcribe(self, s: Session, job: PipelineJob) -> dict:
        from transcriber.mat import write_mat
        from transcriber.transcribe import decode_match

        from .api.review import load_transcript
        from .dashboard import transcript_score
        from .transcripts import doc_from_report, dumps

        m = s.get(Match, job.match_id)
        ev = s.get(Event, m.event_id)
        obs = self.match_observations(s, m)
        if not any(o.slots is not None for o in obs):
            raise JobError("no board was read in this match's footage yet")
        players = (m.player1 or "Player 1", m.player2 or "Player 2")
        record, report = decode_match(obs, players, ev.match_length, ev.rules_profile, source=f"match {m.id}")
        final = transcript_score(report) or [0, 0]  # the report's games have the review document's shape
        won = ev.match_length > 0 and max(final) >= ev.match_length
        result = {"score": final, "games": len(record.games), "complete": won or m.ended_at is not None,
                  "actions": sum(len(g.actions) for g in record.games), "flags": len(report["flags"]),
                  "transcript": None}
        if not result["complete"]:
            return result
        mat = None if report["problems"] else write_mat(record)
        report["mat_written"] = mat is not None
        doc = doc_from_report(report, mat, ev.rules_profile)
        t = s.scalar(select(Transcript).where(Transcript.match_id == m.id))
        if t is None:
            load_transcript(s, m, doc, report, None)
            result["transcript"] = "created"
        elif t.version == 1 and t.updated_by == "pipeline":  # untouched by staff: replace with the fuller read
            t.doc_json, t.report_json, t.updated_at = dumps(doc), json.dumps(report), utcnow()
            rev = s.scalar(select(TranscriptRevision).where(TranscriptRevision.transcript_id == t.id,
                                                            TranscriptRevision.version == 1))
            if rev is not None:
                rev.doc_json = t.doc_json
            result["transcript"] = "replaced"
        else:
            result["transcript"] = "kept (edited by staff)"
        log.info("pipeline: match %d transcribed: %d games, %d actions, %d flags (%s)", m.id, result["games"],
                 result["actions"], result["flags"], result["transcript"])
        return result

    def _analyse(self, s: Session, job: PipelineJob) -> dict:
        import tempfile

        from tournament.pr import GnubgError, analyse_mat

        from .desk import store_analysis
        from .transcripts import mat_text

        m = s.get(Match, job.match_id)
        t = s.scalar(select(Transcript).where(Transcript.match_id == job.match_id))
        if m is None or t is None:
            raise JobError("the match or its transcript is gone")
        with tempfile.TemporaryDirectory(prefix="bgscribe-pr-") as tmp:
            path = Path(tmp) / "match.mat"
            path.write_text(mat_text(json.loads(t.doc_json)))
            try:
                analysis = analyse_mat(path, ply=self.pr_ply)
            except GnubgError as e:
                store_analysis(s, m, None, str(e))  # the desk page says why there is no PR
                s.commit()
                raise JobError(str(e)) from None
        store_analysis(s, m, analysis)
        return {"ply": analysis.ply, "seconds": round(analysis.seconds, 2),
                "pr": {p.name: round(p.pr, 2) for p in analysis.players}}

    def _learn(self, s: Session, job: PipelineJob) -> dict:
        import tempfile

        from .board_learning import NothingToLearn, labelled_frames
        from .footage_frames import match_segments as footage_segments

        m = s.get(Match, job.match_id)
        t = s.scalar(select(Transcript).where(Transcript.match_id == job.match_id))
        if m is None or t is None:
            raise JobError("the match or its transcript is gone")
        # the footage's local copies are kept until the child that reads them has finished
        with contextlib.ExitStack() as copies, tempfile.TemporaryDirectory(prefix="bgscribe-learn-") as tmp:
            try:
                frames = labelled_frames(m, json.loads(t.doc_json), self.match_observations(s, m),
                                         footage_segments(s, m.id),
                                         lambda g: copies.enter_context(self.store.local_copy(g.storage_key)),
                                         video_size)
            except NothingToLearn as e:
                raise JobError(f"nothing learnt from match {m.id}: {e}") from None
            out = adapter_path(self.data_dir, m.board.number)
            out.parent.mkdir(parents=True, exist_ok=True)
            spec = Path(tmp) / "frames.json"
            spec.write_text(json.dumps({"frames": frames}))
            cmd = ["adapt", "--frames", str(spec), "--out", str(out)]
            if out.is_file():
                cmd += ["--adapter", str(out)]
            stdout = self._child(cmd, f"learning from match {m.id}")
        result = json.loads(stdout.strip().splitlines()[-1])
        log.info("pipeline: board %d learnt from match %d: %d/%d held-out points right before, %d after (%s)",
                 m.board.number, m.id, result["right_before"], result["points"], result["right_after"],
                 "kept" if result["kept"] else "not kept")
        return result

    def match_observations(self, s: Session, m: Match) -> list[FrameObservation]:
        """The match's observations in match time: each segment's shifted by its start after the first's."""
        out: list[FrameObservation] = []
        segs = match_segments(s, m)
        if not segs:
            return out
        t0: datetime = segs[0].start
        for seg in segs:
            job = _job(s, kind=OBSERVE, segment_id=seg.id)
            path = observations_path(self.data_dir, seg)
            if job is None or job.state != DONE or not path.is_file():
                continue  # a segment that could not be observed is a footage gap to the decoder
            shift, base = (seg.start - t0).total_seconds(), len(out)
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        o = FrameObservation.from_json(line)
                        o.i, o.t = base + o.i, shift + o.t
                        out.append(o)
        return out


def match_stage(s: Session, match_id: int) -> dict:
    """Where a match is in the pipeline, for the dashboard: stage (recording / observing / transcribing /
    failed, or None once a transcript exists or nothing is known), the score decoded so far, the last error."""
    out = {"stage": None, "score": None, "error": ""}
    m = s.get(Match, match_id)
    if m is None:
        return out
    last = _job(s, kind=TRANSCRIBE, match_id=match_id, state=DONE)
    if last is not None:
        out["score"] = json.loads(last.result_json or "{}").get("score")
    if s.scalar(select(Transcript.id).where(Transcript.match_id == match_id)) is not None:
        return out
    segs = match_segments(s, m)
    if not segs:
        return out
    ids = [g.id for g in segs]
    jobs = s.scalars(select(PipelineJob).where(PipelineJob.segment_id.in_(ids))).all()
    failed = [j for j in jobs if j.state == FAILED]
    pending_t = _job(s, kind=TRANSCRIBE, match_id=match_id)
    if not jobs and pending_t is None:  # the pipeline has not looked yet (or runs elsewhere)
        out["stage"] = "recording" if m.ended_at is None or m.ended_at > utcnow() else "transcribing"
        return out
    if pending_t is not None and pending_t.state == FAILED:
        failed.append(pending_t)
    if any(j.state in (QUEUED, RUNNING) for j in jobs) or len(jobs) < len(ids):
        out["stage"] = "observing"
    elif pending_t is not None and pending_t.state in (QUEUED, RUNNING):
        out["stage"] = "transcribing"
    elif failed and pending_t is not None and pending_t.state == FAILED:
        out["stage"] = "failed"
    else:
        out["stage"] = "recording"
    if failed:
        out["error"] = failed[-1].error.strip().splitlines()[-1] if failed[-1].error.strip() else "failed"
    return out
