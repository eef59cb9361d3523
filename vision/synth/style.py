"""Board and checker looks: named colour schemes, randomised per seed.

Domain randomisation is how the models generalise to boards nobody rendered:
every scheme is jittered in hue and brightness, the wood, felt and leather
textures are procedural noise with random scale and contrast, and `random_style`
draws whole boards in looks nobody designed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

BGR = tuple[int, int, int]


@dataclass(frozen=True)
class MakersPrint:
    """A maker's print mid-half between the rows: a block of its own colour (or the field's) with lettering."""

    h: float  # its share of the field's height
    colour: BGR
    ink: BGR
    halves: int = 2  # on both halves, or on one


@dataclass(frozen=True)
class BusyBar:
    """A bar as busy as the field: a loud grain along it, inlaid stripes, brass hinges (real boards fold at the
    bar). The bar and tray readers must not take it for checkers, nor the tray-end vote for the field."""

    grain: float  # contrast of the grain along the bar (0.2 to 0.6; the named schemes' is under 0.12)
    stripes: float  # 0: none; else the stripes' period, share of the bar's width
    ink: BGR  # the stripes' colour
    hinges: int = 0  # 0 or 2 metal hinges across the bar


@dataclass(frozen=True)
class DiceCups:
    """Dice cups put down on the board (at the start of a game, between throws): one on its side is a dark block
    as long as a stack of two, one standing a ring larger than a checker. Neither is a checker."""

    places: tuple[tuple[float, float, float, bool], ...]  # (u, v) of the field (0..1 across, down), angle (rad), lying
    colour: BGR
    inside: BGR


@dataclass(frozen=True)
class CheckerMark:
    """What real checkers carry on their faces (the tournament stream's: a maker's logo printed on pearl, rings turned
    into gold resin): a centre dot, a ring, both, or a logo's strokes, darker (``contrast`` > 0: that share of the way
    to black) or lighter (< 0: to white). The dice reader must not take them for a die's pips."""

    kind: str  # "dot", "ring", "ring_dot" or "logo"
    radius: float  # the ring's (or the logo's reach), share of the checker's radius
    width: float  # the stroke's (the dot's radius), share of the checker's radius
    contrast: float
    seed: int = 0  # the logo's strokes


@dataclass(frozen=True)
class DiceLook:
    """Dice drawn as the cubes they are: the side faces a camera off their nadir sees (one or two, wider towards the
    picture's edges), shaded, with their pips; the flat sprite alone showed a top face only. ``opacity`` under 1:
    precision dice of translucent resin, as tournaments use, the table showing through the body (a real phone photo's
    red and blue dice, read as 4 and 3 where they show 1 and 5, are such)."""

    opacity: float  # the body's (the pips are opaque)
    shade: float  # the side faces' brightness, share of the top face's


@dataclass(frozen=True)
class CubeLook:
    """A doubling cube of its own make (the named schemes: a pale cube with its numbers in one plain font): a dark
    body with light numbers, the numbers on a disc of their own (tournament cubes: a black cube, a cream disc), in
    another typeface and weight."""

    body: tuple[int, int, int]
    ink: tuple[int, int, int]
    disc: tuple[int, int, int] | None  # a disc behind the number, or none
    font: int  # an OpenCV Hershey font
    weight: float  # stroke thickness, share of the default's


@dataclass(frozen=True)
class EndCards:
    """Score flip cards on the table against an end of the board, partly over its frame (or a little apart): big
    printed digits beside where the cube rests, which the cube reader must not take for one."""

    places: tuple[tuple[bool, float, float], ...]  # (right end, y as a share of the board's height, overlap mm)
    digits: tuple[str, ...]


