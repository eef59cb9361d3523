"""Match records: what was played, as a tournament sheet would list it.

`MatchRecord` → `Game` → actions. Actions say *what happened* (who rolled what and
played which notation, who doubled, took, dropped, resigned or ran out of time);
the rules engine (`transcriber.replay`) derives positions, cube and scores from them.
Every action may carry `Provenance` (where in the footage it was seen, how sure
the decoder was, its ranked alternatives and review flags).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field


@dataclass
class Flag:
    """Something a person should look at: a reason code, words, and how sure we are."""

    reason: str
    message: str
    confidence: float | None = None


@dataclass
class Provenance:
    time: float | None = None  # seconds into the footage
    confidence: float | None = None
    alternatives: list[str] = field(default_factory=list)  # ranked, best first
    flags: list[Flag] = field(default_factory=list)


@dataclass
class Move:
    """A roll and the play made with it (``play`` is notation; "" means Cannot Move)."""

    player: int
    dice: tuple[int, int]
    play: str
    prov: Provenance | None = None


@dataclass
class Double:
    player: int
    prov: Provenance | None = None


@dataclass
class Take:
    player: int
    prov: Provenance | None = None


@dataclass
class Drop:
    player: int
    prov: Provenance | None = None


@dataclass
class Beaver:
    """Money play: the taker redoubles at once and keeps the cube."""

    player: int
    prov: Provenance | None = None


@dataclass
class Raccoon:
    """Money play: the original doubler re-redoubles after a beaver."""

    player: int
    prov: Provenance | None = None


@dataclass
class Resign:
    """``player`` concedes ``value`` (1 single, 2 gammon, 3 backgammon), times the cube."""

    player: int
    value: int
    prov: Provenance | None = None


@dataclass
class Timeout:
    """``player``'s clock ran out: the match is lost unless the position is a gin win."""

    player: int
    prov: Provenance | None = None


Action = Move | Double | Take | Drop | Beaver | Raccoon | Resign | Timeout


@dataclass
class Game:
    number: int
    score: tuple[int, int]  # at the start of the game, as the record states it
    actions: list[Action] = field(default_factory=list)
    winner: int | None = None  # as the record states it
    points: int | None = None
    line: int | None = None  # where the game starts in its source file
    sources: list[tuple[int, int]] = field(default_factory=list)  # per action: (file line, move label)


@dataclass(frozen=True)
class RulesProfile:
    """The rules of one event. ``length`` 0 means a money session."""

    name: str = "bmab"
    length: int = 7
    crawford: bool = True
    dice_on_checker_valid: bool = True  # Aachen: counts; Amberg: reroll
    timeout_loses_match: bool = True  # unless the timed-out player has a gin win
    jacoby: bool = False  # money only
    beavers: bool = False  # money only (raccoons come with beavers)
    cube_limit: int = 1024
    clock_reserve_s: int = 14 * 60
    clock_delay_s: int = 12  # Bronstein delay per move

    @property
    def money(self) -> bool:
        return self.length == 0


PROFILES: dict[str, RulesProfile] = {
    # BMAB / European Players Cup (Aachen): 7 points, dice on checker valid, 14 min + 12 s.
    "bmab": RulesProfile(),
    # Amberg club rules: dice on a checker are rerolled.
    "amberg": RulesProfile(name="amberg", dice_on_checker_valid=False),
    "money": RulesProfile(name="money", length=0, crawford=False, jacoby=True, beavers=True, cube_limit=64),
}


@dataclass
class MatchRecord:
    players: tuple[str, str]
    length: int  # 0 = money session
    games: list[Game] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)  # header tags in file order
    profile: RulesProfile = field(default_factory=RulesProfile)

    @property
    def match_id(self) -> str:
        """The record's stable ID: the one it carries, else one derived from its content."""
        if self.meta.get("Match ID"):
            return self.meta["Match ID"]
        h = hashlib.sha256()
        for part in (*self.players, str(self.length), self.meta.get("Event", ""), self.meta.get("Round", ""),
                     self.meta.get("EventDate", ""), self.meta.get("Board", "")):
            h.update(part.encode() + b"\0")
        for g in self.games:
            for a in g.actions:
                h.update(repr(_action_key(a)).encode())
        return "bgs-" + h.hexdigest()[:16]


def _action_key(a: Action) -> tuple:
    if isinstance(a, Move):
        return ("m", a.player, a.dice, a.play)
    return (type(a).__name__, a.player, getattr(a, "value", None))
