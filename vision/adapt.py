"""Learning one board: the points classifier's last layer refitted on labelled pictures of that very board.

Every game starts from a known position and every approved transcript labels the frames of its board: the
readers need not know every board in the world, only this one under this light. The shipped classifier's
last hidden layer (``features``, 128 per point crop: `models/points.onnx`'s second output) already separates
most of what a new board shows; a new head on it, fitted to one labelled picture (its points, each crop
jittered by a pixel or two of calibration and a little light), or to many (`adapt_to_pictures`: the
positions of an approved transcript, `review_ui/board_learning.py`), learns what this board's points look
like empty and what its checkers look like. The head starts from the shipped one (recovered exactly from the
model's own outputs: logits are linear in the features) and is pulled back to it, so counts the picture
never showed (a point of 9) keep what the shipped head knows. NumPy only: seconds on one core, no torch.
Kept per board (its board state), never shipped.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, replace

import numpy as np

from .geometry import BoardGeometry, profile_of
from .readers import MAX_COUNT, Readers, default_readers, slot_crops
from .rectify import POINT_CROP, POINT_DEPTH

JITTER_PX = 2.0  # calibration noise of the training copies (picture pixels)
COPIES = 30  # jittered copies of the labelled picture
PULL = 1e-3  # how strongly the head is pulled back to the shipped one
STEPS, RATE = 400, 0.05  # gradient descent with momentum


@dataclass
class PointAdapter:
    """A board's own head for the points classifier: logits = [features, 1] @ weights."""

    weights: np.ndarray  # (129, 31)
    pictures: int = 1  # labelled pictures it was fitted on
    profile: tuple | None = None  # the board's profile it was learnt in (the bar's, points' and height's shares of the
    # field, `BoardGeometry.field_shape`): wherever this head reads the board, it is read in it (None: not kept)

    def logits(self, features: np.ndarray) -> np.ndarray:
        return np.hstack([features, np.ones((len(features), 1), features.dtype)]) @ self.weights

    def to_json(self) -> dict:
        d = {"weights": base64.b64encode(self.weights.astype(np.float32).tobytes()).decode(),
             "shape": list(self.weights.shape), "pictures": self.pictures}
        if self.profile is not None:
            d["profile"] = [round(float(v), 4) for v in self.profile]
        return d

    @classmethod
    def from_json(cls, d: dict) -> PointAdapter:
        w = np.frombuffer(base64.b64decode(d["weights"]), np.float32)
        shape = tuple(int(v) for v in d.get("shape", (129, 1 + 2 * MAX_COUNT)))
        if w.size != shape[0] * shape[1]:
            raise ValueError("the board's adapted reader is damaged (its weights do not fill their shape)")
        try:
            profile = profile_of(d.get("profile"))
        except ValueError as e:
            raise ValueError(f"the board's adapted reader is damaged ({e})") from None
        return cls(w.reshape(shape).astype(np.float64), int(d.get("pictures", 1)), profile)


def point_classes(top: list[str], bottom: list[str]) -> np.ndarray:
    """`bgscribe read`'s rows (top and bottom, each left to right, "" / "L3" / "D2") -> the points
    classifier's class of each slot 0..23 (0 empty, 1..15 light, 16..30 dark)."""
    if len(top) != 12 or len(bottom) != 12:
        raise ValueError("each row has 12 points")
    out = np.zeros(24, int)
    for slots, row in ((range(12, 24), top), (range(11, -1, -1), bottom)):
        for slot, text in zip(slots, row):
            text = (text or "").strip().upper()
            if not text:
                continue
            if text[0] not in "LD" or not text[1:].isdigit() or not 1 <= int(text[1:]) <= MAX_COUNT:
                raise ValueError(f"a point is '', 'L<n>' or 'D<n>' (n 1-{MAX_COUNT}), not {text!r}")
            out[slot] = int(text[1:]) + (MAX_COUNT if text[0] == "D" else 0)
    return out


OPENING_TOP = ["L2", "", "", "", "", "D5", "", "D3", "", "", "", "L5"]  # as the picture shows it, one way round
OPENING_BOTTOM = ["D2", "", "", "", "", "L5", "", "L3", "", "", "", "D5"]


