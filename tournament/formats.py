"""An event run round by round in its format, from nothing but its players (in seeding order), its rules and
the results so far (so the server can rebuild it from its tables at every request):

- `swiss`: `rules.rounds` Swiss rounds (tournament.pairing), placed by tournament.standings.
- `swiss-top4` (Amberg): the Swiss rounds, then the top 4 of the Swiss standings play semi-finals (1 v 4,
  2 v 3), then the final and the match for 3rd place; places 5 on keep their Swiss order.
- `cup`: a seeded knockout (byes to the top seeds), and a consolation bracket of the players who lost their
  first-round match, played alongside from round 2; placed by the round a player went out in.

A round is drawn only when every match of the rounds before it has a result (RoundNotReady says which).

A player who withdraws (`withdrawn`: player -> the last round they were drawn in) is not drawn from the next
round on; their results stay and the standings keep them. In the Swiss they leave the field (an odd field left
gives a bye); at Amberg's cut the top 4 still in play the semi-finals; in the cup their next opponent goes
through on a bye. A withdrawal during Amberg's knockout is a match conceded (a result), not a withdrawal.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .knockout import Bracket
from .model import Bye, EventRules, Pairing, Result, RoundDraw, bye_result
from .pairing import swiss_pairing
from .standings import Standing, player_table, standings

SWISS, SEMI, FINAL, THIRD, CUP, CONSOLATION = "swiss", "semi-final", "final", "third-place", "cup", "consolation"


class RoundNotReady(ValueError):
    """The previous round still lacks results, or the event is over."""


def cup_rounds(n_players: int) -> int:
    size, k = 1, 0
    while size < n_players:
        size, k = size * 2, k + 1
    return k


def total_rounds(rules: EventRules, n_players: int) -> int:
    if rules.format == "cup":
        return cup_rounds(n_players)
    return rules.rounds + (2 if rules.format == "swiss-top4" else 0)


def _winners(results: list[Result], number: int, stage: str) -> dict[frozenset, str]:
    return {frozenset((r.a, r.b)): r.winner for r in results
            if r.round == number and r.stage == stage and not r.bye}


def gone_by(withdrawn: dict[str, int] | None, number: int) -> set[str]:
    """The players not to be drawn in round `number`: withdrawn after an earlier round."""
    return {p for p, last in (withdrawn or {}).items() if last < number}


def _cup_brackets(players: list[str], results: list[Result], upto: int,
                  withdrawn: dict[str, int] | None = None) -> tuple[Bracket, Bracket | None]:
    """The main and consolation brackets after rounds 1..upto (replayed from the results), ready for round
    upto + 1 (the players withdrawn by then out of their slots)."""
    main = Bracket.seeded(CUP, players)
    consolation = None
    for number in range(1, upto + 2):
        gone = gone_by(withdrawn, number)
        for bracket in (main, consolation):
            if bracket is not None:
                bracket.withdraw(gone)
        if number > upto:
            break
        if consolation is not None and not consolation.done:
            consolation.advance(_winners(results, number, CONSOLATION))
        losers = main.advance(_winners(results, number, CUP))
        if number == 1:
            first = sorted(losers, key=players.index)
            consolation = Bracket.seeded(CONSOLATION, first) if len(first) >= 2 else None
    return main, consolation


def _top4(players: list[str], results: list[Result], rules: EventRules,
          gone: set[str] = frozenset()) -> tuple[list[str], list[str]]:
    """The semi-finalists: the top 4 of the Swiss standings still in the event (`gone`: withdrawn)."""
    table = [st for st in standings(players, results, rules) if st.player not in gone]
    if len(table) < 4:
        raise RoundNotReady(f"the top-4 knockout needs 4 players, the event has {len(table)} still in play")
    top = [st.player for st in table[:4]]
    notes = []
    cut = table[3]
    if cut.shared and len(table) > 4 and table[4].place == cut.place:
        level = [st.player for st in table if st.place == cut.place]
        notes.append(f"{', '.join(level)} share place {cut.place}: the semi-final places go by seeding")
        # A shared place straddling the cut: the seeding (the order players were entered in) decides.
        level.sort(key=players.index)
        top = [st.player for st in table if st.place < cut.place] + level
        top = top[:4]
    return top, notes


def draw_round(players: list[str], rules: EventRules, results: list[Result], number: int,
               withdrawn: dict[str, int] | None = None) -> RoundDraw:
    """The draw of round `number` (1-based), given the results of every round before it and who withdrew."""
    last = total_rounds(rules, len(players))
    if not 1 <= number <= last:
        raise RoundNotReady(f"the event has {last} rounds; there is no round {number} to draw")
    gone = gone_by(withdrawn, number)
    if rules.format in ("swiss", "swiss-top4") and number <= rules.rounds:
        active = [p for p in players if p not in gone]
        draw = swiss_pairing(active, [r for r in results if r.stage == SWISS], number, rules)
        return draw
    if rules.format == "swiss-top4":
        swiss_results = [r for r in results if r.stage == SWISS]
        if number == rules.rounds + 1:
            top, notes = _top4(players, swiss_results, rules, gone)
            return RoundDraw(number, [Pairing(top[0], top[3], stage=SEMI), Pairing(top[1], top[2], stage=SEMI)],
                             forced=notes)
        semis = [r for r in results if r.stage == SEMI]
        if len(semis) < 2:
            raise RoundNotReady("the semi-finals have no results yet")
        top, _ = _top4(players, swiss_results, rules, gone_by(withdrawn, rules.rounds + 1))
        semis.sort(key=lambda r: min(top.index(r.a), top.index(r.b)))
        win = [r.winner for r in semis]
        lose = [r.loser for r in semis]
        return RoundDraw(number, [Pairing(win[0], win[1], stage=FINAL), Pairing(lose[0], lose[1], stage=THIRD)])
    main, consolation = _cup_brackets(players, results, number - 1, withdrawn)
    draw = RoundDraw(number)
    for bracket in (main, consolation):
        if bracket is None or bracket.done:
            continue
        matches, byes = bracket.next_matches()
        draw.pairings += [Pairing(a, b, stage=bracket.name) for a, b in matches]
        draw.byes += [Bye(p, stage=bracket.name) for p in byes]
    return draw


@dataclass
class EventState:
    """An event's players, rules, the rounds drawn so far and the results in."""

    players: list[str]
    rules: EventRules = field(default_factory=EventRules)
    draws: list[RoundDraw] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    withdrawn: dict[str, int] = field(default_factory=dict)  # player -> the last round they were drawn in
    left_early: set[str] = field(default_factory=set)  # withdrawn and their attendance points forfeited (Amberg)

    @property
    def rounds(self) -> int:
        return total_rounds(self.rules, len(self.players))

    def missing(self, number: int) -> list[Pairing]:
        """The pairings of round `number` without a result."""
        draw = next((d for d in self.draws if d.number == number), None)
        if draw is None:
            return []
        done = {frozenset((r.a, r.b)) for r in self.results if r.round == number and not r.bye}
        return [p for p in draw.pairings if frozenset((p.a, p.b)) not in done]

    @property
    def finished(self) -> bool:
        return len(self.draws) == self.rounds and not self.missing(self.rounds)

    def next_draw(self) -> RoundDraw:
        """Draw the next round (its byes recorded as results at once); RoundNotReady while the previous round
        has matches without a result, or once the event is over."""
        number = len(self.draws) + 1
        if number > self.rounds:
            raise RoundNotReady(f"all {self.rounds} rounds are drawn")
        waiting = self.missing(number - 1)
        if waiting:
            raise RoundNotReady(f"round {number - 1} still has {len(waiting)} match"
                                f"{'es' * (len(waiting) != 1)} without a result "
                                f"({', '.join(f'{p.a} – {p.b}' for p in waiting[:4])}"
                                f"{', ...' if len(waiting) > 4 else ''}); round {number} is drawn once they are in")
        draw = draw_round(self.players, self.rules, self.results, number, self.withdrawn)
        self.draws.append(draw)
        self.results += [bye_result(number, b.player, b.stage) for b in draw.byes]
        return draw

    def record(self, result: Result) -> None:
        """A match's result; ValueError when the round has no such pairing or it has a result already."""
        draw = next((d for d in self.draws if d.number == result.round), None)
        pair = frozenset((result.a, result.b))
        p = draw and next((p for p in draw.pairings if frozenset((p.a, p.b)) == pair), None)
        if p is None:
            raise ValueError(f"round {result.round} has no pairing {result.a} – {result.b}")
        if pair not in {frozenset((x.a, x.b)) for x in self.missing(result.round)}:
            raise ValueError(f"{result.a} – {result.b} in round {result.round} has a result already")
        if result.stage != p.stage:
            result = Result(result.round, result.a, result.b, result.winner, result.pr_a, result.pr_b,
                            result.provisional, p.stage)
        self.results.append(result)

    def withdraw(self, player: str, forfeit_attendance: bool = False) -> int:
        """`player` leaves the event: not drawn after the rounds drawn so far (a match of theirs in the latest
        round still wants a result: played, or conceded by hand); Amberg's rules let the director take their
        attendance points (`forfeit_attendance`). Returns their last round. ValueError when
        the player is unknown or gone already, the event is over, or they play Amberg's knockout."""
        if player not in self.players:
            raise ValueError(f"{player!r} is not a player of the event")
        if player in self.withdrawn:
            last = self.withdrawn[player]
            raise ValueError(f"{player} has withdrawn already ({f'after round {last}' if last else 'before round 1'})")
        if len(self.draws) == self.rounds:
            raise ValueError(f"all {self.rounds} rounds are drawn: nothing is left to withdraw {player} from")
        knockout = [d for d in self.draws if d.number > self.rules.rounds]
        if self.rules.format == "swiss-top4" and any(player in d.players() for d in knockout):
            raise ValueError(f"{player} plays the knockout: leaving it is conceding the match (enter the "
                             "opponent as its winner), not a withdrawal")
        self.withdrawn[player] = len(self.draws)
        if forfeit_attendance:
            self.left_early.add(player)
        return self.withdrawn[player]

    def standings(self) -> list[Standing]:
        """The event's table: its format's places, match wins and average PR over every match played; the
        withdrawn keep their place, marked."""
        table = final_table(self.players, self.rules, self.results, self.withdrawn)
        for st in table:
            st.withdrawn = st.player in self.withdrawn
        return table


