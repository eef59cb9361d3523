"""An independent, slow, obviously-correct legal-play generator to check the fast one.

Board: one list of 28 signed counts in player 0's numbering: [1..24] points
(+ player 0, - player 1), [25] player 0's bar, [0] player 1's bar, and
offs counted separately. Every ordering of the dice is tried, every checker
at every step, with no pruning; then the rules (most dice, larger die) are
applied to the set of complete sequences.
"""

from __future__ import annotations

from itertools import permutations

from transcriber.position import Position


def to_board(pos: Position, player: int) -> list[int]:
    """Signed board from ``player``'s view: positive = player's checkers; index 25 = player's bar,
    index 0 = opponent's bar (as a negative count)."""
    me, op = pos.sides[player], pos.sides[1 - player]
    b = [0] * 26
    for p in range(1, 25):
        b[p] = me[p - 1] - op[24 - p]
    b[25] = me[24]
    b[0] = -op[24]
    return b


def from_board(b: list[int], player: int) -> Position:
    me = [0] * 25
    op = [0] * 25
    for p in range(1, 25):
        if b[p] > 0:
            me[p - 1] = b[p]
        elif b[p] < 0:
            op[24 - p] = -b[p]
    me[24] = b[25]
    op[24] = -b[0]
    sides = (tuple(me), tuple(op))
    return Position(sides if player == 0 else sides[::-1])


def single_moves(b: list[int], die: int) -> list[list[int]]:
    out = []
    sources = [25] if b[25] > 0 else [p for p in range(1, 25) if b[p] > 0]
    all_home = b[25] == 0 and all(b[p] <= 0 for p in range(7, 25))
    for s in sources:
        t = s - die
        if t >= 1:
            if b[t] < -1:
                continue
            nb = list(b)
            nb[s] -= 1
            if nb[t] == -1:
                nb[t] = 0
                nb[0] -= 1
            nb[t] += 1
            out.append(nb)
        else:
            if not all_home:
                continue
            if t < 0 and any(b[p] > 0 for p in range(s + 1, 7)):
                continue
            nb = list(b)
            nb[s] -= 1
            out.append(nb)
    return out


def brute_results(pos: Position, player: int, dice: tuple[int, int]) -> set[Position]:
    d1, d2 = dice
    orders = [(d1,) * 4] if d1 == d2 else list(set(permutations((d1, d2))))
    found: dict[tuple, tuple[int, int | None]] = {}  # board -> (dice used, first die)

    def walk(b, order, k, first):
        moves = single_moves(b, order[k]) if k < len(order) else []
        if not moves:
            key = tuple(b)
            prev = found.get(key)
            if prev is None or prev[0] < k:
                found[key] = (k, first)
            return
        for nb in moves:
            walk(nb, order, k + 1, order[0] if first is None else first)

    start = to_board(pos, player)
    for order in orders:
        walk(start, order, 0, None)
    most = max(k for k, _ in found.values())
    results = {b: f for b, (k, f) in found.items() if k == most}
    if d1 != d2 and most == 1:
        # Only one die playable: the larger one if it can be played at all.
        hi = max(d1, d2)
        larger = {b for b, f in results.items() if f == hi}
        # A board reached by either die counts as reached by the larger.
        larger |= {b for b in results if any(tuple(nb) == b for nb in single_moves(start, hi))}
        if larger:
            results = {b: results[b] for b in larger}
    return {from_board(list(b), player) for b in results}
