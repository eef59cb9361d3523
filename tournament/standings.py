"""Final standings per BMAB's rules: most match wins; tied on wins, the lower average PR over all rounds played;
still tied, the head-to-head result among the tied players (if they played each other); else a shared placing.

Head-to-head among more than two tied players is a mini-league of their matches against each other, used only
when every pair of them met (otherwise it would favour whoever happened to meet); a cycle (A beat B, B beat C,
C beat A) leaves them level, so the placing is shared. PRs are compared at two decimals, as BMAB publishes them;
a player whose PR is not known yet cannot be separated on PR (the standings say they are provisional).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from .model import EventRules, Result


@dataclass
class Standing:
    player: str
    place: int = 0
    match_wins: int = 0
    played: int = 0  # matches played (byes not counted)
    byes: int = 0
    avg_pr: float | None = None  # over the matches with a PR
    pr_matches: int = 0
    provisional: bool = False  # a PR of theirs is gnubg's estimate, or missing
    shared: bool = False  # the place is shared
    withdrawn: bool = False  # left the event (tournament.formats.EventState.withdraw); their results stay
    decided_by: str = ""  # what separated them from the players level on wins: "pr", "head-to-head", ""
    opponents: list[str] = field(default_factory=list)


def _pr_key(st: Standing) -> float | None:
    return None if st.avg_pr is None else round(st.avg_pr, 2)


def player_table(players: list[str], results: list[Result], rules: EventRules | None = None,
                 stages: tuple[str, ...] = ("swiss",)) -> dict[str, Standing]:
    rules = rules or EventRules()
    table = {p: Standing(p) for p in players}
    prs: dict[str, list[float]] = {p: [] for p in players}
    for r in results:
        if r.stage not in stages:
            continue
        if r.bye:
            if r.a in table:
                table[r.a].byes += 1
                table[r.a].match_wins += rules.bye_wins
            continue
        for p in (r.a, r.b):
            if p not in table:
                continue
            st = table[p]
            st.played += 1
            st.opponents.append(r.opponent(p))
            if r.winner == p:
                st.match_wins += 1
            pr = r.pr_of(p)
            if pr is None:
                st.provisional = True
            else:
                prs[p].append(pr)
                st.provisional |= r.provisional
    for p, st in table.items():
        st.pr_matches = len(prs[p])
        st.avg_pr = sum(prs[p]) / len(prs[p]) if prs[p] else None
    return table


def _h2h_wins(group: list[str], results: list[Result], stages) -> dict[str, int] | None:
    """Wins of each player against the others of the group, or None when some pair of them never met."""
    inside = set(group)
    met = set()
    wins = dict.fromkeys(group, 0)
    for r in results:
        if r.bye or r.stage not in stages or r.a not in inside or r.b not in inside:
            continue
        met.add(frozenset((r.a, r.b)))
        wins[r.winner] += 1
    if any(frozenset(pair) not in met for pair in combinations(group, 2)):
        return None
    return wins


def _order_h2h(group: list[str], results, stages) -> list[list[str]]:
    """Split a group level on wins and PR by head-to-head, recursively; each inner list is one shared place."""
    if len(group) == 1:
        return [group]
    wins = _h2h_wins(group, results, stages)
    if wins is None or len(set(wins.values())) == 1:
        return [sorted(group)]
    out = []
    for w in sorted(set(wins.values()), reverse=True):
        sub = [p for p in group if wins[p] == w]
        out += _order_h2h(sub, results, stages) if len(sub) < len(group) else [sorted(sub)]
    return out


def standings(players: list[str], results: list[Result], rules: EventRules | None = None,
              stages: tuple[str, ...] = ("swiss",)) -> list[Standing]:
    """Every player with their place; players level on everything share a place (1, 2, 2, 4, ...)."""
    table = player_table(players, results, rules, stages)
    by_wins: dict[int, list[str]] = {}
    for p, st in table.items():
        by_wins.setdefault(st.match_wins, []).append(p)
    ordered: list[list[str]] = []  # groups sharing a place, best first
    for wins in sorted(by_wins, reverse=True):
        group = by_wins[wins]
        if len(group) == 1:
            ordered.append(group)
            continue
        keys = {p: _pr_key(table[p]) for p in group}
        if any(k is None for k in keys.values()):
            # An unknown PR cannot be compared: the known ones are ordered among themselves, the unknown ones
            # stay level with each other after them; all of it provisional.
            known = [p for p in group if keys[p] is not None]
            unknown = [p for p in group if keys[p] is None]
            pr_groups = [[p for p in known if keys[p] == k] for k in sorted({keys[p] for p in known})]
            pr_groups += [unknown] if unknown else []
            for p in group:
                table[p].provisional = True
        else:
            pr_groups = [[p for p in group if keys[p] == k] for k in sorted(set(keys.values()))]
        for g in pr_groups:
            if len(pr_groups) > 1:
                for p in g:
                    table[p].decided_by = "pr"
            parts = _order_h2h(g, results, stages) if len(g) > 1 else [g]
            if len(parts) > 1:
                for p in g:
                    table[p].decided_by = "head-to-head"
            ordered += parts
    out: list[Standing] = []
    place = 1
    for g in ordered:
        for p in sorted(g):
            st = table[p]
            st.place, st.shared = place, len(g) > 1
            out.append(st)
        place += len(g)
    return out


def is_provisional(results: list[Result]) -> bool:
    """Whether any match's PR is still an estimate or missing."""
    return any(not r.bye and (r.provisional or r.pr_a is None or r.pr_b is None) for r in results)
