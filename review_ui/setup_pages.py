"""Event set-up pages (server-rendered forms; staff see them, directors change them): events, players,
boards and their tokens, rounds and pairings (by hand or CSV). The rules live in review_ui/setup.py."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlalchemy import select
from sqlalchemy.orm import Session

from transcriber.record import PROFILES

from . import setup
from .api.deps import SessionDep
from .api.setup import MAX_CSV, board_out
from .auth import PageLoginDep, page_login
from .dashboard import match_rows
from .models import POLICIES, Event, Match
from .pages import pipeline_stage, templates
from .review_models import ROLE_DIRECTOR, UserSession
from .services import board_by_number

router = APIRouter(include_in_schema=False)


def page_director(login: Annotated[UserSession, Depends(page_login)]) -> UserSession:
    if login.user.role != ROLE_DIRECTOR:
        raise HTTPException(403, "only a tournament director may change the event set-up")
    return login


PageDirectorDep = Annotated[UserSession, Depends(page_director)]


def _event(s: Session, event_id: int) -> Event:
    ev = s.get(Event, event_id)
    if ev is None:
        raise HTTPException(404, f"no event {event_id}")
    return ev


def _round(s: Session, ev: Event, number: int):
    r = setup.get_round(s, ev, number)
    if r is None:
        raise HTTPException(404, f"event {ev.id} has no round {number}")
    return r


def _form_float(v: str, what: str) -> float | None:
    if not v.strip():
        return None
    try:
        return float(v)
    except ValueError:
        raise setup.SetupError(f"{what} must be a number, not {v!r}") from None


def _form_int(v: str, what: str) -> int | None:
    f = _form_float(v, what)
    if f is not None and f != int(f):
        raise setup.SetupError(f"{what} must be a whole number, not {v!r}")
    return None if f is None else int(f)


def _form_time(v: str) -> datetime | None:
    if not v.strip():
        return None
    try:
        return datetime.fromisoformat(v.strip())
    except ValueError:
        raise setup.SetupError(f"start time {v!r} is not a date and time like 2026-11-30T14:00") from None


# ----------------------------------------------------------------------------- events


def _events_page(request: Request, login, s: Session, error: str = "", status: int = 200):
    evs = list(s.scalars(select(Event).order_by(Event.id)))
    return templates.TemplateResponse(request, "events.html", {
        "login": login, "events": evs, "profiles": list(PROFILES), "policies": POLICIES, "error": error,
        "director": login.user.role == ROLE_DIRECTOR}, status_code=status)


@router.get("/events", response_class=HTMLResponse)
def events_page(request: Request, login: PageLoginDep, session: SessionDep):
    return _events_page(request, login, session)


@router.post("/events")
def events_post(request: Request, login: PageDirectorDep, session: SessionDep, name: Annotated[str, Form()],
                rules_profile: Annotated[str, Form()] = "bmab", match_length: Annotated[str, Form()] = "",
                retention_policy: Annotated[str, Form()] = "after_approval",
                retention_days: Annotated[str, Form()] = "30", purge_unapproved: Annotated[str, Form()] = ""):
    try:
        ev = setup.new_event(session, login.user.username, name, rules_profile,
                             _form_int(match_length, "match length"), retention_policy,
                             _form_float(retention_days, "retention days"), bool(purge_unapproved))
    except setup.SetupError as e:
        session.rollback()
        return _events_page(request, login, session, str(e), 422)
    session.commit()
    return RedirectResponse(f"/events/{ev.id}", status_code=303)


def _event_page(request: Request, login, s: Session, ev: Event, error: str = "", status: int = 200,
                new_token: tuple[int, str] | None = None, viewer_link: str | None = None):
    resp = templates.TemplateResponse(request, "event.html", {
        "login": login, "ev": ev, "profiles": list(PROFILES), "policies": POLICIES, "error": error,
        "director": login.user.role == ROLE_DIRECTOR, "players": setup.players(s, ev),
        "matches": _event_matches(s, ev), "unlisted": _unlisted_players(s, ev),
        "boards": [board_out(b) for b in setup.event_boards(s, ev)],
        "rounds": [(r, len(setup.round_matches(s, r))) for r in setup.rounds(s, ev)],
        "current": setup.current_round(s, ev), "new_token": new_token, "viewer_link": viewer_link},
        status_code=status)
    if new_token or viewer_link:
        resp.headers["Cache-Control"] = "no-store"
    return resp


def _event_matches(s: Session, ev: Event) -> list[dict]:
    return match_rows(s, pipeline_stage, ev.id)


def _unlisted_players(s: Session, ev: Event) -> list[str]:
    """Names on the event's matches that are not on its player list (a match entered with names, as the demo
    does, or a transcript's names)."""
    listed = {p.name for p in setup.players(s, ev)}
    names = {n for m in s.scalars(select(Match).where(Match.event_id == ev.id)) for n in (m.player1, m.player2) if n}
    return sorted(names - listed)


