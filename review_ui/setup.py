"""Event set-up: an event's rules profile, match length and retention; its players, rounds and pairings;
its boards and their agent tokens. Shared by the set-up API (`api/setup.py`) and pages (`setup_pages.py`).

A pairing is the `Match` of a round on a board: entering one creates (or updates) that match, starting at
the round's start time, so footage of that board from then on is linked to it. A board plays one match at a
time: a match on the board still open when a later match starts there is ended at that start.
Every change goes to the audit log. Errors are `SetupError` with a message for the person at the form.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from transcriber.record import PROFILES

from .models import Board, Event, Match
from .review_models import Transcript
from .security import check_name
from .services import (
    PolicyError,
    audit_log,
    board_by_number,
    check_policy,
    create_event,
    create_match,
    hash_token,
    new_token,
    register_board,
    to_utc_naive,
    update_match,
    utcnow,
)
from .setup_models import Player, Round

MAX_LENGTH = 25  # longest match length accepted (BMAB events play 5 to 17)


class SetupError(ValueError):
    pass


@dataclass
class LineError:
    line: int  # 1-based line of the CSV file (the header is line 1)
    message: str


class CsvImportError(SetupError):
    def __init__(self, errors: list[LineError]):
        self.errors = errors
        n = len(errors)
        super().__init__(f"{n} error{'s' * (n != 1)} in the CSV; nothing was imported: "
                         + "; ".join(f"line {e.line}: {e.message}" for e in errors[:5]) + ("; ..." if n > 5 else ""))


_audit = audit_log


# ----------------------------------------------------------------------------- events


def _check_rules(profile: str, length: int) -> int:
    if profile not in PROFILES:
        raise SetupError(f"unknown rules profile {profile!r}; one of {', '.join(PROFILES)}")
    if profile == "money":
        return 0
    if not 1 <= length <= MAX_LENGTH:
        raise SetupError(f"match length must be 1 to {MAX_LENGTH} points, not {length}")
    return length


def new_event(s: Session, by: str, name: str, rules_profile: str = "bmab", match_length: int | None = None,
              retention_policy: str = "after_approval", retention_days: float | None = 30,
              purge_unapproved: bool = False) -> Event:
    try:
        name = check_name(name, "an event name")
    except ValueError as e:
        raise SetupError(str(e)) from None
    if s.scalar(select(Event).where(Event.name == name)) is not None:
        raise SetupError(f"an event named {name!r} exists already")
    length = _check_rules(rules_profile, PROFILES.get(rules_profile, PROFILES["bmab"]).length
                          if match_length is None else match_length)
    try:
        ev = create_event(s, name, retention_policy, retention_days, purge_unapproved)
    except PolicyError as e:
        raise SetupError(str(e)) from None
    ev.rules_profile, ev.match_length = rules_profile, length
    _audit(s, by, "create_event", f"event {ev.id}", "", event_summary(ev))
    s.flush()
    return ev


def event_summary(ev: Event) -> str:
    days = "" if ev.retention_days is None else f" {ev.retention_days:g} days"
    return (f"{ev.name}: {ev.rules_profile}, {ev.match_length} points, retention {ev.retention_policy}{days}"
            + (", purge unapproved" if ev.purge_unapproved else ""))


def update_event(s: Session, by: str, ev: Event, *, rules_profile: str | None = None, match_length: int | None = None,
                 retention_policy: str | None = None, retention_days: float | None = None,
                 purge_unapproved: bool | None = None) -> Event:
    before = event_summary(ev)
    profile = rules_profile or ev.rules_profile
    length = _check_rules(profile, ev.match_length if match_length is None else match_length)
    policy = retention_policy or ev.retention_policy
    days = ev.retention_days if retention_days is None else retention_days
    unapproved = ev.purge_unapproved if purge_unapproved is None else purge_unapproved
    try:
        check_policy(policy, days, unapproved)
    except PolicyError as e:
        raise SetupError(str(e)) from None
    ev.rules_profile, ev.match_length = profile, length
    ev.retention_policy, ev.retention_days, ev.purge_unapproved = policy, days, unapproved
    _audit(s, by, "update_event", f"event {ev.id}", before, event_summary(ev))
    s.flush()
    return ev


# ----------------------------------------------------------------------------- players and rounds


def _player_name(name: str) -> str:
    try:
        return check_name(name, "a player's name")
    except ValueError as e:
        raise SetupError(str(e)) from None


def player(s: Session, ev: Event, name: str) -> Player | None:
    return s.scalar(select(Player).where(Player.event_id == ev.id, Player.name == _player_name(name)))


def add_player(s: Session, by: str, ev: Event, name: str) -> Player:
    """The event's player of that name, created if new."""
    name = _player_name(name)
    p = player(s, ev, name)
    if p is None:
        p = Player(event_id=ev.id, name=name, created_at=utcnow())
        s.add(p)
        s.flush()
        _audit(s, by, "add_player", f"event {ev.id}", "", name)
    return p


