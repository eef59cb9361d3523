"""A season's table (Amberg: "Saisonrangliste"): the events a director put in the same season (`events.season`,
an explicit name such as "Amberg 2026": a name or a date would guess), each player's ranking points summed over
them, ranked by more points, then more tournament wins, then fewer tournaments played (tournament.points).

A tournament win is first place in a finished event (a shared first place: a win for each; Amberg's final never
shares it). An event still running counts its ranking points so far and is listed as such."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from tournament.points import SeasonEntry, ranking_points, season_table

from .desk import DeskError, event_state
from .models import Event
from .security import check_name
from .services import audit_log


def season_name(value: str) -> str | None:
    """A season's name, stripped; None for an empty one (the event in no season)."""
    try:
        return check_name(value, "a season's name", max_len=100, allow_empty=True) or None
    except ValueError as e:
        raise DeskError(str(e)) from None


def set_season(s: Session, by: str, ev: Event, season: str) -> Event:
    name = season_name(season)
    before = ev.season or ""
    ev.season = name
    audit_log(s, by, "set_season", f"event {ev.id}", before, name or "")
    s.flush()
    return ev


def seasons(s: Session) -> list[dict]:
    # Sorted here, not by the database's collation (see setup.players): the same order on SQLite and PostgreSQL.
    rows = sorted(s.scalars(select(Event).where(Event.season.is_not(None))), key=lambda e: (e.season, e.id))
    out: dict[str, list[str]] = {}
    for ev in rows:
        out.setdefault(ev.season, []).append(ev.name)
    return [{"season": k, "events": v} for k, v in out.items()]


def season_json(s: Session, name: str) -> dict:
    """The season's table and its events; DeskError when no event is in it."""
    events = s.scalars(select(Event).where(Event.season == name).order_by(Event.created_at, Event.id)).all()
    if not events:
        known = ", ".join(x["season"] for x in seasons(s)) or "none yet"
        raise DeskError(f"no event is in season {name!r} (seasons: {known})")
    totals: dict[str, SeasonEntry] = {}
    listed = []
    for ev in events:
        st = event_state(s, ev)
        done = bool(ev.desk_format) and bool(st.players) and st.finished
        winners = {x.player for x in st.standings() if x.place == 1} if done else set()
        for rp in ranking_points(st.players, st.results, st.rules, frozenset(st.left_early)):
            e = totals.setdefault(rp.player, SeasonEntry(rp.player, 0, 0, 0))
            e.points += rp.total
            e.tournaments += 1
            e.tournament_wins += rp.player in winners
        listed.append({"event_id": ev.id, "name": ev.name, "format": ev.desk_format, "players": len(st.players),
                       "finished": done, "winners": sorted(winners)})
    table = season_table(list(totals.values()))
    return {"season": name, "events": listed, "in_progress": not all(e["finished"] for e in listed),
            "table": [{"place": e.place, "player": e.player, "points": e.points,
                       "tournament_wins": e.tournament_wins, "tournaments": e.tournaments,
                       "shared": sum(x.place == e.place for x in table) > 1} for e in table]}
