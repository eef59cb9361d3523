"""The physical board as the camera sees it, and how players sit at it.

Physical slots: triangles 0..23 — bottom row (nearest the bottom of the camera image)
right to left (0..11), then top row left to right (12..23), i.e. the point numbers of
the player seated at the bottom whose home board is on the right, minus one — then
`BAR_SLOT` (24), `TRAY_TOP` (25) and `TRAY_BOTTOM` (26). Vision reports checkers per
physical slot in light and dark; `Seating` maps players' points onto slots.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .position import Position

BAR_SLOT, TRAY_TOP, TRAY_BOTTOM = 24, 25, 26
N_SLOTS = 27
SLOT_NAMES = [f"p{i}" for i in range(24)] + ["bar", "tray_top", "tray_bottom"]
LIGHT, DARK = 0, 1


@dataclass(frozen=True)
class Seating:
    """Who sits where: which colour each record player has and where their home is.

    ``p0_bottom``: record player 0 sits at the bottom of the camera image.
    ``home_right``: the bottom player's home board is on the right (+x) half;
    the top player's home is then on the same side of the board, across from it.
    ``p0_light``: player 0 plays the light checkers.
    """

    p0_bottom: bool = True
    home_right: bool = True
    p0_light: bool = True

    def slot(self, player: int, point: int) -> int:
        """Physical slot of ``player``'s point (1..24, own numbering)."""
        bottom = (player == 0) == self.p0_bottom
        p = point if bottom else 25 - point  # in the bottom player's numbering
        s = p - 1  # bottom player's home bottom-right: slot = point - 1
        if not self.home_right:
            s = 11 - s if s < 12 else 35 - s
        return s

    def light(self, player: int) -> bool:
        return (player == 0) == self.p0_light

    def bottom(self, player: int) -> bool:
        return (player == 0) == self.p0_bottom


def slot_counts(position: Position, seating: Seating) -> np.ndarray:
    """Physical slot counts (27 x [light, dark]) of a rules-engine position."""
    counts = np.zeros((N_SLOTS, 2), dtype=np.int16)
    for player in (0, 1):
        colour = LIGHT if seating.light(player) else DARK
        side = position.sides[player]
        for p in range(1, 25):
            if side[p - 1]:
                counts[seating.slot(player, p), colour] += side[p - 1]
        counts[BAR_SLOT, colour] += side[24]
        counts[TRAY_BOTTOM if seating.bottom(player) else TRAY_TOP, colour] += position.off(player)
    return counts
