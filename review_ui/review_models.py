"""Tables of the review page: staff accounts and their sessions, transcripts under review, revisions, audit log.

Kept apart from `models.py` (footage and retention); both share `Base`, so one set of migrations covers them.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .models import Base, Match

ROLE_STAFF = "staff"  # reviews and approves transcripts
ROLE_DIRECTOR = "director"  # also manages accounts and reopens approved transcripts
ROLES = (ROLE_STAFF, ROLE_DIRECTOR)

# Transcript status, in order (recording and transcribing live in the pipeline, before a transcript exists).
STATUS_NEEDS_REVIEW = "needs_review"
STATUS_APPROVED = "approved"
STATUS_SUBMITTED = "submitted"


class User(Base):
    __tablename__ = "users"
    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(100), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))  # argon2id
    role: Mapped[str] = mapped_column(String(16), default=ROLE_STAFF)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)  # no login while set


class UserSession(Base):
    """A login. The cookie holds a random token; the table keeps only its sha256 and the session's CSRF token."""

    __tablename__ = "user_sessions"
    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    csrf_token: Mapped[str] = mapped_column(String(64))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    expires_at: Mapped[datetime] = mapped_column(DateTime)

    user: Mapped[User] = relationship()


class Transcript(Base):
    """The transcript of one match under review: the editable record as JSON, with a version for
    optimistic concurrency (every edit names the version it was made on; a stale one gets HTTP 409)."""

    __tablename__ = "transcripts"
    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), unique=True)
    version: Mapped[int] = mapped_column(Integer, default=1)
    doc_json: Mapped[str] = mapped_column(Text)  # see review_ui/transcripts.py
    report_json: Mapped[str] = mapped_column(Text)  # the decoder's report as uploaded, kept for reference
    status: Mapped[str] = mapped_column(String(32), default=STATUS_NEEDS_REVIEW)
    approved_by: Mapped[str] = mapped_column(String(100), default="")
    approved_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    submitted_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    updated_by: Mapped[str] = mapped_column(String(100), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)

    match: Mapped[Match] = relationship()


class TranscriptRevision(Base):
    """The document as it was at each version (undo restores the previous one as a new version)."""

    __tablename__ = "transcript_revisions"
    id: Mapped[int] = mapped_column(primary_key=True)
    transcript_id: Mapped[int] = mapped_column(ForeignKey("transcripts.id", ondelete="CASCADE"), index=True)
    version: Mapped[int] = mapped_column(Integer)
    doc_json: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class AuditLog(Base):
    """Every change to a transcript or an account: who, when, what, before and after. Never deleted."""

    __tablename__ = "audit_log"
    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime)
    username: Mapped[str] = mapped_column(String(100))
    match_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    action: Mapped[str] = mapped_column(String(64))
    target: Mapped[str] = mapped_column(String(200), default="")
    before: Mapped[str] = mapped_column(Text, default="")
    after: Mapped[str] = mapped_column(Text, default="")
    version: Mapped[int | None] = mapped_column(Integer, nullable=True)  # the transcript version it produced
