"""Examples for the board readers, rendered by the simulator (numpy + OpenCV only: no torch).

One *frame* is a random scene on a random rig (board, colour scheme, camera, light), exposed with
sensor noise, compressed (JPEG at a random quality, standing in for H.264), and rectified with
the board's true corners plus random corner noise (calibration is never perfect). The readers'
own preprocessing (`vision.readers`) then cuts it into examples, labelled from the scene.

Splits (rig seeds; each seed draws its board, scheme, camera and light):

* training: schemes `TRAIN_SCHEMES`, rig seeds ``100_000 * (seed + 1) + k``;
* calibration (temperature scaling): `TRAIN_SCHEMES`, rig seeds from `CALIB_SEED0`;
* evaluation (model cards, tests, benchmark): `HELD_OUT_SCHEMES` (never seen in training) and
  rig seeds from `EVAL_SEED0` (10_000 .. 99_999, never used for training or calibration).

The scheme split is the same as the corner locator's (`vision.train.corners`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from transcriber.generate import GenOptions, random_match
from transcriber.replay import replay_match

from ..calibrate import Calibration
from ..geometry import BAR_SLOT, TRAY_BOTTOM, TRAY_TOP, BoardGeometry
from ..observation import MAX_COUNT
from ..readers import (
    BAR_CELLS,
    BAR_PILE,
    BAR_PLACES,
    CUBE_FACES,
    CUBE_WINDOW,
    DIE_CROP,
    END_STEP,
    cube_crops,
    die_crop,
    end_crops,
    end_windows,
    heat_input,
    point_label,
    rect_to_mm,
    slot_crops,
)
from ..rectify import board_to_rect, homography, rectify, rectify_ends, slot_rect
from ..synth.rig import Rig
from ..synth.scene import Die, Scene, slot_counts, stack_under
from ..synth.style import RANDOM

# half the training boards are drawn afresh from the whole space of looks (`random_style`)
TRAIN_SCHEMES = ["tournament_green", "tan_cream", "navy", "burgundy"] + [RANDOM] * 4
HELD_OUT_SCHEMES = ["grey_modern"]
EVAL_SEED0 = 10_000
CALIB_SEED0 = 5_000
TRAIN_PROFILES = ("clean", "standard", "standard", "standard", "hard", "hard")
SIZE = (1280, 720)
# the rendered dice's side, mm, drawn per rig: about the default's 16 mm, for a board's dice are read at the scale
# that brings them there (`vision.dicesize`: its rungs 1.25x apart, so a die shows within 1.12x of a rung's size)
TRAIN_DIE_MM = (13.0, 19.5)
# a share of the "not a die" crops is cut from a window widened this much (1/scale: `readers.die_crop`): what a
# board's checkers look like when its dice are read at a scale below 1, their edges shrunk to a die's size
SHRUNK_NEGATIVES = 0.4
SHRUNK_SCALES = (0.4, 0.8)
CUBE_VALUES = (1, 2, 4, 8, 16, 32, 64)
# a share of the training boards has a shape of its own (`random_shape`) and is rectified as the observer rectifies a
# real board: its field mapped onto the default board's, only the bar's and the points' shares measured
TRAIN_SHAPED = 0.5
PRINTED_BARS = 0.15  # of those, the share with a printed board's middle line for a bar (1-8 mm)


def random_shape(rng: np.random.Generator) -> dict:
    """A real board's own proportions (BoardGeometry fields, mm, against the default's 42 mm points): the bar
    from a printed board's middle line (`PRINTED_BARS` of them: the checkers on the points beside it lie by the
    line, inside the bar's crop, and are not on the bar) and a folding board's hinge to a wide tournament bar, the
    points' length, the field's height from 9.5 to 13 point widths (the default 10.5, the pine folding board 12.5),
    and six or seven checkers lined up on a point before a second layer, as players stack them."""
    w = BoardGeometry().point_w
    inner_h = float(rng.uniform(9.5, 13.0)) * w
    bar_w = float(rng.uniform(1.0, 8.0)) if rng.random() < PRINTED_BARS else float(rng.uniform(8.0, 75.0))
    return {"bar_w": bar_w, "inner_h": round(inner_h, 1),
            "point_len": round(float(rng.uniform(0.36, 0.5)) * inner_h, 1),
            "line": int(rng.choice([5, 6, 6, 7]))}


def observed_geometry(geom: BoardGeometry) -> BoardGeometry:
    """The geometry the observer reads a board of this shape with: the default board, this board's bar and points
    as shares of its field (`BoardGeometry.with_field_shape`, what `vision.fieldfind` measures on a real board), at
    the default's height, as the shipped readers were trained (the observer now reads a field that reads clearly
    surer at another height there: `vision.profilefit`)."""
    return BoardGeometry(trays_right=geom.trays_right).with_field_shape(*geom.field_shape()[:2])


def train_rig_seed(seed: int, k: int) -> int:
    return 100_000 * (seed + 1) + k


# ---------------------------------------------------------------------- scenes


def _legal_counts(rng: np.random.Generator, rig: Rig) -> np.ndarray:
    rec = random_match(int(rng.integers(1 << 30)), opts=GenOptions(length=3, double_rate=0.0, resign_rate=0.0))
    games = replay_match(rec).games
    g = games[int(rng.integers(len(games)))]
    return slot_counts(g.positions[int(rng.integers(len(g.positions)))], rig.seating)


def _stack(rng: np.random.Generator) -> int:
    """A checker count 1..15 with the rare high stacks sampled deliberately."""
    return int(rng.integers(1, 16)) if rng.random() < 0.55 else int(rng.integers(1, 6))


def sample_counts(rng: np.random.Generator, rig: Rig) -> np.ndarray:
    """Per-slot counts: positions from random legal games (40 %) or free layouts with every count
    0..15 on points, bar and trays (not legal positions: the readers must not need them to be)."""
    if rng.random() < 0.4:
        return _legal_counts(rng, rig)
    counts = np.zeros((27, 2), np.int16)
    p_empty = rng.uniform(0.15, 0.5)
    for slot in range(24):
        if rng.random() >= p_empty:
            counts[slot, int(rng.integers(2))] = _stack(rng)
    for colour in (0, 1):
        if rng.random() < 0.45:
            counts[BAR_SLOT, colour] = _stack(rng) if rng.random() < 0.4 else int(rng.integers(1, 4))
    for tray in (TRAY_TOP, TRAY_BOTTOM):
        colour = int(rng.integers(2))
        counts[tray, colour] = int(rng.integers(0, 16))
        if rng.random() < 0.12:
            counts[tray, 1 - colour] = int(rng.integers(1, 16))
    return counts


def sample_scene(rng: np.random.Generator, rig: Rig, counts: np.ndarray | None = None, max_dice: int = 4,
                 cocked_rate: float = 0.12, bar_middle: float = 0.5, cube_ends: float = 0.0,
                 bar_free: float = 0.0) -> Scene:
    """A quiet board (no hands): counts, 0..4 dice anywhere on the two halves (both players' pairs,
    some cocked, some resting on checkers), the cube at any of its places, a bump of the board. ``cube_ends``: the
    share of boards whose cube lies in a tray or on the frame at either end (`end_spot`; 0 draws the scenes of
    before, exactly); ``bar_free``: the share of boards with checkers on the bar laid as real players leave them
    (`bar_layout`; 0: the scenes of before, exactly)."""
    g = rig.geom
    counts = sample_counts(rng, rig) if counts is None else counts
    fx0, fy0, fx1, fy1 = g.field()
    bx0, _, bx1, _ = g.bar_rect()
    dice: list[Die] = []
    n = int(rng.choice(np.arange(max_dice + 1), p=_dice_p(max_dice)))
    tries = 0
    while len(dice) < n and tries < 50:
        tries += 1
        if rng.random() < 0.5:  # a roller's right-hand half, as thrown in play
            x0, y0, x1, y1 = g.right_half(bool(rng.random() < 0.5))
        else:
            a, b = (fx0, bx0) if rng.random() < 0.5 else (bx1, fx1)
            x0, y0, x1, y1 = a + 10, fy0 + 10, b - 10, fy1 - 10
        x, y = float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))
        if any((x - d.x) ** 2 + (y - d.y) ** 2 < 24.0**2 for d in dice):
            continue
        h = stack_under(counts, g, x, y)
        dice.append(Die(int(rng.integers(1, 7)), x, y, float(rng.uniform(0, 360)),
                        cocked=bool(rng.random() < cocked_rate), on_checker=h is not None, z=h or 0.0,
                        owner=int(rng.integers(2))))
    # the cube at an end of the bar would hide a fifth checker there: keep such rare boards out
    ends_ok = counts[BAR_SLOT].max() < 5
    place = str(rng.choice(["centre", "top", "bottom", "off"], p=[0.4, 0.2, 0.2, 0.2] if ends_ok else
                           [0.7, 0.0, 0.0, 0.3]))
    value = 1 if place == "centre" else int(rng.choice(CUBE_VALUES[1:]))
    place = g.cube_rests(place)  # after the value is drawn: the same draws on every board
    cube_at = None
    if cube_ends > 0 and rng.random() < cube_ends:
        place, cube_at = "end", end_spot(rng, g, counts)
        # every face alike (a 64 off the bar is the centred cube): a face seen as often as the bar's centred 64
        # becomes the reader's guess for any cube it cannot read
        value = int(rng.choice(CUBE_VALUES[1:]))
        value = 1 if value == 64 else value
    shift = (float(rng.normal(0, 4)), float(rng.normal(0, 3)), float(rng.normal(0, 0.8))) if rig.profile.tilt \
        else (0.0, 0.0, 0.0)
    # real players put a hit checker anywhere on the bar, its middle too (where the cube is not): a share `bar_middle`
    # of such boards have them there (renders had left it free, and a real checker there was read as a cube showing 32)
    middle = place != "centre" and counts[BAR_SLOT].any() and bar_middle > 0 and rng.random() < bar_middle
    spots = None
    if bar_free > 0 and counts[BAR_SLOT].any() and rng.random() < bar_free:
        spots = bar_layout(rng, g, counts, place, middle)
    return Scene(counts=counts, dice=tuple(dice), cube_value=value, cube_place=place, cube_at=cube_at,
                 shift=tuple(round(v, 1) for v in shift), score=(int(rng.integers(0, 7)), int(rng.integers(0, 7))),
                 bar_middle=bool(middle), bar_spots=spots)


BAR_FREE_MAX = 6  # checkers on the bar up to which `bar_layout` lays them freely (more: the stacked layout)


def bar_layout(rng: np.random.Generator, g: BoardGeometry, counts: np.ndarray, place: str,
               middle: bool) -> tuple[tuple[int, float, int], ...]:
    """Checkers on the bar as real players leave them (`Scene.bar_spots`): either colour on either side, a line
    that may cross the middle with the colours in any order, now and then one checker on another (off its middle,
    as dropped by hand). Seen on the real bars: three checkers across the middle, one colour above and below it.
    Many checkers (rare in play): the default's stacked layout, each colour on a side drawn at random."""
    nl, nd = int(counts[BAR_SLOT, 0]), int(counts[BAR_SLOT, 1])
    swap = bool(rng.random() < 0.5)
    spots = [(c, g.bar_spot((c == 0) != swap, k, middle)) for c, n in ((0, nl), (1, nd)) for k in range(n)]
    stacked = tuple((c, y, int(round(h / g.checker_h)) - 1) for c, (_, y, h) in spots)
    if nl + nd > BAR_FREE_MAX:
        return stacked
    colours = [0] * nl + [1] * nd
    rng.shuffle(colours)
    _, y0, _, y1 = g.bar_rect()
    r = g.checker_d / 2
    cube = (g.cube_spot(place)[1], g.cube_size / 2 + r + 2) if place in ("centre", "top", "bottom") else None
    for _ in range(20):
        ys, layers, y = [], [], float(rng.uniform(y0 + r, y1 - r))
        step = float(rng.choice([-1.0, 1.0])) * g.checker_d * float(rng.uniform(1.0, 1.2))
        for k in range(len(colours)):
            if k and rng.random() < 0.15:  # on the one before, as a hand drops it: a third to a half off (one
                # exactly on another is a single checker from above, and a target no reader can meet)
                ys.append(ys[-1] + float(rng.choice([-1.0, 1.0])) * g.checker_d * float(rng.uniform(0.3, 0.5)))
                layers.append(layers[-1] + 1)
                continue
            if k:
                y += step
            ys.append(y)
            layers.append(0)
        inside = all(y0 + r - 2 <= v <= y1 - r + 2 for v in ys)
        clear = cube is None or all(abs(v - cube[0]) >= cube[1] for v in ys)
        if inside and clear:
            return tuple((c, round(v, 1), k) for c, v, k in zip(colours, ys, layers))
    return stacked