def players(s: Session, ev: Event) -> list[Player]:
    # Sorted here, not by the database: PostgreSQL orders text by its collation ("alice" < "Bob"), SQLite by
    # code point ("Bob" < "alice"); the same order on both.
    return sorted(s.scalars(select(Player).where(Player.event_id == ev.id)), key=lambda p: p.name)


def rounds(s: Session, ev: Event) -> list[Round]:
    return list(s.scalars(select(Round).where(Round.event_id == ev.id).order_by(Round.number)))


def get_round(s: Session, ev: Event, number: int) -> Round | None:
    return s.scalar(select(Round).where(Round.event_id == ev.id, Round.number == number))


def new_round(s: Session, by: str, ev: Event, number: int | None = None, starts_at: datetime | None = None) -> Round:
    if number is None:
        number = (s.scalar(select(func.max(Round.number)).where(Round.event_id == ev.id)) or 0) + 1
    if number < 1:
        raise SetupError(f"round numbers start at 1, not {number}")
    if get_round(s, ev, number) is not None:
        raise SetupError(f"round {number} exists already")
    r = Round(event_id=ev.id, number=number, starts_at=to_utc_naive(starts_at) if starts_at else utcnow(),
              created_at=utcnow())
    s.add(r)
    s.flush()
    _audit(s, by, "create_round", f"event {ev.id}", "", f"round {number} starts {r.starts_at:%Y-%m-%d %H:%M} UTC")
    return r


def current_round(s: Session, ev: Event, now: datetime | None = None) -> Round | None:
    """The latest round that has started; else the first one (rounds entered ahead of time)."""
    now = now or utcnow()
    rs = rounds(s, ev)
    started = [r for r in rs if r.starts_at <= now]
    return started[-1] if started else (rs[0] if rs else None)


# ----------------------------------------------------------------------------- boards


def event_boards(s: Session, ev: Event) -> list[Board]:
    return list(s.scalars(select(Board).where(Board.event_id == ev.id).order_by(Board.number)))


def add_board(s: Session, by: str, ev: Event, number: int) -> tuple[Board, str]:
    """Register board `number` for the event with a new agent token: (board, the token, to show once).

    A board of another event (the same camera kit at the next event) joins this one with a new token."""
    if not 1 <= number <= 999:
        raise SetupError(f"board numbers are 1 to 999, not {number}")
    b = board_by_number(s, number)
    if b is not None and b.event_id == ev.id:
        raise SetupError(f"board {number} is already registered for this event; rotate its token instead")
    before = "" if b is None else f"board of event {b.event_id}"
    token = new_token()
    b = register_board(s, number, token, ev)
    b.token_set_at = utcnow()
    _audit(s, by, "add_board", f"board {number}", before, f"event {ev.id}, new token")
    s.flush()
    return b, token


def rotate_token(s: Session, by: str, b: Board) -> str:
    """A new agent token for the board (the old one stops working at once); returned once, stored hashed."""
    token = new_token()
    register_board(s, b.number, token)
    b.token_set_at = utcnow()
    _audit(s, by, "rotate_token", f"board {b.number}", "old token", "new token")
    s.flush()
    return token


# ----------------------------------------------------------------------------- live viewing


def set_live_public(s: Session, by: str, ev: Event, public: bool) -> None:
    """Open the event's live boards (stream overlay, hall) to everyone, or close them again."""
    _audit(s, by, "live_public", ev.name, ev.live_public, public)
    ev.live_public = public
    s.flush()