@dataclass(frozen=True)
class Style:
    name: str
    table: BGR
    frame: BGR
    field: BGR
    point_a: BGR
    point_b: BGR
    bar: BGR
    light: BGR  # light checkers
    dark: BGR  # dark checkers
    die: BGR
    pip: BGR
    cube: BGR
    cube_ink: BGR
    texture: float = 0.08  # contrast of the field/frame texture
    grain: float = 18.0  # texture scale, px
    rim: float = 0.25  # how strongly a checker's rim and ridge show
    point_grain: float = 0.0  # 0: painted points; up to 1: stained or inlaid wood, the field's grain showing through
    checker_grain: float = 0.0  # contrast of a wooden checker's grain (0: plastic, bakelite, resin)
    # a print on the field between the rows (the named schemes have none); one field, not colours of the style's
    # own, for `randomize` jitters every colour field and a named scheme's random draws must stay as they were
    maker_print: MakersPrint | None = None
    busy_bar: BusyBar | None = None  # one field for the same reason
    cups: DiceCups | None = None
    mark: CheckerMark | None = None  # on both colours' checkers
    dice: DiceLook | None = None  # None: the flat sprite (the named schemes: the shipped weights were trained on it)
    cube_look: CubeLook | None = None  # None: `cube` and `cube_ink` in the plain font (the named schemes)
    end_cards: EndCards | None = None


def _rgb(r: int, g: int, b: int) -> BGR:
    return (b, g, r)


SCHEMES: dict[str, Style] = {
    # Leather tournament board, green field, ivory and black checkers.
    "tournament_green": Style("tournament_green", _rgb(120, 110, 100), _rgb(60, 40, 30), _rgb(40, 95, 60),
                              _rgb(225, 215, 190), _rgb(30, 30, 30), _rgb(60, 40, 30), _rgb(235, 228, 210),
                              _rgb(35, 32, 30), _rgb(245, 245, 240), _rgb(20, 20, 20), _rgb(240, 236, 225),
                              _rgb(20, 20, 20)),
    # Tan leather, cream and brown points, white and red checkers.
    "tan_cream": Style("tan_cream", _rgb(95, 90, 85), _rgb(110, 70, 40), _rgb(205, 175, 130),
                       _rgb(240, 225, 195), _rgb(120, 70, 40), _rgb(110, 70, 40), _rgb(245, 240, 230),
                       _rgb(170, 30, 35), _rgb(200, 20, 30), _rgb(250, 250, 250), _rgb(235, 230, 220),
                       _rgb(30, 30, 30)),
    # Navy field, light-blue and white points, white and navy-black checkers.
    "navy": Style("navy", _rgb(140, 140, 145), _rgb(25, 30, 50), _rgb(30, 45, 85), _rgb(210, 220, 235),
                  _rgb(110, 150, 200), _rgb(25, 30, 50), _rgb(240, 240, 240), _rgb(20, 20, 28),
                  _rgb(250, 250, 250), _rgb(20, 20, 20), _rgb(245, 245, 245), _rgb(20, 30, 80)),
    # Burgundy and beige club board, ivory and brown checkers.
    "burgundy": Style("burgundy", _rgb(70, 60, 55), _rgb(90, 25, 30), _rgb(215, 195, 160), _rgb(120, 30, 40),
                      _rgb(60, 60, 55), _rgb(90, 25, 30), _rgb(240, 230, 205), _rgb(90, 55, 30),
                      _rgb(20, 20, 20), _rgb(245, 245, 245), _rgb(240, 235, 220), _rgb(20, 20, 20)),
    # Grey felt, white and black points, yellow and blue checkers (an unusual board).
    "grey_modern": Style("grey_modern", _rgb(180, 175, 165), _rgb(45, 45, 48), _rgb(130, 132, 135),
                         _rgb(235, 235, 235), _rgb(40, 40, 40), _rgb(45, 45, 48), _rgb(235, 200, 60),
                         _rgb(30, 60, 150), _rgb(250, 250, 245), _rgb(25, 25, 25), _rgb(240, 240, 240),
                         _rgb(25, 25, 25)),
}


RANDOM = "random"  # not a scheme: a board drawn afresh from the whole space of plausible looks (`random_style`)


def _hsv(h: float, s: float, v: float) -> BGR:
    out = cv2.cvtColor(np.uint8([[[h % 180, np.clip(s, 0, 255), np.clip(v, 0, 255)]]]), cv2.COLOR_HSV2BGR)[0, 0]
    return int(out[0]), int(out[1]), int(out[2])


def _lab(c: BGR) -> np.ndarray:
    return cv2.cvtColor(np.uint8([[c]]), cv2.COLOR_BGR2LAB)[0, 0].astype(np.float64)


