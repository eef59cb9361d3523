"""What an event is made of: its rules, the round's draw (pairings and byes) and the results.

Players are plain names (unique within an event). A result names both players, the winner and each player's PR
(None until known) with whether that PR is provisional (gnubg's estimate) or official (BMAB's, from XG).
"""

from __future__ import annotations

from dataclasses import dataclass, field

FORMATS = ("swiss", "swiss-top4", "cup")

# What a bye is worth, per format, from the rule texts (../shared/seeds): BMAB (000) scores the Swiss on match
# wins and gives Cup points only for a match won and a lower PR, so a bye is a match win and no Cup point;
# Amberg (001) plays the same Swiss and says "Freilose ... werden mit 0 Punkten gewertet": no ranking points.
# The cup's byes only advance a seed; they count like a Swiss bye in its table.
BYE_DEFAULTS = {"swiss": {"bye_wins": 1, "bye_cup_points": 0, "bye_ranking_points": 0},
                "swiss-top4": {"bye_wins": 1, "bye_cup_points": 0, "bye_ranking_points": 0},
                "cup": {"bye_wins": 1, "bye_cup_points": 0, "bye_ranking_points": 0}}


@dataclass(frozen=True)
class EventRules:
    """An event's format and scoring. Defaults: a BMAB leg (6-round Swiss on match wins, 7-point matches)."""

    format: str = "swiss"
    rounds: int = 6  # Swiss rounds (the cup: as many as its bracket needs)
    match_length: int = 7
    bye_wins: int = 1  # a bye counts as this many match wins in the Swiss score (the pairing and the standings)
    bye_cup_points: int = 0  # Cup points for a bye (no match, so no PR to win)
    bye_ranking_points: int = 0  # Amberg ranking points for a bye (its rules: 0)
    attendance_points: int = 7  # Amberg ranking points for attending; each match won adds its length
    entry_fee: int = 100  # per player, into the prize pool (whole euros)
    prize_shares: tuple[int, ...] = (40, 30, 20, 10)  # per cent of the pool for places 1, 2, ...
    side_pool: int = 100  # each of the two side pools (most points, best PR), whole euros

    def __post_init__(self):
        if self.format not in FORMATS:
            raise ValueError(f"unknown format {self.format!r}; one of {', '.join(FORMATS)}")
        if self.format != "cup" and not 1 <= self.rounds <= 20:
            raise ValueError(f"a Swiss plays 1 to 20 rounds, not {self.rounds}")
        if not 1 <= self.match_length <= 25:
            raise ValueError(f"match length must be 1 to 25 points, not {self.match_length}")
        if self.bye_wins not in (0, 1):
            raise ValueError(f"a bye counts 0 or 1 match wins, not {self.bye_wins}")
        if not 0 <= self.bye_cup_points <= 2:  # a match gives at most 2 (the win and the lower PR)
            raise ValueError(f"a bye gives 0 to 2 Cup points, not {self.bye_cup_points}")
        if not 0 <= self.bye_ranking_points <= self.match_length:  # no more than a match won
            raise ValueError(f"a bye gives 0 to {self.match_length} ranking points (the match length), "
                             f"not {self.bye_ranking_points}")
        if sum(self.prize_shares) != 100:
            raise ValueError(f"the prize shares must add up to 100 %, not {sum(self.prize_shares)}")


@dataclass(frozen=True)
class Pairing:
    a: str
    b: str
    board: int | None = None  # fixed tables: assigned by the desk (review_ui) or the draw's order
    stage: str = "swiss"  # "swiss", "semi-final", "final", "third-place", "cup R1", "consolation R1", ...


@dataclass(frozen=True)
class Bye:
    player: str
    stage: str = "swiss"


@dataclass
class RoundDraw:
    """One round's draw; `forced` says what the rules had to give way on (empty when nothing)."""

    number: int
    pairings: list[Pairing] = field(default_factory=list)
    byes: list[Bye] = field(default_factory=list)
    forced: list[str] = field(default_factory=list)

    def players(self) -> set[str]:
        return {p for x in self.pairings for p in (x.a, x.b)} | {b.player for b in self.byes}


@dataclass(frozen=True)
class Result:
    """One match played (`bye` False) or a bye (`b` empty, `winner` the player)."""

    round: int
    a: str
    b: str
    winner: str
    pr_a: float | None = None
    pr_b: float | None = None
    provisional: bool = True  # the PRs are gnubg's estimate, not yet BMAB's official figures
    stage: str = "swiss"
    bye: bool = False

    def __post_init__(self):
        if self.bye:
            if self.winner != self.a:
                raise ValueError(f"a bye is won by its player ({self.a}), not {self.winner}")
        elif self.winner not in (self.a, self.b):
            raise ValueError(f"the winner of {self.a} – {self.b} must be one of them, not {self.winner!r}")
        if not self.bye and self.a == self.b:
            raise ValueError(f"{self.a} cannot play against themself")

    @property
    def loser(self) -> str | None:
        return None if self.bye else (self.b if self.winner == self.a else self.a)

    def pr_of(self, player: str) -> float | None:
        return self.pr_a if player == self.a else self.pr_b if player == self.b else None

    def opponent(self, player: str) -> str | None:
        return self.b if player == self.a else self.a if player == self.b else None


def bye_result(round_number: int, player: str, stage: str = "swiss") -> Result:
    return Result(round=round_number, a=player, b="", winner=player, stage=stage, bye=True, provisional=False)