@router.get("/events/{event_id}", response_class=HTMLResponse)
def event_page(request: Request, event_id: int, login: PageLoginDep, session: SessionDep):
    return _event_page(request, login, session, _event(session, event_id))


@router.post("/events/{event_id}/settings")
def event_settings_post(request: Request, event_id: int, login: PageDirectorDep, session: SessionDep,
                        rules_profile: Annotated[str, Form()], match_length: Annotated[str, Form()],
                        retention_policy: Annotated[str, Form()], retention_days: Annotated[str, Form()] = "",
                        purge_unapproved: Annotated[str, Form()] = ""):
    ev = _event(session, event_id)
    try:
        setup.update_event(session, login.user.username, ev, rules_profile=rules_profile,
                           match_length=_form_int(match_length, "match length"), retention_policy=retention_policy,
                           retention_days=_form_float(retention_days, "retention days"),
                           purge_unapproved=bool(purge_unapproved))
    except setup.SetupError as e:
        session.rollback()
        return _event_page(request, login, session, ev, str(e), 422)
    session.commit()
    return RedirectResponse(f"/events/{ev.id}", status_code=303)


@router.post("/events/{event_id}/players")
def players_post(request: Request, event_id: int, login: PageDirectorDep, session: SessionDep,
                 name: Annotated[str, Form()]):
    ev = _event(session, event_id)
    try:
        setup.add_player(session, login.user.username, ev, name)
    except setup.SetupError as e:
        session.rollback()
        return _event_page(request, login, session, ev, str(e), 422)
    session.commit()
    return RedirectResponse(f"/events/{ev.id}#players", status_code=303)


@router.post("/events/{event_id}/boards", response_class=HTMLResponse)
def boards_post(request: Request, event_id: int, login: PageDirectorDep, session: SessionDep,
                number: Annotated[str, Form()]):
    """Registers a board; the page that answers shows its agent token this once."""
    ev = _event(session, event_id)
    try:
        n = _form_int(number, "board number")
        if n is None:
            raise setup.SetupError("enter the board's number")
        b, token = setup.add_board(session, login.user.username, ev, n)
    except setup.SetupError as e:
        session.rollback()
        return _event_page(request, login, session, ev, str(e), 422)
    session.commit()
    return _event_page(request, login, session, ev, new_token=(b.number, token))


@router.post("/events/{event_id}/boards/{number}/token", response_class=HTMLResponse)
def board_token_post(request: Request, event_id: int, number: int, login: PageDirectorDep, session: SessionDep):
    ev = _event(session, event_id)
    b = board_by_number(session, number)
    if b is None or b.event_id != ev.id:
        raise HTTPException(404, f"board {number} is not registered for event {ev.id}")
    token = setup.rotate_token(session, login.user.username, b)
    session.commit()
    return _event_page(request, login, session, ev, new_token=(b.number, token))


@router.post("/events/{event_id}/live")
def live_post(request: Request, event_id: int, login: PageDirectorDep, session: SessionDep,
              public: Annotated[str, Form()] = ""):
    ev = _event(session, event_id)
    setup.set_live_public(session, login.user.username, ev, public == "1")
    session.commit()
    return RedirectResponse(f"/events/{ev.id}#live", status_code=303)


@router.post("/events/{event_id}/live/token", response_class=HTMLResponse)
def live_token_post(request: Request, event_id: int, login: PageDirectorDep, session: SessionDep,
                    revoke: Annotated[str, Form()] = ""):
    """A new viewer link (the page that answers shows it this once), or none (`revoke`)."""
    ev = _event(session, event_id)
    if revoke:
        setup.revoke_live_token(session, login.user.username, ev)
        session.commit()
        return RedirectResponse(f"/events/{ev.id}#live", status_code=303)
    token = setup.new_live_token(session, login.user.username, ev)
    session.commit()
    base = str(request.base_url).rstrip("/")
    return _event_page(request, login, session, ev, viewer_link=f"{base}/live/hall?token={token}")