def _apart(a: BGR, b: BGR) -> float:
    return float(np.linalg.norm(_lab(a) - _lab(b)))


def random_style(rng: np.random.Generator) -> Style:
    """A board nobody designed: any hue of field, frame and points, any pair of checker colours
    (one clearly lighter than the other), dice white or coloured. The named schemes are a few
    real boards; training on these as well is what lets the readers meet boards never seen."""

    def pick(make, ok, tries: int = 50) -> BGR:
        c = make()
        for _ in range(tries):
            if ok(c):
                break
            c = make()
        return c

    def any_colour(v_lo: float, v_hi: float, s_hi: float = 230) -> BGR:
        return _hsv(rng.uniform(0, 180), rng.uniform(0, s_hi) * rng.random() ** 0.5, rng.uniform(v_lo, v_hi))

    frame = any_colour(20, 150)
    field = any_colour(35, 225)
    point_a = pick(lambda: any_colour(20, 250), lambda c: _apart(c, field) > 35)
    point_b = pick(lambda: any_colour(20, 250), lambda c: _apart(c, field) > 30 and _apart(c, point_a) > 30)
    light = _hsv(rng.uniform(0, 180), rng.uniform(0, 150) * rng.random(), rng.uniform(195, 252))
    dark = pick(lambda: any_colour(12, 120), lambda c: _lab(light)[0] - _lab(c)[0] > 70)
    if rng.random() < 0.65:  # most dice are white or ivory with black pips
        die, pip = _hsv(rng.uniform(0, 180), rng.uniform(0, 40), rng.uniform(225, 252)), any_colour(0, 50, 120)
    else:
        die = any_colour(30, 240)
        pip = (245, 245, 245) if _lab(die)[0] < 140 else (20, 20, 20)
    cube = _hsv(rng.uniform(0, 180), rng.uniform(0, 40), rng.uniform(220, 250))
    style = Style(RANDOM, table=any_colour(20, 160, 80), frame=frame, field=field, point_a=point_a, point_b=point_b,
                  bar=frame if rng.random() < 0.7 else any_colour(20, 150), light=light, dark=dark, die=die, pip=pip,
                  cube=cube, cube_ink=any_colour(0, 60, 200), texture=float(rng.uniform(0.0, 0.2)),
                  grain=float(rng.uniform(8, 40)), rim=float(rng.uniform(0.1, 0.4)))
    return carded(cubed(solid(marked(cupped(busy(printed(wooden(style, rng), rng), rng), rng)))))


CUBE_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX,
              cv2.FONT_HERSHEY_SIMPLEX | cv2.FONT_ITALIC, cv2.FONT_HERSHEY_PLAIN)


def cubed(style: Style) -> Style:
    """A cube of its own make on 70 % of the boards (`CubeLook`): real cubes are black, white, red, translucent,
    their numbers on a disc or not, in any typeface. Drawn from the style's own colours, as `marked`."""
    rng = np.random.default_rng([*style.cube, *style.cube_ink, *style.frame, 12])
    if rng.random() >= 0.7:
        return style
    if rng.random() < 0.5:  # a dark body (black, or a deep colour) with pale numbers
        body = _hsv(rng.uniform(0, 180), rng.uniform(0, 255) * rng.random(), rng.uniform(10, 110))
        ink = _hsv(rng.uniform(0, 180), rng.uniform(0, 60), rng.uniform(200, 250))
    else:
        body, ink = style.cube, style.cube_ink
    disc = None
    if rng.random() < 0.4:  # the numbers on a disc of the opposite shade (and the ink on it the body's)
        disc = _hsv(rng.uniform(0, 180), rng.uniform(0, 60), rng.uniform(200, 250)) if _lab(body)[0] < 128 else \
            _hsv(rng.uniform(0, 180), rng.uniform(0, 200), rng.uniform(10, 90))
        ink = body if rng.random() < 0.7 else ink
        if abs(_lab(ink)[0] - _lab(disc)[0]) < 60:
            ink = (20, 20, 20) if _lab(disc)[0] > 128 else (235, 235, 235)
    return replace(style, cube_look=CubeLook(body, ink, disc, int(CUBE_FONTS[int(rng.integers(len(CUBE_FONTS)))]),
                                             float(rng.uniform(0.6, 1.8))))


