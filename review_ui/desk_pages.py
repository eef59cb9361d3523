"""The tournament desk's pages: the event's desk (the next draw, rounds with results and PRs, standings, Cup
points, prizes; forms for the director) and a clean print page of a round's pairings. Rules: review_ui/desk.py."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlalchemy.orm import Session

from . import desk, setup
from .api.deps import SessionDep
from .auth import PageLoginDep
from .models import Event, Match
from .pages import as_sentence, templates
from .review_models import ROLE_DIRECTOR
from .setup_pages import PageDirectorDep

router = APIRouter(include_in_schema=False)


def _event(s: Session, event_id: int) -> Event:
    ev = s.get(Event, event_id)
    if ev is None:
        raise HTTPException(404, f"no event {event_id}")
    return ev


SECTIONS = {"standings": "Standings", "cup-points": "Cup points", "ranking-points": "Ranking points",
            "prizes": "Prizes"}


def _desk_page(request: Request, login, s: Session, ev: Event, error: str = "", notes=(), status: int = 200,
               only: str | None = None):
    return templates.TemplateResponse(request, "desk.html", {
        "login": login, "ev": ev, "d": desk.desk_json(s, ev), "error": error, "notes": list(notes),
        "director": login.user.role == ROLE_DIRECTOR, "formats": ("swiss", "swiss-top4", "cup"), "only": only,
        "sections": SECTIONS}, status_code=status)


@router.get("/events/{event_id}/desk", response_class=HTMLResponse)
def desk_page(request: Request, event_id: int, login: PageLoginDep, session: SessionDep):
    return _desk_page(request, login, session, _event(session, event_id))


def _act(request, login, session, ev, fn):
    try:
        notes = fn()
    except (desk.DeskError, setup.SetupError) as e:
        session.rollback()
        return _desk_page(request, login, session, ev, as_sentence(e), status=422)
    session.commit()
    if notes:
        return _desk_page(request, login, session, ev, notes=notes)
    return RedirectResponse(f"/events/{ev.id}/desk", status_code=303)


@router.get("/events/{event_id}/desk/{section}", response_class=HTMLResponse)
def section_page(request: Request, event_id: int, section: str, login: PageLoginDep, session: SessionDep):
    """One table of the desk on a page of its own (standings, cup-points, ranking-points, prizes)."""
    if section not in SECTIONS:
        raise HTTPException(404, f"no desk page {section!r}")
    return _desk_page(request, login, session, _event(session, event_id), only=section)


@router.post("/events/{event_id}/desk/format")
def format_post(request: Request, event_id: int, login: PageDirectorDep, session: SessionDep,
                format: Annotated[str, Form()], rounds: Annotated[int, Form()] = 6,
                entry_fee: Annotated[int, Form()] = 100, bye_wins: Annotated[int | None, Form()] = None,
                bye_cup_points: Annotated[int | None, Form()] = None,
                bye_ranking_points: Annotated[int | None, Form()] = None):
    ev = _event(session, event_id)
    byes = {"bye_wins": bye_wins, "bye_cup_points": bye_cup_points, "bye_ranking_points": bye_ranking_points}
    return _act(request, login, session, ev,
                lambda: desk.set_format(session, login.user.username, ev, format, rounds, entry_fee, byes) and [])


@router.post("/events/{event_id}/desk/season")
def season_post(request: Request, event_id: int, login: PageDirectorDep, session: SessionDep,
                season: Annotated[str, Form()] = ""):
    from . import season as seasons

    ev = _event(session, event_id)
    return _act(request, login, session, ev, lambda: seasons.set_season(session, login.user.username, ev, season)
                and [])


@router.get("/seasons", response_class=HTMLResponse)
def seasons_page(request: Request, login: PageLoginDep, session: SessionDep):
    from . import season

    return templates.TemplateResponse(request, "season.html", {"login": login, "seasons": season.seasons(session),
                                                               "t": None})


@router.get("/seasons/{name}", response_class=HTMLResponse)
def season_page(request: Request, name: str, login: PageLoginDep, session: SessionDep):
    """A season's table (Amberg's Saisonrangliste) over the events put in it."""
    from . import season

    try:
        t = season.season_json(session, name)
    except desk.DeskError as e:
        raise HTTPException(404, str(e)) from None
    return templates.TemplateResponse(request, "season.html", {"login": login, "seasons": [], "t": t})


@router.post("/events/{event_id}/desk/draw")
def draw_post(request: Request, event_id: int, login: PageDirectorDep, session: SessionDep):
    ev = _event(session, event_id)
    return _act(request, login, session, ev,
                lambda: desk.draw_next_round(session, login.user.username, ev).forced)


@router.post("/events/{event_id}/desk/rounds/{number}/swap")
def swap_post(request: Request, event_id: int, number: int, login: PageDirectorDep, session: SessionDep,
              player_x: Annotated[str, Form()], player_y: Annotated[str, Form()]):
    ev = _event(session, event_id)
    return _act(request, login, session, ev,
                lambda: desk.swap_players(session, login.user.username, ev, number, player_x, player_y))


@router.post("/events/{event_id}/desk/rounds/{number}/redraw")
def redraw_post(request: Request, event_id: int, number: int, login: PageDirectorDep, session: SessionDep):
    ev = _event(session, event_id)
    return _act(request, login, session, ev,
                lambda: desk.redraw_round(session, login.user.username, ev, number).forced)


@router.post("/events/{event_id}/desk/withdraw")
def withdraw_post(request: Request, event_id: int, login: PageDirectorDep, session: SessionDep,
                  player: Annotated[str, Form()], forfeit_attendance: Annotated[bool, Form()] = False):
    ev = _event(session, event_id)
    return _act(request, login, session, ev, lambda: desk.withdraw_player(
        session, login.user.username, ev, player, forfeit_attendance) and [])


@router.post("/events/{event_id}/desk/matches/{match_id}/result")
def result_post(request: Request, event_id: int, match_id: int, login: PageDirectorDep, session: SessionDep,
                winner: Annotated[str, Form()]):
    ev = _event(session, event_id)
    m = session.get(Match, match_id)
    if m is None or m.event_id != ev.id:
        raise HTTPException(404, f"event {ev.id} has no match {match_id}")
    return _act(request, login, session, ev, lambda: desk.enter_result(session, login.user.username, m, winner)
                and [])


@router.get("/events/{event_id}/rounds/{number}/print", response_class=HTMLResponse)
def print_page(request: Request, event_id: int, number: int, login: PageLoginDep, session: SessionDep):
    """One clean page of a round's pairings, board by board, for the wall."""
    ev = _event(session, event_id)
    d = desk.desk_json(session, ev)
    rnd = next((r for r in d["rounds"] if r["number"] == number), None)
    if rnd is None:
        raise HTTPException(404, f"event {ev.id} has no round {number}")
    return templates.TemplateResponse(request, "pairings_print.html", {"login": login, "ev": ev, "r": rnd})
