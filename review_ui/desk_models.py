"""Tables of the tournament desk: byes, match results and PRs. A pairing is the round's `Match` (its `stage`
says which part of the format it belongs to). Shares `Base` with `models.py`."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base

GNUBG, BMAB = "gnubg", "bmab"  # a PR's source: our provisional estimate, or BMAB's official figure (replaces it)
BY_TRANSCRIPT, BY_HAND = "transcript", "hand"


class Bye(Base):
    __tablename__ = "byes"
    __table_args__ = (UniqueConstraint("round_id", "player_id", name="uq_byes_round_player"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id", ondelete="CASCADE"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    stage: Mapped[str] = mapped_column(String(16), default="swiss")


class MatchResult(Base):
    """A match's result entered by hand (a director, audited). An approved transcript gives one by itself."""

    __tablename__ = "match_results"
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    winner: Mapped[str] = mapped_column(String(200))
    source: Mapped[str] = mapped_column(String(16), default=BY_HAND)
    entered_by: Mapped[str] = mapped_column(String(100), default="")
    entered_at: Mapped[datetime] = mapped_column(DateTime)


class MatchPR(Base):
    """One player's PR in one match, from one source; `pr` None with `error` set when gnubg failed."""

    __tablename__ = "match_prs"
    __table_args__ = (UniqueConstraint("match_id", "player", "source", name="uq_match_prs_player_source"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    player: Mapped[str] = mapped_column(String(200))
    source: Mapped[str] = mapped_column(String(16), default=GNUBG)
    pr: Mapped[float | None] = mapped_column(Float, nullable=True)
    error_rate: Mapped[float | None] = mapped_column(Float, nullable=True)
    decisions: Mapped[int | None] = mapped_column(Integer, nullable=True)
    ply: Mapped[int | None] = mapped_column(Integer, nullable=True)
    analysis_json: Mapped[str] = mapped_column(Text, default="")  # per decision: played, best, error (gnubg)
    error: Mapped[str] = mapped_column(Text, default="")
    entered_by: Mapped[str] = mapped_column(String(100), default="")
    at: Mapped[datetime] = mapped_column(DateTime)
