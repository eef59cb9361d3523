"""The physical board: dimensions in millimetres and where every slot lies.

Everything here is in the *physical* frame seen from above with the table plane
at z = 0, x to the right and y downwards (towards the player seated at the
bottom of the camera image), origin at the board's centre. Vision reports
checkers per physical slot; which player's home is where is the transcriber's
business (it learns it from the opening position).

Physical slots: triangles 0..23 — bottom row right to left (0..11), then top
row left to right (12..23), i.e. the point numbers of the player seated at the
bottom whose home board is on the right, minus one — then `BAR` (24),
`TRAY_TOP` (25) and `TRAY_BOTTOM` (26).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from transcriber.physical import (  # noqa: F401  (the slot numbering is shared with the transcriber)
    BAR_SLOT,
    N_SLOTS,
    SLOT_NAMES,
    TRAY_BOTTOM,
    TRAY_TOP,
    Seating,
)

CUBE_BAR_MIN_MM = 12.0  # a bar narrower than this (a printed board's middle line, a folding board's hinge) holds no
# cube: players leave it off the board (`BoardGeometry.bar_holds_cube`)
END_MM = 100.0  # beyond each end of the playing field, the strip where a cube off the bar rests on real boards: the
# frame, a tray (at either end or both), the frame again (every tournament stream frame has its cube there)


FIELD_HEIGHTS = (0.5, 1.2)  # a playing field's height, share of its width: what `with_field_shape` takes


def profile_of(values) -> tuple[float, ...] | None:
    """A board's profile as a file keeps it (a board state, an adapter: `BoardGeometry.field_shape`, or the bar's and
    points' shares alone, as kept before the height was) -> its shares; None for none; ValueError if malformed."""
    if values is None:
        return None
    if not isinstance(values, (list, tuple)) or len(values) not in (2, 3) \
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        raise ValueError("a board's profile is [bar share, point share, height share]")
    return tuple(float(v) for v in values)


