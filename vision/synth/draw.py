"""Draw a `Scene` top-down on the table plane ("canonical" image).

The static part (table, board, points, clock and scoreboard bodies) is drawn
once per style; per frame only checkers, dice, cube, hands and digits are
composited, from cached sprites. Raised things (stacked checkers, dice on a
checker, hands) are shifted away from the camera's nadir by their height, so the
later camera warp shows the parallax a real overhead camera sees.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from ..geometry import BAR_SLOT, TRAY_BOTTOM, TRAY_TOP, BoardGeometry
from .scene import DARK, LIGHT, Die, Hand, Scene
from .style import BusyBar, CheckerMark, DiceCups, DiceLook, EndCards, MakersPrint, Style, texture

PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}
PIP_STEP = 0.27  # a pip's offset from a face's centre per step of `PIPS`, share of the face's side
PIP_R = 0.09  # a pip's radius, share of the face's side
CUBE_FACES = {1: "64", 2: "2", 4: "4", 8: "8", 16: "16", 32: "32", 64: "64"}


@dataclass
class Canvas:
    """World (mm) <-> canonical pixels."""

    x0: float
    y0: float
    scale: float  # px per mm
    width: int
    height: int

    @classmethod
    def around(cls, geom: BoardGeometry, scale: float, side: float = 240.0, ends: float = 140.0) -> Canvas:
        x0, y0 = -geom.width / 2 - side, -geom.height / 2 - ends
        w = int(round((geom.width + 2 * side) * scale))
        h = int(round((geom.height + 2 * ends) * scale))
        return cls(x0, y0, scale, w, h)

    def px(self, x: float, y: float) -> tuple[float, float]:
        return (x - self.x0) * self.scale, (y - self.y0) * self.scale

    def box(self, x0: float, y0: float, x1: float, y1: float) -> tuple[int, int, int, int]:
        """The pixels (left, top, right, bottom; right and bottom exclusive) covering a box given in mm."""
        (a, b), (c, d) = self.px(x0, y0), self.px(x1, y1)
        return int(a), int(b), int(np.ceil(c)), int(np.ceil(d))

    def pts(self, xy: np.ndarray) -> np.ndarray:
        return np.round((np.asarray(xy) - [self.x0, self.y0]) * self.scale * 16).astype(np.int32)


class BoardPainter:
    """Paints scenes of one board (geometry + style) seen from one eye point."""

    def __init__(self, geom: BoardGeometry, style: Style, canvas: Canvas, rng: np.random.Generator,
                 clock_left: bool = True):
        self.geom, self.style, self.canvas = geom, style, canvas
        self.clock_left = clock_left
        self.eye = (0.0, 0.0, 1000.0)
        self.static = self._paint_static(rng)
        s = canvas.scale
        self._checker = {c: _checker_sprite(geom.checker_d * s, col, style.rim, style.checker_grain, style.mark)
                         for c, col in ((LIGHT, style.light), (DARK, style.dark))}
        self._edge = {c: _edge_sprite(geom.checker_d * s, geom.checker_h * 0.95 * s, col)
                      for c, col in ((LIGHT, style.light), (DARK, style.dark))}
        self._shadow = _shadow_sprite(geom.checker_d * s)
        # the second player's own dice pair, when each player has one: a colour unlike the first pair
        alt = [((40, 40, 190), (245, 245, 245)), ((35, 35, 35), (240, 240, 240)), ((60, 130, 40), (245, 245, 245)),
               ((20, 140, 220), (250, 250, 250))]
        self.dice_colours = [(style.die, style.pip), alt[int(rng.integers(len(alt)))]]

    # ------------------------------------------------------------------ static

    def _paint_static(self, rng: np.random.Generator) -> np.ndarray:
        g, st, cv = self.geom, self.style, self.canvas
        img = np.empty((cv.height, cv.width, 3), np.float32)
        img[:] = st.table
        img *= texture((cv.height, cv.width), rng, 30 * cv.scale, 0.05)[..., None]

        def rect(x0, y0, x1, y1, colour, tex=0.0, streak=False):
            a, b, c, d = cv.box(x0, y0, x1, y1)
            patch = np.empty((d - b, c - a, 3), np.float32)
            patch[:] = colour
            if tex:
                patch *= texture(patch.shape[:2], rng, st.grain * cv.scale / 2, tex, streak)[..., None]
            img[b:d, a:c] = patch

        w, h = g.width / 2, g.height / 2
        # a soft drop shadow of the board on the table
        sh = np.zeros((cv.height, cv.width), np.float32)
        (a, b), (c, d) = cv.px(-w + 6, -h + 10), cv.px(w + 6, h + 10)
        cv2.rectangle(sh, (int(a), int(b)), (int(c), int(d)), 1.0, -1)
        sh = cv2.GaussianBlur(sh, (0, 0), 8 * cv.scale)
        img *= (1 - 0.35 * sh)[..., None]
        rect(-w, -h, w, h, st.frame, st.texture * 1.5, streak=True)
        fx0, fy0, fx1, fy1 = g.field()
        rect(fx0, fy0, fx1, fy1, st.field, st.texture)
        bx0, by0, bx1, by1 = g.bar_rect()
        rect(bx0, by0 - g.frame, bx1, by1 + g.frame, st.bar, st.busy_bar.grain if st.busy_bar else st.texture * 1.5,
             streak=True)
        if st.busy_bar is not None:
            self._paint_busy_bar(img, st.busy_bar, rng)
        for top in (True, False):
            tx0, ty0, tx1, ty1 = g.tray_rect(top)
            rect(tx0, ty0, tx1, ty1, tuple(int(c * 0.8) for c in st.field), st.texture)
        if st.maker_print is not None:
            self._paint_print(img, st.maker_print, rng)
        # the points: painted flat, or stained into the field's wood (its grain, relative to the field's colour,
        # shows through), each with a little texture of its own
        grain = img / np.maximum(np.array(st.field, np.float32), 1.0) if st.point_grain else None
        for slot in range(24):
            col = st.point_a if (slot % 2 == 0) else st.point_b
            tri = cv.pts(g.triangle(slot))
            if grain is None:
                cv2.fillPoly(img, [tri], col, cv2.LINE_AA, shift=4)
                continue
            x0, y0 = np.maximum((tri.min(0) >> 4) - 1, 0)
            x1, y1 = (tri.max(0) >> 4) + 2
            mask = np.zeros((y1 - y0, x1 - x0), np.float32)
            cv2.fillPoly(mask, [tri - np.array([x0 * 16, y0 * 16], np.int32)], 1.0, cv2.LINE_AA, shift=4)
            tex = 1.0 + st.point_grain * (grain[y0:y1, x0:x1] - 1.0)
            tex *= texture(mask.shape, rng, st.grain * cv.scale / 3, 0.04, streak=True)[..., None]
            paint = np.array(col, np.float32) * tex
            region = img[y0:y1, x0:x1]
            region += (paint - region) * mask[..., None]
        if st.cups is not None:
            self._paint_cups(img, st.cups)
        # Clock and scoreboard bodies on the table, either side of the board.
        cx = -w - 120 if self.clock_left else w + 120
        self._clock_rect = (cx - 45, -85.0, cx + 45, 85.0)
        rect(*self._clock_rect, (40, 40, 45), 0.03)
        sx = -cx
        self._score_rect = (sx - 40, -60.0, sx + 40, 60.0)
        rect(*self._score_rect, (235, 235, 235), 0.03)
        if st.end_cards is not None:
            self._paint_end_cards(img, st.end_cards)
        return np.clip(img, 0, 255).astype(np.uint8)

    def _paint_end_cards(self, img: np.ndarray, ec: EndCards) -> None:
        """Flip cards (70 x 100 mm, two big digits each) on the table against an end of the board, over its frame
        by the overlap (no draws: the style's generator is the rig's)."""
        g, cv = self.geom, self.canvas
        for k, (right, yf, overlap) in enumerate(ec.places):
            x0 = g.width / 2 - overlap if right else -g.width / 2 + overlap - 70
            yc = (yf - 0.5) * g.height
            a, b, c, d = cv.box(x0, yc - 50, x0 + 70, yc + 50)
            card = np.full((d - b, c - a, 3), (232, 232, 228), np.uint8)  # (putText draws on 8-bit images only)
            for j, yy in enumerate((45.0, 95.0)):  # digits 35-40 mm tall, as a flip card's
                _text(card, ec.digits[(2 * k + j) % len(ec.digits)], (5 * cv.scale, yy * cv.scale),
                      0.12 * cv.scale * 12, (25, 25, 25))
            A, B = max(a, 0), max(b, 0)
            img[B:d, A:c] = card[B - b:, A - a:][:img.shape[0] - B, :img.shape[1] - A]

    def _paint_busy_bar(self, img: np.ndarray, bb: BusyBar, rng: np.random.Generator) -> None:
        """Stripes along the bar (inlay, a printed pattern) and metal hinges across it, over its grain."""
        g, cv = self.geom, self.canvas
        bx0, by0, bx1, by1 = g.bar_rect()
        if bb.stripes:
            period = max(bb.stripes * g.bar_w, 1.2 / cv.scale)  # at least a pixel of stripe and one of bar
            x = bx0 + float(rng.uniform(0, period))
            while x < bx1:
                (a, b), (c, d) = cv.px(x, by0 - g.frame), cv.px(min(x + period / 2, bx1), by1 + g.frame)
                img[int(b):int(np.ceil(d)), int(a):max(int(a) + 1, int(c))] = bb.ink
                x += period
        for k in range(bb.hinges):
            cy = (by0 + (by1 - by0) * (0.2 + 0.6 * k)) + float(rng.normal(0, 0.03)) * (by1 - by0)
            hh = (by1 - by0) * float(rng.uniform(0.04, 0.09))
            metal = float(rng.uniform(110, 230))
            a, b, c, d = cv.box(bx0 - g.bar_w * 0.05, cy - hh / 2, bx1 + g.bar_w * 0.05, cy + hh / 2)
            tint = np.float32([metal * 0.75, metal * 0.9, metal]) if rng.random() < 0.6 else np.float32([metal] * 3)
            shade = np.linspace(1.15, 0.75, max(d - b, 1), dtype=np.float32)[:, None, None]  # a rounded knuckle
            img[b:d, a:c] = np.clip(tint * shade, 0, 255)

    def _paint_cups(self, img: np.ndarray, cups: DiceCups) -> None:
        """Each cup seen from above, over the points (the checkers, drawn later, lie over it: a cup on a point
        teaches the reader what the point's checkers are not). Draws no random numbers: the places are the style's."""
        g, cv = self.geom, self.canvas
        fx0, fy0, fx1, fy1 = g.field()
        body, inside = np.array(cups.colour, np.float32), np.array(cups.inside, np.float32)
        for u, v, angle, lying in cups.places:
            cx, cy = cv.px(fx0 + u * (fx1 - fx0), fy0 + v * (fy1 - fy0))
            s = cv.scale
            if not lying:  # standing: a rim ring round a dark mouth (upright) or its base
                cv2.circle(img, (int(cx), int(cy)), int(31 * s), (body * 1.25).tolist(), -1, cv2.LINE_AA)
                cv2.circle(img, (int(cx), int(cy)), int(26 * s), inside.tolist(), -1, cv2.LINE_AA)
                continue
            length, d = 80 * s, 58 * s
            ax, ay = np.cos(angle), np.sin(angle)  # along the cup
            half = int(np.ceil(length + d)) // 2  # a window round the cup however it is turned, within the canvas
            x0, y0 = max(int(cx) - half, 0), max(int(cy) - half, 0)
            x1, y1 = min(int(cx) + half, img.shape[1]), min(int(cy) + half, img.shape[0])
            yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
            along = (xx - cx) * ax + (yy - cy) * ay
            across = -(xx - cx) * ay + (yy - cy) * ax
            inside_body = (np.abs(along) <= length / 2) & (np.abs(across) <= d / 2)
            shade = 1.25 - 0.65 * (across / (d / 2)) ** 2  # a cylinder lit from above: bright down its middle
            mouth = ((along - length / 2) / (0.18 * d)) ** 2 + (across / (d / 2)) ** 2 <= 1.0
            lip = ((along - length / 2) / (0.22 * d)) ** 2 + (across / (d / 2 + 1.5 * s)) ** 2 <= 1.0
            paint = np.where(mouth[..., None], inside, body * np.clip(shade, 0.4, 1.3)[..., None])
            mask = inside_body | lip
            img[y0:y1, x0:x1][mask] = np.clip(paint[mask], 0, 255)

    def _paint_print(self, img: np.ndarray, mp: MakersPrint, rng: np.random.Generator) -> None:
        """The maker's print mid-half between the rows: a block (or none: the field's own colour) with a few
        letters in ink, drawn before the points so that long points cover its ends as on a real board."""
        g, cv = self.geom, self.canvas
        fx0, _, _, _ = g.field()
        halves = [fx0, fx0 + g.half_w + g.bar_w]
        if mp.halves == 1:
            halves = [halves[int(rng.integers(2))]]
        h = mp.h * g.inner_h
        w = min(g.half_w * 0.8, h * float(rng.uniform(1.0, 2.2)))
        text = "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), int(rng.integers(2, 7))))
        for x0 in halves:
            cx, cy = x0 + g.half_w / 2 + float(rng.normal(0, 0.03)) * g.half_w, float(rng.normal(0, 0.02)) * g.inner_h
            a, b, c, d = cv.box(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
            img[b:d, a:c] = mp.colour
            mask = np.zeros((d - b, c - a), np.uint8)
            scale = cv2.getFontScaleFromHeight(cv2.FONT_HERSHEY_SIMPLEX, max(4, int((d - b) * 0.45)), 2)
            (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
            scale *= min(1.0, 0.9 * (c - a) / max(tw, 1))
            thick = max(1, int(round((d - b) * 0.06)))
            (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
            cv2.putText(mask, text, ((c - a - tw) // 2, (d - b + th) // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, 255,
                        thick, cv2.LINE_AA)
            alpha = (mask.astype(np.float32) / 255.0)[..., None]
            region = img[b:d, a:c]
            region += (np.array(mp.ink, np.float32) - region) * alpha

    # ------------------------------------------------------------------ per frame

    def paint(self, scene: Scene, jitter: np.ndarray | None = None) -> tuple[np.ndarray, dict]:
        """The canonical image of ``scene`` and where things were drawn (for labels)."""
        img = self.static.copy()
        drawn: dict = {"checkers": [], "dice": [], "cube": None}
        self._digits(img, scene)
        self._trays(img, scene)
        self._checkers(img, scene, jitter, drawn)
        self._cube(img, scene, drawn)
        for die in scene.dice:
            self._die(img, die, drawn)
        for hand in scene.hands:
            self._hand(img, hand)
        return img, drawn

    def lift(self, x: float, y: float, h: float) -> tuple[float, float, float]:
        """Where a point ``h`` mm above the table at (x, y) lands on the table plane, seen from the eye;
        and the scale it appears at."""
        ex, ey, ez = self.eye
        k = h / max(ez - h, 1.0)
        return x + (x - ex) * k, y + (y - ey) * k, 1.0 + k

    def _checkers(self, img, scene: Scene, jitter, drawn) -> None:
        g = self.geom
        items = []  # (height, x, y, colour, slot, k)
        for slot in range(24):
            for colour in (LIGHT, DARK):
                for k in range(int(scene.counts[slot, colour])):
                    x, y, h = g.checker_spot(slot, k)
                    items.append((h, x, y, colour, slot, k))
        if scene.bar_spots is not None:
            bx0, _, bx1, _ = g.bar_rect()
            for k, (colour, y, layer) in enumerate(scene.bar_spots):
                items.append(((layer + 1) * g.checker_h, (bx0 + bx1) / 2, y, colour, BAR_SLOT, k))
        else:
            for colour in (LIGHT, DARK):
                for k in range(int(scene.counts[BAR_SLOT, colour])):
                    x, y, h = g.bar_spot(colour == LIGHT, k, scene.bar_middle)
                    items.append((h, x, y, colour, BAR_SLOT, k))
        items.sort(key=lambda t: t[0])
        for h, x, y, colour, slot, k in items:
            if jitter is not None:
                x += jitter[slot, k % 16, 0]
                y += jitter[slot, k % 16, 1]
            lx, ly, _ = self.lift(x, y, h)
            sx, sy = self.canvas.px(lx + 1.5 * h / 7, ly + 2.0 * h / 7)
            _blend_alpha(img, None, self._shadow, sx, sy, 0.45)
            px, py = self.canvas.px(lx, ly)
            rgb, alpha = self._checker[colour]
            _blend_alpha(img, rgb, alpha, px, py)
            drawn["checkers"].append((slot, colour, px, py, g.checker_d * self.canvas.scale))

    def _trays(self, img, scene: Scene) -> None:
        for slot, top in ((TRAY_TOP, True), (TRAY_BOTTOM, False)):
            k = 0
            for colour in (LIGHT, DARK):
                for _ in range(int(scene.counts[slot, colour])):
                    x, y = self.geom.tray_spot(top, k)
                    rgb, alpha = self._edge[colour]
                    _blend_alpha(img, rgb, alpha, *self.canvas.px(x, y))
                    k += 1

    def _cube(self, img, scene: Scene, drawn) -> None:
        x, y, mm, turn = scene.cube_pose(self.geom)  # off the bar: of its own size, any way round
        x, y, _ = self.lift(x, y, mm)
        size = mm * self.canvas.scale
        look = self.style.cube_look
        if look is None:
            rgb, alpha = _cube_sprite(int(round(size)), scene.cube_value, self.style.cube, self.style.cube_ink,
                                      scene.cube_place == "top")
        else:
            rgb, alpha = _cube_sprite(int(round(size)), scene.cube_value, look.body, look.ink,
                                      scene.cube_place == "top", look.disc, look.font, look.weight)
        if turn % 360:
            rgb, alpha = _turned(rgb, alpha, turn)
        px, py = self.canvas.px(x, y)
        _blend_alpha(img, None, self._shadow_for(rgb.shape[0]), px + 0.15 * size, py + 0.2 * size, 0.4)
        _blend_alpha(img, rgb, alpha, px, py)
        drawn["cube"] = (scene.cube_value, scene.cube_place, px, py, size)

    def _shadow_for(self, size: int) -> np.ndarray:
        return _shadow_sprite(float(size))

    def _die(self, img, die: Die, drawn) -> None:
        g, s = self.geom, self.canvas.scale
        x, y, k = self.lift(die.x, die.y, die.z + g.die_size)
        size = g.die_size * s * k
        angle_bucket = int(round(die.angle / 3.0)) * 3 % 360
        body, pip = self.dice_colours[die.owner]
        look = self.style.dice
        opacity = 1.0 if look is None else round(look.opacity, 2)
        rgb, alpha = _die_sprite(int(round(size)), die.value, angle_bucket, die.cocked, tuple(body), tuple(pip),
                                 opacity)
        px, py = self.canvas.px(x, y)
        if die.moving:
            rgb = cv2.blur(rgb, (7, 7))
            alpha = cv2.blur(alpha, (7, 7))
        shadow_off = (0.2 + die.z / 40) * size
        _blend_alpha(img, None, _shadow_sprite(size * 1.1), px + shadow_off, py + shadow_off, 0.45 * opacity)
        if look is not None and not die.cocked and not die.moving:
            self._die_sides(img, die, angle_bucket, body, pip, look)
        _blend_alpha(img, rgb, alpha, px, py)
        drawn["dice"].append((die, px, py, size))

    def _die_sides(self, img, die: Die, angle: float, body, pip, look: DiceLook) -> None:
        """The side faces of a flat die that the eye sees, below its top face (drawn after, over them): each a
        quadrilateral from the die's foot to its top's edge, both lifted (`lift`), with its own value's pips."""
        g, cv = self.geom, self.canvas
        h = g.die_size / 2
        a = np.deg2rad(angle)  # the sprite turns by `angle` counter-clockwise as the picture shows it (y down)
        rot = np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])
        corners = np.array([[-h, -h], [h, -h], [h, h], [-h, h]]) @ rot.T + [die.x, die.y]
        z0, z1 = die.z, die.z + g.die_size
        ex, ey, _ = self.eye
        # the four values round a die showing `value`: two pairs of opposite faces, in turn (which way round and
        # where it starts: the die's own, the same in every frame it lies still)
        a1, a2 = [v for v in range(1, 7) if v not in (die.value, 7 - die.value)][::2][:2]
        ring = [a1, a2, 7 - a1, 7 - a2]
        turn = hash((die.value, round(die.x), round(die.y), round(die.angle))) % 8  # ints: the same in every run
        ring = ring[::-1] if turn >= 4 else ring
        ring = ring[turn % 4:] + ring[:turn % 4]
        faces = []
        for i in range(4):
            c0, c1 = corners[i], corners[(i + 1) % 4]
            mid = (c0 + c1) / 2
            out = mid - [die.x, die.y]
            if out @ ([ex, ey] - mid) <= 0:
                continue  # faces away from the eye
            quad = [self.lift(*c0, z0)[:2], self.lift(*c1, z0)[:2], self.lift(*c1, z1)[:2], self.lift(*c0, z1)[:2]]
            faces.append((np.array([cv.px(*q) for q in quad]), ring[i]))
        if not faces:
            return
        up = 4  # drawn 4x larger in a window round the faces, then shrunk: smooth edges
        allpts = np.concatenate([f for f, _ in faces])
        x0, y0 = np.floor(allpts.min(0)).astype(int) - 1
        x1, y1 = np.ceil(allpts.max(0)).astype(int) + 1
        w, hh = x1 - x0, y1 - y0
        if w <= 1 or hh <= 1:
            return
        rgb = np.zeros((hh * up, w * up, 3), np.float32)  # premultiplied by alpha: composited "over" after the shrink
        alpha = np.zeros((hh * up, w * up), np.float32)
        t = np.linspace(0, 2 * np.pi, 12, endpoint=False)
        for n, (quad, value) in enumerate(faces):
            q = ((quad - [x0, y0]) * up).astype(np.int32)
            shade = look.shade * (1.0 if n == 0 else 0.85)  # two faces seen: lit differently
            cv2.fillConvexPoly(rgb, q, [float(c) * shade * look.opacity for c in body])
            cv2.fillConvexPoly(alpha, q, float(look.opacity))
            # pips: the face's own square (u along the foot, v up the face) mapped onto the quadrilateral
            for pu, pv in PIPS[value]:
                u = (0.5 + PIP_STEP * pu + PIP_R * np.cos(t))[:, None]
                v = (0.5 + PIP_STEP * pv + PIP_R * np.sin(t))[:, None]
                pts = (1 - u) * ((1 - v) * q[0] + v * q[3]) + u * ((1 - v) * q[1] + v * q[2])
                cv2.fillConvexPoly(rgb, pts.astype(np.int32), [float(c) for c in pip])
                cv2.fillConvexPoly(alpha, pts.astype(np.int32), 1.0)
        rgb = cv2.resize(rgb, (w, hh), interpolation=cv2.INTER_AREA)
        alpha = cv2.resize(alpha, (w, hh), interpolation=cv2.INTER_AREA)
        X0, Y0, X1, Y1 = max(x0, 0), max(y0, 0), min(x1, img.shape[1]), min(y1, img.shape[0])
        if X0 >= X1 or Y0 >= Y1:
            return
        a_ = alpha[Y0 - y0:Y1 - y0, X0 - x0:X1 - x0, None]
        img[Y0:Y1, X0:X1] = img[Y0:Y1, X0:X1] * (1 - a_) + rgb[Y0 - y0:Y1 - y0, X0 - x0:X1 - x0]

    def _digits(self, img, scene: Scene) -> None:
        cv = self.canvas
        x0, y0, x1, y1 = self._clock_rect
        for i, (secs, yy) in enumerate(((scene.clock[0], y1 - 30), (scene.clock[1], y0 + 30))):
            secs = max(0, int(secs))
            text = f"{secs // 60:02d}:{secs % 60:02d}"
            lcd = (110, 200, 120) if scene.clock_running == i else (80, 130, 90)
            (a, b), (c, d) = cv.px(x0 + 8, yy - 18), cv.px(x1 - 8, yy + 18)
            img[int(b):int(d), int(a):int(c)] = lcd
            _text(img, text, cv.px(x0 + 12, yy + 10), 0.024 * cv.scale * 12, (20, 30, 20))
        x0, y0, x1, y1 = self._score_rect
        _text(img, str(scene.score[1]), cv.px(x0 + 15, y0 + 45), 0.05 * cv.scale * 12, (20, 20, 20))
        _text(img, str(scene.score[0]), cv.px(x0 + 15, y1 - 12), 0.05 * cv.scale * 12, (20, 20, 20))
        _text(img, str(scene.length), cv.px(x1 - 30, 8), 0.025 * cv.scale * 12, (120, 40, 40))

    def _hand_shapes(self, hand: Hand):
        """Arm, palm and finger polygons (mm), and the fingertip point and pointing direction."""
        cv = self.canvas
        edge_y = cv.y0 + cv.height / cv.scale + 50 if hand.from_bottom else cv.y0 - 50
        tip = np.array(self.lift(hand.x, hand.y, 120.0)[:2])
        direction = np.array([0.0, 1.0 if hand.from_bottom else -1.0])
        wrist = tip + direction * 150
        elbow = np.array([tip[0] * 1.07, edge_y])
        arm = _capsule_poly(wrist, elbow, hand.width * 0.55)
        palm = _ellipse_poly(tip + direction * 75, hand.width / 2, 80)
        fingers = [_capsule_poly(tip + direction * 40 + [dx, 0], tip + [dx * 1.1, -direction[1] * 5], 9)
                   for dx in (-27, -9, 9, 27)]
        return arm, palm, fingers, tip, direction

    def hand_mask(self, scene: Scene) -> np.ndarray | None:
        """Canonical pixels covered by hands and arms (None when there are none)."""
        if not scene.hands:
            return None
        mask = np.zeros((self.canvas.height, self.canvas.width), np.uint8)
        for hand in scene.hands:
            arm, palm, fingers, tip, _ = self._hand_shapes(hand)
            for poly in (arm, palm, *fingers):
                cv2.fillPoly(mask, [self.canvas.pts(poly)], 1, shift=4)
            if hand.cup:
                cv2.circle(mask, tuple(int(v) for v in self.canvas.px(*tip)), int(45 * self.canvas.scale), 1, -1)
        return mask.astype(bool)

    def _hand(self, img, hand: Hand) -> None:
        cv = self.canvas
        arm, palm, fingers, tip, direction = self._hand_shapes(hand)
        shadow_off = np.array([25.0, 35.0])
        polys = [cv.pts(poly + shadow_off) for poly in (arm, palm, *fingers)]
        # the shadow is drawn only inside its bounding box: a full-canvas blur costs tens of ms
        allp = np.concatenate(polys) >> 4
        x0, y0 = np.maximum(allp.min(0) - 10, 0)
        x1, y1 = np.minimum(allp.max(0) + 10, [img.shape[1], img.shape[0]])
        if x1 > x0 and y1 > y0:
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            off = np.array([x0 * 16, y0 * 16], np.int32)
            cv2.fillPoly(mask, [p - off for p in polys], 255, cv2.LINE_AA, shift=4)
            mask = cv2.blur(mask, (15, 15))
            region = img[y0:y1, x0:x1]
            region[:] = (region * (1 - 0.45 * mask[..., None] / 255.0)).astype(np.uint8)
        if hand.cup:
            cv2.circle(img, tuple(int(v) for v in cv.px(*tip)), int(45 * cv.scale), (30, 45, 70), -1, cv2.LINE_AA)
        if hand.holding is not None:
            rgb, alpha = self._checker[hand.holding]
            _blend_alpha(img, rgb, alpha, *cv.px(*(tip + direction * 10)))
        cv2.fillPoly(img, [cv.pts(arm)], hand.sleeve, cv2.LINE_AA, shift=4)
        cv2.fillPoly(img, [cv.pts(palm)], hand.skin, cv2.LINE_AA, shift=4)
        dark = tuple(int(c * 0.85) for c in hand.skin)
        for f in fingers:
            cv2.fillPoly(img, [cv.pts(f)], dark, cv2.LINE_AA, shift=4)


