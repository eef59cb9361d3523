"""What is on the table at one instant: checkers, dice, cube, hands, clock, score.

All coordinates are physical board millimetres (see `vision.geometry`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from transcriber.physical import DARK, LIGHT, N_SLOTS, slot_counts  # noqa: F401  (re-exported)

from ..geometry import BoardGeometry


@dataclass(frozen=True)
class Die:
    value: int
    x: float
    y: float
    angle: float  # degrees
    cocked: bool = False
    on_checker: bool = False
    z: float = 0.0  # height of the die's bottom (a die on a checker rests on it)
    moving: bool = False  # tumbling: drawn blurred, not a settled read
    owner: int = 0  # whose pair (0: bottom seat, 1: top seat); one shared pair is all 0


@dataclass(frozen=True)
class Hand:
    """An arm reaching in from a player's edge; (x, y) is where the fingertips are."""

    x: float
    y: float
    from_bottom: bool
    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int]
    holding: int | None = None  # LIGHT / DARK checker carried, or None
    cup: bool = False
    width: float = 85.0


@dataclass(frozen=True)
class Scene:
    counts: np.ndarray  # (27, 2) int: light, dark per physical slot
    dice: tuple[Die, ...] = ()
    cube_value: int = 1
    cube_place: str = "centre"  # centre / top / bottom (of the bar) / end (in a tray or on the frame) / off
    cube_at: tuple[float, float, float, float] | None = None  # "end": x, y (mm), its size (mm), its turn (degrees)
    hands: tuple[Hand, ...] = ()
    clock: tuple[float, float] = (840.0, 840.0)  # seconds left: bottom player, top player
    clock_running: int | None = None  # 0 bottom, 1 top
    score: tuple[int, int] = (0, 0)  # bottom player, top player
    length: int = 7
    shift: tuple[float, float, float] = (0.0, 0.0, 0.0)  # board bump: dx, dy (mm), rotation (deg)
    bar_middle: bool = False  # the bar's checkers from its middle (the cube is not there), as players also put them
    # each checker on the bar, (colour, y mm, layer: 0 on the board), as many of each colour as `counts`' bar;
    # None: `BoardGeometry.bar_spot`'s layout (light above the middle, dark below)
    bar_spots: tuple[tuple[int, float, int], ...] | None = None

    def with_(self, **kw) -> Scene:
        return replace(self, **kw)

    def cube_pose(self, geom: BoardGeometry) -> tuple[float, float, float, float]:
        """Where the cube lies: x, y (mm), its size (mm) and its turn (degrees): `cube_at` off the bar ("end"), else
        the board's own spot for its place, at the board's cube size, square to it."""
        if self.cube_place == "end":
            return self.cube_at
        x, y = geom.cube_spot(self.cube_place)
        return x, y, geom.cube_size, 0.0

    def key(self) -> tuple:
        """Everything that changes the picture (for reusing a rendered frame)."""
        return (self.counts.tobytes(), self.dice, self.cube_value, self.cube_place, self.cube_at, self.hands,
                int(self.clock[0]), int(self.clock[1]), self.clock_running, self.score, self.shift, self.bar_middle,
                self.bar_spots)


def end_cube_place(value: int, y: float) -> str:
    """Where the cube reader places a cube lying off the bar at board ``y`` (`vision.readers.Readers.read_cube`):
    centred where it shows 64 (value 1), else on its owner's side, the half of the board it lies in."""
    return "centre" if value == 1 else "top" if y < 0 else "bottom"


def stack_under(counts: np.ndarray, geom: BoardGeometry, x: float, y: float) -> float | None:
    """Height of the checker stack under (x, y) on the points, or None (a die there lies on the board)."""
    return geom.stack_under(np.asarray(counts)[:24].max(1), x, y)


@dataclass
class Appearance:
    """Per-match randomness that stays fixed while the match is played."""

    skins: list[tuple[int, int, int]] = field(default_factory=list)  # bottom player, top player
    sleeves: list[tuple[int, int, int]] = field(default_factory=list)
    jitter: np.ndarray | None = None  # (27, 16, 2) small per-checker offsets, mm

    @classmethod
    def random(cls, rng: np.random.Generator) -> Appearance:
        skins = [_skin(rng) for _ in range(3)]
        sleeves = [tuple(int(c) for c in rng.integers(20, 235, 3)) for _ in range(3)]
        return cls(skins=skins, sleeves=sleeves, jitter=rng.normal(0, 1.2, (N_SLOTS, 16, 2)))


def _skin(rng: np.random.Generator) -> tuple[int, int, int]:
    tone = rng.uniform(0, 1)
    r = 90 + 150 * (1 - tone * 0.7)
    g = 60 + 120 * (1 - tone * 0.75)
    b = 45 + 100 * (1 - tone * 0.8)
    return int(b), int(g), int(r)
