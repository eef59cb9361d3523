"""Points other than the event's own standings: European Players Cup points (every match: 1 for the win,
1 for the lower PR) and Amberg ranking points (7 for attending, the match length for every match won, byes
and unplayed matches nothing; the season table breaks ties by more tournament wins, then fewer played)."""

from __future__ import annotations

from dataclasses import dataclass

from .model import EventRules, Result


@dataclass
class CupPoints:
    player: str
    win_points: int = 0
    pr_points: int = 0
    pr_pending: int = 0  # matches whose PR point cannot be given yet (a PR missing)
    provisional: bool = False  # a PR point rests on gnubg's estimate

    @property
    def total(self) -> int:
        return self.win_points + self.pr_points


def cup_points(players: list[str], results: list[Result], rules: EventRules | None = None) -> list[CupPoints]:
    """Cup points per player, most first (then by name). Every match counts, knockout stages too. Equal PRs
    (at two decimals) give neither player the PR point. A bye gives `rules.bye_cup_points`."""
    rules = rules or EventRules()
    table = {p: CupPoints(p) for p in players}
    for r in results:
        if r.bye:
            if r.a in table:
                table[r.a].win_points += rules.bye_cup_points
            continue
        if r.winner in table:
            table[r.winner].win_points += 1
        if r.pr_a is None or r.pr_b is None:
            for p in (r.a, r.b):
                if p in table:
                    table[p].pr_pending += 1
            continue
        pa, pb = round(r.pr_a, 2), round(r.pr_b, 2)
        if pa != pb:
            best = r.a if pa < pb else r.b
            if best in table:
                table[best].pr_points += 1
        for p in (r.a, r.b):
            if p in table:
                table[p].provisional |= r.provisional
    return sorted(table.values(), key=lambda c: (-c.total, c.player))


@dataclass
class RankingPoints:
    player: str
    attendance: int = 0
    wins: int = 0  # points from matches won (their length each)

    @property
    def total(self) -> int:
        return self.attendance + self.wins


def ranking_points(players: list[str], results: list[Result], rules: EventRules | None = None,
                   left_early: frozenset[str] = frozenset()) -> list[RankingPoints]:
    """Amberg ranking points of one tournament: attendance (forfeited by who left early), plus the match
    length for every match won, the knockout stage's included; a bye `rules.bye_ranking_points` (Amberg: 0),
    unplayed matches 0."""
    rules = rules or EventRules()
    table = {p: RankingPoints(p, 0 if p in left_early else rules.attendance_points) for p in players}
    for r in results:
        if r.winner in table:
            table[r.winner].wins += rules.bye_ranking_points if r.bye else rules.match_length
    return sorted(table.values(), key=lambda x: (-x.total, x.player))


@dataclass
class SeasonEntry:
    player: str
    points: int
    tournament_wins: int
    tournaments: int
    place: int = 0


def season_table(entries: list[SeasonEntry]) -> list[SeasonEntry]:
    """The season's ranking: more points, then more tournament wins, then fewer tournaments played; still
    level, a shared place."""
    def key(e):
        return (-e.points, -e.tournament_wins, e.tournaments)

    out = sorted(entries, key=lambda e: (*key(e), e.player))
    for i, e in enumerate(out):
        e.place = out[i - 1].place if i and key(out[i - 1]) == key(e) else i + 1
    return out
