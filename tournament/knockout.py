"""Knockout brackets: seeded single elimination (byes to the top seeds when the field is not a power of two),
and the standard seeding order (1 meets 2 only in the final, 1 and 2 meet 3 and 4 only in the semi-finals)."""

from __future__ import annotations

from dataclasses import dataclass, field


def seed_order(size: int) -> list[int]:
    """Seeds (1-based) slot by slot for a bracket of `size` (a power of two): 1, size, ..., 2."""
    order = [1]
    while len(order) < size:
        n = len(order) * 2
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


@dataclass
class Bracket:
    """One single-elimination bracket. `slots` is the current round's field, in bracket order; None is a bye."""

    name: str
    slots: list[str | None]
    rounds_played: int = 0
    eliminated: list[list[str]] = field(default_factory=list)  # losers, round by round

    @classmethod
    def seeded(cls, name: str, players: list[str]) -> Bracket:
        if len(players) < 2:
            raise ValueError(f"a {name} bracket needs at least 2 players, not {len(players)}")
        size = 1
        while size < len(players):
            size *= 2
        by_seed = {i + 1: p for i, p in enumerate(players)}
        return cls(name, [by_seed.get(s) for s in seed_order(size)])

    @property
    def done(self) -> bool:
        return len([s for s in self.slots if s is not None]) <= 1

    @property
    def winner(self) -> str | None:
        return next((s for s in self.slots if s is not None), None) if self.done else None

    def next_matches(self) -> tuple[list[tuple[str, str]], list[str]]:
        """This round's matches and byes (a player whose bracket neighbour is empty)."""
        matches, byes = [], []
        for a, b in zip(self.slots[::2], self.slots[1::2]):
            if a is not None and b is not None:
                matches.append((a, b))
            elif (a or b) is not None:
                byes.append(a or b)
        return matches, byes

    def withdraw(self, names: set[str]) -> None:
        """Players who left the event: their slots empty, so their next opponent goes through on a bye."""
        self.slots = [None if s in names else s for s in self.slots]

    def advance(self, winners: dict[frozenset, str]) -> list[str]:
        """Close the round with each match's winner (keyed by the pair); returns the losers."""
        nxt, losers = [], []
        for a, b in zip(self.slots[::2], self.slots[1::2]):
            if a is not None and b is not None:
                w = winners.get(frozenset((a, b)))
                if w is None:
                    raise ValueError(f"no result yet for {a} – {b} ({self.name})")
                nxt.append(w)
                losers.append(b if w == a else a)
            else:
                nxt.append(a if a is not None else b)
        self.slots = nxt
        self.rounds_played += 1
        self.eliminated.append(losers)
        return losers
