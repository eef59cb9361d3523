"""The background pipeline's work list: one row per job, so a restart neither loses nor repeats work."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Index, Integer, String, Text, UniqueConstraint, and_, case, exists, or_
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base, Match, segment_matches

OBSERVE = "observe"  # one footage segment -> observations (JSON Lines under data_dir/observations)
TRANSCRIBE = "transcribe"  # a match's observations so far -> score in progress; when complete, the transcript
ANALYSE = "pr"  # an approved transcript -> gnubg's provisional PR per player (review_ui/desk.py keeps it)
LEARN = "learn"  # an approved transcript -> its board's points head refitted on the match's footage

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"


class PipelineJob(Base):
    __tablename__ = "pipeline_jobs"
    # One observation job per segment (transcription jobs have no segment; NULLs never collide).
    __table_args__ = (UniqueConstraint("kind", "segment_id", name="uq_pipeline_jobs_segment"),
                      Index("ix_pipeline_jobs_state", "state"))
    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    segment_id: Mapped[int | None] = mapped_column(ForeignKey("segments.id", ondelete="CASCADE"), nullable=True)
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), nullable=True,
                                                 index=True)
    state: Mapped[str] = mapped_column(String(16), default=QUEUED)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    # For a transcription: which observed segments went in (row ids), so the same input is never decoded twice.
    inputs: Mapped[str] = mapped_column(Text, default="")
    result_json: Mapped[str] = mapped_column(Text, default="")  # figures of a finished job (see pipeline.py)
    error: Mapped[str] = mapped_column(Text, default="")
    # With a job queue (review_ui/work_queue.py): the id of the message that carries the job to the workers
    # ("" until it is sent), then of the delivery a worker claimed it with; a redelivery of that same message
    # (its worker died) may take the job over, a duplicate message may not.
    delivery: Mapped[str] = mapped_column(String(64), default="", server_default="")
    worker: Mapped[str] = mapped_column(String(120), default="", server_default="")  # host:pid that ran it last
    created_at: Mapped[datetime] = mapped_column(DateTime)
    started_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


# The transcription of a match that is over (staff ended it, or the board's next match began): the transcript the
# staff wait for. It is made only once all the match's footage is observed.
FINAL_TRANSCRIPTION = and_(PipelineJob.kind == TRANSCRIBE,
                           exists().where(Match.id == PipelineJob.match_id, Match.ended_at.isnot(None)))
# The footage of a match that is over: what its final transcription waits for.
FINAL_FOOTAGE = and_(PipelineJob.kind == OBSERVE,
                     exists().where(segment_matches.c.segment_id == PipelineJob.segment_id,
                                    Match.id == segment_matches.c.match_id, Match.ended_at.isnot(None)))
FIRST = or_(FINAL_TRANSCRIPTION, FINAL_FOOTAGE)  # through the queue: its queue of first jobs (`work_queue`)
# The order queued jobs are taken in, the oldest first within each rank: final transcriptions (about a second's work
# each), the footage of matches that are over, then other footage, then the rest. Transcriptions of matches in
# progress wait for the footage: under load several segments go into one, where each alone would decode the match
# from its start again; analyses and the boards' learning are for approved matches, where minutes do not matter.
NEXT_FIRST = (case((FINAL_TRANSCRIPTION, 0), (FINAL_FOOTAGE, 1), (PipelineJob.kind == OBSERVE, 2), else_=3),
              PipelineJob.id)
