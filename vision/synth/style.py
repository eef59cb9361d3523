"""Board and checker looks: named colour schemes, randomised per seed.

Domain randomisation is how the models generalise to boards nobody rendered:
every scheme is jittered in hue and brightness, and the wood, felt and leather
textures are procedural noise with random scale and contrast.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

BGR = tuple[int, int, int]


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
