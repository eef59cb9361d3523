"""Find the playing field of a real board in a camera picture, by the board's own structure.

The corner network (`vision.calibrate`) learnt boards from our renderer alone; on real pictures it
is lost. What every backgammon board shares, whatever its colours, materials and surroundings, is
its layout: two rows of twelve points facing each other, each row two runs of six split by the bar,
the points alternating between two colours. `find_field`

1. proposes quadrilaterals: the outlines of large regions in several edge and colour maps (the
   field's rim, the board's frame, a felt or leather surface) and of pairs of similar regions side by
   side (the two halves), each taken both ways round (the bar up and down, or across);
2. scores each by that layout (`structure_score`): rectified, the share of the picture's colour
   variation that one colour per row's even points, per row's odd points, the bar and the rim round
   the field explain, less what the same layout half a point aside explains (any stripes, wood grain
   or clutter fit both alike). A picture of anything else scores near 0;
3. searches the best outlines' extent (a candidate is often the frame, or a field with its trays, or
   the field a point aside), moves the field so that its bar is the quiet strip in the middle where
   that fits better, and polishes the corners with a robust fit (pixels far off the fit, checkers and
   hands, count less: otherwise they pull the edges inwards).

The bar's width and the points' length are the best of the shapes searched. Known limits, measured by
tests/bench/bench_real.py: the optimum can sit a row or a point off the field with a quality as high
as the right answer's (the quality tells a board from no board, not yet a precise fit from a rough
one), and a board whose points hardly differ from its wood is not found.

Everything here runs on a copy of the picture about 640 px wide; corners come back in the
picture's own pixels.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

WORK_W = 640  # px: the long side of the working copy
RECT_W, RECT_H = 156, 120  # the rectified field the score fits (12 points + bar across)
RIM = 10  # px of the rectified picture kept around the field: the board's frame, which anchors its edges
BAR_FRACS = np.linspace(0.0, 0.16, 9)  # the bar's share of the field's width, searched
POINT_LENGTHS = (0.34, 0.40, 0.46, 0.52)  # a point's length, share of the field's height
NOISE_FLOOR = 3 * 6.0 ** 2  # Lab variance per pixel that counts as no structure
MIN_AREA = 0.08  # a field covers at least this share of the picture (a board camera's fills most of it)


@dataclass
class FieldFit:
    corners: np.ndarray  # (4, 2) picture pixels, clockwise; the bar lies between the halves of side 0-1
    quality: float  # 0..1: how surely this is a board's playing field
    bar_frac: float  # the bar's share of the field's width
    point_len: float  # a point's length, share of the field's height
    score: float = 0.0  # the raw (robust) structure score
    turned: bool = False  # the bar runs across the picture (the rows are up and down)

    @property
    def found(self) -> bool:
        return self.quality >= 0.5

    def geometry(self):
        """The board's profile: the default board with this field's bar and points (trays at the right:
        a field's outline says nothing of them)."""
        from .geometry import BoardGeometry

        return BoardGeometry().with_field_shape(self.bar_frac, self.point_len)


# ---------------------------------------------------------------------- the structure score


def _column_centres(bar: float) -> np.ndarray:
    """x of the 12 point columns (left run, then right run), pixels of the rectified field."""
    pw = RECT_W * (1 - bar) / 12
    k = np.arange(12)
    return (k + 0.5) * pw + np.where(k >= 6, bar * RECT_W, 0.0)


def shape_template(bar: float, length: float, shift: float = 0.0) -> np.ndarray:
    """Indicator images of the field's parts for one shape: (6, pixels) (top row's even points, its odd
    points, the bottom row's even and odd points, the bar, the rim around the field) with soft,
    anti-aliased edges; ``bar`` the bar's share of the field's width, ``length`` a point's share of its
    height; ``shift`` moves the points by that many point widths (the null layout)."""
    ys, xs = np.mgrid[-RIM:RECT_H + RIM, -RIM:RECT_W + RIM].astype(np.float32) + 0.5
    inside = (xs > 0) & (xs < RECT_W) & (ys > 0) & (ys < RECT_H)
    pw = RECT_W * (1 - bar) / 12
    bar_x0 = 6 * pw
    L = length * RECT_H
    t = np.zeros((6,) + xs.shape, np.float32)
    for row, depth in ((0, ys), (1, RECT_H - ys)):
        half = np.clip(pw / 2 * (1 - depth / L), 0, None)
        for k, c in enumerate(_column_centres(bar) + shift * pw):
            t[2 * row + k % 2] += np.clip(half - np.abs(xs - c) + 0.5, 0, 1)
    t[4] = np.clip(np.minimum(xs - bar_x0, bar_x0 + bar * RECT_W - xs) + 0.5, 0, 1)
    t[:5] *= inside
    t[5] = ~inside
    return t.reshape(6, -1)


def _templates(shift: float = 0.0) -> tuple[np.ndarray, list[tuple[float, float]]]:
    """`shape_template` for every shape searched: (hypotheses, 6, pixels), and each one's (bar, length)."""
    hyps = [(float(bar), float(length)) for bar in BAR_FRACS for length in POINT_LENGTHS]
    return np.stack([shape_template(b, L, shift) for b, L in hyps]), hyps


_T, _HYPS = _templates()
_TN = _templates(0.5)[0]
N_REG = _T.shape[1]
# the same layout half a point aside: what the structure must explain better than (see `structure_score`)
_T_FLAT_T = np.ascontiguousarray(np.concatenate([_T, _TN]).reshape(-1, _T.shape[-1]).T)
_ALL = np.arange(len(_HYPS))
_COARSE = np.array([i for i, (b, L) in enumerate(_HYPS) if POINT_LENGTHS[2] == L and b in BAR_FRACS[2::3]])


def _gram(t: np.ndarray) -> np.ndarray:
    x = np.concatenate([np.ones_like(t[:, :1]), t], 1)
    # X'X of each design, with a ridge (a bar of no width has an empty indicator)
    return np.einsum("hip,hjp->hij", x, x).astype(np.float64) + np.eye(N_REG + 1)


_TTT = np.concatenate([_gram(_T), _gram(_TN)])


@lru_cache(maxsize=64)
def _design(both: tuple[int, ...]) -> np.ndarray:
    """The templates of these hypotheses (and their nulls) side by side, contiguous: (pixels, n * N_REG)."""
    rows = (np.array(both)[:, None] * N_REG + np.arange(N_REG)).ravel()
    return np.ascontiguousarray(_T_FLAT_T[:, rows])


def _rectified_lab(img: np.ndarray, quad: np.ndarray) -> np.ndarray:
    dst = np.float32([[0, 0], [RECT_W, 0], [RECT_W, RECT_H], [0, RECT_H]]) + RIM
    H = cv2.getPerspectiveTransform(np.float32(quad), dst)
    rect = cv2.warpPerspective(img, H, (RECT_W + 2 * RIM, RECT_H + 2 * RIM), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
    return cv2.cvtColor(rect, cv2.COLOR_BGR2LAB).astype(np.float32)


def structure_score(lab: np.ndarray, hyps: np.ndarray | None = None, scale: float | None = None
                    ) -> tuple[float, int]:
    """How much of the picture inside a quadrilateral the board's layout explains: the share of its colour
    variation (Lab) fitted by one colour for each row's even points, each row's odd points and the bar
    over a background, for the best of the shapes (``hyps``: indices into `_HYPS`; all by default).
    Returns (score 0..1, the best shape's index).

    ``scale``: the whole picture's colour variance per pixel. Measured against it, and not against the
    variation inside the quadrilateral, the score does not grow by leaving clutter (the checkers along
    the points' bases) outside the field.

    A picture of anything else, or a quadrilateral off by a fraction of a point, leaves most variation
    unexplained; checkers and hands lower every hypothesis alike."""
    hyps = _ALL if hyps is None else np.asarray(hyps)
    f = lab.reshape(-1, 3)
    f = f - f.mean(0)
    total = float((f * f).sum())
    if total < 1e-6:
        return 0.0, int(hyps[0])
    both = np.concatenate([hyps, hyps + len(_HYPS)])
    tf = (np.ascontiguousarray(f.T) @ _design(tuple(both))).T.reshape(len(both), N_REG, 3).astype(np.float64)
    xtf = np.concatenate([np.zeros((len(both), 1, 3)), tf], 1)  # the intercept column sums to 0 (f centred)
    beta = np.linalg.solve(_TTT[both], xtf)
    per_px = total / len(f) if scale is None else scale
    explained = np.einsum("hic,hic->h", beta, xtf) / (len(f) * (per_px + NOISE_FLOOR))
    # the layout must explain the picture better than the same layout half a point aside: a texture
    # that any stripes fit (wood grain, a hand, a cluttered table) is fitted as well both ways
    contrast = explained[:len(hyps)] - explained[len(hyps):]
    k = int(np.argmax(contrast))
    return float(contrast[k]), int(hyps[k])


def robust_score(lab: np.ndarray, hyp: int | tuple[float, float], scale: float) -> float:
    """`structure_score` for one shape (an index into `_HYPS`, or any (bar, length)), fitted twice: the
    second time pixels the first fit left far off (checkers, hands, dice: whatever lies on the field) count
    less, so that the fit follows the points, the bar and the rim, and not the clutter (which otherwise
    pulls the field's edges inwards)."""
    f = lab.reshape(-1, 3).astype(np.float32)
    out = []
    pair = (_T[hyp], _TN[hyp]) if isinstance(hyp, (int, np.integer)) else \
        (shape_template(*hyp), shape_template(*hyp, shift=0.5))
    for t in pair:
        x = np.concatenate([np.ones((1, t.shape[1]), np.float32), t])  # (7, px)
        w = np.ones(t.shape[1], np.float32)
        for _ in range(2):
            xw = x * w
            beta = np.linalg.solve(xw @ x.T + np.eye(len(x)), xw @ f)
            res = f - x.T @ beta
            r = np.sqrt((res * res).sum(1))
            c = 2.0 * float(np.median(r)) + 1.0
            w_new = np.minimum(1.0, c / np.maximum(r, 1e-6))
            mean = (w[:, None] * f).sum(0) / w.sum()
            total = float((w[:, None] * (f - mean) ** 2).sum())
            resid = float((w[:, None] * res * res).sum())
            gain = (total - resid) / (len(f) * (scale + NOISE_FLOOR))
            w = w_new
        out.append(gain)
    return out[0] - out[1]


def picture_scale(img: np.ndarray) -> float:
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float64)
    return float(lab.var(0).sum())


def quad_score(img: np.ndarray, quad: np.ndarray, hyps: np.ndarray | None = None,
               scale: float | None = None) -> tuple[float, int]:
    return structure_score(_rectified_lab(img, quad), hyps, scale)


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
    keep: list[np.ndarray] = []
    scale = tol * float(np.hypot(w, h))
    for q in quads:
        if all(np.abs(q - k).max() > scale for k in keep):
            keep.append(q)
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


def _plausible(q: np.ndarray, area0: float, min_area: float = 0.0) -> bool:
    """A field seen by a camera: convex, no corner sharper than 45 degrees or blunter than 135, not too small
    a part of the picture (``min_area`` px), and (while polishing) about the size it started at."""
    a = _area(q)
    if not max(0.6 * area0, min_area) <= a <= 1.6 * area0:
        return False
    cross = []
    for k in range(4):
        u, v = q[k] - q[k - 1], q[(k + 1) % 4] - q[k]
        cross.append(u[0] * v[1] - u[1] * v[0])
        cosang = -float(u @ v) / (np.linalg.norm(u) * np.linalg.norm(v) + 1e-9)
        if abs(cosang) > 0.71:
            return False
    return all(c > 0 for c in cross) or all(c < 0 for c in cross)


def _sub_quad(q: np.ndarray, u0: float, u1: float, v0: float, v1: float) -> np.ndarray:
    """The quadrilateral spanning [u0, u1] x [v0, v1] of q's own (perspective) unit square."""
    H = cv2.getPerspectiveTransform(np.float32([[0, 0], [1, 0], [1, 1], [0, 1]]), np.float32(q))
    pts = np.float32([[u0, v0], [u1, v0], [u1, v1], [u0, v1]])[None]
    return cv2.perspectiveTransform(pts, H)[0].astype(np.float64)


def extent_search(img: np.ndarray, q: np.ndarray, scale: float) -> tuple[np.ndarray, float, int]:
    """A candidate outline is often the board's frame, or a field with its trays: search the field's extent
    inside (and a little beyond) it, across then along then across again, on a coarse grid and then a
    finer one round the best (finer than half a point)."""
    best_s, best_h = quad_score(img, q, _COARSE, scale)
    best = [0.0, 1.0, 0.0, 1.0]
    min_area = MIN_AREA * img.shape[0] * img.shape[1]
    for axis in (0, 1, 0):
        i = 2 * axis
        # both sides moved alike too: an outline a point or two aside fits nearly as well as the field (the
        # points alternate the other way round) until the rim and the bar are in the right place
        lo_a = lo_b = np.arange(-0.12, 0.25, 0.04)  # insets of the two sides, then round the best so far
        for fine in (False, True):
            if fine:
                lo_a, lo_b = best[i] + np.arange(-2, 3) * 0.0125, (1.0 - best[i + 1]) + np.arange(-2, 3) * 0.0125
            for a in lo_a:
                for b in 1.0 - lo_b:
                    if b - a < 0.5:
                        continue
                    e = list(best)
                    e[i], e[i + 1] = a, b
                    sub = _sub_quad(q, *e)
                    if _area(sub) < min_area:
                        continue
                    s, h = quad_score(img, sub, _COARSE, scale)
                    if s > best_s:
                        best_s, best_h, best = s, h, e
    return _sub_quad(q, *best), best_s, best_h


def centre_on_bar(img: np.ndarray, q: np.ndarray, bar_frac: float) -> np.ndarray:
    """Move the field across so that its bar lies in the middle. The layout fits nearly as well a point
    aside (the points alternate the other way round; a stack along the edge traded for the tray beside
    it); the bar does not move: it is the strip without point edges, the quietest one across the field."""
    W, H = 2 * RECT_W, 2 * RECT_H
    dst = np.float32([[0, 0], [W, 0], [W, H], [0, H]])
    rect = cv2.warpPerspective(img, cv2.getPerspectiveTransform(np.float32(q), dst), (W, H),
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    lum = cv2.cvtColor(rect, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    gx = np.abs(cv2.Sobel(lum, cv2.CV_32F, 1, 0, ksize=3))
    # along the points only (between their tips the field is as quiet as the bar)
    energy = np.concatenate([gx[H // 20:H * 7 // 20], gx[H * 13 // 20:H * 19 // 20]]).mean(0)
    bw = max(int(round(bar_frac * W)), 3)
    smooth = np.convolve(energy, np.ones(bw) / bw, mode="same")
    lo, hi = int(0.35 * W), int(0.65 * W)
    centre = lo + int(np.argmin(smooth[lo:hi]))
    d = (centre - W / 2) / W
    return _sub_quad(q, d, 1 + d, 0.0, 1.0)


def polish(img: np.ndarray, quad: np.ndarray, hyp: int, scale: float,
           steps: tuple[float, ...] = (0.02, 0.01, 0.005, 0.0025)) -> tuple[np.ndarray, float]:
    """Coordinate ascent of the robust structure score over the eight corner coordinates, from coarse
    steps to fine (shares of the picture's diagonal)."""
    diag = float(np.hypot(*img.shape[:2]))
    q = np.array(quad, np.float64)
    area0 = _area(q)
    min_area = MIN_AREA * img.shape[0] * img.shape[1]
    best = robust_score(_rectified_lab(img, q), hyp, scale)
    for step in steps:
        d = step * diag
        for _ in range(6):
            moved = False
            for i in range(4):
                for j in range(2):
                    for sign in (1, -1):
                        t = q.copy()
                        t[i, j] += sign * d
                        if not _plausible(t, area0, min_area):
                            continue
                        s = robust_score(_rectified_lab(img, t), hyp, scale)
                        if s > best:
                            best, q, moved = s, t, True
            if not moved:
                break
    return q, best


def working_copy(picture: np.ndarray) -> tuple[np.ndarray, float]:
    """The picture at most `WORK_W` px on its long side, and the scale it was shrunk by."""
    h0, w0 = picture.shape[:2]
    s = min(WORK_W / max(h0, w0), 1.0)
    if s == 1.0:
        return picture, s
    return cv2.resize(picture, (round(w0 * s), round(h0 * s)), interpolation=cv2.INTER_AREA), s


def find_field(picture: np.ndarray) -> FieldFit:
    """The playing field in a picture (BGR), with how sure it is; quality < 0.5: no board found."""
    img, s = working_copy(picture)
    h, w = img.shape[:2]
    scale = picture_scale(img)
    quads = candidates(img)
    quads += _unions(quads, w, h)
    screened = []
    for q in quads:
        for r in range(2):  # which way round: the bar between TL-TR's halves
            qq = np.roll(q, -r, 0)
            screened.append((quad_score(img, qq, _COARSE, scale)[0], r, qq))
    screened.sort(key=lambda x: -x[0])
    full = []
    for _, r, q in screened[:10]:
        sc, hyp = quad_score(img, q, None, scale)
        full.append((sc, hyp, r, q))
    full.sort(key=lambda x: -x[0])
    best = None
    for sc, hyp, r, q in full[:3]:
        q, sc, hyp = extent_search(img, q, scale)
        if best is None or sc > best[0]:
            best = (sc, hyp, r, q)
    sc, hyp, r, q = best
    centred = centre_on_bar(img, q, _HYPS[hyp][0])  # kept only where the layout agrees
    if robust_score(_rectified_lab(img, centred), hyp, scale) > robust_score(_rectified_lab(img, q), hyp, scale):
        q = centred
    q, robust = polish(img, q, hyp, scale)
    _, hyp = quad_score(img, q, None, scale)  # the shape, at the final fit
    bar, length, _ = fit_shape(_rectified_lab(img, q), hyp, scale)
    return FieldFit(corners=q / s, quality=_quality(robust), bar_frac=bar, point_len=length, score=robust,
                    turned=bool(r))


def _quality(score: float) -> float:
    """The robust structure score as a quality: pictures without a board score under about 0.05, real
    fields 0.15-0.6."""
    return float(np.clip((score - 0.05) / 0.15, 0.0, 1.0))


def fit_shape(lab: np.ndarray, hyp: int, scale: float) -> tuple[float, float, float]:
    """The board's own bar width and point length (shares of the field), finer than the searched grid:
    a walk from the best grid shape that keeps what raises the robust score. (bar, length, score)."""
    bar, length = _HYPS[hyp]
    best = robust_score(lab, hyp, scale)
    for step_b, step_l in ((0.01, 0.03), (0.005, 0.015), (0.0025, 0.0)):
        for db, dl in ((step_b, 0), (-step_b, 0), (0, step_l), (0, -step_l)):
            b, L = bar + db, length + dl
            if (db or dl) and 0.0 <= b <= BAR_FRACS[-1] + 0.02 and 0.25 <= L <= 0.6:
                sc = robust_score(lab, (b, L), scale)
                if sc > best:
                    bar, length, best = b, L, sc
    return bar, length, best


def given_field(picture: np.ndarray, corners: np.ndarray) -> FieldFit:
    """A field given by hand: which way round it lies (the bar between which sides) is judged by the
    structure, and so is the quality; it is reported found whatever the quality (a person said so)."""
    q = order_corners(np.asarray(corners, np.float64))
    small, s = working_copy(picture)
    scale = picture_scale(small)
    ways = [quad_score(small, np.roll(q, -r, 0) * s, None, scale) for r in range(2)]
    r = int(np.argmax([w[0] for w in ways]))
    lab = _rectified_lab(small, np.roll(q, -r, 0) * s)
    score = robust_score(lab, ways[r][1], scale)
    bar, length, _ = fit_shape(lab, ways[r][1], scale)
    return FieldFit(np.roll(q, -r, 0), _quality(score), bar, length, score, turned=bool(r))


def turned_corners(fit: FieldFit) -> np.ndarray:
    """TL, TR, BR, BL of the field in the view where the bar runs top to bottom (picture pixels)."""
    q = order_corners(fit.corners)
    return np.roll(q, 1, 0) if fit.turned else q

