"""The tournament desk's API (staff login; changes need a director and the session's CSRF token): an event's
format, drawing rounds, swapping players, re-drawing, results by hand, BMAB's official PRs; standings, Cup
points and prizes as JSON; a round's pairings as CSV. The rules live in review_ui/desk.py and tournament/."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from pydantic import BaseModel
from sqlalchemy.orm import Session

from .. import desk, setup
from ..auth import DirectorDep, LoginDep
from ..models import Event, Match
from .deps import SessionDep

router = APIRouter(prefix="/api/v1/desk", tags=["desk"])


def _event(s: Session, event_id: int) -> Event:
    ev = s.get(Event, event_id)
    if ev is None:
        raise HTTPException(404, f"no event {event_id}")
    return ev


def _match(s: Session, match_id: int) -> Match:
    m = s.get(Match, match_id)
    if m is None:
        raise HTTPException(404, f"no match {match_id}")
    return m


def _fail(s: Session, e: Exception) -> HTTPException:
    s.rollback()
    return HTTPException(422, str(e))


@router.get("/events/{event_id}")
def get_desk(event_id: int, login: LoginDep, session: SessionDep):
    """Rounds (pairings, results, PRs), standings, Cup points, prizes; `provisional` while any PR is."""
    return desk.desk_json(session, _event(session, event_id))


class FormatIn(BaseModel):
    format: str
    rounds: int | None = None
    entry_fee: int | None = None
    # What a bye is worth; left out: as before (at first, the format's default from its rules)
    bye_wins: int | None = None
    bye_cup_points: int | None = None
    bye_ranking_points: int | None = None


@router.put("/events/{event_id}/format")
def put_format(event_id: int, body: FormatIn, login: DirectorDep, session: SessionDep):
    ev = _event(session, event_id)
    byes = {k: getattr(body, k) for k in desk.BYE_FIELDS}
    try:
        desk.set_format(session, login.user.username, ev, body.format, body.rounds, body.entry_fee, byes)
    except (desk.DeskError, setup.SetupError) as e:
        raise _fail(session, e) from None
    session.commit()
    return {"format": ev.desk_format, "rounds": ev.desk_rounds, "entry_fee": ev.entry_fee,
            "bye_scoring": desk.bye_scoring(ev)}


class SeasonIn(BaseModel):
    season: str  # "" takes the event out of any season


@router.put("/events/{event_id}/season")
def put_season(event_id: int, body: SeasonIn, login: DirectorDep, session: SessionDep):
    """The season the event counts towards (its ranking points in the season table)."""
    from .. import season

    ev = _event(session, event_id)
    try:
        season.set_season(session, login.user.username, ev, body.season)
    except desk.DeskError as e:
        raise _fail(session, e) from None
    session.commit()
    return {"event_id": ev.id, "season": ev.season}


@router.get("/seasons")
def get_seasons(login: LoginDep, session: SessionDep):
    from .. import season

    return {"seasons": season.seasons(session)}


@router.get("/seasons/{name}")
def get_season(name: str, login: LoginDep, session: SessionDep):
    """The season table: ranking points over the season's events; more tournament wins, then fewer played."""
    from .. import season

    try:
        return season.season_json(session, name)
    except desk.DeskError as e:
        raise HTTPException(404, str(e)) from None


class DrawIn(BaseModel):
    starts_at: datetime | None = None


def _round_answer(s: Session, ev: Event, number: int, forced=(), warnings=()) -> dict:
    data = next(r for r in desk.desk_json(s, ev)["rounds"] if r["number"] == number)
    return {**data, "forced": list(forced), "warnings": list(warnings)}


@router.post("/events/{event_id}/draw", status_code=201)
def post_draw(event_id: int, body: DrawIn, login: DirectorDep, session: SessionDep):
    """Draw and publish the next round (422 saying which matches still lack a result)."""
    ev = _event(session, event_id)
    try:
        r = desk.draw_next_round(session, login.user.username, ev, body.starts_at)
    except (desk.DeskError, setup.SetupError) as e:
        raise _fail(session, e) from None
    session.commit()
    return _round_answer(session, ev, r.number, r.forced)


@router.post("/events/{event_id}/rounds/{number}/redraw")
def post_redraw(event_id: int, number: int, login: DirectorDep, session: SessionDep):
    ev = _event(session, event_id)
    try:
        r = desk.redraw_round(session, login.user.username, ev, number)
    except (desk.DeskError, setup.SetupError) as e:
        raise _fail(session, e) from None
    session.commit()
    return _round_answer(session, ev, r.number, r.forced)


class SwapIn(BaseModel):
    player_x: str
    player_y: str


@router.post("/events/{event_id}/rounds/{number}/swap")
def post_swap(event_id: int, number: int, body: SwapIn, login: DirectorDep, session: SessionDep):
    ev = _event(session, event_id)
    try:
        warnings = desk.swap_players(session, login.user.username, ev, number, body.player_x, body.player_y)
    except (desk.DeskError, setup.SetupError) as e:
        raise _fail(session, e) from None
    session.commit()
    return _round_answer(session, ev, number, warnings=warnings)