def end_spot(rng: np.random.Generator, g: BoardGeometry, counts: np.ndarray) -> tuple[float, float, float, float]:
    """Where a cube off the bar lies (x, y mm), its size (mm: real cubes are 25-40 mm) and its turn (degrees): in
    the strip beyond either end of the field (`BoardGeometry.end_rect`: frame, tray, frame, the table's edge), clear
    of the borne-off checkers standing in a tray."""
    size = float(rng.uniform(24.0, 40.0))
    for _ in range(20):
        x0, y0, x1, y1 = g.end_rect(bool(rng.random() < 0.5))
        x = float(rng.uniform(x0 + 12, x1 - 12))
        y = float(rng.uniform(y0 + size / 2 + 2, y1 - size / 2 - 2))
        clear = True
        for top, slot in ((True, TRAY_TOP), (False, TRAY_BOTTOM)):
            tx0, ty0, tx1, ty1 = g.tray_rect(top)
            n = int(counts[slot].sum())
            if n and tx0 - size / 2 < x < tx1 + size / 2:
                # the checkers fill the tray from its end inwards: the cube must not lie on them
                last = g.tray_spot(top, n - 1)[1]
                a, b = (ty0, last + 6) if top else (last - 6, ty1)
                clear &= not (y - size / 2 < b and y + size / 2 > a)
        if clear:
            break
    # most lie square to the board, any side up; some at any angle
    turn = 90.0 * int(rng.integers(4)) + float(rng.normal(0, 10)) if rng.random() < 0.6 else float(rng.uniform(0, 360))
    return round(x, 1), round(y, 1), round(size, 1), round(turn, 1)


