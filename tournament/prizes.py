"""The prize split: the entry fees shared by the top places (40/30/20/10 % at a BMAB leg) by the final
standings; players sharing a place pool the shares of the places they cover and split them evenly (two level
for 3rd take (20 + 10) / 2 each). Two side pools: the most match-win points, and the best (lowest) average PR,
each split evenly among those level. Amounts are in cents; a cent that does not divide goes to the earlier
placed (then alphabetical) player, so the payouts add up to the pools exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import EventRules
from .standings import Standing


@dataclass
class Prizes:
    pool_cents: int
    places: dict[str, int] = field(default_factory=dict)  # player -> cents from the entry-fee pool
    most_points: dict[str, int] = field(default_factory=dict)
    best_pr: dict[str, int] = field(default_factory=dict)
    provisional: bool = False  # some PR is still gnubg's estimate (or missing): a tie or the PR pool may move
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        def euros(d):
            return {p: round(c / 100, 2) for p, c in d.items()}

        return {"pool": round(self.pool_cents / 100, 2), "places": euros(self.places),
                "most_points": euros(self.most_points), "best_pr": euros(self.best_pr),
                "provisional": self.provisional, "notes": self.notes}


def _split(cents: int, players: list[str]) -> dict[str, int]:
    each, rest = divmod(cents, len(players))
    return {p: each + (1 if i < rest else 0) for i, p in enumerate(players)}


def prize_split(table: list[Standing], rules: EventRules | None = None, entrants: int | None = None) -> Prizes:
    """`table`: the standings (places shared where level). `entrants`: how many paid the entry fee (default:
    everybody in the table)."""
    rules = rules or EventRules()
    n = len(table) if entrants is None else entrants
    pool = n * rules.entry_fee * 100
    out = Prizes(pool)
    shares = list(rules.prize_shares)
    by_place: dict[int, list[str]] = {}
    for st in table:
        by_place.setdefault(st.place, []).append(st.player)
    for place in sorted(by_place):
        group = sorted(by_place[place])
        covered = shares[place - 1: place - 1 + len(group)]
        if not covered:
            break
        cents = pool * sum(covered) // 100
        for p, c in _split(cents, group).items():
            out.places[p] = out.places.get(p, 0) + c
        if len(group) > 1:
            out.notes.append(f"{', '.join(group)} share place {place}: places {place}-{place + len(group) - 1}'s "
                             f"{' + '.join(map(str, covered))} % split evenly")
    paid = sum(out.places.values())
    if paid < pool * sum(shares) // 100 and len(table) < len(shares):
        out.notes.append(f"only {len(table)} players: {len(shares) - len(table)} prize places are not paid")
    if table:
        top = max(st.match_wins for st in table)
        leaders = sorted(st.player for st in table if st.match_wins == top)
        out.most_points = _split(rules.side_pool * 100, leaders)
        known = [st for st in table if st.avg_pr is not None]
        if known:
            best = min(round(st.avg_pr, 2) for st in known)
            winners = sorted(st.player for st in known if round(st.avg_pr, 2) == best)
            out.best_pr = _split(rules.side_pool * 100, winners)
        if len(known) < len(table):
            out.notes.append("the best-PR pool waits for the PRs not yet known: "
                             + ", ".join(sorted(st.player for st in table if st.avg_pr is None)))
    out.provisional = any(st.provisional for st in table)  # a PR can still move a tie, or the best-PR pool
    return out
