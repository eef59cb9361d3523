"""Position sources for property tests: random layouts, bear-offs, closed boards, real play."""

from __future__ import annotations

from functools import cache

from hypothesis import strategies as st

from transcriber.mat import read_mat
from transcriber.position import Position
from transcriber.replay import replay_match

from ..conftest import SAMPLES


def _place(draw, n: int, slots: list[int], blocked: set[int]) -> dict[int, int]:
    counts: dict[int, int] = {}
    free = [s for s in slots if s not in blocked]
    for _ in range(n):
        s = draw(st.sampled_from(free))
        counts[s] = counts.get(s, 0) + 1
    return counts


@st.composite
def positions(draw, kind: str | None = None) -> Position:
    """Random legal positions. kind: 'any', 'bearoff' (mover all home), 'closed' (mover on the bar
    against a 5- or 6-point board), 'race' (no contact)."""
    kind = kind or draw(st.sampled_from(["any", "bearoff", "closed", "race"]))
    on_board0 = draw(st.integers(1 if kind != "closed" else 2, 15))
    on_board1 = draw(st.integers(1, 15))
    if kind == "any":
        p0 = _place(draw, on_board0, list(range(1, 26)), set())
        # player 1's point q is player 0's point 25 - q: avoid player 0's points
        p1 = _place(draw, on_board1, list(range(1, 26)), {25 - q for q in p0 if q != 25})
    elif kind == "bearoff":
        p0 = _place(draw, on_board0, list(range(1, 7)), set())
        p1 = _place(draw, on_board1, list(range(1, 26)), {25 - q for q in p0})
    elif kind == "race":
        split = draw(st.integers(7, 18))
        p0 = _place(draw, on_board0, list(range(1, split)), set())
        p1 = _place(draw, on_board1, list(range(1, 25 - split + 1)), set())
    else:  # closed board: player 1 holds 5 or 6 points of player 0's entry zone (p1's points 1..6)
        held = draw(st.integers(5, 6))
        pts = draw(st.permutations(range(1, 7)))[:held]
        p1 = {p: 2 for p in pts}
        rest = 15 - 2 * held
        if rest:
            extra = _place(draw, draw(st.integers(0, rest)), list(range(7, 25)), set())
            for k, v in extra.items():
                p1[k] = p1.get(k, 0) + v
        p0 = {25: draw(st.integers(1, 3))}
        blocked = {25 - q for q in p1}
        more = _place(draw, on_board0 - p0[25], list(range(1, 19)), blocked) if on_board0 > p0[25] else {}
        for k, v in more.items():
            p0[k] = p0.get(k, 0) + v
    return Position.from_points(p0, p1)


dice = st.tuples(st.integers(1, 6), st.integers(1, 6))


@cache
def real_positions() -> list[tuple[Position, int, tuple[int, int]]]:
    """(position, player on roll, roll) for every roll in the three real matches."""
    out = []
    for path in SAMPLES:
        rep = replay_match(read_mat(path))
        for g in rep.games:
            for a, before in zip(g.game.actions, g.positions):
                if hasattr(a, "dice"):
                    out.append((before, a.player, a.dice))
    return out