def _dice_p(max_dice: int) -> np.ndarray:
    w = np.array([1.0, 1.0, 2.0, 1.0, 1.0][:max_dice + 1])
    return w / w.sum()


# ---------------------------------------------------------------------- frames


@dataclass
class Frame:
    """A rendered, rectified board and what is on it."""

    rect: np.ndarray
    geom: BoardGeometry
    scene: Scene
    dice_px: list[tuple[Die, float, float]] = field(default_factory=list)  # where each die shows, rectified px
    cube_px: tuple[float, float] | None = None  # where the cube on the bar shows, rectified px
    profile: str = ""
    scheme: str = ""
    ends: np.ndarray | None = None  # the strips beyond the field's ends (`rectify_ends`)
    cube_mm: tuple[float, float] | None = None  # where a cube in a tray or on the frame shows, board mm
    bar_px: list[tuple[int, float, float]] = field(default_factory=list)  # each checker on the bar: colour, where
    # its top shows (rectified px)


def render(rig: Rig, scene: Scene, rng: np.random.Generator, corner_noise: float, jpeg: int | None,
           frame_i: int = 0, observed: bool = False) -> Frame:
    """Camera frame -> (compressed) -> rectified with corners off by N(0, corner_noise) px each: the board's
    outer corners with its own geometry, or (``observed``) its field's corners with `observed_geometry`."""
    lit, drawn = rig.camera_image(scene)
    img = rig.sensor.expose(lit, float(rng.uniform(0, 300)), frame_i)
    if jpeg is not None:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg)])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if observed:
        geom = observed_geometry(rig.geom)
        x0, y0, x1, y1 = rig.geom.field()
        field = rig.to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]), scene.shift)
        corners = Calibration.from_field(field + rng.normal(0, corner_noise, (4, 2)), 1.0, geom).corners
    else:
        geom = rig.geom
        corners = rig.corners(scene.shift) + rng.normal(0, corner_noise, (4, 2))
    H = homography(corners, geom)
    rect = rectify(img, H, geom)
    cv = rig.painter.canvas

    def to_rect(px: float, py: float) -> tuple[float, float]:
        board = np.array([[px / cv.scale + cv.x0, py / cv.scale + cv.y0]])
        uv = rig.to_image(board, scene.shift)
        r = cv2.perspectiveTransform(uv.reshape(1, 1, 2).astype(np.float64), H)[0, 0]
        return float(r[0]), float(r[1])

    dice_px = [(die, *to_rect(px, py)) for die, px, py, _ in drawn["dice"]]
    cube_px = cube_mm = None
    if drawn["cube"] is not None and scene.cube_place == "end":
        _, _, px, py, _ = drawn["cube"]
        cube_mm = rect_to_mm(to_rect(px, py), geom)
    elif drawn["cube"] is not None and scene.cube_place != "off":
        _, _, px, py, _ = drawn["cube"]
        cube_px = to_rect(px, py)
    bar_px = [(colour, *to_rect(px, py)) for slot, colour, px, py, _ in drawn["checkers"] if slot == BAR_SLOT]
    return Frame(rect, geom, scene, dice_px, cube_px, rig.profile.name, rig.scheme, rectify_ends(img, H, geom),
                 cube_mm, bar_px)


