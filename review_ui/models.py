"""Database tables. Times are UTC, stored as naive datetimes (SQLite and PostgreSQL alike)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


class Base(DeclarativeBase):
    pass


# Byte counts (a segment, a board's free disk) pass 2**31: 64-bit on PostgreSQL; SQLite's INTEGER already is.
ByteCount = BigInteger().with_variant(Integer(), "sqlite")


# Retention policies an event can have (see review_ui/retention.py).
POLICY_MATCH_END = "match_end"  # purge when the match has ended (approved, or unapproved if purge_unapproved)
POLICY_AFTER_APPROVAL = "after_approval"  # purge retention_days after the transcript was approved
POLICY_KEEP = "keep"  # never purge automatically
POLICIES = (POLICY_MATCH_END, POLICY_AFTER_APPROVAL, POLICY_KEEP)


class Event(Base):
    __tablename__ = "events"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    retention_policy: Mapped[str] = mapped_column(String(32), default=POLICY_AFTER_APPROVAL)
    retention_days: Mapped[float | None] = mapped_column(Float, nullable=True, default=30)
    # Footage of a match whose transcript is not approved is deleted only when this says so in as many words.
    purge_unapproved: Mapped[bool] = mapped_column(Boolean, default=False)
    legal_hold: Mapped[bool] = mapped_column(Boolean, default=False)
    legal_hold_reason: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime)
    # Event set-up (review_ui/setup.py): a key of transcriber.record.PROFILES and the match length (0: money).
    rules_profile: Mapped[str] = mapped_column(String(16), default="bmab", server_default="bmab")
    match_length: Mapped[int] = mapped_column(Integer, default=7, server_default="7")
    # The tournament desk (review_ui/desk.py): the format (None: pairings entered by hand only), Swiss rounds, fee.
    desk_format: Mapped[str | None] = mapped_column(String(16), nullable=True)
    desk_rounds: Mapped[int] = mapped_column(Integer, default=6, server_default="6")
    entry_fee: Mapped[int] = mapped_column(Integer, default=100, server_default="100")
    # What a bye is worth (tournament.model.EventRules); None: the format's default (BYE_DEFAULTS), so a format
    # chosen later brings its own.
    bye_wins: Mapped[int | None] = mapped_column(Integer, nullable=True)
    bye_cup_points: Mapped[int | None] = mapped_column(Integer, nullable=True)
    bye_ranking_points: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # The season the event counts towards (review_ui/season.py: Amberg's season table), e.g. "Amberg 2026".
    season: Mapped[str | None] = mapped_column(String(100), nullable=True, index=True)
    # Live viewing of its boards (review_ui/live_feed.py): off unless the director opens it to everyone, or hands
    # out the read-only viewer token (its hash here) for the stream's overlay and the hall's screens.
    live_public: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    live_token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)

    boards: Mapped[list[Board]] = relationship(back_populates="event")


class Board(Base):
    """A camera station at the venue. The token is stored as a sha256 hash only."""

    __tablename__ = "boards"
    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[int] = mapped_column(Integer, unique=True)
    event_id: Mapped[int | None] = mapped_column(ForeignKey("events.id"), nullable=True)
    token_hash: Mapped[str] = mapped_column(String(64))
    last_seen_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    preview_jpeg: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    token_set_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)  # created or rotated
    # The agent's latest camera check (vision/camcheck.py on a full-resolution frame), as JSON.
    camera_check: Mapped[str | None] = mapped_column(Text, nullable=True)
    camera_checked_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    # The playing field's corners as the staff confirmed them (review_ui/board_field.py), as JSON.
    field_json: Mapped[str | None] = mapped_column(Text, nullable=True)

    event: Mapped[Event | None] = relationship(back_populates="boards")


segment_matches = Table(
    "segment_matches", Base.metadata,
    Column("segment_id", ForeignKey("segments.id", ondelete="CASCADE"), primary_key=True),
    Column("match_id", ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
)


class Match(Base):
    __tablename__ = "matches"
    __table_args__ = (Index("uq_matches_round_board", "round_id", "board_id", unique=True),)
    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"))
    board_id: Mapped[int] = mapped_column(ForeignKey("boards.id"))
    player1: Mapped[str] = mapped_column(String(200), default="")
    player2: Mapped[str] = mapped_column(String(200), default="")
    started_at: Mapped[datetime] = mapped_column(DateTime)
    ended_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    approved_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)  # transcript approved
    legal_hold: Mapped[bool] = mapped_column(Boolean, default=False)
    # A pairing (review_ui/setup.py): the round and the players' rows; player1/player2 keep the names.
    round_id: Mapped[int | None] = mapped_column(ForeignKey("rounds.id", name="fk_matches_round_id"), nullable=True)
    player_a_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", name="fk_matches_player_a_id"),
                                                    nullable=True)
    player_b_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", name="fk_matches_player_b_id"),
                                                    nullable=True)

    stage: Mapped[str] = mapped_column(String(16), default="swiss", server_default="swiss")  # tournament.formats

    event: Mapped[Event] = relationship()
    board: Mapped[Board] = relationship()
    round: Mapped[Round | None] = relationship()  # noqa: F821 - defined in setup_models
    segments: Mapped[list[Segment]] = relationship(secondary=segment_matches, back_populates="matches")


class Segment(Base):
    __tablename__ = "segments"
    __table_args__ = (UniqueConstraint("board_id", "segment_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    board_id: Mapped[int] = mapped_column(ForeignKey("boards.id"))
    event_id: Mapped[int | None] = mapped_column(ForeignKey("events.id"), nullable=True)
    segment_id: Mapped[str] = mapped_column(String(64))
    storage_key: Mapped[str] = mapped_column(String(300))
    sha256: Mapped[str] = mapped_column(String(64))
    bytes: Mapped[int] = mapped_column(ByteCount)
    start: Mapped[datetime] = mapped_column(DateTime)
    end: Mapped[datetime] = mapped_column(DateTime)
    frames: Mapped[int] = mapped_column(Integer)
    dropped_frames: Mapped[int] = mapped_column(Integer, default=0)
    manifest_json: Mapped[str] = mapped_column(Text)
    received_at: Mapped[datetime] = mapped_column(DateTime)
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)

    board: Mapped[Board] = relationship()
    event: Mapped[Event | None] = relationship()
    matches: Mapped[list[Match]] = relationship(secondary=segment_matches, back_populates="segments")


class Heartbeat(Base):
    __tablename__ = "heartbeats"
    id: Mapped[int] = mapped_column(primary_key=True)
    board_id: Mapped[int] = mapped_column(ForeignKey("boards.id"))
    received_at: Mapped[datetime] = mapped_column(DateTime)
    state: Mapped[str] = mapped_column(String(64), default="")
    fps: Mapped[float] = mapped_column(Float, default=0.0)
    frames: Mapped[int] = mapped_column(Integer, default=0)
    dropped_frames: Mapped[int] = mapped_column(Integer, default=0)
    spool_segments: Mapped[int] = mapped_column(Integer, default=0)
    spool_bytes: Mapped[int] = mapped_column(ByteCount, default=0)
    free_disk_bytes: Mapped[int] = mapped_column(ByteCount, default=0)
    last_segment: Mapped[str] = mapped_column(String(64), default="")
    error: Mapped[str] = mapped_column(Text, default="")


class PurgeLog(Base):
    """One row per deleted segment: what, when, why, by which policy. Never deleted."""

    __tablename__ = "purge_log"
    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime)
    segment_row_id: Mapped[int] = mapped_column(Integer)
    board: Mapped[int] = mapped_column(Integer)
    segment_id: Mapped[str] = mapped_column(String(64))
    storage_key: Mapped[str] = mapped_column(String(300))
    sha256: Mapped[str] = mapped_column(String(64))
    bytes: Mapped[int] = mapped_column(ByteCount)
    footage_start: Mapped[datetime] = mapped_column(DateTime)
    footage_end: Mapped[datetime] = mapped_column(DateTime)
    event_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    match_ids: Mapped[str] = mapped_column(String(200), default="")
    policy: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(Text)
    verified_absent: Mapped[bool] = mapped_column(Boolean, default=False)  # the store no longer has the object
    trigger: Mapped[str] = mapped_column(String(32), default="")  # "bgscribe purge", "periodic job"


# The review page's, the desk's and the pipeline's tables share this metadata and its migrations.
from . import desk_models, pipeline_models, review_models, setup_models  # noqa: E402, F401
from .setup_models import Player, Round  # noqa: E402, F401
