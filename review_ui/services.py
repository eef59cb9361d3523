"""Operations on events, boards, matches and segments, shared by the API, the CLI and tests."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import POLICIES, POLICY_AFTER_APPROVAL, POLICY_MATCH_END, Board, Event, Match, Segment


def audit_log(s: Session, by: str, action: str, target: str, before: object = "", after: object = "",
              match_id: int | None = None, version: int | None = None) -> None:
    """One row of the audit log (never deleted): who did what to what, with the value before and after."""
    import json

    from .review_models import AuditLog

    def text(v):
        return v if isinstance(v, str) else json.dumps(v, default=str)

    s.add(AuditLog(at=utcnow(), username=by, match_id=match_id, action=action, target=target[:200],
                   before=text(before), after=text(after), version=version))


def utcnow() -> datetime:
    """Naive UTC, as stored in the database."""
    return datetime.now(UTC).replace(tzinfo=None)


def to_utc_naive(d: datetime) -> datetime:
    return d.astimezone(UTC).replace(tzinfo=None) if d.tzinfo else d


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token: str | None, token_hash: str) -> bool:
    """Constant-time comparison of a presented token with a stored hash."""
    if not token:
        return False
    return hmac.compare_digest(hash_token(token), token_hash)


def new_token() -> str:
    """A fresh token (32 URL-safe characters), never starting with "-": given after an option on a command line
    (`bgscribe capture --token ...`), one that did was taken for an option, and the agent would not start."""
    while (token := secrets.token_urlsafe(24)).startswith("-"):
        pass
    return token


class PolicyError(ValueError):
    pass


def check_policy(policy: str, days: float | None, purge_unapproved: bool) -> None:
    if policy not in POLICIES:
        raise PolicyError(f"unknown retention policy {policy!r}; one of {', '.join(POLICIES)}")
    if policy == POLICY_AFTER_APPROVAL and (days is None or days < 0):
        raise PolicyError("after_approval needs retention_days >= 0")
    if purge_unapproved and policy != POLICY_MATCH_END:
        raise PolicyError("purge_unapproved only applies to the match_end policy")


def create_event(s: Session, name: str, policy: str = POLICY_AFTER_APPROVAL, days: float | None = 30,
                 purge_unapproved: bool = False) -> Event:
    from .security import check_name

    check_policy(policy, days, purge_unapproved)
    try:
        name = check_name(name, "an event name")
    except ValueError as e:
        raise PolicyError(str(e)) from None
    ev = Event(name=name, retention_policy=policy, retention_days=days, purge_unapproved=purge_unapproved,
               legal_hold=False, legal_hold_reason="", created_at=utcnow())
    s.add(ev)
    s.flush()
    return ev


def set_legal_hold(s: Session, event: Event, hold: bool, reason: str = "") -> None:
    event.legal_hold = hold
    event.legal_hold_reason = reason if hold else f"released: {reason}".strip(": ")
    s.flush()


def register_board(s: Session, number: int, token: str, event: Event | None = None) -> Board:
    """Create or update a board; stores only the token's hash. InsecureSetting (a ValueError) for a token that is
    a placeholder or shorter than security.MIN_TOKEN."""
    from .security import check_token

    token = check_token(token, "a board token")
    b = s.scalar(select(Board).where(Board.number == number))
    if b is None:
        b = Board(number=number, token_hash=hash_token(token))
        s.add(b)
    else:
        b.token_hash = hash_token(token)
    if event is not None:
        b.event_id = event.id
    s.flush()
    return b


def board_by_number(s: Session, number: int) -> Board | None:
    return s.scalar(select(Board).where(Board.number == number))


def create_match(s: Session, event: Event, board: Board, started_at: datetime, player1: str = "", player2: str = "",
                 ended_at: datetime | None = None) -> Match:
    """A match on `board`; ValueError for a player's name with control characters or over 100 characters."""
    from .security import check_name

    player1 = check_name(player1, "player 1's name", allow_empty=True)
    player2 = check_name(player2, "player 2's name", allow_empty=True)
    m = Match(event_id=event.id, board_id=board.id, player1=player1, player2=player2,
              started_at=to_utc_naive(started_at), ended_at=to_utc_naive(ended_at) if ended_at else None,
              legal_hold=False)
    s.add(m)
    s.flush()
    relink_board(s, board.id)
    return m


def update_match(s: Session, match: Match, **changes) -> Match:
    for k in ("started_at", "ended_at", "approved_at"):
        if k in changes and changes[k] is not None:
            changes[k] = to_utc_naive(changes[k])
    for k, v in changes.items():
        setattr(match, k, v)
    s.flush()
    if {"started_at", "ended_at"} & changes.keys():
        relink_board(s, match.board_id)
    return match


def overlaps(seg: Segment, m: Match) -> bool:
    return seg.end > m.started_at and (m.ended_at is None or seg.start < m.ended_at)


# One camera films each moment once: two segments of a board that claim the same time by more than this (a
# frame at a segment boundary) are two recordings of it (an agent's clock set wrong, a file replayed over time
# already recorded). Neither can be told to belong to a match, so neither is linked to one.
CLASH_S = 1.0


def _clash(a: Segment, b: Segment) -> bool:
    return a.id != b.id and (min(a.end, b.end) - max(a.start, b.start)).total_seconds() > CLASH_S


def clashing(segments) -> set[int]:
    """The ids of the segments (of one board) that claim time another of them claims too."""
    out: set[int] = set()
    latest = None  # the segment seen so far that ends last
    for seg in sorted(segments, key=lambda g: (g.start, g.end)):
        if latest is not None and _clash(latest, seg):
            out |= {latest.id, seg.id}
        if latest is None or seg.end > latest.end:
            latest = seg
    return out


def relink_board(s: Session, board_id: int) -> None:
    """Link every live segment of a board to each match on that board whose time overlaps it (footage that
    clashes with other footage of the board: to none)."""
    matches = s.scalars(select(Match).where(Match.board_id == board_id)).all()
    segs = s.scalars(select(Segment).where(Segment.board_id == board_id, Segment.deleted_at.is_(None))).all()
    bad = clashing(segs)
    for seg in segs:
        seg.matches = [] if seg.id in bad else [m for m in matches if overlaps(seg, m)]
    s.flush()


def link_segment(s: Session, seg: Segment) -> list[Segment]:
    """Link a new segment to the matches of its board at its time. Where the board already holds footage of
    that time, the new segment and that footage are linked to no match (see `CLASH_S`); returns that footage."""
    near = s.scalars(select(Segment).where(Segment.board_id == seg.board_id, Segment.deleted_at.is_(None),
                                           Segment.id != seg.id, Segment.start < seg.end,
                                           Segment.end > seg.start)).all()
    clash = [o for o in near if _clash(o, seg)]
    if clash:
        seg.matches = []
        for o in clash:
            o.matches = []
    else:
        matches = s.scalars(select(Match).where(Match.board_id == seg.board_id)).all()
        seg.matches = [m for m in matches if overlaps(seg, m)]
    s.flush()
    return clash