def final_table(players: list[str], rules: EventRules, results: list[Result],
                withdrawn: dict[str, int] | None = None) -> list[Standing]:
    if rules.format == "swiss":
        return standings(players, results, rules)
    every = tuple({r.stage for r in results} | {SWISS})
    table = player_table(players, results, rules, every)  # wins and PR over all stages
    if rules.format == "swiss-top4":
        swiss = standings(players, results, rules)
        final = [r for r in results if r.stage == FINAL]
        third = [r for r in results if r.stage == THIRD]
        top: list[list[str]] = []
        if final and third:
            top = [[final[0].winner], [final[0].loser], [third[0].winner], [third[0].loser]]
        elif len([r for r in results if r.stage == SEMI]) == 2:  # the knockout under way: semi-finalists level
            semis = [r for r in results if r.stage == SEMI]
            top = [sorted(r.winner for r in semis), sorted(r.loser for r in semis)]
        groups = top + _rest_groups(swiss, {p for g in top for p in g})
    else:
        main, _ = _cup_brackets(players, results, _cup_rounds_done(players, results, withdrawn), withdrawn)
        groups = [[main.winner]] if main.winner else [sorted(p for p in main.slots if p)]
        for losers in reversed(main.eliminated):
            if losers:
                groups.append(sorted(losers, key=players.index))
        placed = {p for g in groups for p in g}
        groups += [[p] for p in players if p not in placed]
        groups = [g if len(g) == 1 else sorted(g) for g in groups]
    out, place = [], 1
    for g in groups:
        for p in g:
            st = table[p]
            st.place, st.shared = place, len(g) > 1
            out.append(st)
        place += len(g)
    return out


def _rest_groups(swiss: list[Standing], taken: set[str]) -> list[list[str]]:
    groups: dict[int, list[str]] = {}
    for st in swiss:
        if st.player not in taken:
            groups.setdefault(st.place, []).append(st.player)
    return [groups[k] for k in sorted(groups)]


def _cup_rounds_done(players: list[str], results: list[Result], withdrawn: dict[str, int] | None = None) -> int:
    k = 0
    for number in range(1, cup_rounds(len(players)) + 1):
        main, _ = _cup_brackets(players, results, number - 1, withdrawn)
        matches, _ = main.next_matches()
        if not matches or any(frozenset(m) not in _winners(results, number, CUP) for m in matches):
            break
        k = number
    return k