def frames(schemes: list[str], rig_seeds: list[int], per_rig: int, seed: int, profiles=TRAIN_PROFILES,
           corner_noise: tuple[float, float] = (0.0, 3.0), jpeg: tuple[int, int] = (35, 95),
           max_dice: int = 4, die_size: float | tuple[float, float] = TRAIN_DIE_MM, shaped: float = 0.0,
           bar_middle: float = 0.5, cube_ends: float = 0.0, bar_free: float = 0.0):
    """Rendered frames, ``per_rig`` per rig; profiles cycle with the rig; corner noise (px, sigma)
    and JPEG quality drawn per frame from the given ranges; dice of ``die_size`` mm (a range: drawn per rig);
    ``shaped``: the share of rigs whose board has a shape of its own, rectified as the observer would;
    ``bar_middle``: of boards with checkers on the bar and the cube elsewhere, the share with them in its middle;
    ``cube_ends``: the share of boards with the cube in a tray or on the frame, ``bar_free``: of those with checkers
    on the bar, the share with them laid freely (`sample_scene`)."""
    rng = np.random.default_rng([seed, 11])
    for k, rs in enumerate(rig_seeds):
        prof = profiles[k % len(profiles)]
        mm = float(rng.uniform(*die_size)) if isinstance(die_size, tuple) else die_size
        shape = random_shape(rng) if shaped and rng.random() < shaped else None
        rig = Rig.build(prof, rs, SIZE, schemes=schemes, die_size=mm, shape=shape)
        for i in range(per_rig):
            scene = sample_scene(rng, rig, max_dice=max_dice, bar_middle=bar_middle, cube_ends=cube_ends,
                                 bar_free=bar_free)
            noise = float(rng.uniform(*corner_noise))
            q = int(rng.integers(jpeg[0], jpeg[1] + 1)) if jpeg else None
            yield render(rig, scene, rng, noise, q, i, observed=shape is not None)