def opening_rows(top: list[str], bottom: list[str]) -> tuple[list[str], list[str]]:
    """The opening position as a picture of it shows it: of the eight ways it can lie (mirrored, turned,
    colours either way), the one agreeing with a reading of it (``top``, ``bottom``) on most points' counts,
    then on their colours."""
    def agree(a: list[str], b: list[str]) -> tuple[int, int]:
        return sum(x[1:] == y[1:] for x, y in zip(a, b)), sum(x == y for x, y in zip(a, b))

    swap = str.maketrans("LD", "DL")
    best, got = None, top + bottom
    for t, b in ((OPENING_TOP, OPENING_BOTTOM), (OPENING_BOTTOM, OPENING_TOP)):
        for mirror in (False, True):
            for swapped in (False, True):
                rt, rb = (t[::-1], b[::-1]) if mirror else (t, b)
                if swapped:
                    rt, rb = [p.translate(swap) for p in rt], [p.translate(swap) for p in rb]
                score = agree(rt + rb, got)
                if best is None or score > best[0]:
                    best = (score, (list(rt), list(rb)))
    return best[1]


def looks_like_opening(top: list[str], bottom: list[str], opening: tuple[list[str], list[str]]) -> bool:
    """Whether a reading (of a board the reader may not know yet) shows the opening as `opening_rows` laid it:
    at least 5 of its 8 stacks read with their very counts (2, 5, 3, 5 a side). What else the reader sees
    does not count: a board it does not know yet may show its triangles as checkers (the reason to learn it);
    an empty board or a game under way has few of those stacks."""
    got, want = top + bottom, opening[0] + opening[1]
    return sum(bool(w) and g[1:] == w[1:] for g, w in zip(got, want)) >= 5


def training_crops(picture: np.ndarray, field: np.ndarray, geom: BoardGeometry, rng: np.random.Generator,
                   copies: int = COPIES) -> np.ndarray:
    """The 24 point crops of a picture through its field, and jittered copies: (copies * 24, 192, 48, 3)."""
    import cv2

    from .calibrate import Calibration
    from .rectify import homography, rectify

    out = []
    for k in range(copies):
        corners = field if k == 0 else field + rng.normal(0, JITTER_PX, field.shape)
        rect = rectify(picture, homography(Calibration.from_field(corners, 1.0, geom).corners, geom), geom)
        if k:
            rect = cv2.convertScaleAbs(rect, alpha=float(rng.uniform(0.8, 1.2)), beta=float(rng.uniform(-15, 15)))
        out.append(slot_crops(rect, geom)[0])
    return np.concatenate(out)


def _donor(classes: np.ndarray, s: int) -> int | None:
    """The nearest empty point of slot ``s``'s row with its triangle's colour (every other point), or None."""
    row = range(12) if s < 12 else range(12, 24)
    donors = [d for d in row if classes[d] == 0 and (d - s) % 2 == 0]
    return min(donors, key=lambda d: abs(d - s)) if donors else None


def _count(c: int) -> int:
    return (c - 1) % MAX_COUNT + 1 if c else 0


def checker_pitch(crops: np.ndarray, classes: np.ndarray, geom: BoardGeometry) -> float:
    """Crop rows a checker of this board takes along its point: where each stack of the picture ends (the
    farthest row differing from an empty point of its colour), over its count; the median of the stacks where
    they agree. Checkers are not the default's share of the point's width on every board (a pine board's
    take 29 rows, the default's 31). The default's where the stacks do not tell: fewer than three ending
    inside the crop, or spread over more than a quarter (a logo, a neighbour's checkers, a lean)."""
    default = geom.checker_d * 0.98 * POINT_CROP[1] / POINT_DEPTH
    h = crops.shape[1]
    pitches = []
    for s in range(24):
        n, donor = _count(int(classes[s])), _donor(classes, s)
        if not 2 <= n <= 5 or donor is None:
            continue
        diff = np.abs(crops[s].astype(np.float32) - crops[donor].astype(np.float32)).mean((1, 2))
        diff = np.convolve(diff, np.ones(5) / 5, mode="same")
        first = diff[h - int(default):]  # within the first checker: the stack's own contrast
        rows = np.nonzero(diff > 0.5 * float(np.median(first)))[0]
        if len(rows) and rows.min() > 0.05 * h:  # ends inside the crop
            pitches.append((h - rows.min()) / n)
    if len(pitches) < 3:
        return default
    q1, med, q3 = np.percentile(pitches, [25, 50, 75])
    if (q3 - q1) > 0.25 * med or not 0.6 * default <= med <= 1.2 * default:
        return default
    return float(med)