@dataclass(frozen=True)
class BoardGeometry:
    """A tournament board (defaults: a 19-inch club/tournament board with 38 mm checkers)."""

    checker_d: float = 38.0
    checker_h: float = 7.0  # thickness: what a stacked checker rises by
    point_w: float = 42.0
    point_len: float = 190.0
    bar_w: float = 50.0
    frame: float = 20.0
    tray_w: float = 50.0
    trays_right: bool = True  # bear-off trays at the right edge (else the left)
    inner_h: float = 440.0
    die_size: float = 16.0
    cube_size: float = 30.0
    line: int = 5  # checkers a point's first layer holds (the renderer's: players line up 6 or 7 before stacking)

    def with_field_shape(self, bar_frac: float, point_frac: float, height: float | None = None) -> BoardGeometry:
        """This board with a real board's bar and points, as shares of its playing field's width and height
        (`vision.fieldfind` measures them), and (``height``) its field's height as a share of its width, as the
        readers see the board (`vision.profilefit`; None: this board's). The points keep their width, so the
        readers see checkers at the size they were trained on; the bar takes the board's own share (a narrow bar,
        a wide one), which otherwise shifts every point beside it by up to half a point; the height keeps the
        checkers as tall along the points as they are wide (a printed board's field, half as wide again as it is
        high, mapped onto this one's stretched its discs by a third, and a row of 4 read as 7). Rounded, so one
        board is one geometry."""
        bar = float(np.clip(round(bar_frac / 0.0025) * 0.0025, 0.0, 0.2))
        bar_w = max(bar * 12 * self.point_w / (1 - bar), 6.0)  # (no bar at all: a sliver for the bar slot)
        inner_h = self.inner_h
        if height is not None:  # (to the millimetre: the default's shares give the default board back)
            inner_h = float(round(float(np.clip(height, *FIELD_HEIGHTS)) * (12 * self.point_w + bar_w)))
        point_len = float(np.clip(round(point_frac / 0.005) * 0.005, 0.25, 0.6)) * inner_h
        return replace(self, bar_w=round(bar_w, 2), point_len=round(point_len, 2), inner_h=round(inner_h, 2))

    def field_shape(self) -> tuple[float, float, float]:
        """The bar's share of the playing field's width, a point's share of its height and its height's share of
        its width (`with_field_shape`'s inverse)."""
        width = 12 * self.point_w + self.bar_w
        return self.bar_w / width, self.point_len / self.inner_h, self.inner_h / width

    @property
    def half_w(self) -> float:
        return 6 * self.point_w

    @property
    def width(self) -> float:
        """Outer width: frame, half, bar, half, frame, tray, frame."""
        return 2 * self.half_w + self.bar_w + self.tray_w + 4 * self.frame

    @property
    def height(self) -> float:
        return self.inner_h + 2 * self.frame

    @cached_property
    def _x0(self) -> float:
        """x of the playing field's left edge (inside the frame)."""
        left = -self.width / 2 + self.frame
        return left if self.trays_right else left + self.tray_w + 2 * self.frame

    def field(self) -> tuple[float, float, float, float]:
        """Playing field (both halves and the bar): x0, y0, x1, y1."""
        x0 = self._x0
        return x0, -self.inner_h / 2, x0 + 2 * self.half_w + self.bar_w, self.inner_h / 2

    def tray_rect(self, top: bool) -> tuple[float, float, float, float]:
        x0 = self.width / 2 - self.frame - self.tray_w if self.trays_right else -self.width / 2 + self.frame
        gap = 10.0
        if top:
            return x0, -self.inner_h / 2, x0 + self.tray_w, -gap / 2
        return x0, gap / 2, x0 + self.tray_w, self.inner_h / 2

    def end_rect(self, right: bool) -> tuple[float, float, float, float]:
        """The strip `END_MM` wide beyond the playing field's right (or left) edge, the board's whole height."""
        fx0, _, fx1, _ = self.field()
        y = self.height / 2
        return (fx1, -y, fx1 + END_MM, y) if right else (fx0 - END_MM, -y, fx0, y)

    def bar_rect(self) -> tuple[float, float, float, float]:
        x = self._x0 + self.half_w
        return x, -self.inner_h / 2, x + self.bar_w, self.inner_h / 2

    def corners(self) -> np.ndarray:
        """The board's four outer corners (TL, TR, BR, BL), mm."""
        w, h = self.width / 2, self.height / 2
        return np.array([[-w, -h], [w, -h], [w, h], [-w, h]], dtype=np.float64)

    def point_base_x(self, slot: int) -> float:
        """Centre x of triangle ``slot``'s base."""
        col = 11 - slot if slot < 12 else slot - 12  # 0 = leftmost column
        x = self._x0 + (col + 0.5) * self.point_w
        if col >= 6:
            x += self.bar_w
        return x

    def triangle(self, slot: int) -> np.ndarray:
        """The triangle's three corners (base left, base right, tip), mm."""
        x = self.point_base_x(slot)
        if slot < 12:  # bottom row: base at the bottom edge, tip pointing up
            y0, y1 = self.inner_h / 2, self.inner_h / 2 - self.point_len
        else:
            y0, y1 = -self.inner_h / 2, -self.inner_h / 2 + self.point_len
        return np.array([[x - self.point_w / 2, y0], [x + self.point_w / 2, y0], [x, y1]])

    def checker_spot(self, slot: int, k: int) -> tuple[float, float, float]:
        """Where the k-th checker (0-based) on a slot rests: x, y, and height of its top (mm).

        Points: `line` along the triangle from the base (five on the default board; where players line up
        six or seven, closer together so the line ends near the field's middle), then a second layer lying
        in the grooves of the first, a third, ... (five in line: 5+4+3+2+1 hold 15).
        """
        r = self.checker_d / 2
        layer, pos = _layer_of(k, self.line)
        # the first layer ends at most a little past the field's middle (the opposite point's checkers rarely
        # reach that far)
        pitch = min(self.checker_d * 0.98, (0.52 * self.inner_h - 2.0 - self.checker_d) / max(self.line - 1, 1))
        offset = r + 2.0 + (pos + layer / 2) * pitch
        height = (layer + 1) * self.checker_h
        if slot < 24:
            x = self.point_base_x(slot)
            y = self.inner_h / 2 - offset if slot < 12 else -self.inner_h / 2 + offset
            return x, y, height
        raise ValueError("use bar_spot / tray_spot for the bar and trays")

    def stack_under(self, stacks, x: float, y: float, reach: float = 0.5) -> float | None:
        """Height of the checker stack under (x, y) mm, or None: ``stacks`` holds each point's checkers (24, slot
        order); under means within ``reach`` checker diameters of a `checker_spot` (0.5: anywhere on the checker, the
        renderer's truth for a die on one; `Readers.read_dice` looks for checkers' prints in their middle)."""
        r2 = (reach * self.checker_d) ** 2
        for slot in range(24):
            for k in range(int(stacks[slot])):
                cx, cy, h = self.checker_spot(slot, k)
                if (x - cx) ** 2 + (y - cy) ** 2 < r2:
                    return h
        return None

    def bar_spot(self, upper: bool, k: int, middle: bool = False) -> tuple[float, float, float]:
        """Checkers on the bar: light from the middle upwards, dark downwards (the caller picks); a cube's width
        from the middle, or (``middle``) from the middle itself."""
        x0, _, x1, _ = self.bar_rect()
        layer, pos = _layer_of(k)
        gap = 1.0 if middle else self.cube_size / 2 + 8
        off = gap + self.checker_d / 2 + (pos + layer / 2) * self.checker_d * 0.98
        y = -off if upper else off
        return (x0 + x1) / 2, y, (layer + 1) * self.checker_h

    def tray_spot(self, top: bool, k: int) -> tuple[float, float]:
        """Borne-off checkers stand on edge in the tray, a row from the board's end inwards."""
        x0, y0, x1, y1 = self.tray_rect(top)
        pitch = self.checker_h * 0.95
        y = y0 + 4 + (k + 0.5) * pitch if top else y1 - 4 - (k + 0.5) * pitch
        return (x0 + x1) / 2, y

    @property
    def bar_holds_cube(self) -> bool:
        """Whether the cube can rest on this board's bar: not on a printed board's middle line or a folding board's
        hinge (`CUBE_BAR_MIN_MM`), where it lies off the board."""
        return self.bar_w >= CUBE_BAR_MIN_MM

    def cube_rests(self, place: str) -> str:
        """Where a cube put at ``place`` lies on this board: off it where the bar cannot hold one."""
        return place if self.bar_holds_cube else "off"

    def cube_spot(self, place: str) -> tuple[float, float]:
        """'centre' (middle of the bar), 'top' / 'bottom' (the owner's end of the bar), or 'off'."""
        x0, y0, x1, y1 = self.bar_rect()
        cx = (x0 + x1) / 2
        if place == "centre":
            return cx, 0.0
        if place == "top":
            return cx, y0 + self.cube_size / 2 + 6
        if place == "bottom":
            return cx, y1 - self.cube_size / 2 - 6
        # off the board: on the table below its near edge, at the end without the trays: clear of the strips where
        # a cube on the board's ends is looked for (`end_rect`), of the clock and of the score card
        fx0, _, fx1, _ = self.field()
        return fx0 if self.trays_right else fx1, self.height / 2 + 45

    def right_half(self, seat_bottom: bool) -> tuple[float, float, float, float]:
        """The half of the playing surface to the right of a seated player (where they roll).

        The bottom player's right is +x; the top player faces the other way, so their right
        is -x. Returns the rectangle x0, y0, x1, y1 (mm) inside the field, away from the bar.
        """
        fx0, fy0, fx1, fy1 = self.field()
        bx0, _, bx1, _ = self.bar_rect()
        if seat_bottom:
            return bx1 + 8, fy0 + 40, fx1 - 8, fy1 - 40
        return fx0 + 8, fy0 + 40, bx0 - 8, fy1 - 40


def _layer_of(k: int, first: int = 5) -> tuple[int, int]:
    """Stack index -> (layer, position within the layer): ``first`` + (first - 1) + ... + 1."""
    size = first
    layer = 0
    while k >= size and size > 1:
        k -= size
        size -= 1
        layer += 1
    return layer, min(k, size - 1)