# ---------------------------------------------------------------------- sprites and helpers


def _blend_alpha(img: np.ndarray, rgb: np.ndarray | None, alpha: np.ndarray, cx: float, cy: float,
                 strength: float = 1.0) -> None:
    """Alpha-composite a sprite centred at (cx, cy); ``rgb`` None darkens (a shadow)."""
    h, w = alpha.shape[:2]
    x0, y0 = int(round(cx - w / 2)), int(round(cy - h / 2))
    X0, Y0 = max(x0, 0), max(y0, 0)
    X1, Y1 = min(x0 + w, img.shape[1]), min(y0 + h, img.shape[0])
    if X0 >= X1 or Y0 >= Y1:
        return
    a = alpha[Y0 - y0:Y1 - y0, X0 - x0:X1 - x0, None] * strength
    dst = img[Y0:Y1, X0:X1].astype(np.float32)
    if rgb is None:
        dst *= 1 - a
    else:
        dst += (rgb[Y0 - y0:Y1 - y0, X0 - x0:X1 - x0] - dst) * a
    img[Y0:Y1, X0:X1] = dst


@lru_cache(maxsize=64)
def _checker_sprite_cached(d: int, colour: tuple, rim: float, grain: float = 0.0,
                           mark: CheckerMark | None = None) -> tuple[np.ndarray, np.ndarray]:
    r = d / 2
    yy, xx = np.mgrid[0:d, 0:d].astype(np.float32)
    dx, dy = xx - (d - 1) / 2, yy - (d - 1) / 2
    rr = np.sqrt(dx * dx + dy * dy) / r
    alpha = np.clip((1.0 - rr) * r, 0, 1).astype(np.float32)
    base = np.array(colour, np.float32)
    shade = 1.0 - 0.12 * rr**3  # a little darker towards the rim
    ridge = 1.0 - rim * np.exp(-((rr - 0.72) ** 2) / 0.002)  # the turned groove
    light = 1.0 + 0.10 * np.clip(-(dx + dy) / (2 * r), -1, 1)  # lit from the top left
    tone = shade * ridge * light
    if grain:  # a wooden checker: streaks across it, one way (the same for every checker of a colour)
        rng = np.random.default_rng([d, *colour])
        tone = tone * texture((d, d), rng, max(d / 6, 2.0), grain, streak=True)
    rgb = np.clip(base[None, None, :] * tone[..., None], 0, 255)
    if mark is not None:  # printed or turned in: towards black (contrast > 0) or white
        m = (abs(mark.contrast) * _mark_shape(mark, dx / r, dy / r, r))[..., None]
        rgb = rgb * (1.0 - m) if mark.contrast > 0 else rgb + (255.0 - rgb) * m
    edge = (rr > 0.94) & (rr <= 1.0)
    rgb[edge] *= 0.7
    return rgb.astype(np.float32), alpha