# ---------------------------------------------------------------------- examples


def bar_cells(frame: Frame) -> np.ndarray:
    """The bar reader's target (`readers.read_bar`): per cell of its map along the bar's crop, how many checkers
    are centred in it (0 .. BAR_PILE) and their colour (1 light, 0 dark, -1 none), (BAR_CELLS, 2) int8."""
    out = np.zeros((BAR_CELLS, 2), np.int8)
    out[:, 1] = -1
    _, y0, _, y1 = slot_rect(BAR_SLOT, frame.geom)
    for colour, x, y in frame.bar_px:
        row = (rect_to_mm((x, y), frame.geom)[1] - y0) / (y1 - y0) * BAR_CELLS
        k = int(np.clip(np.floor(row), 0, BAR_CELLS - 1))
        out[k, 0] = min(out[k, 0] + 1, BAR_PILE)
        out[k, 1] = 1 if colour == 0 else 0
    return out


def examples(frame: Frame, rng: np.random.Generator, keep_empty: float = 0.5, die_jitter: float = 2.5,
             die_copies: int = 3, negatives: int = 5, with_heat: bool = True, end_negatives: int = 0
             ) -> dict[str, list]:
    """Cut one frame into labelled examples for every model (lists, to be stacked); ``end_negatives``: cube
    windows over the strips beyond the field's ends with no cube in them (`_end_examples`)."""
    g, counts, rect = frame.geom, frame.scene.counts, frame.rect
    out: dict[str, list] = {k: [] for k in ("pt_x", "pt_y", "bar_x", "bar_y", "tray_x", "tray_y", "cube_x",
                                           "cube_y", "die_x", "die_y", "die_aux", "heat_x", "heat_pts")}
    points, bar, trays = slot_crops(rect, g)
    for s in range(24):
        lab = point_label(int(counts[s, 0]), int(counts[s, 1]))
        if lab == 0 and rng.random() > keep_empty:
            continue
        out["pt_x"].append(points[s])
        out["pt_y"].append(lab)
    out["bar_x"].append(bar)
    out["bar_y"].append(bar_cells(frame))
    for k, slot in enumerate((TRAY_TOP, TRAY_BOTTOM)):
        out["tray_x"].append(trays[k])
        out["tray_y"].append([min(int(counts[slot, 0]), MAX_COUNT), min(int(counts[slot, 1]), MAX_COUNT)])
    # cube windows: 0 = none, else 1 + index of the face shown
    wins = cube_crops(rect, g)
    for i, place in enumerate(BAR_PLACES):
        lab = 0
        if frame.scene.cube_place == place:
            face = 64 if frame.scene.cube_value == 1 else frame.scene.cube_value
            lab = 1 + CUBE_FACES.index(face)
        out["cube_x"].append(wins[i])
        out["cube_y"].append(lab)
    if frame.ends is not None:
        for x, lab in _end_examples(frame, rng, end_negatives):
            out["cube_x"].append(x)
            out["cube_y"].append(lab)
    # dice: crops around where each die shows (off by what the heat-map's peak may be off by)
    centres = []
    for die, x, y in frame.dice_px:
        if die.moving:
            continue
        centres.append((x, y))
        for _ in range(die_copies):
            dx, dy = rng.normal(0, die_jitter, 2)
            dx, dy = float(np.clip(dx, -8, 8)), float(np.clip(dy, -8, 8))
            out["die_x"].append(die_crop(rect, (x + dx, y + dy)))
            out["die_y"].append(die.value)
            # aux targets: cocked, on a checker, where the die's centre is in the crop (units of half a crop)
            out["die_aux"].append([float(die.cocked), float(die.on_checker), -dx / (DIE_CROP / 2),
                                   -dy / (DIE_CROP / 2)])
    h, w = rect.shape[:2]
    n_neg, tries = 0, 0
    hard = _hard_negative_spots(frame)
    while n_neg < negatives and tries < 60:
        tries += 1
        if hard and rng.random() < 0.6:
            x, y = hard[int(rng.integers(len(hard)))]
            x, y = x + float(rng.normal(0, 8)), y + float(rng.normal(0, 8))
        else:
            x, y = float(rng.uniform(20, w - 20)), float(rng.uniform(20, h - 20))
        scale = float(rng.uniform(*SHRUNK_SCALES)) if rng.random() < SHRUNK_NEGATIVES else 1.0
        if any((x - cx) ** 2 + (y - cy) ** 2 < (26.0 / scale) ** 2 for cx, cy in centres):
            continue
        out["die_x"].append(die_crop(rect, (x, y), scale))
        out["die_y"].append(0)
        out["die_aux"].append([0.0, 0.0, 0.0, 0.0])
        n_neg += 1
    if with_heat:
        out["heat_x"].append(heat_input(rect))
        out["heat_pts"].append(np.array(centres, np.float32).reshape(-1, 2))
    return out


