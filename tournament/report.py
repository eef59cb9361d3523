"""An event's standings, Cup points and prizes as JSON: the shape `bgscribe event simulate`, the server's API and
`bgscribe event standings` share."""

from __future__ import annotations

from .formats import EventState
from .points import cup_points, ranking_points
from .prizes import prize_split


def event_json(ev: EventState) -> dict:
    """Standings, Cup points and prizes of an event as JSON (the CLI's and the server's shape)."""
    table = ev.standings()
    cups = cup_points(ev.players, ev.results, ev.rules)
    prizes = prize_split(table, ev.rules)
    return {
        "format": ev.rules.format,
        "bye_scoring": {k: getattr(ev.rules, k) for k in ("bye_wins", "bye_cup_points", "bye_ranking_points")},
        "standings": [{"player": st.player, "place": st.place, "match_wins": st.match_wins,
                       "avg_pr": None if st.avg_pr is None else round(st.avg_pr, 2), "shared": st.shared,
                       "provisional": st.provisional, "withdrawn": st.withdrawn} for st in table],
        "withdrawn": dict(ev.withdrawn),  # player -> the last round they were drawn in
        "cup_points": {c.player: {"win": c.win_points, "pr": c.pr_points, "total": c.total,
                                  "provisional": c.provisional} for c in cups},
        "prizes": prizes.to_json(),
        # Amberg's ranking points (7 for attending, the match length a match won): for its season table
        "ranking_points": {r.player: r.total for r in ranking_points(ev.players, ev.results, ev.rules,
                                                                              frozenset(ev.left_early))},
        "provisional": any(st.provisional for st in table),
    }