def _mark_shape(mark: CheckerMark, u: np.ndarray, v: np.ndarray, r: float) -> np.ndarray:
    """Where a checker's mark lies (0..1, edges anti-aliased over a pixel), ``u``, ``v`` in checker radii from its
    centre, ``r`` its radius in px."""
    rr = np.sqrt(u * u + v * v)
    px = 1.0 / max(r, 1.0)

    def stroke(dist: np.ndarray) -> np.ndarray:  # within half the width of a line at this distance
        return np.clip((mark.width / 2 - dist) / px + 0.5, 0.0, 1.0)

    shape = np.zeros_like(u)
    if mark.kind in ("ring", "ring_dot"):
        shape = np.maximum(shape, stroke(np.abs(rr - mark.radius)))
    if mark.kind in ("dot", "ring_dot"):
        shape = np.maximum(shape, np.clip((mark.width - rr) / px + 0.5, 0.0, 1.0))
    if mark.kind == "logo":  # a few short curved strokes about the centre, like a maker's letters
        rng = np.random.default_rng(mark.seed)
        for _ in range(int(rng.integers(2, 5))):
            cx, cy = rng.uniform(-mark.radius / 2, mark.radius / 2, 2)
            rad = rng.uniform(0.12, 0.3) * mark.radius / 0.45
            a0 = rng.uniform(0, 2 * np.pi)
            ang = np.mod(np.arctan2(v - cy, u - cx) - a0, 2 * np.pi)
            arc = stroke(np.abs(np.sqrt((u - cx) ** 2 + (v - cy) ** 2) - rad)) * (ang < rng.uniform(1.5, 4.5))
            shape = np.maximum(shape, arc)
    return shape