@router.post("/events/{event_id}/rounds")
def rounds_post(request: Request, event_id: int, login: PageDirectorDep, session: SessionDep,
                number: Annotated[str, Form()] = "", starts_at: Annotated[str, Form()] = ""):
    ev = _event(session, event_id)
    try:
        r = setup.new_round(session, login.user.username, ev, _form_int(number, "round number"), _form_time(starts_at))
    except setup.SetupError as e:
        session.rollback()
        return _event_page(request, login, session, ev, str(e), 422)
    session.commit()
    return RedirectResponse(f"/events/{ev.id}/rounds/{r.number}", status_code=303)


# ----------------------------------------------------------------------------- a round's pairings


def _round_page(request: Request, login, s: Session, ev: Event, r, error: str = "", csv_errors=None,
                status: int = 200, imported: int | None = None):
    return templates.TemplateResponse(request, "round.html", {
        "login": login, "ev": ev, "r": r, "matches": setup.round_matches(s, r), "error": error,
        "csv_errors": csv_errors or [], "director": login.user.role == ROLE_DIRECTOR, "imported": imported,
        "boards": [b.number for b in setup.event_boards(s, ev)], "players": setup.players(s, ev)},
        status_code=status)


@router.get("/events/{event_id}/rounds/{number}", response_class=HTMLResponse)
def round_page(request: Request, event_id: int, number: int, login: PageLoginDep, session: SessionDep,
               imported: int | None = None):
    ev = _event(session, event_id)
    return _round_page(request, login, session, ev, _round(session, ev, number), imported=imported)


@router.post("/events/{event_id}/rounds/{number}/pairings")
def pairing_post(request: Request, event_id: int, number: int, login: PageDirectorDep, session: SessionDep,
                 board: Annotated[str, Form()], player_a: Annotated[str, Form()], player_b: Annotated[str, Form()]):
    ev = _event(session, event_id)
    r = _round(session, ev, number)
    try:
        n = _form_int(board, "board")
        if n is None:
            raise setup.SetupError("enter the board's number")
        setup.set_pairing(session, login.user.username, r, n, player_a, player_b)
    except setup.SetupError as e:
        session.rollback()
        return _round_page(request, login, session, ev, r, str(e), status=422)
    session.commit()
    return RedirectResponse(f"/events/{ev.id}/rounds/{r.number}", status_code=303)


@router.post("/events/{event_id}/rounds/{number}/pairings/{board}/delete")
def pairing_delete(request: Request, event_id: int, number: int, board: int, login: PageDirectorDep,
                   session: SessionDep):
    ev = _event(session, event_id)
    r = _round(session, ev, number)
    try:
        setup.remove_pairing(session, login.user.username, r, board)
    except setup.SetupError as e:
        session.rollback()
        return _round_page(request, login, session, ev, r, str(e), status=422)
    session.commit()
    return RedirectResponse(f"/events/{ev.id}/rounds/{r.number}", status_code=303)


@router.post("/events/{event_id}/rounds/{number}/pairings.csv")
async def pairings_csv_post(request: Request, event_id: int, number: int, login: PageDirectorDep,
                            session: SessionDep, file: Annotated[UploadFile, File()]):
    ev = _event(session, event_id)
    r = _round(session, ev, number)
    data = await file.read(MAX_CSV + 1)
    try:
        if len(data) > MAX_CSV:
            raise setup.SetupError(f"the CSV is larger than {MAX_CSV >> 20} MB")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("cp1252", errors="replace")
        ms = setup.import_pairings_csv(session, login.user.username, r, text)
    except setup.SetupError as e:
        session.rollback()
        errors = e.errors if isinstance(e, setup.CsvImportError) else []
        msg = (f"{file.filename or 'the file'}: {len(errors)} problem{'s' * (len(errors) != 1)}, nothing imported"
               if errors else str(e))
        return _round_page(request, login, session, ev, r, msg, errors, status=422)
    session.commit()
    return RedirectResponse(f"/events/{ev.id}/rounds/{r.number}?imported={len(ms)}", status_code=303)
