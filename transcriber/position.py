"""Backgammon positions.

A `Position` holds both players' checkers, each side seen from its own side of
the board (as GNU Backgammon does): index ``i`` (0..23) is that player's point
``i + 1``, index 24 (`BAR`) is the bar, and checkers borne off are implied
(15 minus the rest). Player 0's point ``p`` is player 1's point ``25 - p``.

Positions are immutable tuples so they hash, compare and cache cheaply; the
legal-play generator in `transcriber.moves` works on these tuples directly.
"""

from __future__ import annotations

from dataclasses import dataclass

CHECKERS = 15
BAR = 24
OPENING = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)

Side = tuple[int, ...]  # 25 counts: points 1..24 then the bar


@dataclass(frozen=True, slots=True)
class Position:
    """Both players' checkers; ``sides[k]`` is player k's 25 counts from k's view."""

    sides: tuple[Side, Side]

    def __post_init__(self) -> None:
        for k, side in enumerate(self.sides):
            if len(side) != 25:
                raise ValueError(f"player {k}: expected 25 counts (24 points and the bar), got {len(side)}")
            if min(side) < 0 or sum(side) > CHECKERS:
                raise ValueError(f"player {k}: counts must be >= 0 and total at most {CHECKERS}")
        a, b = self.sides
        for i in range(24):
            if a[i] and b[23 - i]:
                raise ValueError(f"point {i + 1} (player 0's view) holds checkers of both players")

    @classmethod
    def trusted(cls, sides: tuple[Side, Side]) -> Position:
        """Skip validation: for positions the rules engine itself produced (hot path)."""
        p = object.__new__(cls)
        object.__setattr__(p, "sides", sides)
        return p

    @classmethod
    def opening(cls) -> Position:
        return cls((OPENING, OPENING))

    @classmethod
    def from_points(cls, p0: dict[int, int], p1: dict[int, int]) -> Position:
        """Build from ``{point: count}`` per player, each in its own numbering (25 = bar)."""

        def side(d: dict[int, int]) -> Side:
            s = [0] * 25
            for point, n in d.items():
                if not 1 <= point <= 25:
                    raise ValueError(f"point {point} is not 1..25 (25 = bar)")
                s[point - 1] += n
            return tuple(s)

        return cls((side(p0), side(p1)))

    def off(self, player: int) -> int:
        return CHECKERS - sum(self.sides[player])

    def bar(self, player: int) -> int:
        return self.sides[player][BAR]

    def pips(self, player: int) -> int:
        return sum((i + 1) * n for i, n in enumerate(self.sides[player]))

    def at(self, player: int, point: int) -> int:
        """Checkers of ``player`` on ``point`` in that player's numbering (25 = bar, 0 = off)."""
        if point == 0:
            return self.off(player)
        return self.sides[player][point - 1]

    def contact(self) -> bool:
        """True while some checker can still hit or be hit (the race has not begun)."""
        a, b = self.sides
        back_a = max((i for i in range(25) if a[i]), default=-1)  # a's farthest checker, a's view
        back_b = max((i for i in range(25) if b[i]), default=-1)
        if back_a < 0 or back_b < 0:
            return False
        # In player 0's numbering b's farthest checker sits on point 24 - back_b (index 23 - back_b).
        return back_a > 23 - back_b

    def swapped(self) -> Position:
        return Position((self.sides[1], self.sides[0]))

    def with_side(self, player: int, side: Side) -> Position:
        return Position((side, self.sides[1]) if player == 0 else (self.sides[0], side))

    def __str__(self) -> str:
        return self.diagram()

    def diagram(self, names: tuple[str, str] = ("X", "O")) -> str:
        """A plain-text board from player 0's side (X: player 0, O: player 1)."""
        a, b = self.sides

        def cell(i: int) -> str:  # i: 0-based point in player 0's numbering
            if a[i]:
                return f"{a[i]}X".rjust(3)
            if b[23 - i]:
                return f"{b[23 - i]}O".rjust(3)
            return "  ."

        top = "".join(cell(i) for i in range(12, 24))
        bottom = "".join(cell(i) for i in range(11, -1, -1))
        return (
            " 13 14 15 16 17 18 19 20 21 22 23 24\n"
            f"{top}\n{bottom}\n"
            " 12 11 10  9  8  7  6  5  4  3  2  1\n"
            f"bar: X {a[BAR]} O {b[BAR]}   off: X {self.off(0)} O {self.off(1)}   "
            f"pips: {names[0]} {self.pips(0)} {names[1]} {self.pips(1)}"
        )