def _checker_sprite(d: float, colour, rim: float, grain: float = 0.0, mark: CheckerMark | None = None):
    return _checker_sprite_cached(int(round(d)), tuple(colour), round(rim, 2), round(grain, 2), mark)


@lru_cache(maxsize=8)
def _edge_sprite_cached(d: int, t: int, colour: tuple):
    h, w = max(3, t), d
    rgb = np.empty((h, w, 3), np.float32)
    rgb[:] = colour
    rgb[0] *= 0.75
    rgb[-1] *= 0.6
    rgb[:, :2] *= 0.8
    rgb[:, -2:] *= 0.8
    return rgb, np.ones((h, w), np.float32)


def _edge_sprite(d: float, t: float, colour):
    return _edge_sprite_cached(int(round(d)), int(round(t)), tuple(colour))


@lru_cache(maxsize=32)
def _shadow_sprite_cached(d: int) -> np.ndarray:
    size = int(d * 1.3) | 1
    a = np.zeros((size, size), np.float32)
    cv2.circle(a, (size // 2, size // 2), int(d / 2), 1.0, -1, cv2.LINE_AA)
    return cv2.GaussianBlur(a, (0, 0), max(1.0, d * 0.06))


def _shadow_sprite(d: float) -> np.ndarray:
    return _shadow_sprite_cached(int(round(d)))


@lru_cache(maxsize=2048)
def _die_sprite(size: int, value: int, angle: int, cocked: bool, colour: tuple, pip: tuple, opacity: float = 1.0):
    """A die seen from above: rounded square with pips; cocked dice show a side face and a skewed top.
    ``opacity`` under 1: a translucent body, its pips opaque."""
    size = max(size, 8)
    big = size * 4  # draw large, then shrink: smooth edges
    pad = big
    canvas = np.zeros((big + 2 * pad, big + 2 * pad, 3), np.float32)
    alpha = np.zeros(canvas.shape[:2], np.float32)
    c0 = pad
    r = big // 8
    top_h = big if not cocked else int(big * 0.62)
    if cocked:  # the side face of a die resting tilted on something
        side = np.array(colour, np.float32) * 0.7
        cv2.rectangle(canvas, (c0, c0 + top_h), (c0 + big, c0 + big), side.tolist(), -1)
        cv2.rectangle(alpha, (c0, c0 + top_h), (c0 + big, c0 + big), 1.0, -1)
    cv2.rectangle(canvas, (c0 + r, c0), (c0 + big - r, c0 + top_h), colour, -1)
    cv2.rectangle(canvas, (c0, c0 + r), (c0 + big, c0 + top_h - r), colour, -1)
    cv2.rectangle(alpha, (c0 + r, c0), (c0 + big - r, c0 + top_h), 1.0, -1)
    cv2.rectangle(alpha, (c0, c0 + r), (c0 + big, c0 + top_h - r), 1.0, -1)
    for cx, cy in ((c0 + r, c0 + r), (c0 + big - r, c0 + r), (c0 + r, c0 + top_h - r), (c0 + big - r, c0 + top_h - r)):
        cv2.circle(canvas, (cx, cy), r, colour, -1)
        cv2.circle(alpha, (cx, cy), r, 1.0, -1)
    edge = np.array(colour, np.float32) * 0.8
    cv2.rectangle(canvas, (c0 + 2, c0 + 2), (c0 + big - 3, c0 + top_h - 3), edge.tolist(), max(1, big // 40))
    pr = max(1, int(big * PIP_R))
    step_x, step_y = big * PIP_STEP, top_h * PIP_STEP
    alpha *= opacity
    for px, py in PIPS[value]:
        centre = (int(c0 + big / 2 + px * step_x), int(c0 + top_h / 2 + py * step_y))
        cv2.circle(canvas, centre, pr, pip, -1, cv2.LINE_AA)
        if opacity < 1.0:
            cv2.circle(alpha, centre, pr, 1.0, -1)
    center = (canvas.shape[1] / 2, canvas.shape[0] / 2)
    m = cv2.getRotationMatrix2D(center, angle, 1.0)
    canvas = cv2.warpAffine(canvas, m, canvas.shape[1::-1], flags=cv2.INTER_LINEAR)
    alpha = cv2.warpAffine(alpha, m, alpha.shape[1::-1], flags=cv2.INTER_LINEAR)
    out = int(size * 1.5) | 1
    crop = slice(pad + big // 2 - int(big * 0.75), pad + big // 2 + int(big * 0.75))
    canvas = cv2.resize(canvas[crop, crop], (out, out), interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(alpha[crop, crop], (out, out), interpolation=cv2.INTER_AREA)
    return canvas, alpha


@lru_cache(maxsize=64)
def _cube_sprite(size: int, value: int, colour: tuple, ink: tuple, flipped: bool, disc: tuple | None = None,
                 font: int = cv2.FONT_HERSHEY_DUPLEX, weight: float = 1.0):
    """A cube's top face: its body, a darker edge, the number (on a disc, in ``font`` at ``weight``: `CubeLook`)."""
    size = max(size, 8)
    rgb = np.empty((size, size, 3), np.uint8)  # putText draws on 8-bit images only
    rgb[:] = colour
    cv2.rectangle(rgb, (0, 0), (size - 1, size - 1), [int(c * 0.75) for c in colour], max(1, size // 14))
    text = CUBE_FACES.get(value, str(value))
    thick = max(1, size // 18) if weight == 1.0 else max(1, int(round(size / 18 * weight)))
    if disc is not None:
        cv2.circle(rgb, (size // 2, size // 2), int(size * 0.4), disc, -1, cv2.LINE_AA)
    if font == cv2.FONT_HERSHEY_DUPLEX and disc is None:
        scale = size / (48 if len(text) > 1 else 34)
    else:  # another typeface: the same share of the face (smaller on a disc)
        (w1, h1), _ = cv2.getTextSize(text, font, 1.0, thick)
        room = 0.62 if disc is not None else 0.78
        scale = min(room * size / max(w1, 1), (0.5 if disc is not None else 0.6) * size / max(h1, 1))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    cv2.putText(rgb, text, ((size - tw) // 2, (size + th) // 2), font, scale, ink, thick, cv2.LINE_AA)
    if flipped:
        rgb = rgb[::-1, ::-1]
    return rgb.astype(np.float32), np.ones((size, size), np.float32)


def _turned(rgb: np.ndarray, alpha: np.ndarray, degrees: float) -> tuple[np.ndarray, np.ndarray]:
    """A sprite turned by ``degrees`` about its centre, on a canvas large enough to hold it."""
    h, w = alpha.shape
    t = np.radians(degrees)
    side = int(np.ceil(w * abs(np.cos(t)) + h * abs(np.sin(t)))) + 2
    m = cv2.getRotationMatrix2D((w / 2, h / 2), float(degrees), 1.0)
    m[:, 2] += (side - w) / 2, (side - h) / 2
    out = cv2.warpAffine(rgb, m, (side, side), flags=cv2.INTER_LINEAR)
    a = cv2.warpAffine(alpha, m, (side, side), flags=cv2.INTER_LINEAR)
    return out, a


def _text(img, text: str, org: tuple[float, float], scale: float, colour) -> None:
    """putText on a small crop: OpenCV 5's putText costs time in proportion to the whole image."""
    thick = max(1, int(scale * 2))
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    x, y = int(org[0]), int(org[1])
    x0, y0 = max(x - 2, 0), max(y - th - 2, 0)
    x1, y1 = min(x + tw + 2, img.shape[1]), min(y + base + 2, img.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    crop = np.ascontiguousarray(img[y0:y1, x0:x1])
    cv2.putText(crop, text, (x - x0, y - y0), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)
    img[y0:y1, x0:x1] = crop


def _capsule_poly(a: np.ndarray, b: np.ndarray, r: float, n: int = 10) -> np.ndarray:
    a, b = np.asarray(a, float), np.asarray(b, float)
    d = b - a
    ang = np.arctan2(d[1], d[0])
    arc1 = [a + r * np.array([np.cos(t), np.sin(t)]) for t in np.linspace(ang + np.pi / 2, ang + 3 * np.pi / 2, n)]
    arc2 = [b + r * np.array([np.cos(t), np.sin(t)]) for t in np.linspace(ang - np.pi / 2, ang + np.pi / 2, n)]
    return np.array(arc1 + arc2)


def _ellipse_poly(c: np.ndarray, rx: float, ry: float, n: int = 24) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([c[0] + rx * np.cos(t), c[1] + ry * np.sin(t)], 1)
