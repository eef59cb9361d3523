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


PIPS_PER_ROLL = 8.17  # the average roll, doubles counted four times
BEAR_OFF_WASTE = 7  # pips a bear-off loses to rolls bigger than needed, about one roll's worth


def likely_resignation(position: Position, loser: int) -> int:
    """What ``loser`` most likely resigned (the board cannot show it): single once a checker of theirs is
    off; otherwise a gammon when saving it looks lost, i.e. bringing every checker home and one off takes
    more rolls than the winner needs to finish (the loser resigns on their own turn, so rolls first).
    A guess, always flagged for a person to confirm."""
    if position.off(loser):
        return SINGLE
    side = position.sides[loser]
    home = sum(n * (i + 1 - 6) for i, n in enumerate(side) if i >= 6)  # the bar counts as point 25
    one_off = min((i + 1 for i in range(6) if side[i]), default=6)
    save_rolls = -(-(home + one_off) // PIPS_PER_ROLL)
    finish_rolls = -(-(position.pips(1 - loser) + BEAR_OFF_WASTE) // PIPS_PER_ROLL)
    return GAMMON if save_rolls > finish_rolls else SINGLE


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