def carded(style: Style) -> Style:
    """Score flip cards against an end of the board on 40 % of the boards (`EndCards`). Drawn from the style's own
    colours, as `marked`."""
    rng = np.random.default_rng([*style.table, *style.frame, *style.light, 13])
    if rng.random() >= 0.4:
        return style
    n = 1 if rng.random() < 0.6 else 2
    places = tuple((bool(rng.random() < 0.5), float(rng.uniform(0.1, 0.9)), float(rng.uniform(-10, 45)))
                   for _ in range(n))
    digits = tuple(str(int(rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 9, 11, 13, 15]))) for _ in range(2 * n))
    return replace(style, end_cards=EndCards(places, digits))


MARK_KINDS = ("dot", "ring", "ring_dot", "logo")


def marked(style: Style) -> Style:
    """Marks on the checkers of 40 % of the boards (`CheckerMark`). Drawn from the style's own colours, not the
    looks' generator: the draws after it (the rig's) stay as they were."""
    rng = np.random.default_rng([*style.light, *style.dark, *style.field, *style.frame])
    if rng.random() >= 0.4:
        return style
    kind = MARK_KINDS[int(rng.integers(len(MARK_KINDS)))]
    contrast = float(rng.uniform(0.25, 0.7)) * (1 if rng.random() < 0.6 else -1)
    return replace(style, mark=CheckerMark(kind, float(rng.uniform(0.3, 0.6)), float(rng.uniform(0.05, 0.16)),
                                           contrast, int(rng.integers(1 << 16))))


def solid(style: Style) -> Style:
    """Dice drawn as cubes on 60 % of the boards (`DiceLook`), half of those translucent. Drawn from the style's own
    colours, as `marked`: the draws after it stay as they were."""
    rng = np.random.default_rng([*style.die, *style.pip, *style.table, *style.field, 10])
    if rng.random() >= 0.6:
        return style
    opacity = 1.0 if rng.random() < 0.5 else float(rng.uniform(0.5, 0.85))
    return replace(style, dice=DiceLook(opacity, float(rng.uniform(0.55, 0.9))))


def cupped(style: Style, rng: np.random.Generator) -> Style:
    """Dice cups left on the field of a quarter of the boards: most on the rows, where a reader could count them."""
    if rng.random() >= 0.25:
        return style
    places = []
    for _ in range(1 if rng.random() < 0.6 else 2):
        v = float(rng.uniform(0.04, 0.36)) if rng.random() < 0.8 else float(rng.uniform(0.4, 0.6))
        places.append((float(rng.uniform(0.05, 0.95)), v if rng.random() < 0.5 else 1.0 - v,
                       float(rng.uniform(0, np.pi)), bool(rng.random() < 0.7)))
    leather = rng.random() < 0.7  # black or brown leather, else any colour
    colour = _hsv(rng.uniform(5, 25), rng.uniform(40, 200), rng.uniform(15, 90)) if leather else \
        _hsv(rng.uniform(0, 180), rng.uniform(0, 230), rng.uniform(30, 230))
    inside = tuple(int(c * 0.35) for c in colour)
    return replace(style, cups=DiceCups(tuple(places), colour, inside))


def busy(style: Style, rng: np.random.Generator) -> Style:
    """A busy bar on a quarter of the boards (the striped or grained bars of real boards, their hinges)."""
    if rng.random() >= 0.25:
        return style
    stripes = float(rng.uniform(0.05, 0.3)) if rng.random() < 0.5 else 0.0
    ink = _hsv(rng.uniform(0, 180), rng.uniform(0, 120), rng.choice([rng.uniform(10, 70), rng.uniform(180, 250)]))
    return replace(style, busy_bar=BusyBar(float(rng.uniform(0.2, 0.6)), stripes, ink,
                                           2 if rng.random() < 0.4 else 0))