def shorter_stacks(crops: np.ndarray, classes: np.ndarray, geom: BoardGeometry) -> tuple[np.ndarray, np.ndarray]:
    """More labelled crops of the same picture: every stack of 2-5 checkers cut down to each smaller count, the
    crop beyond the last checker kept taken from the nearest empty point of the same row and triangle colour.
    The opening shows only stacks of 2, 3 and 5: fitted on them alone, the head learnt that this board's
    checkers come in those counts (a point of 4 read as 5, a single checker as empty).
    ``crops``: the 24 point crops of one picture (base at the bottom); ``classes``: `point_classes`'."""
    pitch = checker_pitch(crops, classes, geom)
    h = crops.shape[1]
    xs, ys = [], []
    for s in range(24):
        c = int(classes[s])
        n, donor = _count(c), _donor(classes, s)
        if not 2 <= n <= 5 or donor is None:  # a second layer cannot be cut away
            continue
        for k in range(1, n):
            edge = int(round(h - k * pitch))  # the checkers touch: the k-th ends where the next begins
            x = crops[s].copy()
            x[:edge] = crops[donor][:edge]
            xs.append(x)
            ys.append(c - n + k)
    if not xs:
        return crops[:0], np.zeros(0, int)
    return np.stack(xs), np.array(ys)


def fit(features: np.ndarray, logits: np.ndarray, labels: np.ndarray, pictures: int = 1) -> PointAdapter:
    """A head on ``features`` for ``labels``, starting from (and pulled back to) the one giving ``logits``."""
    x = np.hstack([features, np.ones((len(features), 1))]).astype(np.float64)
    w0 = np.linalg.lstsq(x, logits.astype(np.float64), rcond=None)[0]  # the shipped head, from its outputs
    w, v = w0.copy(), np.zeros_like(w0)
    # only the counts the pictures show compete: a count never shown (a stack of 6 when the opening's tallest is
    # 5) would otherwise be pushed down wherever it looks like a shown one, its neighbour's, and a 6 read as 7
    seen = np.unique(labels)
    col = np.searchsorted(seen, labels)
    rows = np.arange(len(labels))
    for _ in range(STEPS):
        z = x @ w[:, seen]
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        p[rows, col] -= 1.0
        g = PULL * (w - w0)
        g[:, seen] += x.T @ p / len(labels)
        v = 0.9 * v + g
        w -= RATE * v
    return PointAdapter(w, pictures)


def adapt_to_picture(picture: np.ndarray, field: np.ndarray, geom: BoardGeometry, top: list[str],
                     bottom: list[str], readers: Readers | None = None, seed: int = 0) -> PointAdapter:
    """A board's adapter from one picture of it whose points are known (`point_classes`' rows)."""
    return adapt_to_pictures([(picture, field, geom, top, bottom)], readers, seed)


def adapt_to_pictures(samples: list[tuple], readers: Readers | None = None, seed: int = 0) -> PointAdapter:
    """A board's adapter from pictures of it whose points are known: each (picture, field, geom, top, bottom)
    as `adapt_to_picture` takes one. Fewer jittered copies a picture the more pictures there are: the
    pictures themselves vary more than jitter does. Counts that no picture shows are cut from their stacks
    (`shorter_stacks`)."""
    rng = np.random.default_rng(seed)
    readers = readers or default_readers()
    copies = max(3, COPIES // len(samples))
    shots = [(training_crops(picture, np.asarray(field, np.float64), geom, rng, copies), point_classes(top, bottom),
              geom) for picture, field, geom, top, bottom in samples]
    shown = {int(c) for _, classes, _ in shots for c in classes}
    feats, logits, labels = [], [], []
    for crops, classes, geom in shots:
        # the counts no picture showed, cut from its stacks (the opening shows 2, 3 and 5 only)
        more = [shorter_stacks(crops[k:k + 24], classes, geom) for k in range(0, len(crops), 24)]
        new = [np.array([int(c) not in shown for c in y], bool) for _, y in more]
        ys = [np.tile(classes, len(crops) // 24)] + [y[m] for (_, y), m in zip(more, new)]
        crops = np.concatenate([crops] + [x[m] for (x, _), m in zip(more, new)])
        lg, ft = readers.point_outputs(crops)
        feats.append(ft)
        logits.append(lg)
        labels.append(np.concatenate(ys))
    learnt = fit(np.concatenate(feats), np.concatenate(logits), np.concatenate(labels), pictures=len(samples))
    # the profile the crops were cut in (the first picture's, where several were given in more than one)
    return replace(learnt, profile=tuple(samples[0][2].field_shape()))