def new_live_token(s: Session, by: str, ev: Event) -> str:
    """A read-only viewer token for the event's live boards (the old one stops working); returned once."""
    token = new_token()
    ev.live_token_hash = hash_token(token)
    _audit(s, by, "live_viewer_token", ev.name, "", "new token")
    s.flush()
    return token


def revoke_live_token(s: Session, by: str, ev: Event) -> None:
    ev.live_token_hash = None
    _audit(s, by, "live_viewer_token", ev.name, "", "revoked")
    s.flush()


# ----------------------------------------------------------------------------- pairings


def round_matches(s: Session, r: Round) -> list[Match]:
    return sorted(s.scalars(select(Match).where(Match.round_id == r.id)), key=lambda m: m.board.number)


def _has_transcript(s: Session, m: Match) -> bool:
    return s.scalar(select(Transcript.id).where(Transcript.match_id == m.id)) is not None


def _end_superseded(s: Session, board: Board) -> None:
    """A board plays one match at a time: an open match ends where the next one on the board starts."""
    ms = sorted(s.scalars(select(Match).where(Match.board_id == board.id)), key=lambda m: (m.started_at, m.id))
    for m, nxt in zip(ms, ms[1:], strict=False):
        if m.ended_at is None and nxt.started_at > m.started_at:
            update_match(s, m, ended_at=nxt.started_at)


def set_pairing(s: Session, by: str, r: Round, board_number: int, player_a: str, player_b: str) -> Match:
    """Pair two players on a board in a round: creates the round's match on that board, or updates its players."""
    ev = s.get(Event, r.event_id)
    a, b_ = _player_name(player_a), _player_name(player_b)
    if a == b_:
        raise SetupError(f"{a} cannot play against themself")
    board = board_by_number(s, board_number)
    if board is None or board.event_id != ev.id:
        raise SetupError(f"board {board_number} is not registered for this event")
    for m in round_matches(s, r):
        if m.board_id != board.id and {a, b_} & {m.player1, m.player2}:
            who = a if a in (m.player1, m.player2) else b_
            raise SetupError(f"{who} already plays on board {m.board.number} in round {r.number}")
    pa, pb = add_player(s, by, ev, a), add_player(s, by, ev, b_)
    m = s.scalar(select(Match).where(Match.round_id == r.id, Match.board_id == board.id))
    if m is None:
        m = create_match(s, ev, board, r.starts_at, a, b_)
        m.round_id = r.id
        before = ""
    else:
        before = f"{m.player1} – {m.player2}"
        if (m.player1, m.player2) != (a, b_) and _has_transcript(s, m):
            raise SetupError(f"match {m.id} on board {board_number} has a transcript already; "
                             "change the players' names in its review page")
        m.player1, m.player2 = a, b_
    m.player_a_id, m.player_b_id = pa.id, pb.id
    s.flush()
    _end_superseded(s, board)
    _audit(s, by, "set_pairing", f"round {r.number} board {board_number}", before, f"{a} – {b_}", m.id)
    return m


def remove_pairing(s: Session, by: str, r: Round, board_number: int) -> None:
    board = board_by_number(s, board_number)
    m = board and s.scalar(select(Match).where(Match.round_id == r.id, Match.board_id == board.id))
    if m is None:
        raise SetupError(f"round {r.number} has no pairing on board {board_number}")
    if _has_transcript(s, m):
        raise SetupError(f"match {m.id} on board {board_number} has a transcript; it cannot be removed")
    _audit(s, by, "remove_pairing", f"round {r.number} board {board_number}", f"{m.player1} – {m.player2}", "",
           m.id)
    s.delete(m)
    s.flush()


# ----------------------------------------------------------------------------- CSV import

COLUMNS = {  # accepted header names (case, spaces and underscores ignored) for each column
    "board": ("board", "boardnumber", "boardno", "table"),
    "player_a": ("playera", "player1", "white", "home"),
    "player_b": ("playerb", "player2", "black", "away"),
    "round": ("round", "roundnumber"),
}


def _column(header: str) -> str | None:
    key = "".join(ch for ch in header.lower() if ch.isalnum())
    return next((col for col, names in COLUMNS.items() if key in names), None)


