"""Event set-up API (staff login; changes need a director and the session's CSRF token): events with their
rules profile, match length and retention; players; rounds and pairings (one by one or a CSV); boards and
their agent tokens (returned once, stored hashed). See review_ui/setup.py for the rules."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from .. import setup
from ..auth import DirectorDep, LoginDep
from ..models import Board, Event
from ..services import board_by_number, utcnow
from ..setup_models import Round
from .deps import SessionDep

router = APIRouter(prefix="/api/v1/setup", tags=["setup"])

MAX_CSV = 1 << 20
ONLINE_SECONDS = 30  # an agent is online if its last heartbeat is this recent


def event_out(ev: Event) -> dict:
    return {"id": ev.id, "name": ev.name, "rules_profile": ev.rules_profile, "match_length": ev.match_length,
            "retention_policy": ev.retention_policy, "retention_days": ev.retention_days,
            "purge_unapproved": ev.purge_unapproved, "legal_hold": ev.legal_hold}


def board_out(b: Board) -> dict:
    online = b.last_seen_at is not None and (utcnow() - b.last_seen_at).total_seconds() <= ONLINE_SECONDS
    return {"number": b.number, "event_id": b.event_id, "online": online, "last_seen_at": b.last_seen_at,
            "token_set_at": b.token_set_at}


def round_out(s: Session, r: Round) -> dict:
    return {"number": r.number, "starts_at": r.starts_at,
            "pairings": [{"board": m.board.number, "player_a": m.player1, "player_b": m.player2, "match_id": m.id}
                         for m in setup.round_matches(s, r)]}


def _event(s: Session, event_id: int) -> Event:
    ev = s.get(Event, event_id)
    if ev is None:
        raise HTTPException(404, f"no event {event_id}")
    return ev


def _round(s: Session, ev: Event, number: int) -> Round:
    r = setup.get_round(s, ev, number)
    if r is None:
        raise HTTPException(404, f"event {ev.id} has no round {number}")
    return r


def _fail(s: Session, e: setup.SetupError) -> HTTPException:
    s.rollback()
    if isinstance(e, setup.CsvImportError):
        return HTTPException(422, {"message": str(e), "errors": [{"line": x.line, "message": x.message}
                                                                 for x in e.errors]})
    return HTTPException(422, str(e))


class EventIn(BaseModel):
    name: str
    rules_profile: str = "bmab"
    match_length: int | None = None  # default: the profile's (7; 0 for money)
    retention_policy: str = "after_approval"
    retention_days: float | None = 30
    purge_unapproved: bool = False


class EventPatch(BaseModel):
    rules_profile: str | None = None
    match_length: int | None = None
    retention_policy: str | None = None
    retention_days: float | None = None
    purge_unapproved: bool | None = None


@router.get("/events")
def get_events(login: LoginDep, session: SessionDep):
    return [event_out(e) for e in session.scalars(select(Event).order_by(Event.id))]


@router.post("/events", status_code=201)
def post_event(body: EventIn, login: DirectorDep, session: SessionDep):
    try:
        ev = setup.new_event(session, login.user.username, **body.model_dump())
    except setup.SetupError as e:
        raise _fail(session, e) from None
    session.commit()
    return event_out(ev)


@router.get("/events/{event_id}")
def get_event(event_id: int, login: LoginDep, session: SessionDep):
    ev = _event(session, event_id)
    return {**event_out(ev), "players": [p.name for p in setup.players(session, ev)],
            "boards": [board_out(b) for b in setup.event_boards(session, ev)],
            "rounds": [round_out(session, r) for r in setup.rounds(session, ev)]}


@router.patch("/events/{event_id}")
def patch_event(event_id: int, body: EventPatch, login: DirectorDep, session: SessionDep):
    ev = _event(session, event_id)
    try:
        setup.update_event(session, login.user.username, ev, **body.model_dump())
    except setup.SetupError as e:
        raise _fail(session, e) from None
    session.commit()
    return event_out(ev)


class PlayerIn(BaseModel):
    name: str


@router.post("/events/{event_id}/players", status_code=201)
def post_player(event_id: int, body: PlayerIn, login: DirectorDep, session: SessionDep):
    ev = _event(session, event_id)
    try:
        p = setup.add_player(session, login.user.username, ev, body.name)
    except setup.SetupError as e:
        raise _fail(session, e) from None
    session.commit()
    return {"name": p.name}


class RoundIn(BaseModel):
    number: int | None = None  # default: the next one
    starts_at: datetime | None = None  # default: now


@router.post("/events/{event_id}/rounds", status_code=201)
def post_round(event_id: int, body: RoundIn, login: DirectorDep, session: SessionDep):
    ev = _event(session, event_id)
    try:
        r = setup.new_round(session, login.user.username, ev, body.number, body.starts_at)
    except setup.SetupError as e:
        raise _fail(session, e) from None
    session.commit()
    return round_out(session, r)


@router.get("/events/{event_id}/rounds/{number}")
def get_round(event_id: int, number: int, login: LoginDep, session: SessionDep):
    return round_out(session, _round(session, _event(session, event_id), number))


class PairingIn(BaseModel):
    player_a: str
    player_b: str


@router.put("/events/{event_id}/rounds/{number}/pairings/{board}")
def put_pairing(event_id: int, number: int, board: int, body: PairingIn, login: DirectorDep, session: SessionDep):
    r = _round(session, _event(session, event_id), number)
    try:
        m = setup.set_pairing(session, login.user.username, r, board, body.player_a, body.player_b)
    except setup.SetupError as e:
        raise _fail(session, e) from None
    session.commit()
    return {"board": board, "player_a": m.player1, "player_b": m.player2, "match_id": m.id}


@router.delete("/events/{event_id}/rounds/{number}/pairings/{board}")
def delete_pairing(event_id: int, number: int, board: int, login: DirectorDep, session: SessionDep):
    r = _round(session, _event(session, event_id), number)
    try:
        setup.remove_pairing(session, login.user.username, r, board)
    except setup.SetupError as e:
        raise _fail(session, e) from None
    session.commit()
    return {"ok": True}


async def csv_text(request: Request) -> str:
    """The CSV of a request: the multipart file field `file`, or the body itself (text/csv)."""
    if request.headers.get("content-type", "").startswith("multipart/form-data"):
        f = (await request.form()).get("file")
        if f is None or isinstance(f, str):
            raise HTTPException(422, "no CSV file in the form (field 'file')")
        data = await f.read(MAX_CSV + 1)
    else:
        data = await request.body()
    if len(data) > MAX_CSV:
        raise HTTPException(413, f"the CSV is larger than {MAX_CSV >> 20} MB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")  # a spreadsheet's "CSV" on Windows


@router.post("/events/{event_id}/rounds/{number}/pairings.csv")
async def post_pairings_csv(event_id: int, number: int, request: Request, login: DirectorDep,
                            session: SessionDep):
    """Every pairing of the round from a CSV (`board,player_a,player_b`): all of them, or none with 422 and
    the errors by line."""
    r = _round(session, _event(session, event_id), number)
    text = await csv_text(request)
    try:
        ms = setup.import_pairings_csv(session, login.user.username, r, text)
    except setup.SetupError as e:
        raise _fail(session, e) from None
    session.commit()
    return {"imported": len(ms), **round_out(session, r)}


class BoardIn(BaseModel):
    number: int


@router.post("/events/{event_id}/boards", status_code=201)
def post_board(event_id: int, body: BoardIn, login: DirectorDep, session: SessionDep, response: Response):
    """Register a board for the event; the answer holds its agent token, shown this once (stored hashed)."""
    ev = _event(session, event_id)
    try:
        b, token = setup.add_board(session, login.user.username, ev, body.number)
    except setup.SetupError as e:
        raise _fail(session, e) from None
    session.commit()
    response.headers["Cache-Control"] = "no-store"
    return {**board_out(b), "token": token}


@router.post("/boards/{number}/token")
def post_board_token(number: int, login: DirectorDep, session: SessionDep, response: Response):
    """A new agent token for the board (the old one stops working); shown this once, stored hashed."""
    b = board_by_number(session, number)
    if b is None:
        raise HTTPException(404, f"no board {number}")
    token = setup.rotate_token(session, login.user.username, b)
    session.commit()
    response.headers["Cache-Control"] = "no-store"
    return {**board_out(b), "token": token}