def printed(style: Style, rng: np.random.Generator) -> Style:
    """A maker's print on the field between the rows (the logo of the tournament stream's board): a block of its
    own colour with lettering, which a reader must not take for checkers on the points beside it."""
    if rng.random() >= 0.3:
        return style
    block = _hsv(rng.uniform(0, 180), rng.uniform(0, 120) * rng.random(), rng.uniform(30, 230))
    if rng.random() < 0.3:  # lettering straight on the field, no block
        block = style.field
    ink = (240, 240, 240) if _lab(block)[0] < 130 else (25, 25, 25)  # white on a dark ground, black on a light
    return replace(style, maker_print=MakersPrint(float(rng.uniform(0.08, 0.2)), block, ink,
                                                  1 if rng.random() < 0.3 else 2))


def wooden(style: Style, rng: np.random.Generator) -> Style:
    """What wooden boards add (the pine folding board of the real pictures, inlaid tournament boards): stained
    points showing the field's grain, wooden checkers with grain of their own, light checkers of the board's own
    wood, and a point stain as dark as the dark checkers, so that a point is told from a checker by its shape."""
    wood = rng.random() < 0.5
    out = {"point_grain": float(rng.uniform(0.3, 1.0)) if wood else 0.0,
           "checker_grain": float(rng.uniform(0.04, 0.16)) if rng.random() < 0.5 else 0.0,
           "texture": max(style.texture, float(rng.uniform(0.06, 0.2))) if wood else style.texture}
    if rng.random() < 0.2:  # natural-wood light checkers on a board of the same wood
        light = _near(style.field, rng, 12)
        if _lab(light)[0] - _lab(style.dark)[0] > 70:  # still the lighter colour by far
            out["light"] = light
    if rng.random() < 0.2:  # one point stain as dark as the dark checkers (where it stands out from the field)
        which, other = ("point_b", style.point_a) if rng.random() < 0.5 else ("point_a", style.point_b)
        stain = _near(style.dark, rng, 10)
        if _apart(stain, style.field) > 35 and _apart(stain, other) > 30:
            out[which] = stain
    return replace(style, **out)


def _near(c: BGR, rng: np.random.Generator, spread: float) -> BGR:
    return tuple(int(v) for v in np.clip(np.array(c, np.float64) + rng.normal(0, spread, 3), 0, 255))


def randomize(style: Style, rng: np.random.Generator, amount: float = 1.0) -> Style:
    """The same scheme under a different hue, brightness and texture (``amount`` 0: unchanged)."""
    if amount <= 0:
        return style

    def jitter(c: BGR, spread: float = 14.0) -> BGR:
        hsv = cv2.cvtColor(np.uint8([[c]]), cv2.COLOR_BGR2HSV)[0, 0].astype(np.float64)
        hsv[0] = (hsv[0] + rng.normal(0, 4 * amount)) % 180
        hsv[1] = np.clip(hsv[1] * (1 + rng.normal(0, 0.12 * amount)), 0, 255)
        hsv[2] = np.clip(hsv[2] + rng.normal(0, spread * amount), 0, 255)
        out = cv2.cvtColor(np.uint8([[hsv]]), cv2.COLOR_HSV2BGR)[0, 0]
        return int(out[0]), int(out[1]), int(out[2])

    fields = {k: jitter(v) for k, v in style.__dict__.items() if isinstance(v, tuple)}
    return Style(name=style.name, texture=float(np.clip(style.texture * rng.uniform(0.4, 2.0), 0.0, 0.25)),
                 grain=float(rng.uniform(8, 40)), rim=float(rng.uniform(0.1, 0.4)), **fields)


def texture(shape: tuple[int, int], rng: np.random.Generator, scale: float, contrast: float,
            streak: bool = False) -> np.ndarray:
    """Multiplicative texture around 1.0: smooth noise, optionally streaked like wood grain."""
    h, w = shape
    sh, sw = max(2, int(h / scale)), max(2, int(w / scale))
    base = rng.normal(0, 1, (sh, sw)).astype(np.float32)
    if streak:
        base = cv2.resize(base, (max(2, sw // 6), sh), interpolation=cv2.INTER_LINEAR)
    tex = cv2.resize(base, (w, h), interpolation=cv2.INTER_CUBIC)
    fine = cv2.resize(rng.normal(0, 0.5, (max(2, h // 3), max(2, w // 3))).astype(np.float32), (w, h))
    tex = tex + fine
    tex /= max(1e-6, float(tex.std()))
    return 1.0 + contrast * tex