def parse_pairings_csv(text: str) -> tuple[list[tuple[int, int, str, str, str]], list[LineError]]:
    """Rows (line, board, player A, player B, round or '') of a pairings CSV, and every problem found, by line.

    The first line is the header (`board,player_a,player_b`, optionally `round`); `,`, `;` or tab separate
    the fields; blank lines are skipped."""
    text = text.lstrip("\ufeff")
    lines = text.splitlines()
    if not any(line.strip() for line in lines):
        return [], [LineError(1, "the file is empty (expected a header: board,player_a,player_b)")]
    first = next(line for line in lines if line.strip())
    delim = max(",;\t", key=first.count)
    reader = csv.reader(io.StringIO(text), delimiter=delim)
    header: list[str] | None = None
    rows, errors = [], []
    for row in reader:
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        if header is None:
            header = [_column(h) or "" for h in row]
            missing = [c for c in ("board", "player_a", "player_b") if c not in header]
            if missing:
                return [], [LineError(line, f"missing column{'s' * (len(missing) > 1)} {', '.join(missing)} "
                                            f"(the header is {','.join(row)!r}; expected board,player_a,player_b)")]
            continue
        cells = dict(zip(header, (c.strip() for c in row), strict=False))
        if len(row) < len(header):
            errors.append(LineError(line, f"{len(row)} fields, the header has {len(header)}"))
            continue
        empty = [c for c in ("board", "player_a", "player_b") if not cells.get(c)]
        if empty:
            errors.append(LineError(line, f"empty {', '.join(empty)}"))
            continue
        if not cells["board"].isdigit():
            errors.append(LineError(line, f"board {cells['board']!r} is not a number"))
            continue
        rows.append((line, int(cells["board"]), cells["player_a"], cells["player_b"], cells.get("round", "")))
    return rows, errors


def import_pairings_csv(s: Session, by: str, r: Round, text: str) -> list[Match]:
    """Enter every pairing of a CSV for round `r`, or none: any bad line raises CsvImportError with all of them."""
    ev = s.get(Event, r.event_id)
    rows, errors = parse_pairings_csv(text)
    if not rows and not errors:
        errors.append(LineError(2, "no pairings below the header"))
    boards = {b.number for b in event_boards(s, ev)}
    seen_board: dict[int, int] = {}
    seen_player: dict[str, int] = {}
    for line, number, a, b, rnd in rows:
        if rnd and rnd != str(r.number):
            errors.append(LineError(line, f"round {rnd!r}, but this is the import for round {r.number}"))
        if number not in boards:
            errors.append(LineError(line, f"unknown board {number} (this event's boards: "
                                          f"{', '.join(map(str, sorted(boards))) or 'none yet'})"))
        if number in seen_board:
            errors.append(LineError(line, f"board {number} appears twice in round {r.number} "
                                          f"(also on line {seen_board[number]})"))
        seen_board.setdefault(number, line)
        try:
            names = [_player_name(a), _player_name(b)]
        except SetupError as e:
            errors.append(LineError(line, str(e)))
            continue
        if names[0] == names[1]:
            errors.append(LineError(line, f"{names[0]} cannot play against themself"))
        for n in names:
            if n in seen_player and seen_player[n] != line:
                errors.append(LineError(line, f"{n} is paired twice in round {r.number} "
                                              f"(also on line {seen_player[n]})"))
            seen_player.setdefault(n, line)
    if errors:
        raise CsvImportError(sorted(errors, key=lambda e: e.line))
    # Players moving between boards within the import: clear this round's other boards' names first.
    imported = {number for _l, number, *_ in rows}
    for m in round_matches(s, r):
        if m.board.number not in imported and {m.player1, m.player2} & set(seen_player):
            raise CsvImportError([LineError(seen_player[next(iter({m.player1, m.player2} & set(seen_player)))],
                                            f"already paired on board {m.board.number} in round {r.number}, "
                                            "which this file does not list; remove that pairing first")])
    out = []
    with s.no_autoflush:
        for m in round_matches(s, r):  # players swapping boards: free the names before re-entering
            if m.board.number in imported and not _has_transcript(s, m):
                m.player1 = m.player2 = ""
        s.flush()
        for _line, number, a, b, _rnd in rows:
            out.append(set_pairing(s, by, r, number, a, b))
    _audit(s, by, "import_pairings", f"round {r.number}", "", f"{len(out)} pairings from CSV")
    return out
