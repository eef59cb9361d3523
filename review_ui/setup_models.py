"""Tables of the event set-up: the players of an event and its rounds.

A pairing is not a table of its own: it is the `Match` row of a round on a board (`matches.round_id`,
`player_a_id`, `player_b_id`; one match per board per round). Shares `Base` with `models.py`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base


class Player(Base):
    __tablename__ = "players"
    __table_args__ = (UniqueConstraint("event_id", "name", name="uq_players_event_name"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    # Withdrawn from the event (review_ui/desk.py): the last round they were drawn in (0: before round 1), and
    # whether the director took their attendance points (Amberg's rule allows it for leaving early).
    withdrawn_after: Mapped[int | None] = mapped_column(Integer, nullable=True)
    forfeits_attendance: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")


class Round(Base):
    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("event_id", "number", name="uq_rounds_event_number"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    starts_at: Mapped[datetime] = mapped_column(DateTime)  # its matches start then (segments link from here)
    created_at: Mapped[datetime] = mapped_column(DateTime)
