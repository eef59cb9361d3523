"""Readers of the rectified board: checker counts per slot, dice and the cube (ONNX, onnxruntime).

`read_board(rect, geom)` takes the board seen straight from above (`vision.rectify.rectify`,
1.5 px/mm) and returns what the transcriber needs, as probabilities:

* 27 `SlotReading`s: the 24 points (one classifier over empty / light 1..15 / dark 1..15,
  all 24 crops in one batch), the bar (a map of checker centres along it, each judged light or
  dark by the board's two colours: `read_bar`) and the two trays (one model each, a light head
  and a dark head over 0..15);
* `DieReading`s: a small fully-convolutional net marks die centres on the board at 0.75 px/mm,
  then each candidate is cut out at full resolution and classified (not a die / 1..6, and
  cocked);
* a `CubeReading`: the three places the cube can lie on the bar (centre and both ends) are
  classified (no cube / the face 2..64), and, given the strips beyond the field's ends
  (`vision.rectify.rectify_ends`: trays and frame, where real players leave it), windows over
  those by the same classifier; no cube anywhere means it is off the board.

Preprocessing lives here and nowhere else: the training recipe (`vision.train.readers`) cuts
its examples with these same functions. Every model takes raw 0..255 BGR float NCHW and
normalises inside the graph. Probabilities are temperature-scaled (the temperatures, fitted on
held-out calibration frames, are stored in each ONNX file's metadata: ``temperature``).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from .dicesize import LADDER, DiceSize
from .geometry import BAR_SLOT, N_SLOTS, TRAY_BOTTOM, TRAY_TOP, BoardGeometry
from .observation import CUBE_PLACES, CUBE_VALUES, MAX_COUNT, CubeReading, DieReading, SlotReading
from .read_memo import SURE_READ, ReadMemo
from .rectify import BAR_CROP, POINT_CROP, SCALE, TRAY_CROP, board_to_rect, end_to_px, slot_rect

MODELS = Path(__file__).resolve().parents[1] / "models"
NAMES = ("points", "bar", "tray", "dice_heat", "dice", "cube")

N_POINT_CLASSES = 1 + 2 * MAX_COUNT  # empty, light 1..15, dark 1..15
DIE_CROP = 48  # px of the full-resolution board (32 mm) around a die candidate
OFF_FIELD_MM = 8.0  # a die's centre this far outside the playing field is off it (a found field is ~1 % off)
DIE_PX = 24  # px a default 16 mm die spans in that crop (1.5 px/mm); real dice, often 12-16 mm, span 18-24
HEAT_STRIDE = 4  # heat-map cells per pixel of the half-resolution board
HEAT_MIN_SCALE = 0.8  # the heat map never sees the board smaller: checkers shrink to a die's size and it fires on
# them (the pine board's 29 frames with dice: 61 candidates at 0.8, 78 at 0.7, 114 at 0.6)
HEAT_UP = 1.25  # it also looks at the board enlarged this much, unless the board's dice are known not to be small
UP_PEAKS = 16  # peaks that look keeps (most are checkers' printed marks: a stream frame's small 3 was the 14th)
UP_SURE = 0.9  # what only the enlarged look finds is a die where a value is this sure
PRINT_REACH = 0.3  # checker diameters from a read checker's spot: where its print lies, and no die lying flat can
# (stream frames' false dice on checkers: 7 of 9 within 0.23, two on rims at 0.4-0.45; rendered dice drawn beside
# stacks, overlapping them, 0.35 and more, but for one by a misread stack and one on a checker read as beside it);
# one read there `UP_SURE` sure is a die on the checker all the same
DICE_TURNS = 8  # views of each die crop the dice classifier averages (quarter turns, mirrored: `classify_dice`)
HEAT_THRESHOLD = 0.2  # a die candidate's peak must reach this (chosen on calibration frames, not held-out ones)
CUBE_CROP = 64  # px the cube windows are resized to
CUBE_WINDOW = 62.0  # mm: the square window around each cube place on the bar
CUBE_FACES = (2, 4, 8, 16, 32, 64)  # the cube classifier: 0 = no cube, then these faces
BAR_PLACES = ("centre", "top", "bottom")
BAR_CELL = 8  # rows of the bar's crop (along the bar) per cell of the bar reader's map
BAR_CELLS = BAR_CROP[1] // BAR_CELL
BAR_PILE = 3  # the map's classes per cell: checkers centred in it, 0 .. BAR_PILE (a pile of more: BAR_PILE)
END_XS = (20.0, 50.0, 80.0)  # mm from the field's edge: the cube windows' columns over each end strip
END_STEP = 30.0  # mm between the windows' rows: a 30 mm cube lies within 15 mm of some window's centre both ways


# ---------------------------------------------------------------------- preprocessing (shared with training)


@lru_cache(maxsize=8)
def _slot_maps(geom: BoardGeometry):
    """remap tables cutting every slot crop out of the rectified board in one call each:
    the 24 points side by side (192 x 24*48), and bar | tray top | tray bottom (320 x 80).
    The crops are those of `vision.rectify.slot_crop` (same region, size and orientation)."""

    def grid(slot: int, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        x0, y0, x1, y1 = slot_rect(slot, geom)
        w, h = size
        u = x0 + (np.arange(w) + 0.5) * (x1 - x0) / w
        v = y0 + (np.arange(h) + 0.5) * (y1 - y0) / h
        if 12 <= slot < 24 or slot == TRAY_TOP:  # turned half round: base at the bottom
            u, v = u[::-1], v[::-1]
        xs, ys = np.meshgrid(u, v)
        p = board_to_rect(np.stack([xs, ys], -1).reshape(-1, 2), geom).reshape(h, w, 2) - 0.5
        return p[..., 0].astype(np.float32), p[..., 1].astype(np.float32)

    pts = [grid(s, POINT_CROP) for s in range(24)]
    px = np.concatenate([a for a, _ in pts], 1)
    py = np.concatenate([b for _, b in pts], 1)
    bw, bh = BAR_CROP
    tw, th = TRAY_CROP
    ox = np.full((max(bh, 2 * th), bw + tw), -10.0, np.float32)
    oy = ox.copy()
    ox[:bh, :bw], oy[:bh, :bw] = grid(BAR_SLOT, BAR_CROP)
    ox[:th, bw:], oy[:th, bw:] = grid(TRAY_TOP, TRAY_CROP)
    ox[th:2 * th, bw:], oy[th:2 * th, bw:] = grid(TRAY_BOTTOM, TRAY_CROP)
    return cv2.convertMaps(px, py, cv2.CV_16SC2), cv2.convertMaps(ox, oy, cv2.CV_16SC2)


def slot_crops(rect: np.ndarray, geom: BoardGeometry) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(points (24, 192, 48, 3), bar (320, 40, 3), trays (2, 160, 40, 3): top, bottom), uint8 BGR.

    A light blur first stands in for area averaging (the crops are about 0.55x the board's scale)."""
    (p1, p2), (o1, o2) = _slot_maps(geom)
    soft = cv2.GaussianBlur(rect, (3, 3), 0)
    strip = cv2.remap(soft, p1, p2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    w, h = POINT_CROP
    points = strip.reshape(h, 24, w, 3).transpose(1, 0, 2, 3)
    other = cv2.remap(soft, o1, o2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    bw, bh = BAR_CROP
    tw, th = TRAY_CROP
    bar = other[:bh, :bw]
    trays = np.stack([other[:th, bw:], other[th:2 * th, bw:]])
    return np.ascontiguousarray(points), np.ascontiguousarray(bar), trays


def heat_input(rect: np.ndarray) -> np.ndarray:
    """The half-resolution board (0.75 px/mm) the die heat-map looks at."""
    return cv2.pyrDown(rect)


def die_crop(rect: np.ndarray, xy_px: tuple[float, float], scale: float = 1.0) -> np.ndarray:
    """DIE_CROP x DIE_CROP px of the full-resolution board centred on (x, y) rectified pixels; at a ``scale``
    other than 1 (this board's dice: `vision.dicesize`) the window is DIE_CROP / scale wide, resized."""
    xy = (float(xy_px[0]), float(xy_px[1]))
    if scale == 1.0:
        return cv2.getRectSubPix(rect, (DIE_CROP, DIE_CROP), xy)
    w = int(round(DIE_CROP / scale))
    return cv2.resize(cv2.getRectSubPix(rect, (w, w), xy), (DIE_CROP, DIE_CROP),
                      interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)


def cube_places_px(geom: BoardGeometry) -> dict[str, tuple[float, float]]:
    return {p: tuple(board_to_rect(np.array(geom.cube_spot(p)), geom)) for p in BAR_PLACES}


def cube_crops(rect: np.ndarray, geom: BoardGeometry) -> np.ndarray:
    """(3, 64, 64, 3): windows at the centre, top and bottom of the bar; the top one is turned
    half round so that a cube its owner at the top turned to face them reads upright."""
    side = int(round(CUBE_WINDOW * SCALE))
    out = []
    for place, (x, y) in cube_places_px(geom).items():
        win = cv2.getRectSubPix(rect, (side, side), (float(x), float(y)))
        win = cv2.resize(win, (CUBE_CROP, CUBE_CROP), interpolation=cv2.INTER_AREA)
        out.append(win[::-1, ::-1] if place == "top" else win)
    return np.ascontiguousarray(np.stack(out))


def end_windows(geom: BoardGeometry) -> np.ndarray:
    """(n, 2) board mm: the centres of the cube windows over both end strips (`BoardGeometry.end_rect`)."""
    fx0, _, fx1, _ = geom.field()
    half = geom.height / 2 - CUBE_WINDOW / 4
    ys = np.arange(-half, half + 1e-6, (2 * half) / max(round(2 * half / END_STEP), 1))
    return np.array([(x, y) for x in [fx0 - d for d in END_XS] + [fx1 + d for d in END_XS] for y in ys])


def end_crops(ends: np.ndarray, geom: BoardGeometry, centres: np.ndarray | None = None) -> np.ndarray:
    """(n, 64, 64, 3): cube windows of `rectify_ends`' picture around ``centres`` (board mm; default
    `end_windows`), as the bar's are cut (not turned: a cube off the bar lies any way round)."""
    side = int(round(CUBE_WINDOW * SCALE))
    centres = end_windows(geom) if centres is None else np.asarray(centres, np.float64).reshape(-1, 2)
    out = [cv2.resize(cv2.getRectSubPix(ends, (side, side), (float(x), float(y))), (CUBE_CROP, CUBE_CROP),
                      interpolation=cv2.INTER_AREA) for x, y in end_to_px(centres, geom)]
    return np.ascontiguousarray(np.stack(out)) if out else np.zeros((0, CUBE_CROP, CUBE_CROP, 3), np.uint8)


def nchw(batch: np.ndarray) -> np.ndarray:
    """(N, H, W, 3) uint8 -> (N, 3, H, W) float32, 0..255 (models normalise inside)."""
    return np.ascontiguousarray(batch.transpose(0, 3, 1, 2), dtype=np.float32)


def point_probs_to_slot(p: np.ndarray, light_p: float | None = None) -> SlotReading:
    """31-way point probabilities -> light and dark count distributions (a point holds one colour).

    With ``light_p`` (the board-level colour judgement, see `point_colours`) the classifier's
    count is kept and its colour replaced: P(light k) = P(k checkers) * light_p."""
    light = np.zeros(MAX_COUNT + 1)
    dark = np.zeros(MAX_COUNT + 1)
    if light_p is None:
        light[1:] = p[1:1 + MAX_COUNT]
        dark[1:] = p[1 + MAX_COUNT:]
    else:
        n = p[1:1 + MAX_COUNT] + p[1 + MAX_COUNT:]
        light[1:] = n * light_p
        dark[1:] = n * (1.0 - light_p)
    light[0] = 1.0 - light[1:].sum()
    dark[0] = 1.0 - dark[1:].sum()
    return SlotReading(np.clip(light, 0, 1), np.clip(dark, 0, 1))


def _luma(bgr: np.ndarray) -> np.ndarray:
    return bgr[..., 0] * 0.114 + bgr[..., 1] * 0.587 + bgr[..., 2] * 0.299


CHROMA_WEIGHT = 3.0  # a and b against L when clustering the checkers' colours (`_weighted`): on the labelled
# real pictures given their field, 1 -> 3 took the stream frames from 107 to 114 of 120 points right with colour (the
# counts' 114: every flip gone), the phone photos and the pine board as they were; 4 and 6 the same as 3
MIN_GAP = 40.0  # luma between the two checker colours' clusters for the split to count
OPENING_STACKS = [2, 3, 5, 5]  # each colour's points in the opening position, whichever way the board is set


# Where a point's first checkers lie in its crop (the default board's `checker_spot`: the first centred 21 mm from the
# base, the next 37.2 mm further each; the crop holds 230 mm in 192 rows, 54 mm in 48 columns) and the inner part of
# each disc sampled for its colour (0.6 of the radius: a checker a little aside still fills it; on the labelled
# real pictures given their field 0.5-0.7 alike, 0.8 took in a red point beside a white checker lying low).
_ROWS, _COLS = POINT_CROP[1] / 230.0, POINT_CROP[0] / 54.0
_DISCS = [(POINT_CROP[1] - (21.0 + 37.24 * k) * _ROWS, POINT_CROP[0] / 2) for k in range(3)]
_YY, _XX = np.mgrid[0:POINT_CROP[1], 0:POINT_CROP[0]]
_IN_DISC = [((_YY + 0.5 - cy) / (11.4 * _ROWS)) ** 2 + ((_XX + 0.5 - cx) / (11.4 * _COLS)) ** 2 <= 1
            for cy, cx in _DISCS]
_STACK_MASKS = [np.logical_or.reduce(_IN_DISC[:k + 1]) for k in range(len(_IN_DISC))]


def _stack_colours(points: np.ndarray, idx: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lab and luma of the checkers of these points: the median of the more colourful half of the pixels inside
    the first (up to three, ``counts``) checkers' discs. A glossy checker's middle mirrors the lamp (a red one's
    looks white); its rim and the shaded side keep its hue, and on neutral checkers (white, black) either half
    is alike."""
    med = np.zeros((len(idx), 3), np.uint8)
    upto = np.clip(np.asarray(counts), 1, len(_STACK_MASKS)) - 1
    for m in np.unique(upto):
        sel = np.nonzero(upto == m)[0]
        med[sel] = _colourful_median(points[np.asarray(idx)[sel]][:, _STACK_MASKS[m]])
    lab = cv2.cvtColor(med[None], cv2.COLOR_BGR2LAB)[0].astype(np.float64)
    return lab, _luma(med.astype(np.float32))


def _colourful_median(px: np.ndarray) -> np.ndarray:
    """(discs, pixels, 3) BGR -> (discs, 3): each disc's median over its more colourful half of pixels."""
    b, g, r = px[..., 0], px[..., 1], px[..., 2]  # HSV's chroma: cheaper than Lab's, as good a rank
    chroma = np.maximum(np.maximum(b, g), r) - np.minimum(np.minimum(b, g), r)
    half = px.shape[1] // 2
    order = np.argpartition(chroma, half, axis=1)[:, half:]
    return np.median(np.take_along_axis(px, order[..., None], 1), axis=1)


def _weighted(lab: np.ndarray) -> np.ndarray:
    """Lab with its colour axes weighed up against lightness: shine, rims and shade move a checker's lightness
    far more than its hue (a gold checker's highlight is as light as a white one; its hue is not)."""
    return lab * np.array([1.0, CHROMA_WEIGHT, CHROMA_WEIGHT])


def _two_colours(lab: np.ndarray, weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Two clusters in Lab, whatever the hues: started from the best split along the direction the colours
    vary most (lightness for black and white, hue for red and blue of one brightness, where a split by
    lightness alone started from one outlier), refined by 2-means: (is_light per point, light centre,
    dark centre); None: one colour. ``weight``: how much each point's colour counts (its checkers, as sure
    as they are read): a point's dark triangle read as one unsure checker is a third colour, and one or two
    of them, weighed as much as a stack each, split the board into that colour against both checkers'."""
    raw, lab = lab, _weighted(lab)
    w = np.ones(len(lab)) if weight is None else np.asarray(weight, np.float64)

    def mean(values: np.ndarray, sel: np.ndarray) -> np.ndarray:
        return (values[sel] * w[sel, None]).sum(0) / w[sel].sum()

    centred = lab - mean(lab, np.ones(len(lab), bool))
    _, _, vt = np.linalg.svd(centred * np.sqrt(w)[:, None], full_matrices=False)
    proj = centred @ vt[0]
    order = np.argsort(proj)
    pw, px = np.cumsum(w[order]), np.cumsum(w[order] * proj[order])
    best, cut = -1.0, float(proj[order[0]])
    for i in range(1, len(order)):
        wl, wr = pw[i - 1], pw[-1] - pw[i - 1]
        between = wl * wr * ((px[-1] - px[i - 1]) / wr - px[i - 1] / wl) ** 2
        if between > best:
            best, cut = between, float((proj[order[i - 1]] + proj[order[i]]) / 2)
    light_c = proj > cut
    for _ in range(10):
        if light_c.all() or not light_c.any():
            return None
        c1, c0 = mean(lab, light_c), mean(lab, ~light_c)
        new = np.linalg.norm(lab - c1, axis=1) < np.linalg.norm(lab - c0, axis=1)
        if (new == light_c).all():
            break
        light_c = new
    if light_c.all() or not light_c.any():  # 2-means ran out of turns on one cluster
        return None
    c1, c0 = mean(raw, light_c), mean(raw, ~light_c)  # the centres in plain Lab, as the callers keep them
    if c1[0] < c0[0]:  # the lighter cluster is light
        c0, c1, light_c = c1, c0, ~light_c
    gap = float(np.linalg.norm(c1 - c0))
    if gap < MIN_GAP:
        return None
    return light_c, c1, c0


@dataclass
class BoardColours:
    """This board's two checker colours under this light, learnt from the opening position (every game
    starts there), for the frames whose own colours cannot say which is which: a board with one colour
    left on the points, or two colours too close to split without knowing them. Kept per observer."""

    light: np.ndarray | None = None  # Lab of a light checker's top
    dark: np.ndarray | None = None
    threshold: float | None = None  # luma between the two
    learnt: int = 0  # opening positions seen

    def learn(self, points: np.ndarray, p: np.ndarray) -> bool:
        """Learn from this read if it shows the opening position (4 points of 2, 3, 5, 5 per colour)."""
        q = np.concatenate([p[:, :1], p[:, 1:1 + MAX_COUNT] + p[:, 1 + MAX_COUNT:]], 1)  # counts, either colour
        n = q.argmax(1)
        occupied = np.nonzero(n > 0)[0]
        if len(occupied) != 8 or q[occupied, n[occupied]].min() < 0.9 or (q[n == 0, 0] < 0.9).any():
            return False
        lab, luma = _stack_colours(points, occupied, n[occupied])
        split = _two_colours(lab)
        if split is None:
            return False
        is_light, c1, c0 = split
        counts = n[occupied]
        if sorted(counts[is_light]) != OPENING_STACKS or sorted(counts[~is_light]) != OPENING_STACKS:
            return False
        w = 1.0 / (self.learnt + 1)  # a running mean over the openings seen (the light may change)
        self.light = c1 if self.light is None else (1 - w) * self.light + w * c1
        self.dark = c0 if self.dark is None else (1 - w) * self.dark + w * c0
        thr = float((luma[is_light].mean() + luma[~is_light].mean()) / 2)
        self.threshold = thr if self.threshold is None else (1 - w) * self.threshold + w * thr
        self.learnt = min(self.learnt + 1, 20)
        return True

    def to_json(self) -> dict:
        if self.light is None:
            return {"learnt": 0}
        return {"light": self.light.tolist(), "dark": self.dark.tolist(), "threshold": self.threshold,
                "learnt": self.learnt}

    @classmethod
    def from_json(cls, d: dict) -> BoardColours:
        if not d.get("learnt"):
            return cls()
        light, dark = np.asarray(d["light"], np.float64), np.asarray(d["dark"], np.float64)
        if light.shape != (3,) or dark.shape != (3,):
            raise ValueError("checker colours must be three Lab values each")
        return cls(light, dark, float(d["threshold"]), int(d["learnt"]))


@dataclass
class ColourCentres:
    """The board's two checker colours (weighted Lab, `_weighted`) and the distance that makes a checker sure."""

    light: np.ndarray
    dark: np.ndarray
    scale: float

    def p_light(self, lab: np.ndarray) -> np.ndarray:
        """P(light) of checkers of these (raw) Lab colours: by how much nearer the light colour each lies."""
        w = _weighted(np.asarray(lab, np.float64))
        d1, d0 = np.linalg.norm(w - self.light, axis=-1), np.linalg.norm(w - self.dark, axis=-1)
        return 1.0 / (1.0 + np.exp(-np.clip((d0 - d1) / self.scale, -30, 30)))


def point_colours(points: np.ndarray, p: np.ndarray,
                  colours: BoardColours | None = None) -> tuple[list[float | None], float | None,
                                                                ColourCentres | None]:
    """Which colour each occupied point holds, judged across the whole board.

    A classifier that sees one point cannot know which of two unfamiliar colours is "light"
    (on a board with yellow and blue checkers it may call yellow dark); the board can: the
    occupied points' first checkers fall into two colour clusters (Lab), and the lighter is
    light. Where they do not (one colour on the board), the colours learnt from this board's
    opening position decide, if any. Returns P(light) per point (None: keep the classifier's
    own colour), the luma threshold between the colours and the colours themselves (None when unknown)."""
    occupied = np.nonzero(p[:, 0] < 0.5)[0]
    out: list[float | None] = [None] * len(p)
    if len(occupied) < 1:
        return out, None, None
    counts = (p[occupied, 1:1 + MAX_COUNT] + p[occupied, 1 + MAX_COUNT:]).argmax(1) + 1
    lab, luma = _stack_colours(points, occupied, counts)
    # each point's colour weighs as its checkers sampled (`_stack_colours`), as surely as they are there
    weight = np.minimum(counts, len(_STACK_MASKS)) * (1.0 - p[occupied, 0])
    split = _two_colours(lab, weight) if len(occupied) >= 2 else None
    if split is not None:
        is_light, c1, c0 = split
        thr = float((np.average(luma[is_light], weights=weight[is_light])
                     + np.average(luma[~is_light], weights=weight[~is_light])) / 2)
    elif colours is not None and colours.light is not None:
        c1, c0, thr = colours.light, colours.dark, colours.threshold
    else:
        return out, None, None
    c1, c0 = _weighted(c1), _weighted(c0)
    centres = ColourCentres(c1, c0, float(np.linalg.norm(c1 - c0)) / 12)
    for k, pl in zip(occupied, centres.p_light(lab)):
        out[int(k)] = float(pl)
    return out, thr, centres


def bar_cell_colours(bar: np.ndarray, geom: BoardGeometry, cells: np.ndarray, centres: ColourCentres | None,
                     occupied: np.ndarray) -> np.ndarray:
    """P(light) of the checkers centred in each cell of the bar's map: where the board's two colours are known, the
    disc around the cell's middle (its inner 0.6, as a point's) judged by them as the points' checkers are (real
    players leave either colour anywhere on the bar, so where a checker lies does not say its colour); elsewhere
    the reader's own judgement (``cells``: its colour logits). Only the ``occupied`` cells are looked at."""
    out = 1.0 / (1.0 + np.exp(-np.clip(cells, -30, 30)))
    if centres is None or not occupied.any():
        return out
    x0, y0, x1, y1 = slot_rect(BAR_SLOT, geom)
    ry = 0.6 * geom.checker_d / 2 * BAR_CROP[1] / (y1 - y0)
    rx = min(0.6 * geom.checker_d / 2 * BAR_CROP[0] / (x1 - x0), BAR_CROP[0] / 2)
    idx = np.nonzero(occupied)[0]
    med = np.zeros((len(idx), 3), np.uint8)
    for j, i in enumerate(idx):
        cy = (i + 0.5) * BAR_CELL
        a, b = max(int(cy - ry), 0), min(int(np.ceil(cy + ry)) + 1, BAR_CROP[1])
        yy, xx = np.mgrid[a:b, 0:BAR_CROP[0]]
        inside = ((yy + 0.5 - cy) / ry) ** 2 + ((xx + 0.5 - BAR_CROP[0] / 2) / rx) ** 2 <= 1
        med[j] = _colourful_median(bar[a:b][inside][None])[0]  # as a point's checkers are judged
    lab = cv2.cvtColor(med[None], cv2.COLOR_BGR2LAB)[0].astype(np.float64)
    out[idx] = centres.p_light(lab)
    return out


def bar_reading(counts: np.ndarray, light: np.ndarray) -> SlotReading:
    """The bar's slot reading from its map: ``counts`` (BAR_CELLS, BAR_PILE + 1) P(k checkers centred in the cell),
    ``light`` (BAR_CELLS,) P(they are light). The cells taken as independent, each colour's count is the sum of
    theirs (a distribution convolved cell by cell; more than MAX_COUNT piles up at MAX_COUNT)."""
    dists = []
    for share in (light, 1.0 - light):
        d = np.zeros(MAX_COUNT + 1)
        d[0] = 1.0
        for pc, s_ in zip(counts, share):
            cell = np.zeros(BAR_PILE + 1)
            cell[1:] = pc[1:] * s_
            cell[0] = 1.0 - cell[1:].sum()
            d = np.convolve(d, cell)
            d[MAX_COUNT] += d[MAX_COUNT + 1:].sum()
            d = d[:MAX_COUNT + 1]
        dists.append(d / d.sum())
    return SlotReading(*dists)


def tray_colours(crop: np.ndarray, light: np.ndarray, dark: np.ndarray,
                 thr: float | None) -> tuple[np.ndarray, np.ndarray]:
    """A tray read as one colour whose row is clearly on the other side of the board's luma
    threshold (see `point_colours`) is the other colour: the two heads are swapped."""
    nl, nd = int(np.argmax(light)), int(np.argmax(dark))
    if thr is None or (nl > 0) == (nd > 0):
        return light, dark
    n = max(nl, nd)
    rows = int(round((4 + n * 6.65) * crop.shape[0] / 215.0))
    row = crop[crop.shape[0] - max(rows, 3):crop.shape[0] - 1, 10:30].reshape(-1, 3).astype(np.float32)
    y = float(_luma(np.median(row, axis=0)))
    looks_light = y > thr
    if looks_light != (nl > 0):
        return dark, light
    return light, dark


def point_label(light: int, dark: int) -> int:
    """The point classifier's class of a (light, dark) count (a point never holds both colours)."""
    if light:
        return light
    if dark:
        return MAX_COUNT + dark
    return 0


def find_peaks(heat: np.ndarray, threshold: float = HEAT_THRESHOLD, max_n: int = 8) -> list[tuple[float, float, float]]:
    """Local maxima of a probability heat-map: (x, y, p) in heat cells, refined to the 3x3 centroid."""
    dil = cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((heat >= dil) & (heat >= threshold))
    order = np.argsort(-heat[ys, xs])[:max_n]
    out = []
    h, w = heat.shape
    for k in order:
        y, x = int(ys[k]), int(xs[k])
        y0, y1, x0, x1 = max(y - 1, 0), min(y + 2, h), max(x - 1, 0), min(x + 2, w)
        patch = heat[y0:y1, x0:x1]
        gy, gx = np.mgrid[y0:y1, x0:x1]
        s = float(patch.sum())
        out.append((float((gx * patch).sum() / s), float((gy * patch).sum() / s), float(heat[y, x])))
    return out


def heat_to_rect(x: float, y: float) -> tuple[float, float]:
    """Heat-map cell -> full-resolution rectified pixels (cell i sits over half-resolution pixel 4i,
    which pyrDown took from full-resolution pixels 8i .. 8i + 1)."""
    return x * HEAT_STRIDE * 2 + 0.5, y * HEAT_STRIDE * 2 + 0.5


def rect_to_mm(xy_px: tuple[float, float], geom: BoardGeometry) -> tuple[float, float]:
    return xy_px[0] / SCALE - geom.width / 2, xy_px[1] / SCALE - geom.height / 2


# ---------------------------------------------------------------------- models


def _softmax(z: np.ndarray, t: float = 1.0) -> np.ndarray:
    z = z / t
    z = z - z.max(-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(-1, keepdims=True)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


@dataclass
class _Model:
    session: object
    inputs: str
    temperature: list[float]

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        return self.session.run(None, {self.inputs: x})


class Readers:
    """The six ONNX models, loaded once. ``threads``: onnxruntime intra-op threads per model."""

    def __init__(self, models: Path | str = MODELS, threads: int = 2):
        import onnxruntime as ort

        self.models = Path(models)
        self._m: dict[str, _Model] = {}
        for name in NAMES:
            path = self.models / f"{name}.onnx"
            if not path.exists():
                raise FileNotFoundError(f"{path}: reader weights missing (train them: bgscribe train readers)")
            so = ort.SessionOptions()
            so.intra_op_num_threads = threads
            so.inter_op_num_threads = 1
            so.log_severity_level = 3
            # six sessions run one after another: threads spinning after one run would steal the next one's cores
            so.add_session_config_entry("session.intra_op.allow_spinning", "0")
            sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
            meta = sess.get_modelmeta().custom_metadata_map
            temps = json.loads(meta.get("temperature", "[1.0]"))
            self._m[name] = _Model(sess, sess.get_inputs()[0].name, [float(t) for t in temps])

    # ---- parts (also used by the benchmark and the tests)

    def point_outputs(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Point crops -> the classifier's (N, 31) logits and its (N, 128) last hidden layer (vision.adapt)."""
        logits, features = self._m["points"].run(nchw(crops))
        return logits, features

    def points_sureness(self, rect: np.ndarray, geom: BoardGeometry) -> float:
        """The mean, over the 24 points, of the points reader's likeliest class's probability (`vision.profilefit`)."""
        logits, _ = self.point_outputs(slot_crops(rect, geom)[0])
        return float(_softmax(logits, self._m["points"].temperature[0]).max(1).mean())

    def read_slots(self, rect: np.ndarray, geom: BoardGeometry, colours: BoardColours | None = None, adapter=None,
                   memo: ReadMemo | None = None) -> list[SlotReading]:
        """``colours``: this board's colours so far; learns from the read when it shows the opening.
        ``adapter``: this board's own head for the points (vision.adapt.PointAdapter). ``memo``: the board's last
        read, whose sure points are not read again where their crops are the same (`vision.read_memo`)."""
        points, bar, trays = slot_crops(rect, geom)
        m = self._m["points"]

        def head(logits: np.ndarray, features: np.ndarray) -> np.ndarray:
            return _softmax(logits if adapter is None else adapter.logits(features), m.temperature[0])

        if memo is None:
            logits, features = self.point_outputs(points)
        else:
            logits, features = memo.outputs([("point", k) for k in range(len(points))], points, self.point_outputs,
                                            lambda o: head(*o).max(1) >= SURE_READ)
        p = head(logits, features)
        if colours is not None:
            colours.learn(points, p)
        light_p, thr, centres = point_colours(points, p, colours)
        out = [point_probs_to_slot(row, c) for row, c in zip(p, light_p)]
        out.append(self.read_bar(bar, geom, centres))
        m = self._m["tray"]
        lo, do = m.run(nchw(trays))
        for k in range(2):
            light, dark = _softmax(lo[k], m.temperature[0]), _softmax(do[k], m.temperature[-1])
            out.append(SlotReading(*tray_colours(trays[k], light, dark, thr)))
        assert len(out) == N_SLOTS
        return out

    def read_bar(self, bar: np.ndarray, geom: BoardGeometry, centres: ColourCentres | None) -> SlotReading:
        """The checkers on the bar (its crop, `slot_crops`): the reader's map of checker centres along it, each
        cell's colour judged by the board's two colours (`point_colours`' ``centres``) where known."""
        m = self._m["bar"]
        cells = m.run(nchw(bar[None]))[0][0]  # (BAR_PILE + 2, BAR_CELLS): count logits, then the colour logit
        counts = _softmax(cells[:BAR_PILE + 1].T, m.temperature[0])
        light = bar_cell_colours(bar, geom, cells[BAR_PILE + 1], centres, counts[:, 0] < 0.9)
        return bar_reading(counts, light)

    def read_dice(self, rect: np.ndarray, geom: BoardGeometry, size: DiceSize | None = None,
                  memo: ReadMemo | None = None, slots: list[SlotReading] | None = None) -> list[DieReading]:
        """The dice on the board. ``size``: how big this board's dice look (`vision.dicesize`), learnt from
        every read while it is still learning; None: the default's size. ``memo``: as `read_slots`'s, for the
        candidates' crops. ``slots``: the board's checkers as read (`read_slots`): a candidate lying over one of
        them (`BoardGeometry.stack_under`, `PRINT_REACH`) is a die on that checker, read so, or its print."""
        stacks = [max(sl.best()) for sl in slots[:BAR_SLOT]] if slots is not None else [0] * BAR_SLOT

        def on_a_checker(xy: tuple[float, float]) -> bool:
            return geom.stack_under(stacks, *xy, reach=PRINT_REACH) is not None

        scale = size.scale if size is not None else 1.0
        learning = size is not None and size.learning
        # the heat map sees the dice brought towards its size; while that is learnt and bigger dice are as likely as
        # not, at both ends of its range
        big = learning and sum(v for s, v in size.weights().items() if s < 1.0) >= 0.5
        hss = (1.0, HEAT_MIN_SCALE) if big else (min(max(scale, HEAT_MIN_SCALE), 1.0),)
        centres: list[tuple[float, float]] = []
        for hs in hss:  # a die both maps find is one candidate
            centres += _apart(self._die_centres(rect, hs), centres)
        if not big and (size is None or learning or scale > 1.0):
            # dice smaller than the default's (real sets' are often 12-13 mm) can peak under the threshold; enlarged,
            # the map also peaks at checkers' printed marks, so what only that look finds must read as a die of a
            # sure value (rendered 12 mm dice found 0.91 -> 1.0, no false die; stream frames' dice 15 -> 17 of 17)
            extra = _apart(self._die_centres(rect, HEAT_UP, UP_PEAKS), centres)
            # a value UP_SURE sure needs "not a die" under 1 - UP_SURE, and that is the unturned view's alone: the
            # other views are read only for those (most of the peaks are checkers' marks)
            extra = self._maybe_dice(rect, extra, 1.0 - UP_SURE, memo)
            if extra:
                p, _ = self._classify_at(rect, extra, (1.0,), DICE_TURNS, memo)
                centres += [c for c, pk in zip(extra, p) if pk[1:].max() >= UP_SURE]
        # a candidate that is not a die at the default's crop is dropped whatever its other crops read, and is not
        # learnt from: only the others are read at every scale in every view (exact; an agent's CPU while its dice's
        # size is learnt -24 %, where bench_live.py's 24 boards share two cores)
        centres = self._maybe_dice(rect, centres, 0.5, memo)
        if not centres:
            return []
        bx0, _, bx1, _ = geom.bar_rect()
        # a die at this board's scale must be one at the default's too: shrunk to a die's size, the edge of a
        # checker passes for a die showing 1 (rendered 32 mm dice: 0.75 false dice a frame, 0.05 with this)
        scales = LADDER if learning else tuple(dict.fromkeys((scale, 1.0)))
        probs_all, aux_all = self._classify_at(rect, centres, scales, DICE_TURNS, memo)
        n = len(centres)
        by_scale = {s: probs_all[i * n:(i + 1) * n] for i, s in enumerate(scales)}
        if learning:  # from the candidates that are dice at the default's crop, where dice may lie (a die on a
            # checker's middle, if one, is nearer the camera than the board's others: not learnt from either)
            dice = [k for k, mm in enumerate(rect_to_mm(c, geom) for c in centres) if by_scale[1.0][k, 0] < 0.5
                    and _where_dice_lie(mm, geom) and not on_a_checker(mm)]
            if dice:
                size.learn({s: p[dice] for s, p in by_scale.items()})
            # the size still open: every scale's reading, weighed by how likely it is the board's (this read's dice
            # are evidence too); the extras are the likeliest scale's
            w = size.weights()
            scale = max(w, key=w.get)
            probs = sum(w[s] * by_scale[s] for s in scales)
        else:
            probs = by_scale[scale]
        i = scales.index(scale)
        aux = aux_all[i * n:(i + 1) * n]
        out = []
        for k, c in enumerate(centres):
            if probs[k, 0] >= 0.5 or by_scale[1.0][k, 0] >= 0.5:  # not a die
                continue
            values = probs[k, 1:] / max(float(probs[k, 1:].sum()), 1e-12)
            cx = c[0] + float(aux[k, 2]) * DIE_CROP / 2 / scale
            cy = c[1] + float(aux[k, 3]) * DIE_CROP / 2 / scale
            xy = rect_to_mm((cx, cy), geom)
            on_checker = float(_sigmoid(aux[k, 1]))
            # a die cannot lie under a checker: one read as lying on the board there, its value unsure, is the
            # checker's printed mark or the grain of a marbled one (stream frames: 7 of 11 false dice, 4 to 9 mm from
            # a read checker's spot, values 0.35-0.85 sure; their real dice 25 mm and more away, the pine games' 47 mm
            # and more); a die on a checker that the reader takes for one lying flat reads its value sure as a rule
            # (rendered 12 mm dice: 2 of 29 dropped without that)
            if not _where_dice_lie(xy, geom) or (on_checker < 0.5 and values.max() < UP_SURE and on_a_checker(xy)):
                continue
            out.append(DieReading(values, xy, cocked=float(_sigmoid(aux[k, 0])), on_checker=on_checker,
                                  bar_x=(bx0 + bx1) / 2))
        return _dedupe(out, 10.0 / scale)

    def _maybe_dice(self, rect: np.ndarray, centres: list[tuple[float, float]], below: float,
                    memo: ReadMemo | None = None) -> list[tuple[float, float]]:
        """The ``centres`` whose crop at the default's scale is a die with "not a die" under ``below``: one view each,
        since `classify_dice` takes that chance from the unturned view alone."""
        if not centres:
            return []
        p, _ = self._classify_at(rect, centres, (1.0,), 1, memo)
        return [c for c, pk in zip(centres, p) if pk[0] < below]

    def _classify_at(self, rect: np.ndarray, centres: list[tuple[float, float]], scales: tuple[float, ...],
                     turns: int, memo: ReadMemo | None) -> tuple[np.ndarray, np.ndarray]:
        """`classify_dice` of the crops around ``centres`` at each of ``scales`` (scale after scale), through the
        board's ``memo`` where there is one: a candidate's crops at every scale are one picture to it, and its
        outputs are sure where one scale reads it sure (a die, of a value, flat or cocked, on a checker or not; or
        not a die). The other scales' readings of a die that lies still are read again for nothing: while the
        board's dice size is learnt (`vision.dicesize`) they are most of an agent's observing."""
        crops = np.stack([die_crop(rect, c, s) for s in scales for c in centres])
        if memo is None or not centres:
            return self.classify_dice(crops, turns)
        n, k = len(centres), len(scales)
        clear = np.log(SURE_READ / (1.0 - SURE_READ))

        def run(items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # (m, k * DIE_CROP, DIE_CROP, 3) -> per item
            p, aux = self.classify_dice(items.reshape(-1, DIE_CROP, DIE_CROP, 3), turns)
            return p.reshape(len(items), k, -1), aux.reshape(len(items), k, -1)

        def sure(out: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
            p, aux = out
            one = (p[..., 0] >= SURE_READ) | ((p.max(-1) >= SURE_READ) & (np.abs(aux[..., :2]) >= clear).all(-1))
            return one.any(1)

        # a candidate's crops, scale after scale, stacked into one picture (k * DIE_CROP high)
        items = crops.reshape(k, n, DIE_CROP, DIE_CROP, 3).swapaxes(0, 1).reshape(n, k * DIE_CROP, DIE_CROP, 3)
        keys = [("die", turns, scales, round(c[0]), round(c[1])) for c in centres]
        p, aux = memo.outputs(keys, items, run, sure)
        return p.transpose(1, 0, 2).reshape(k * n, -1), aux.transpose(1, 0, 2).reshape(k * n, -1)

    def _die_centres(self, rect: np.ndarray, hs: float, peaks: int = 8) -> list[tuple[float, float]]:
        """Die candidates: the dice heat map's ``peaks`` highest peaks on the board scaled by ``hs``, in ``rect``'s
        pixels."""
        small = rect if hs == 1.0 else cv2.resize(rect, None, fx=hs, fy=hs,
                                                  interpolation=cv2.INTER_AREA if hs < 1.0 else cv2.INTER_LINEAR)
        m = self._m["dice_heat"]
        heat = _sigmoid(m.run(nchw(heat_input(small)[None]))[0][0, 0] / m.temperature[0])
        return [(x / hs, y / hs) for x, y in (heat_to_rect(px, py) for px, py, _ in find_peaks(heat, HEAT_THRESHOLD,
                                                                                                 peaks))]

    def classify_dice(self, crops: np.ndarray, turns: int = DICE_TURNS) -> tuple[np.ndarray, np.ndarray]:
        """Die crops (N, DIE_CROP, DIE_CROP, 3) -> (N, 7) probabilities (not a die, 1..6) and the raw
        (N, 4) extras (cocked and on-checker logits, centre offset).

        Each crop is also classified in its quarter turns and their mirror images (``turns`` views in one
        batch, 4 or 8: neither changes a die's value) and the views' value distributions averaged: on real
        dice (Rune55 valid, 24 px) 80.0 % right in one view, 83.5 % in four turns, 84.2 % in eight views (16
        px: 73.9, 78.6, 80.0 %), for ~0.2 ms per view per die. Whether it is a die at all, and the
        extras, are the unturned view's: averaged, "not a die" let a third die through on a rendered board,
        the cocked logit called cocked dice flat (their shading comes from one side), and the offset turns
        with the crop."""
        m = self._m["dice"]
        n = len(crops)
        views = np.concatenate([np.rot90(crops[:, :, ::-1] if k >= 4 else crops, k % 4, axes=(1, 2))
                                for k in range(turns)])
        logits, aux = m.run(nchw(views))
        p = _softmax(logits, m.temperature[0]).reshape(turns, n, -1)
        values = (p[..., 1:] / np.maximum(p[..., 1:].sum(-1, keepdims=True), 1e-12)).mean(0)
        probs = np.concatenate([p[0, :, :1], values * (1.0 - p[0, :, :1])], 1)
        return probs, aux[:n]

    def read_cube(self, rect: np.ndarray, geom: BoardGeometry, ends: np.ndarray | None = None,
                  memo: ReadMemo | None = None) -> CubeReading:
        """The cube on the bar, where the board's profile has a bar that holds one (`BoardGeometry.bar_holds_cube`:
        the cube windows of a bar too narrow see the points beside it, a printed board's middle read as a cube
        showing 32 on 4 of the 16 real printed-board pictures), and, given ``ends`` (`rectify_ends`), in the trays
        and on the frame at either end: a cube there showing 64 is centred (1), another lies on its owner's side
        (top or bottom, by where it lies). Off: seen nowhere."""
        m = self._m["cube"]

        def run(crops: np.ndarray) -> tuple[np.ndarray]:  # (n, 7): no cube, or a face
            return (_softmax(m.run(nchw(crops))[0], m.temperature[0]),)

        n_bar = len(BAR_PLACES)
        if not geom.bar_holds_cube:
            p = np.zeros((n_bar, 1 + len(CUBE_FACES)))
            p[:, 0] = 1.0  # no cube at any place on the bar
        else:
            (p,) = run(cube_crops(rect, geom))  # (3, 7)
        end_y, end_faces = 0.0, None
        if ends is not None:
            centres = end_windows(geom)
            crops = end_crops(ends, geom, centres)
            (pe,) = run(crops) if memo is None else memo.outputs([("cube-end", i) for i in range(len(crops))], crops,
                                                                 run, lambda out: out[0].max(1) >= SURE_READ)
            # one cube shows in up to four overlapping windows: the end holds it as surely as the surest of them,
            # and its face is what that one reads (the face of the windows around it too, each weighed by how surely
            # it saw a cube, read the same rendered boards alike and one real stream frame's 2 as a 4: a window
            # with the cube at its edge can see it and its number cut)
            seen = 1.0 - pe[:, 0]
            best = int(np.argmax(seen))
            faces = pe[best, 1:] / max(float(pe[best, 1:].sum()), 1e-12)
            p = np.vstack([p, np.concatenate([[1.0 - seen[best]], seen[best] * faces])])
            end_y, end_faces = float(centres[best, 1]), faces
        present = 1.0 - p[:, 0]
        k = len(p)
        # P(the cube lies at place i): present there and not elsewhere; off: present nowhere
        w = np.array([present[i] * np.prod(np.delete(1.0 - present, i)) for i in range(k)]
                     + [float(np.prod(1.0 - present))])
        if w.sum() < 1e-9:  # seen for certain at two places at once: weigh each place by how surely it is seen
            w = np.append(present, 0.0)
        w = w / max(w.sum(), 1e-12)
        values = np.zeros(len(CUBE_VALUES))
        place = {name: float(w[i]) for i, name in enumerate(BAR_PLACES)}
        place["off"] = float(w[-1])
        for i in range(k):
            faces = p[i, 1:] / max(p[i, 1:].sum(), 1e-12)
            for f, face in enumerate(CUBE_FACES):
                # a 64 in the bar's middle or off the bar is the centred cube, 1
                v = 1 if face == 64 and (i >= n_bar or BAR_PLACES[i] == "centre") else face
                values[CUBE_VALUES.index(v)] += w[i] * faces[f]
        frame = 0.0
        if end_faces is not None:
            frame = float(w[n_bar])
            centred = float(end_faces[-1])  # (the surest window's faces, summing to one)
            place["centre"] += frame * centred
            place["top" if end_y < 0 else "bottom"] += frame * (1.0 - centred)
        values[1:] += w[-1] / (len(CUBE_VALUES) - 1)  # off the board: turned, value unseen
        values = values / values.sum() if values.sum() > 0 else np.full(len(CUBE_VALUES), 1 / len(CUBE_VALUES))
        return CubeReading(values, {name: place[name] for name in CUBE_PLACES}, frame)

    def read_board(self, rect: np.ndarray, geom: BoardGeometry, colours: BoardColours | None = None, adapter=None,
                   dice_size: DiceSize | None = None, memo: ReadMemo | None = None, ends: np.ndarray | None = None):
        """``ends``: the strips beyond the field's ends (`vision.rectify.rectify_ends`), where the cube is also
        looked for."""
        rect = _as_bgr(rect)
        if memo is not None:
            memo.next_read()
        slots = self.read_slots(rect, geom, colours, adapter, memo)
        return (slots, self.read_dice(rect, geom, dice_size, memo, slots),
                self.read_cube(rect, geom, None if ends is None else _as_bgr(ends), memo))


def _as_bgr(rect: np.ndarray) -> np.ndarray:
    rect = np.asarray(rect)
    if rect.dtype != np.uint8:
        rect = np.clip(rect, 0, 255).astype(np.uint8)
    if rect.ndim == 2:
        rect = cv2.cvtColor(rect, cv2.COLOR_GRAY2BGR)
    return np.ascontiguousarray(rect)


def _apart(new: list[tuple[float, float]], old: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The candidates of ``new`` that are none of ``old`` (half a default die from each)."""
    return [c for c in new if all(np.hypot(c[0] - o[0], c[1] - o[1]) >= DIE_PX / 2 for o in old)]


def _where_dice_lie(xy: tuple[float, float], geom: BoardGeometry) -> bool:
    """Whether a die candidate centred at ``xy`` (board mm) lies where a roll's die may rest: on the playing field
    (within `OFF_FIELD_MM`: a found field is a percent or so off), off the bar. Anything else is a hinge, a screw, a
    tray's label or a die that must be thrown again (rule 4.2: flat on the playing surface, right of the bar)."""
    x, y = xy
    bx0, _, bx1, _ = geom.bar_rect()
    fx0, fy0, fx1, fy1 = geom.field()
    return (not bx0 < x < bx1 and fx0 - OFF_FIELD_MM <= x <= fx1 + OFF_FIELD_MM
            and fy0 - OFF_FIELD_MM <= y <= fy1 + OFF_FIELD_MM)


def _dedupe(dice: list[DieReading], min_mm: float = 10.0) -> list[DieReading]:
    out: list[DieReading] = []
    for d in sorted(dice, key=lambda r: -float(r.values.max())):
        if all((d.xy[0] - o.xy[0]) ** 2 + (d.xy[1] - o.xy[1]) ** 2 >= min_mm ** 2 for o in out):
            out.append(d)
    return out


_defaults: dict[int, Readers] = {}
_lock = threading.Lock()


def default_readers(threads: int = 2) -> Readers:
    """The shipped models, loaded on first use (once for each number of threads)."""
    with _lock:
        if threads not in _defaults:
            _defaults[threads] = Readers(threads=threads)
        return _defaults[threads]


def read_slots(rect: np.ndarray, geom: BoardGeometry) -> list[SlotReading]:
    """The 27 slot readings alone (nothing learnt from them)."""
    return default_readers().read_slots(_as_bgr(rect), geom)


def read_board(rect: np.ndarray, geom: BoardGeometry, colours: BoardColours | None = None, adapter=None,
               dice_size: DiceSize | None = None, memo: ReadMemo | None = None, ends: np.ndarray | None = None
               ) -> tuple[list[SlotReading], list[DieReading], CubeReading | None]:
    """Everything on a rectified board: 27 slot readings, the dice found, and the cube (``colours``: see
    `BoardColours`; ``adapter``: the board's own points head, `vision.adapt`; ``dice_size``: how big its dice
    look, `vision.dicesize`; ``memo``: its last read, `vision.read_memo`; ``ends``: the strips beyond the field's
    ends, `vision.rectify.rectify_ends`)."""
    return default_readers().read_board(rect, geom, colours, adapter, dice_size, memo, ends)