def _end_examples(frame: Frame, rng: np.random.Generator, negatives: int, copies: int = 3) -> list:
    """Cube windows over the ends (`readers.end_crops`, labelled as the bar's: 0 = no cube, else 1 + the face's
    index): ``copies`` around a cube lying there, off its centre by up to half the scan's step (what the scanning
    windows see), and ``negatives`` of the scan's own windows clear of it; a window the cube lies partly in is
    neither (the scan always has one it lies well within)."""
    g, out = frame.geom, []
    half = END_STEP / 2
    if frame.cube_mm is not None:
        cx, cy = frame.cube_mm
        face = 64 if frame.scene.cube_value == 1 else frame.scene.cube_value
        at = np.array([[cx + rng.uniform(-half, half), cy + rng.uniform(-half, half)] for _ in range(copies)])
        out += [(c, 1 + CUBE_FACES.index(face)) for c in end_crops(frame.ends, g, at)]
    if negatives:
        wins = end_windows(g)
        if frame.cube_mm is not None:
            size = frame.scene.cube_pose(g)[2]
            reach = CUBE_WINDOW / 2 + size / 2
            wins = wins[(np.abs(wins[:, 0] - frame.cube_mm[0]) >= reach) | (np.abs(wins[:, 1] - frame.cube_mm[1])
                                                                            >= reach)]
        pick = wins[rng.choice(len(wins), min(negatives, len(wins)), replace=False)]
        out += [(c, 0) for c in end_crops(frame.ends, g, pick)]
    return out


