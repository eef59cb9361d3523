"""Find the playing field of a real board in a camera picture, by the board's own structure.

The corner network (`vision.calibrate`) learnt boards from our renderer alone; on real pictures it
is lost. What every backgammon board shares, whatever its colours, materials and surroundings, is
its layout: two rows of twelve points facing each other, each row two runs of six split by the bar,
each point a triangle whose two sides are straight edges. `find_field`

1. proposes quadrilaterals: the outlines of large regions in several edge and colour maps (the
   field's rim, the board's frame, a felt or leather surface), of pairs of similar regions side by
   side (the two halves), of two pairs of the picture's long straight lines (`vision.fieldlines`:
   the rim's four sides, where no region outlines it) and where the corner network puts the board;
   each taken both ways round (the bar up and down, or across), kept where it lies in the picture and
   is shaped like a field;
2. ranks them by the points' edges (`vision.pointedges`): the picture's gradient across the 24
   points' sides, less the same half a point aside, over the field's mean gradient. A picture of
   anything else scores near 0. Where an outline's own shape is fitted (`_fitted_shape`: judging, steps 3-7), a
   point lying in a bar 1.5 points wide or more counts against the layout (`Edges.score` ``in_bar``): an outline
   that takes a tray in with a bar a point wider fits the points as well as the field, and its tray's plain
   surface lowers the scale (a stream frame 5.6 -> 1.1 %, found; `bench_real.py`'s 134 real pictures within 1.5 %
   100 -> 101, found 107 -> 108, 2026-12-05). Ranking does without it: an outline a few per cent too long ranks
   high with a bar too wide and is put right after (with it, 4 of the pine board's frames were lost);
3. puts the best one's sides on the board's straight edges nearby (`vision.fieldsnap`), where the
   points' edges agree, and fits the bar's width and the points' length;
4. asks the points for a second opinion (`vision.pointfit`: each quarter's six points fitted on their
   own in a rectified view): where the field they give lies half a point or more from the outline,
   both are hypotheses and the points' edges pick one (`judged`); a point or more apart, one of the two
   has the board's structure wrong, and the field is not sure;
5. puts the field's sides where its points end (`vision.rimfit`), in the picture's own pixels: the rows'
   rims where the points' sides stop, the ends on the first edge beyond the outermost points (the outlines
   and lines follow the strongest edges, a raised rim's top where its inner walls show); how sure the field
   is, is judged again (steps 2 and 4) on the field so placed;
6. where that field is not sure, tries every outline again with a frame inside it (`INSETS`, up to 7.5 % of
   its width and height on each side), steps 2-5 over these 16 times as many hypotheses, and keeps the surer
   field, held to a higher bar (`WIDER`). An outline on a board's outer edge or a rim's top leaves the points
   a frame's width inside it, half a point aside of the layout it is scored with, where they rate below the
   table's clutter (real pictures, 2026-12-04: within 1.5 % 66 -> 80 of 134, within 5 % 103 -> 113);
7. where still none is sure, takes the outlines the points' tips give (`vision.pointtips`: rows of tips, the
   rims a point's length beyond them), steps 2-5 again, held to the insets' bar (`from_tips`). A rim of the
   field's own colour, a hand over a corner or a board seen askew leave no outline of the field, and the tips
   still show (real pictures, 2026-12-05: within 1.5 % 96 -> 100 of 134, within 5 % 117 -> 123, found 97 -> 107,
   none wrong but sure, no-board pictures 0 of 40). Seen at an angle, the tips are also laid on the board's layout
   through the camera's perspective (`pointtips.layout_quads`), a set of outlines judged apart: boards rendered from
   low at one end found 0 -> 4 of 6; a phone photo taken along the board 8.9 -> 3.4 % (not sure); the 134 real
   pictures within 1.5 / 5 % 101 -> 102 / 124 -> 125, found 108, none wrong but sure (2026-12-05, `bench_real.py`).

Searching the corners by the score itself (an extent search, a coordinate ascent) made the fit worse on the real
pictures (against the labels before 2026-12-04): the score's optimum is the points' layout, which on real boards sits
a margin away from the field's rim (points inset from the frame, a bar wider than the layout's), while the region
outlines and lines follow the rim. Measured again against today's labels (2026-12-07, 134 pictures, within 1.5 %): a
coordinate ascent of the corners (steps of 0.8, 0.4, 0.2 % of the diagonal) after step 5, 103 -> 93; before it (the
rims then re-placing the sides), 103 -> 101; two wrong fields sure either way. Nor do more outlines help where a hand
covers one half (the pine board's frames): every outline also doubled across each side, as a half beside the bar, 103
-> 95, none of the misses found. On 15 of the 31 pictures found over 1.5 % off, the labelled field scores higher than
the one found: the candidates lose them, not the score. Known limits, measured by tests/bench/bench_real.py
(2026-12-04, 134 real pictures: within 1.5 % 27 -> 66 once the sides were put where the points end (step 5), within 3
% 68 -> 86, within 5 % 97 -> 103): the field is the playing surface, and where a raised rim's inner walls show (the
pine board) the outlines and lines take the rim's top, 2-4 % outside the floor on which the points and checkers lie
(step 5: the pine board's 83 frames within 1.5 % 2 -> 40, within 3 % 36 -> 52), but points with rounded bases end
short of the rim (the fmgammon stream board: a rim some pixels in, 0.8 -> 2.2 % on one frame); where no outline nor
pair of lines gives the field, the best candidate is a near miss (a tray or the frame taken in at one end, a point
aside). The points' second opinion makes those not sure (10 near misses of 72 labelled pictures were rated sure
without it, none with it), at a price: some fields found within 2-5 % are not sure either, and wait for a person to
confirm them (check-camera, the board's card). The points' fit is no more precise than the outline's lines where the
two agree (19 against 25 of 72 within 1.5 %), so there it judges and does not place; where they disagree, it is the
likelier field about as often as not (within 3 %: 67 -> 86 of 134 once it could place).

Everything but step 5 runs on a copy of the picture about 640 px wide; corners come back in the
picture's own pixels. The outlines are scored in batches (`Edges.scores`): the samples, not the calls, cost.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from .fieldlines import line_quads, segments
from .fieldsnap import snap
from .pointedges import BARS, SHAPES, SIDE_SAMPLES, Edges
from .pointfit import fit
from .pointtips import tip_quads
from .rimfit import fit_rims

WORK_W = 640  # px: the long side of the working copy
KMEANS_SEED = 1  # (any: `candidates`)
MIN_AREA = 0.08  # a field covers at least this share of the picture (a board camera's fills most of it)
PRE_SHAPES = tuple((b, L, 0.01) for b in (0.04, 0.12) for L in (0.40, 0.46))  # (bar, length, margin)
PRE_KEEP = 192  # candidates the first look keeps for the coarse grid
IN_VIEW = 0.02  # a field's corners lie in the picture, give or take this share of its sides: a field the camera
# cuts off cannot be read, and outlines leaving the picture fit its replicated border as well as a board


@dataclass
class FieldFit:
    corners: np.ndarray  # (4, 2) picture pixels, clockwise; the bar lies between the halves of side 0-1
    quality: float  # 0..1: how surely this is a board's playing field
    bar_frac: float  # the bar's share of the field's width
    point_len: float  # a point's length, share of the field's height
    score: float = 0.0  # the raw points' edge score (`vision.pointedges.Edges.score`)
    turned: bool = False  # the bar runs across the picture (the rows are up and down)
    points_off: float = 0.0  # how far the points' own fit of the field lies from it, point widths (`points_disagree`)
    margin: float = 0.0  # the field's ends beyond the outermost points, share of its width
    height: float | None = None  # the field's height, share of its width, as the readers read the board best
    # (`vision.profilefit`); None: the default board's
    points: np.ndarray | None = field(default=None, repr=False, compare=False)  # the points' own fit of the field
    # (picture px) where `judged` made one: `_where_points_end` weighs the placed field against it

    @property
    def found(self) -> bool:
        return self.quality >= 0.5

    @property
    def outlined(self) -> bool:
        """The points' edges rate the outline as a board's field, whatever the points' own fit says: found, or
        an outline a person should look at (`points_off` a point or more)."""
        return _quality(self.score) >= 0.5

    def geometry(self):
        """The board's profile: the default board with this field's bar, points and height (trays at the right:
        a field's outline says nothing of them)."""
        from .geometry import BoardGeometry

        return BoardGeometry().with_field_shape(self.bar_frac, self.point_len, self.height)


# ---------------------------------------------------------------------- candidates


def order_corners(quad: np.ndarray) -> np.ndarray:
    """Four points in clockwise order starting top-left (picture coordinates, y down)."""
    c = quad.mean(0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    q = quad[np.argsort(ang)]  # clockwise on screen (y down)
    start = int(np.argmin(q.sum(1)))
    return np.roll(q, -start, 0)


def _quad_of(contour: np.ndarray, area_min: float) -> np.ndarray | None:
    hull = cv2.convexHull(contour)
    area = cv2.contourArea(hull)
    if area < area_min:
        return None
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.04, 0.06, 0.09):
        ap = cv2.approxPolyDP(hull, eps * peri, True)
        if len(ap) == 4:
            return order_corners(ap.reshape(4, 2).astype(np.float64))
        if len(ap) < 4:
            break
    # not four sides: the best-fitting rotated rectangle still gives a start
    box = cv2.boxPoints(cv2.minAreaRect(hull))
    return order_corners(box.astype(np.float64))


def candidates(img: np.ndarray) -> list[np.ndarray]:
    """Quadrilaterals that may be the playing field (or the board around it), working-copy pixels."""
    h, w = img.shape[:2]
    area_min = MIN_AREA * h * w
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)
    chans = [cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), lab[..., 1], lab[..., 2]]
    out: list[np.ndarray] = []
    for ch in chans:
        ch = cv2.GaussianBlur(ch, (5, 5), 0)
        for lo, hi in ((15, 33), (21, 46), (11, 26)):  # Canny thresholds: faint to clear edges
            edges = cv2.Canny(ch, lo, hi)
            for k in (3, 7):
                closed = cv2.dilate(edges, np.ones((k, k), np.uint8))
                # regions between the edges, and the edge networks themselves
                for mask in (255 - closed, closed):
                    cs, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
                    for c in cs:
                        q = _quad_of(c, area_min)
                        if q is not None:
                            out.append(q)
    # colour regions: a board surface is often one colour from rim to rim
    small = cv2.resize(lab, (w // 4, h // 4), interpolation=cv2.INTER_AREA).reshape(-1, 3).astype(np.float32)
    # k-means draws its first centres from OpenCV's one generator: seeded, a picture gives the same outlines whatever
    # was looked at before it (a pine board frame came out 0.7 % off on a first call and 22 % on the next ones)
    cv2.setRNGSeed(KMEANS_SEED)
    for k in (3, 5):
        _, lbl, _ = cv2.kmeans(small, k, None, (cv2.TERM_CRITERIA_MAX_ITER, 10, 1.0), 2, cv2.KMEANS_PP_CENTERS)
        lbl = lbl.reshape(h // 4, w // 4)
        for j in range(k):
            m = cv2.morphologyEx((lbl == j).astype(np.uint8) * 255, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
            cs, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            for c in cs:
                q = _quad_of(c * 4, area_min)
                if q is not None:
                    out.append(q)
    out.append(np.float64([[0.03 * w, 0.03 * h], [0.97 * w, 0.03 * h], [0.97 * w, 0.97 * h], [0.03 * w, 0.97 * h]]))
    return _dedupe(out, w, h)


def _dedupe(quads: list[np.ndarray], w: int, h: int, tol: float = 0.015) -> list[np.ndarray]:
    """The quads in order, less those within ``tol`` of the picture's diagonal (every corner) of one kept."""
    keep: list[np.ndarray] = []
    kept = np.empty((0, 4, 2))
    scale = tol * float(np.hypot(w, h))
    for q in quads:
        if not len(kept) or (np.abs(kept - q).max((1, 2)) > scale).all():
            keep.append(q)
            kept = np.concatenate([kept, q[None]])
    return keep


def _unions(quads: list[np.ndarray], w: int, h: int) -> list[np.ndarray]:
    """Both halves of a field are the cleanest regions in many pictures (the bar and the frame fence each
    in): every pair of similar quadrilaterals lying side by side makes the whole field's outline."""
    out = []
    diag = float(np.hypot(w, h))
    info = [(q, _area(q)) for q in quads]
    for i, (a, aa) in enumerate(info):
        for b, ab in info[i + 1:]:
            if not 0.6 < aa / max(ab, 1.0) < 1.66:
                continue
            for axis in (0, 1):  # 0: side by side (left, right); 1: one above the other
                ca, cb = a.mean(0), b.mean(0)
                left, right = (a, b) if ca[axis] < cb[axis] else (b, a)
                if axis == 0:
                    # left's right side near right's left side (a bar apart)
                    gap = np.linalg.norm((right[0] + right[3]) / 2 - (left[1] + left[2]) / 2)
                    u = np.array([left[0], right[1], right[2], left[3]])
                else:
                    gap = np.linalg.norm((right[0] + right[1]) / 2 - (left[3] + left[2]) / 2)
                    u = np.array([left[0], left[1], right[2], right[3]])
                span = np.linalg.norm(u[0] - u[2])
                if gap < 0.15 * span and span > 0.2 * diag:
                    out.append(u)
    return out


def _area(q: np.ndarray) -> float:
    return float(abs(cv2.contourArea(np.float32(q))))


def in_view(q: np.ndarray, w: int, h: int) -> bool:
    """All four corners in a ``w`` x ``h`` picture (up to `IN_VIEW`)."""
    mx, my = IN_VIEW * w, IN_VIEW * h
    return bool((q[:, 0] >= -mx).all() and (q[:, 0] <= w + mx).all() and (q[:, 1] >= -my).all()
                and (q[:, 1] <= h + my).all())


def _sub_quad(q: np.ndarray, u0: float, u1: float, v0: float, v1: float) -> np.ndarray:
    """The quadrilateral spanning [u0, u1] x [v0, v1] of q's own (perspective) unit square."""
    H = cv2.getPerspectiveTransform(np.float32([[0, 0], [1, 0], [1, 1], [0, 1]]), np.float32(q))
    pts = np.float32([[u0, v0], [u1, v0], [u1, v1], [u0, v1]])[None]
    return cv2.perspectiveTransform(pts, H)[0].astype(np.float64)


def working_copy(picture: np.ndarray) -> tuple[np.ndarray, float]:
    """The picture at most `WORK_W` px on its long side, and the scale it was shrunk by."""
    h0, w0 = picture.shape[:2]
    s = min(WORK_W / max(h0, w0), 1.0)
    if s == 1.0:
        return picture, s
    return cv2.resize(picture, (round(w0 * s), round(h0 * s)), interpolation=cv2.INTER_AREA), s


def _field_shaped(q: np.ndarray) -> bool:
    """The rows' length over the distance between them, as any board's field and camera give it."""
    along = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    across = (np.linalg.norm(q[2] - q[1]) + np.linalg.norm(q[3] - q[0])) / 2
    return 0.6 <= along / max(across, 1e-9) <= 2.4


@lru_cache(maxsize=1)
def _locator():
    from .calibrate import BoardLocator  # lazily: calibrate falls back on this module

    return BoardLocator()


def network_proposals(picture: np.ndarray) -> list[np.ndarray]:
    """The playing field where the corner network (`vision.calibrate.BoardLocator`, learnt from our renders)
    puts the board, through the default board's geometry, in the picture as it is and turned a quarter
    round (the network learnt boards with the bar up and down): more candidates, judged like the others.
    Precise on boards like the renderer's, lost on most real ones, where the points' edges rank them low."""
    from .geometry import BoardGeometry

    g = BoardGeometry()
    x0, y0, x1, y1 = g.field()
    unit_field = np.float32([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]])
    out = []
    for turn in (False, True):
        view = cv2.rotate(picture, cv2.ROTATE_90_COUNTERCLOCKWISE) if turn else picture
        H = cv2.getPerspectiveTransform(np.float32(g.corners()), np.float32(_locator().locate(view).corners))
        q = cv2.perspectiveTransform(unit_field, H)[0].astype(np.float64)
        if turn:  # back from the turned view, where (x', y') = (y, w - 1 - x)
            q = np.stack([picture.shape[1] - 1 - q[:, 1], q[:, 0]], 1)
        out.append(order_corners(q))
    return out


def _refine_shape(edges: Edges, q: np.ndarray, shape: tuple[float, float, float]
                  ) -> tuple[tuple[float, float, float], float]:
    """The board's own bar width, point length and end margin, finer than the searched grid: a walk from
    the best grid shape that keeps what raises the edge score."""
    shape, best = tuple(shape), edges.score(q, (shape,), in_bar=True)[0]
    for step in ((0.01, 0.03, 0.005), (0.005, 0.015, 0.0025), (0.0025, 0.0, 0.0)):
        for k in range(3):
            tries = []
            for sign in (1, -1):
                t = list(shape)
                t[k] += sign * step[k]
                if step[k] and 0.0 <= t[0] <= BARS[-1] + 0.02 and 0.25 <= t[1] <= 0.6 and 0.0 <= t[2] <= 0.05:
                    tries.append(tuple(t))
            # both ways sampled at once; the first that scores higher is taken (a step back from it only returns)
            for t, sc in zip(tries, edges.shape_scores([q], tries, in_bar=True)[0] if tries else ()):
                if sc > best:
                    shape, best = t, float(sc)
                    break
    return shape, best


def _fitted_shape(edges: Edges, q: np.ndarray) -> tuple[tuple[float, float, float], float]:
    """An outline's own best shape (the grid's best, refined) and its edge score."""
    return _refine_shape(edges, q, edges.score(q, SHAPES, in_bar=True)[1])


def find_field(picture: np.ndarray) -> FieldFit:
    """The playing field in a picture (BGR), with how sure it is; quality < 0.5: no board found.

    Candidate outlines (`candidates`, `_unions`, `network_proposals`, `line_quads`), each both ways round,
    in view and shaped like a field, are ranked by the points' edges (`vision.pointedges`); the best one's
    sides are put on the board's straight edges nearby where the points' edges agree
    (`vision.fieldsnap.snap`), and the points' own fit (`judged`) weighs it. Where that is not sure, each
    outline is tried again with a frame inside it (`INSETS`: an outline on a board's outer edge leaves the
    points a frame's width away, where they rate below the table's clutter), and the surer field is kept; where
    that is not sure either, the outlines the points' tips give (`from_tips`)."""
    img, s = working_copy(picture)
    h, w = img.shape[:2]
    edges = Edges(img)
    quads = candidates(img)
    quads += _unions(quads, w, h)
    quads += network_proposals(img)  # the network sees 256 px: its edges refined on the copy, not the picture
    segs = segments(img)  # (the picture's line segments: its lines' outlines, and the points' tips where needed)
    quads += [order_corners(q) for q in line_quads(img, segs)]
    ways = _ways(_dedupe(quads, w, h), w, h)
    if not ways:
        return FieldFit(np.float64([[0, 0], [w, 0], [w, h], [0, h]]) / s, 0.0, 0.08, 0.46)
    fit = _best(picture, img, s, edges, ways)
    if fit.found:
        return fit
    inset = [(r, _sub_quad(q, a, 1 - a, b, 1 - b)) for r, q in ways for a in INSETS for b in INSETS]
    framed = _best(picture, img, s, edges, [(r, q) for r, q in inset if _area(q) >= MIN_AREA * w * h], INSET_LOOK)
    # 16 times the hypotheses, 16 times the chances of a wrong one rating well: held to a higher bar
    framed = _held_higher(framed)
    fit = framed if (framed.quality, framed.score) > (fit.quality, fit.score) else fit
    if fit.found:
        return fit
    tipped = from_tips(picture, img, s, edges, segs)
    return tipped if tipped is not None and (tipped.quality, tipped.score) > (fit.quality, fit.score) else fit


def _ways(quads: list[np.ndarray], w: int, h: int) -> list[tuple[int, np.ndarray]]:
    """Each outline both ways round (r: 1 where the bar lies between the halves of its side TR-BR, not TL-TR), where
    it lies in a ``w`` x ``h`` picture, is shaped like a field and large enough to be one."""
    ways = [(r, np.roll(q, -r, 0)) for q in quads for r in range(2)]
    return [(r, q) for r, q in ways if in_view(q, w, h) and _field_shaped(q) and _area(q) >= MIN_AREA * w * h]


def from_tips(picture: np.ndarray, img: np.ndarray, s: float, edges: Edges,
              segs: np.ndarray | None = None) -> FieldFit | None:
    """The field of the best of the outlines the points' tips give (`vision.pointtips`; ``img`` the working copy of
    ``picture``, shrunk by ``s``), held to the insets' higher bar (`WIDER`); None where they give none. The last
    resort where no outline gives a sure field: rows of tips make nine outlines a pair, their ends a point or two
    aside among them, and a bar a point wider takes up such a point (the edges then score the field a point too long
    at one end as well as the right one), while a sure outline is the board's own edge."""
    h, w = img.shape[:2]
    fits = []
    for quads in tip_quads(img, segs):
        # the evenly spaced and the laid out apart: the laid out, fitted more freely, can rank above a right even one
        # and be placed worse
        ways = _ways([order_corners(q) for q in quads], w, h)
        if ways:
            # each also placed as it is: its sides come from the points, and the straight edge nearest can be a tray's
            # (a stream frame 5.7 -> 1.9 %, a phone photo 6.0 -> 1.7 %, both found; a phone photo found 0.5 % off
            # only snapped)
            fits.append(_best(picture, img, s, edges, ways, tries=TIP_TRIES, snaps=(2, 0)))
    return _held_higher(max(fits, key=lambda f: (f.quality, f.score))) if fits else None


def _held_higher(fit: FieldFit) -> FieldFit:
    """``fit`` with its quality held to `WIDER`'s higher bar (rescaled to 0..1): found among many more hypotheses."""
    fit.quality = float(np.clip((fit.quality - WIDER) / (1 - WIDER), 0.0, 1.0))
    return fit


TIP_TRIES = 2  # the tips' outlines placed where they rank alike: ends a point apart rank close, and the ranking's best
# can be the field a tray too long (a phone photo: 11.6 -> 1.2 %); with 3 and rivals within 0.8, one wrong field
# came out sure


INSETS = (0.0, 0.025, 0.05, 0.075)  # a frame inside an outline, share of its width and height on each side
WIDER = 0.2  # quality discounted this much (and rescaled) for a field found among the inset outlines
INSET_LOOK = 12  # samples a side in the first look at the inset outlines, which only ranks 16 times as many (the
# 134 labelled real pictures, 2026-12-04, within 1.5 / 3 / 5 %: 24 samples 82 / 104 / 114, 16: 82 / 105 / 115,
# 12: 83-84 / 105-106 / 115-116, alike within the candidates' run-to-run noise; 8: one wrong field sure)


def _best(picture: np.ndarray, img: np.ndarray, s: float, edges: Edges, ways: list, look: int = SIDE_SAMPLES,
          tries: int = 1, snaps: tuple[int, ...] = (2,)) -> FieldFit:
    """The field of the best of the outlines ``ways`` ((r, quad) in the working copy ``img``, shrunk by ``s``
    from ``picture``): ranked by the points' edges, snapped, judged, put where the points end. ``tries``: that many
    of the best ranked (those within `RIVAL` of the best's score), each placed once for each of ``snaps`` (how many
    times it is put on the straight edges nearby; 0: as it is), and the surest field kept."""
    # a first look with four shapes (``look`` samples a side) keeps the likeliest (a fifth of the coarse grid's
    # cost), which the grid ranks; where there are no more than it keeps, the grid ranks them all at once
    pre = (np.arange(len(ways)) if len(ways) <= PRE_KEEP else
           np.argsort(-edges.scores([q for _, q in ways], PRE_SHAPES, look)[0], kind="stable")[:PRE_KEEP])
    sc = edges.scores([ways[i][1] for i in pre], samples=RANK_SAMPLES)[0]
    order = np.argsort(-sc, kind="stable")[:tries]
    fits = [_placed(picture, img, s, edges, *ways[pre[k]], n)
            for k in order if k == order[0] or sc[k] >= RIVAL * sc[order[0]] for n in snaps]
    return max(fits, key=lambda f: (f.quality, f.score))


RANK_SAMPLES = 16  # samples a side where outlines are only ranked (the grid, the snaps), not judged: 24 before
# (134 real pictures, 2026-12-06: the same 103 / 118 / 126 within 1.5 / 3 / 5 %, 107 found, none wrong but sure; eight
# fields moved, four each way, the largest three not found either way; the finder's time -12 %)
RIVAL = 0.9  # an outline ranked this near the best (of its score) is tried too, where more than one is


def _placed(picture: np.ndarray, img: np.ndarray, s: float, edges: Edges, r: int, q: np.ndarray,
            snaps: int = 2) -> FieldFit:
    """One outline snapped ``snaps`` times, judged, put where the points end, and weighed against itself a point
    aside."""
    for _ in range(snaps):  # a second time from the first's lines: a side reaches twice as far
        # each outline judged with its own best shape: the candidate's (fitted to the frame, say) can rate
        # the true field far below it
        before = q
        q, _ = snap(q, lambda t: edges.scores(t, samples=RANK_SAMPLES)[0], (edges.gx, edges.gy))
        if q is before:  # left where it was: a second time would leave it there too
            break
    placed = _where_points_end(picture, img, s, edges, judged(img, edges, q, s, bool(r)))
    sure = placed.quality
    fit, aside = _one_way(edges, placed, s)
    if aside is not None:  # a point further out or in at one end fits the points better: that field, judged afresh
        q, shape = aside
        alt = replace(fit, corners=q / s, bar_frac=shape[0], point_len=shape[1], margin=shape[2], points=None)
        alt, _ = _one_way(edges, _where_points_end(picture, img, s, edges, alt), s)
        if (alt.quality, alt.score) > (fit.quality, fit.score):
            return alt
        if alt.score < DISPELLED * fit.score:  # placed, the neighbour no longer fits: the doubt is dispelled
            fit.quality = sure
    return fit


def _where_points_end(picture: np.ndarray, img: np.ndarray, s: float, edges: Edges, fit: FieldFit) -> FieldFit:
    """The field's sides put where its points end (`vision.rimfit`), in the picture's own pixels (the working
    copy's are too coarse for them), and judged again."""
    placed = fit_rims(picture, fit.corners, fit.bar_frac, fit.point_len, fit.margin)
    # how sure is said of the field reported: an outline on a rim's top disagrees with the points by a point,
    # the same field on the floor does not (found 59 -> 64 of the 134 labelled real pictures, none 5 % off); also
    # where the rims move nothing (the points' own fit, taken over an outline a point off, was left with that
    # outline's disagreement: a stream frame 0.84 % off not sure; 86 -> 87 found, 2026-12-05)
    # the points' own fit `judged` made, started a few per cent from where the rims put the field, lands on the same
    # points where the two agree; where they do not, the points are fitted afresh from the field placed (reused
    # there too, a stream frame 1.9 % off was no longer sure: end to end 98.3 -> 79.2 % of its points)
    shape, sc = _fitted_shape(edges, placed * s)
    off = np.inf if fit.points is None else _points_off(fit.points * s, placed * s, shape)
    if off > AGREE:
        off = points_disagree(img, placed * s, shape)[1]
    return FieldFit(corners=placed, quality=min(_quality(sc), _agreement(off)), bar_frac=shape[0],
                    point_len=shape[1], score=sc, turned=fit.turned, points_off=off, margin=shape[2])


DISPELLED = 0.5  # a neighbour a point aside that, put where its points end, scores under this share of the field's
# score does not doubt the field: the unplaced neighbour can outscore it by taking in a frame's strong edges (a pine
# frame: 1.15 times unplaced, 0.21 placed; the field 0.6 % off, no longer sure, lost to a surer one 2.4 % off; the 134
# real pictures within 1.5 % 105 -> 106, one field over 5 % off instead of 3 %, not sure; 2026-12-07)
ASIDE_K = 1.15  # a field is not sure where one end a point further out or in scores this much of its own score


def _one_way(edges: Edges, fit: FieldFit, s: float) -> tuple[FieldFit, tuple[np.ndarray, tuple] | None]:
    """A sure field, weighed against itself a point longer or shorter at either end: where the outermost
    points lie under stacks on both rows, the points' edges fit a field a point short as well as the right one,
    and a point aside that explains them better says the field is not the only answer. On the 134 labelled
    real pictures (2026-12-05) the best such neighbour of a field within 3 % of its diagonal scored at most 1.09
    times its own; of the three sure fields 4.3-6.4 % off, 1.19 to 2.04 times. Returns the field, its quality
    capped, and that neighbour (working-copy px) with its fitted shape where one scores `ASIDE_K` times as well
    (the caller judges it: one of the three, 6.4 % off, was then right)."""
    if not fit.found:
        return fit, None
    q = fit.corners * s
    pw = _point_width(q, fit.bar_frac, fit.margin)
    best, aside = 0.0, None
    for end in (((1, 0), (2, 3)), ((0, 1), (3, 2))):  # TR and BR away from TL and BL: the right end; the left
        for k in (1.0, -1.0):
            m = q.copy()
            for i, j in end:
                m[i] = q[i] + k * pw * (q[i] - q[j]) / np.linalg.norm(q[i] - q[j])
            shape, sc = _fitted_shape(edges, m)
            if sc > best:
                best, aside = sc, (m, shape)
    ratio = best / max(fit.score, 1e-9)
    fit.quality = min(fit.quality, float(np.clip(0.5 + (ASIDE_K - ratio) / 0.2, 0.0, 1.0)))
    return fit, (aside if ratio >= ASIDE_K else None)


def judged(img: np.ndarray, edges: Edges, q: np.ndarray, s: float, turned: bool) -> FieldFit:
    """An outline (working-copy pixels, shrunk by ``s``) with its shape fitted, weighed against the points'
    own fit of the field (`points_disagree`). Where the two opinions differ, each is a hypothesis and the
    points' edges judge between them (where the outline took in a tray or the frame's outer edge, the points'
    fit scores higher); how sure the answer is stays their agreement, since the points' fit agrees with
    itself by construction."""
    shape, sc, points, off = _judge(img, edges, q)
    if off >= AGREE:
        pshape, psc = _fitted_shape(edges, points)
        if psc > sc:
            q, sc, shape = points, psc, pshape
    return FieldFit(corners=q / s, quality=min(_quality(sc), _agreement(off)), bar_frac=shape[0],
                    point_len=shape[1], score=sc, turned=turned, points_off=off, margin=shape[2], points=points / s)


def _judge(img: np.ndarray, edges: Edges, q: np.ndarray) -> tuple[tuple[float, float, float], float, np.ndarray, float]:
    """An outline's own shape and edge score (`_fitted_shape`), and the points' field with its distance from
    it (`points_disagree`)."""
    shape, sc = _fitted_shape(edges, q)
    return (shape, sc, *points_disagree(img, q, shape))


def points_disagree(img: np.ndarray, q: np.ndarray, shape: tuple[float, float, float]) -> tuple[np.ndarray, float]:
    """The field the board's points give (`vision.pointfit`, from ``q`` and its shape), and how far it lies
    from ``q``: its farthest corner, in point widths. The outline and the points are two opinions of the field
    from different evidence; where they differ by a whole point, one has the board's structure wrong (a
    tray or a frame taken in, a point aside), and the field is not sure."""
    pf = fit(img, q, *shape)
    return pf.corners, _points_off(pf.corners, q, shape)


def _points_off(points: np.ndarray, q: np.ndarray, shape: tuple[float, float, float]) -> float:
    """How far the points' field lies from ``q`` (of this shape): its farthest corner, in point widths."""
    return float(np.linalg.norm(points - q, axis=1).max() / max(_point_width(q, shape[0], shape[2]), 1.0))


def _point_width(q: np.ndarray, bar: float, margin: float) -> float:
    """A point's width along the rows of the field ``q`` (TL, TR, BR, BL; the rows along side TL-TR) of this
    shape, in ``q``'s pixels."""
    along = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    return along * (1 - bar - 2 * margin) / 12


AGREE = 0.5  # point widths: the outline and the points' own fit agree within this (`_agreement` is sure)


def _agreement(off: float) -> float:
    """The points' opinion as a quality: sure (1) within `AGREE` of the outline, 0.5 a point away."""
    return float(np.clip(1.0 + AGREE - off, 0.0, 1.0))


def _quality(score: float) -> float:
    """The edge score as a quality, 0.5 at a score of 0.2. Measured on real pictures (bench_real): no-board
    photos score under 0.01; fields found within 5 % of their diagonal 0.14 to 1.9, nearly all over 0.2;
    fields found wrong mostly under 0.05."""
    return float(np.clip((score - 0.05) / 0.3, 0.0, 1.0))


def given_field(picture: np.ndarray, corners: np.ndarray) -> FieldFit:
    """A field given by hand: which way round it lies (the bar between which sides) is judged by the
    points' edges, and so are the quality and the shape; it is reported found whatever the quality (a
    person said so)."""
    q = order_corners(np.asarray(corners, np.float64))
    small, s = working_copy(picture)
    edges = Edges(small)
    ways = [_fitted_shape(edges, np.roll(q, -r, 0) * s) for r in range(2)]  # (as the finder judges an outline)
    r = int(np.argmax([sc for _, sc in ways]))
    shape, score = ways[r]
    return FieldFit(np.roll(q, -r, 0), _quality(score), shape[0], shape[1], score, turned=bool(r))


def turned_corners(fit: FieldFit) -> np.ndarray:
    """TL, TR, BR, BL of the field in the view where the bar runs top to bottom (picture pixels)."""
    q = order_corners(fit.corners)
    return np.roll(q, 1, 0) if fit.turned else q

