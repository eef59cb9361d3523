"""How games end and what they are worth: single/gammon/backgammon, gin wins."""

from __future__ import annotations

from functools import lru_cache

from .position import BAR, Position

SINGLE, GAMMON, BACKGAMMON = 1, 2, 3
RESULT_NAMES = {SINGLE: "single", GAMMON: "gammon", BACKGAMMON: "backgammon"}


def result_value(position: Position, winner: int) -> int:
    """1, 2 or 3 for a game ``winner`` has finished (all 15 checkers off)."""
    loser = position.sides[1 - winner]
    if position.off(1 - winner) > 0:
        return SINGLE
    # A checker on the bar or in the winner's home board (loser's points 19-24).
    if loser[BAR] or any(loser[18:24]):
        return BACKGAMMON
    return GAMMON


def finished(position: Position, player: int) -> bool:
    return position.off(player) == 15


# ------------------------------------------------------------------ gin wins
# A gin win: no contact, and the player wins even if every roll of theirs is
# the worst possible and every roll of the opponent is 6-6. Decided exactly by
# an AND/OR search over one-sided race positions, memoised.

_ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def gin_win(position: Position, player: int, on_roll: int, budget: int = 200_000) -> bool | None:
    """True if ``player`` is certain to win the game; None if the search ran over budget."""
    if position.contact():
        return False
    mine, theirs = position.sides[player], position.sides[1 - player]
    if sum(mine) == 0:
        return True
    best_opp = _min_rolls_66(theirs)  # opponent's fastest finish
    # The player needs, in the worst case, at most k rolls; k such that they finish first.
    k = best_opp if on_roll == player else best_opp - 1
    if k <= 0:
        return False
    counter = [budget]
    try:
        return _worst_case_within(mine, k, counter)
    except _OverBudget:
        return None


class _OverBudget(Exception):
    pass


def _one_sided_plays(side: tuple[int, ...], dice: tuple[int, int]) -> set[tuple[int, ...]]:
    from .moves import legal_plays  # local: moves imports nothing from here

    empty = (0,) * 25
    return {p.result.sides[0] for p in legal_plays(Position.trusted((side, empty)), 0, dice)}


@lru_cache(maxsize=200_000)
def _min_rolls_66(side: tuple[int, ...]) -> int:
    if sum(side) == 0:
        return 0
    return 1 + min(_min_rolls_66(s) for s in _one_sided_plays(side, (6, 6)))


_worst_memo: dict[tuple[tuple[int, ...], int], bool] = {}


def _worst_case_within(side: tuple[int, ...], k: int, counter: list[int]) -> bool:
    """Does every roll sequence let this side bear off within k rolls (playing well)?"""
    if sum(side) == 0:
        return True
    if k == 0:
        return False
    key = (side, k)
    if key in _worst_memo:
        return _worst_memo[key]
    counter[0] -= 1
    if counter[0] < 0:
        raise _OverBudget
    ok = True
    for roll in sorted(_ROLLS, key=sum):  # small rolls first: they refute soonest
        if not any(_worst_case_within(s, k - 1, counter) for s in _one_sided_plays(side, roll)):
            ok = False
            break
    _worst_memo[key] = ok
    return ok