@router.get("/events/{event_id}/rounds/{number}/pairings.csv")
def get_pairings_csv(event_id: int, number: int, login: LoginDep, session: SessionDep):
    ev = _event(session, event_id)
    r = setup.get_round(session, ev, number)
    if r is None:
        raise HTTPException(404, f"event {ev.id} has no round {number}")
    return Response(desk.pairings_csv(session, r), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="round-{number}-pairings.csv"'})


class WithdrawIn(BaseModel):
    player: str
    forfeit_attendance: bool = False  # Amberg: the 7 attendance points taken for leaving early


@router.post("/events/{event_id}/withdrawals", status_code=201)
def post_withdrawal(event_id: int, body: WithdrawIn, login: DirectorDep, session: SessionDep):
    """A player leaves the event: not drawn from the next round on; results stay; standings mark them."""
    ev = _event(session, event_id)
    try:
        last = desk.withdraw_player(session, login.user.username, ev, body.player, body.forfeit_attendance)
    except (desk.DeskError, setup.SetupError) as e:
        raise _fail(session, e) from None
    session.commit()
    return {"player": body.player, "withdrawn_after": last, "forfeit_attendance": body.forfeit_attendance}


@router.delete("/events/{event_id}/withdrawals/{player}")
def delete_withdrawal(event_id: int, player: str, login: DirectorDep, session: SessionDep):
    """Undo a withdrawal while no round has been drawn since."""
    ev = _event(session, event_id)
    try:
        desk.reinstate_player(session, login.user.username, ev, player)
    except (desk.DeskError, setup.SetupError) as e:
        raise _fail(session, e) from None
    session.commit()
    return {"player": player, "withdrawn_after": None}


class ResultIn(BaseModel):
    winner: str


@router.put("/matches/{match_id}/result")
def put_result(match_id: int, body: ResultIn, login: DirectorDep, session: SessionDep):
    """A result by hand; 422 with the reason when it contradicts the approved transcript."""
    m = _match(session, match_id)
    try:
        desk.enter_result(session, login.user.username, m, body.winner)
    except desk.DeskError as e:
        raise _fail(session, e) from None
    session.commit()
    return {"match_id": m.id, "winner": body.winner, "source": "hand"}


class PrIn(BaseModel):
    player: str
    pr: float


@router.put("/matches/{match_id}/official-pr")
def put_official_pr(match_id: int, body: PrIn, login: DirectorDep, session: SessionDep):
    """BMAB's official PR for one player of the match; replaces gnubg's provisional one everywhere."""
    m = _match(session, match_id)
    try:
        desk.enter_official_pr(session, login.user.username, m, body.player, body.pr)
    except desk.DeskError as e:
        raise _fail(session, e) from None
    session.commit()
    return {"match_id": m.id, "player": body.player, "pr": body.pr, "source": "bmab"}


@router.post("/events/{event_id}/official-prs.csv")
async def post_official_prs(event_id: int, request: Request, login: DirectorDep, session: SessionDep):
    """BMAB's official PRs from a CSV (`round,player,pr`): all lines or none, 422 with the errors by line."""
    from .setup import csv_text

    ev = _event(session, event_id)
    text = await csv_text(request)
    try:
        n = desk.import_official_prs(session, login.user.username, ev, text)
    except setup.CsvImportError as e:
        session.rollback()
        raise HTTPException(422, {"message": str(e), "errors": [{"line": x.line, "message": x.message}
                                                                for x in e.errors]}) from None
    except desk.DeskError as e:
        raise _fail(session, e) from None
    session.commit()
    return {"imported": n}


SECTIONS = ("standings", "cup_points", "ranking_points", "prizes")


@router.get("/events/{event_id}/{section}")
def get_section(event_id: int, section: str, login: LoginDep, session: SessionDep):
    """One table of the desk: standings, cup_points, ranking_points or prizes (with `provisional`)."""
    if section not in SECTIONS:
        raise HTTPException(404, f"no {section!r}; one of {', '.join(SECTIONS)}")
    d = desk.desk_json(session, _event(session, event_id))
    return {section: d[section], "provisional": d["provisional"]}


@router.get("/matches/{match_id}/pr")
def get_pr(match_id: int, login: LoginDep, session: SessionDep):
    """Every PR row of the match (gnubg's with each decision's error and best play; BMAB's)."""
    import json

    from ..desk_models import MatchPR

    m = _match(session, match_id)
    rows = session.query(MatchPR).filter(MatchPR.match_id == m.id).order_by(MatchPR.id).all()
    return {"match_id": m.id, "prs": [{"player": r.player, "source": r.source, "pr": r.pr, "ply": r.ply,
                                       "error_rate": r.error_rate, "decisions": r.decisions, "error": r.error,
                                       "analysis": json.loads(r.analysis_json) if r.analysis_json else []}
                                      for r in rows]}
