"""`bgscribe read`: one picture in, what the camera stage sees in it out (the JSON other tools rely on).

The playing field is found by its structure (`vision.fieldfind`) or given by hand (``field``: four
corners in picture pixels, any order round the field); it is mapped onto the default board's field,
rectified and read by the shipped readers.

Orientation: rows are reported as the picture shows them turned so that the bar runs top to bottom
(a quarter turn clockwise where the bar runs across the picture), each row left to right; ``field``
lists the corners TL, TR, BR, BL in that turned view, in the picture's own pixel coordinates.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

import cv2
import numpy as np

from .calibrate import Calibration
from .dicesize import DiceSize
from .fieldfind import FieldFit, find_field, given_field, order_corners, turned_corners
from .geometry import BAR_SLOT, TRAY_BOTTOM, TRAY_TOP
from .observation import MAX_COUNT
from .profilefit import fit_height
from .readers import Readers, default_readers
from .rectify import homography, rectify, rectify_ends


class PictureError(ValueError):
    """A picture that cannot be read at all (not an image, empty, unreadable)."""


def load_picture(path: str) -> np.ndarray:
    if not os.path.exists(path):
        raise PictureError(f"{path}: no such file")
    if os.path.getsize(path) == 0:
        raise PictureError(f"{path}: empty file")
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        raise PictureError(f"{path}: not a picture OpenCV can read (JPEG, PNG, BMP, TIFF, WebP)")
    return img


def parse_field(text: str) -> np.ndarray:
    """'x,y x,y x,y x,y' -> (4, 2) array; ValueError with what is wrong."""
    parts = text.replace(";", " ").split()
    if len(parts) != 4:
        raise ValueError(f"--field needs four corners 'x,y x,y x,y x,y', got {len(parts)}")
    try:
        pts = np.array([[float(v) for v in p.split(",")] for p in parts], np.float64)
    except ValueError:
        raise ValueError(f"--field corners must be numbers 'x,y': {text!r}") from None
    if pts.shape != (4, 2):
        raise ValueError(f"--field corners must be pairs 'x,y': {text!r}")
    if abs(cv2.contourArea(np.float32(order_corners(pts)))) < 100:
        raise ValueError("--field corners enclose no area")
    return pts


@dataclass
class PictureReading:
    fit: FieldFit
    corners: np.ndarray
    slots: list
    dice: list
    cube: object


def read_picture(picture: np.ndarray, field: np.ndarray | None = None,
                 readers: Readers | None = None, profile: tuple | None = None, adapter=None,
                 dice_size: DiceSize | None = None) -> PictureReading:
    """``profile``: the board's (bar share, point share[, height share]) as known already (its board state); else
    the profile ``adapter`` was learnt in, if any, or measured, the height as the readers read the board surest
    (`vision.profilefit`).
    ``adapter``: the board's own points head (vision.adapt). ``dice_size``: how big its dice look
    (vision.dicesize), learning from this picture too."""
    fit = given_field(picture, field) if field is not None else find_field(picture)
    corners = turned_corners(fit)
    if field is None and not fit.found:
        return PictureReading(fit, corners, [], [], None)
    readers = readers or default_readers()
    if profile is None and adapter is not None:
        profile = adapter.profile  # the board's own head reads in the profile it was learnt in
    if profile is not None:
        fit = replace(fit, bar_frac=float(profile[0]), point_len=float(profile[1]),
                      height=float(profile[2]) if len(profile) > 2 else None)
    else:
        fit = fit_height(picture, fit, readers)
    geom = fit.geometry()  # the board's own bar, points and height, as the observer takes them
    H = homography(Calibration.from_field(corners, fit.quality, geom).corners, geom)
    slots, dice, cube = readers.read_board(rectify(picture, H, geom), geom, adapter=adapter, dice_size=dice_size,
                                           ends=rectify_ends(picture, H, geom))
    return PictureReading(fit, corners, slots, dice, cube)


def point_outlines(fit: FieldFit) -> np.ndarray:
    """The 24 points' triangles where the board's profile puts them (its bar, points and height), in picture pixels
    (24, 3, 2): drawn over the picture, a person sees at a glance whether the field and its profile fit the board."""
    geom = fit.geometry()
    x0, y0, x1, y1 = geom.field()
    to_picture = cv2.getPerspectiveTransform(np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]),
                                             np.float32(turned_corners(fit)))
    triangles = np.float32([geom.triangle(s) for s in range(24)])
    return cv2.perspectiveTransform(triangles.reshape(1, -1, 2), to_picture).reshape(24, 3, 2)


def _point(light: int, dark: int) -> str:
    if light and light >= dark:
        return f"L{light}"
    if dark:
        return f"D{dark}"
    return ""


TRAY_TRUST = 0.5  # a tray's reading counts this much of a point's in choosing what to give up (`within_the_checkers`):
# the default profile puts the trays at the right, and a real board's may be at the left, at both ends or off the board
# (a stream frame's compartments at the right held the players' name cards, read as 13 light and 3 dark checkers)


def within_the_checkers(slots) -> list[tuple[int, int]]:
    """Each slot's (light, dark) count: the likeliest reading of the whole board in which neither colour has
    more than its 15 checkers (some may be hidden or in a hand: fewer is allowed). Where the slots' own best
    counts obey that, they are the answer; where not, something on the points read as checkers (dice cups
    lying on a stream board's points read as stacks of 12 and 13) and the counts that cost least to give up
    go. A point holds one colour; the bar and the trays both, independently."""
    best = [sl.best() for sl in slots]
    if sum(b[0] for b in best) <= MAX_COUNT and sum(b[1] for b in best) <= MAX_COUNT:
        return best
    n = MAX_COUNT + 1
    eps = 1e-12
    score = np.full((n, n), -np.inf)
    score[0, 0] = 0.0
    choice = []  # per slot: (n, n) index of the option taken to reach each (light, dark) total
    for k, sl in enumerate(slots):
        light, dark = np.clip(sl.light, 0, 1), np.clip(sl.dark, 0, 1)
        if k < BAR_SLOT:  # a point: one colour, empty, light j or dark j
            opts = [(0, 0, max(1.0 - light[1:].sum() - dark[1:].sum(), 0.0))]
            opts += [(j, 0, light[j]) for j in range(1, n)] + [(0, j, dark[j]) for j in range(1, n)]
        else:  # the bar, or a tray: read where the profile puts the board's trays, which a field's outline cannot tell
            trust = 1.0 if k == BAR_SLOT else TRAY_TRUST
            opts = [(a, b, (light[a] * dark[b]) ** trust) for a in range(n) for b in range(n)]
        new = np.full((n, n), -np.inf)
        pick = np.zeros((n, n), np.int32)
        for o, (a, b, pr) in enumerate(opts):
            cand = np.full((n, n), -np.inf)
            cand[a:, b:] = score[:n - a, :n - b] + np.log(pr + eps)
            better = cand > new
            new[better], pick[better] = cand[better], o
        score = new
        choice.append((opts, pick))
    a, b = np.unravel_index(int(np.argmax(score)), score.shape)
    out = []
    for opts, pick in reversed(choice):
        la, lb, _ = opts[pick[a, b]]
        out.append((la, lb))
        a, b = a - la, b - lb
    return out[::-1]


def to_json(r: PictureReading) -> dict:
    """The `bgscribe read` JSON (issue "Real boards I")."""
    fit = r.fit
    found = bool(fit.found or r.slots)
    out = {"board_found": found, "quality": round(fit.quality, 3),
           "field": [[round(float(x), 1), round(float(y), 1)] for x, y in r.corners],
           "profile": {"bar_frac": round(fit.bar_frac, 4), "point_len": round(fit.point_len, 3),
                       "height": round(fit.geometry().field_shape()[2], 3),
                       "bar": "up-down" if not fit.turned else "across"}}
    if not r.slots:
        return out
    s = within_the_checkers(r.slots)
    out["top"] = [_point(*s[k]) for k in range(12, 24)]  # slots 12..23 run left to right along the top
    out["bottom"] = [_point(*s[k]) for k in range(11, -1, -1)]  # 11..0 left to right along the bottom
    bl, bd = s[BAR_SLOT]
    out["bar"] = {"light": int(bl), "dark": int(bd)}
    tl = sum(s[k][0] for k in (TRAY_TOP, TRAY_BOTTOM))
    td = sum(s[k][1] for k in (TRAY_TOP, TRAY_BOTTOM))
    out["trays"] = {"light": int(tl), "dark": int(td)}
    out["dice"] = [{"value": d.value, "p": round(float(d.values.max()), 3), "cocked": bool(d.cocked >= 0.5)}
                   for d in r.dice]
    if r.cube is None:
        out["cube"] = {"value": None, "where": "none"}
    else:
        where = r.cube.where
        out["cube"] = {"value": int(r.cube.value) if where != "off" else None,
                       "where": "off" if where == "off" else "frame" if r.cube.frame >= 0.5 else "bar"}
    return out


def rows_of_slots(counts) -> tuple[list[str], list[str]]:
    """Checkers per physical slot (27 x [light, dark]: transcriber.physical, the simulator's truth) -> the
    rows as `bgscribe read` prints them (top left to right, bottom left to right)."""
    def text(light, dark) -> str:
        return f"L{int(light)}" if light else f"D{int(dark)}" if dark else ""

    return [text(*counts[k]) for k in range(12, 24)], [text(*counts[k]) for k in range(11, -1, -1)]