def _hard_negative_spots(frame: Frame) -> list[tuple[float, float]]:
    """Places that look most like a die: checkers' rims, the cube, tray rows, points' tips."""
    g, counts = frame.geom, frame.scene.counts
    spots = []
    for slot in range(24):
        n = int(counts[slot].sum())
        for k in range(min(n, 5)):
            x, y, _ = g.checker_spot(slot, k)
            spots.append(tuple(board_to_rect(np.array([x, y]), g)))
        tri = g.triangle(slot)
        spots.append(tuple(board_to_rect(tri[2], g)))
    if frame.cube_px is not None:
        spots += [frame.cube_px] * 4
    for top in (True, False):
        x0, y0, x1, y1 = g.tray_rect(top)
        spots.append(tuple(board_to_rect(np.array([(x0 + x1) / 2, (y0 + y1) / 2]), g)))
    return spots


def heat_target(pts_px: np.ndarray, shape: tuple[int, int], sigma: float = 0.9) -> np.ndarray:
    """Gaussian bumps at die centres on the heat-map grid (cells of 8 rectified px), each centred
    on the die's nearest cell so that this cell is exactly 1: the focal loss's positives are the
    cells at 1, and a bump centred between cells would leave a die with no positive at all (the
    dice classifier's offset head places the die within the cell)."""
    hh, hw = shape
    yy, xx = np.mgrid[0:hh, 0:hw].astype(np.float32)
    t = np.zeros(shape, np.float32)
    for x, y in pts_px:
        cx, cy = np.round((x - 0.5) / 8.0), np.round((y - 0.5) / 8.0)
        t = np.maximum(t, np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma**2)))
    return t
