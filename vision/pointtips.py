"""Candidate fields from the points' tips.

A point is a long thin triangle: its two long sides meet at its tip at an acute angle. Where no outline and no
pair of lines gives the field (a rim of the field's own colour, a hand over a corner, a board seen askew), the
tips still show: up to twelve a row on a straight line (a homography keeps lines straight), each pointing across
the field. `tips` finds them where the lines of two of the picture's segments (`vision.fieldlines.segments`, the
pieces texture breaks a side into joined first) meet at an acute angle just beyond an end of each; `tip_quads`
gathers them into rows and makes fields of every two rows pointing opposite ways: where their tips face each
other (a board's two rows), each rim lies a point's length beyond its tips, and each end half a point to two and
a half points beyond the outermost tip (a point under a stack shows none), along that tip's axis. Neighbouring
points' sides also meet, on the rim, in a V like a tip's: two rows of such Vs opening towards each other are the
rims themselves. Seen at an angle (a camera low at one end of the board), a row's points are not evenly spaced in
the picture: `layout_quads` lays the tips on the board's layout instead, each row through its own perspective map
(which points the tips are, and how the camera spaces them), the two rows tied by the tips' axes. `vision.fieldfind`
judges these outlines like its own (`fieldfind.from_tips`), each set apart.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from .fieldlines import segments

PIECE_MIN = 0.01  # a piece of a side is this long at least (share of the diagonal)
JOIN_OFF = 0.002  # pieces of one side lie within this of its line (share of the diagonal)
JOIN_GAP = 0.01  # with gaps up to this between them
SIDE_MIN = 0.04  # a point's side is a segment this long at least (share of the picture's diagonal)
MEET = 0.012  # two sides' lines meet this close to an end of each (share of the diagonal) or
TIP_REACH = 0.5  # beyond it by up to this share of the side's length
APEX = (3.0, 50.0)  # degrees: a tip's angle, from a long point seen obliquely to a short wide one
SIDES_ALIKE = 0.5  # a tip's shorter side at least this share of its longer one
ROW_OFF = 0.012  # a tip lies on a row's line within this (share of the diagonal)
ROW_TURN = np.deg2rad(25)  # and points within this of the row's way
PAIR_TURN = np.deg2rad(20)  # two tips that found a row point alike within this
ACROSS = np.deg2rad(35)  # a row's tips point across it within this
ROW_MIN = 3  # tips a row
ROW_GAP = 3.2  # a gap this many times the row's usual spacing ends it (another board, a tray)
ENDS = (0.5, 1.5, 2.5)  # each end this many points beyond the outermost tip seen


def joined(segs: np.ndarray, diag: float) -> np.ndarray:
    """Segments on one line with short gaps between them, joined end to end (texture, felt or grain or a renderer's
    noise, breaks a point's side into pieces a third of its length or less): (N, 4), pieces under `PIECE_MIN` left
    out. Each group of pieces joined one after another becomes its longest piece's line, from the first end to the
    last."""
    length = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    keep = length >= PIECE_MIN * diag
    segs, length = segs[keep], length[keep]
    n = len(segs)
    if n < 2:
        return segs
    d = (segs[:, 2:] - segs[:, :2]) / length[:, None]
    i, j = np.triu_indices(n, 1)
    a, b = np.where(length[j] > length[i], j, i), np.where(length[j] > length[i], i, j)  # a: the longer
    nrm = np.stack([-d[a, 1], d[a, 0]], 1)
    s0, s1 = segs[b, :2] - segs[a, :2], segs[b, 2:] - segs[a, :2]
    off = np.maximum(np.abs((s0 * nrm).sum(1)), np.abs((s1 * nrm).sum(1)))
    t0, t1 = (s0 * d[a]).sum(1), (s1 * d[a]).sum(1)
    gap = np.maximum(np.minimum(t0, t1) - length[a], -np.maximum(t0, t1))  # beyond a's ends (< 0: overlapping)
    ok = (off <= JOIN_OFF * diag) & (gap <= JOIN_GAP * diag)
    parent = list(range(n))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for x, y in zip(a[ok], b[ok]):
        parent[root(int(x))] = root(int(y))
    groups: dict[int, list[int]] = {}
    for k in range(n):
        groups.setdefault(root(k), []).append(k)
    out = []
    for g in groups.values():
        ref = max(g, key=lambda k: length[k])
        ends = segs[g].reshape(-1, 2)
        t = (ends - segs[ref, :2]) @ d[ref]
        out.append(np.concatenate([segs[ref, :2] + t.min() * d[ref], segs[ref, :2] + t.max() * d[ref]]))
    return np.array(out)


def tips(img: np.ndarray, segs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where the lines of two long segments of similar length meet at an acute angle just beyond an end of each:
    (N, 2) tips, (N, 2) unit axes (from the tip between the two sides, towards the base), (N,) how far the longer
    side reaches from the tip; in ``img``'s pixels. Lines, not ends: a point's sides fade into its tip, where
    the segments stop short of it."""
    diag = float(np.hypot(*img.shape[:2]))
    segs = joined(segments(img) if segs is None else segs, diag)
    length = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    keep = length >= SIDE_MIN * diag
    segs, length = segs[keep], length[keep]
    if len(segs) < 2:
        return np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0)
    p0, d = segs[:, :2], (segs[:, 2:] - segs[:, :2]) / length[:, None]
    i, j = np.triu_indices(len(segs), 1)
    alike = np.minimum(length[i], length[j]) >= SIDES_ALIKE * np.maximum(length[i], length[j])
    i, j = i[alike], j[alike]
    cross = d[i, 0] * d[j, 1] - d[i, 1] * d[j, 0]
    sin_lo, sin_hi = np.sin(np.deg2rad(APEX[0])), np.sin(np.deg2rad(APEX[1]))
    ok = (np.abs(cross) >= sin_lo) & (np.abs(cross) <= sin_hi)
    i, j, cross = i[ok], j[ok], cross[ok]
    # where the lines meet: ti along segment i from its first end, tj along j (0..length: on the segment)
    w = p0[j] - p0[i]
    ti = (w[:, 0] * d[j, 1] - w[:, 1] * d[j, 0]) / cross
    tj = (w[:, 0] * d[i, 1] - w[:, 1] * d[i, 0]) / cross
    near = MEET * diag
    li, lj = length[i], length[j]
    start_i, start_j = (ti >= -TIP_REACH * li) & (ti <= near), (tj >= -TIP_REACH * lj) & (tj <= near)
    end_i = (ti >= li - near) & (ti <= (1 + TIP_REACH) * li)
    end_j = (tj >= lj - near) & (tj <= (1 + TIP_REACH) * lj)
    ok = (start_i | end_i) & (start_j | end_j)
    at = p0[i] + ti[:, None] * d[i]
    # each side's way from the tip to its far end
    axis = np.where(start_i[:, None], d[i], -d[i]) + np.where(start_j[:, None], d[j], -d[j])
    norm = np.linalg.norm(axis, axis=1)
    ok &= norm > 1.5  # both sides leave the tip one way: an acute angle, not its supplement
    # a side's reach: from the tip to its far end
    reach_i, reach_j = np.where(start_i, li - ti, ti), np.where(start_j, lj - tj, tj)
    at, axis, size = at[ok], axis[ok] / norm[ok, None], np.maximum(reach_i, reach_j)[ok]
    # one tip where several pairs of sides meet near one place: a thin drawn side shows two edges, and their pairs
    # meet apart along the axis (edges 2 px apart, a 13-degree tip: 17 px), so the middle of those that do
    groups: list[list[int]] = []
    for k in np.argsort(-size):
        for g in groups:
            rel = at[k] - at[g[0]]
            if axis[k] @ axis[g[0]] >= 0.9 and abs(rel @ axis[g[0]]) <= 4 * near and abs(
                    rel[0] * axis[g[0], 1] - rel[1] * axis[g[0], 0]) <= near:
                g.append(k)
                break
        else:
            groups.append([k])
    out_at = np.array([at[g].mean(0) for g in groups]).reshape(-1, 2)
    out_axis = np.array([axis[g].mean(0) / np.linalg.norm(axis[g].mean(0)) for g in groups]).reshape(-1, 2)
    out_size = np.array([max(size[k] + (at[k] - out_at[n]) @ out_axis[n] for k in g) for n, g in enumerate(groups)])
    return out_at, out_axis, out_size


def _rows(at: np.ndarray, axis: np.ndarray, diag: float) -> list[np.ndarray]:
    """Tips on one line, pointing one way across it: index arrays, largest first, each tip in one row at most, a row
    cut where its tips are far apart."""
    n = len(at)
    i, j = np.triu_indices(n, 1)
    way = axis[i] + axis[j]
    way /= np.maximum(np.linalg.norm(way, axis=1, keepdims=True), 1e-9)
    along = at[j] - at[i]
    dist = np.linalg.norm(along, axis=1)
    along /= np.maximum(dist, 1e-9)[:, None]
    ok = (axis[i] * axis[j]).sum(1) >= np.cos(PAIR_TURN)
    ok &= (dist >= 0.02 * diag) & (np.abs((along * way).sum(1)) <= np.sin(ACROSS))
    i, j, way, along = i[ok], j[ok], way[ok], along[ok]
    normal = np.stack([-along[:, 1], along[:, 0]], 1)
    off = np.abs(((at[None] - at[i][:, None]) * normal[:, None]).sum(2))  # (pairs, n)
    inliers = (off <= ROW_OFF * diag) & ((axis[None] * way[:, None]).sum(2) >= np.cos(ROW_TURN))
    used = np.zeros(n, bool)
    out = []
    for p in np.argsort(-inliers.sum(1), kind="stable"):
        idx = np.where(inliers[p] & ~used)[0]
        if len(idx) < ROW_MIN:
            continue
        t = at[idx] @ along[p]
        idx, t = idx[np.argsort(t)], np.sort(t)
        gaps = np.diff(t)
        usual = np.median(np.sort(gaps)[:max(1, len(gaps) // 2)])
        for part in np.split(idx, np.where(gaps > ROW_GAP * usual)[0] + 1):
            if len(part) >= ROW_MIN:
                used[part] = True
                out.append(part)
    return out


def _spacing(gaps: np.ndarray) -> float:
    """A point's width: the spacing that explains most gaps between neighbouring tips as one to three points (the
    tips of points under stacks are not seen); 0 where none."""
    gaps = gaps[gaps > 0]
    best, width = 0, 0.0
    for p in np.sort(gaps):
        r = gaps / p
        k = np.round(r)
        ok = (np.abs(r - k) < 0.18) & (k >= 1) & (k <= 3)
        if ok.sum() > best:
            best, width = int(ok.sum()), float(np.median(gaps[ok] / k[ok]))
    return width


def _row(at: np.ndarray, axis: np.ndarray, size: np.ndarray):
    """A row's tips in order along it (N, 2) with their axes (N, 2), its direction along them, its mean axis, and
    each tip's longest side (N,) (the row's longest is a point's length: most points' sides end short of the rim,
    under checkers)."""
    c = at.mean(0)
    u = np.linalg.svd(at - c)[2][0]
    o = np.argsort((at - c) @ u)
    ax = axis.mean(0)
    return at[o], axis[o], u, ax / np.linalg.norm(ax), size[o]


def _meet(p: np.ndarray, d: np.ndarray, q: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Where the line through ``p`` along ``d`` meets the one through ``q`` along ``e``."""
    t = np.linalg.solve(np.array([d, -e]).T, q - p)
    return p + t[0] * d


def tip_quads(img: np.ndarray, segs: np.ndarray | None = None) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Quadrilaterals whose long sides are the rims of two rows of points (``img``'s pixels, any corner order;
    ``segs``: its `vision.fieldlines.segments`, where the caller has them), two sets: the rows' tips taken as evenly
    spaced (a camera above the board), and laid on the board's layout through the camera's perspective
    (`layout_quads`: a camera at an angle)."""
    diag = float(np.hypot(*img.shape[:2]))
    at, axis, size = tips(img, segs)
    if len(at) < 2 * ROW_MIN:
        return [], []
    rows = [_row(at[r], axis[r], size[r]) for r in _rows(at, axis, diag)]
    out, laid = [], []
    for a in range(len(rows)):
        for b in range(a + 1, len(rows)):
            (pa, xa, ua, axa, sa), (pb, xb, ub, axb, sb) = rows[a], rows[b]
            if axa @ axb > -0.8 or abs(ua @ ub) < np.cos(np.deg2rad(20)):
                continue  # not pointing opposite ways, or not alike
            if ua @ ub < 0:
                ub, pb, xb, sb = -ub, pb[::-1], xb[::-1], sb[::-1]
            if (pb[0] - pa[0]) @ axa < 0:  # tips facing each other: the rims lie a point's length beyond them
                ra, rb = pa[0] + axa * sa.max(), pb[0] + axb * sb.max()
                laid += layout_quads((pa, xa, sa), (pb, xb, sb))
            else:  # Vs pointing away from each other: the rims
                ra, rb = pa[0], pb[0]
            width = _spacing(np.concatenate([np.diff(pa @ ua), np.diff(pb @ ub)]))
            if width <= 0.01 * diag:
                continue
            u = (ua + ub) / np.linalg.norm(ua + ub)
            # each end: beyond the row's outermost tip that lies further out, across the rows along its axis (lines
            # parallel on the board stay nearly so in the picture)
            first = (pa[0], xa[0], ua) if pa[0] @ u <= pb[0] @ u else (pb[0], xb[0], ub)
            last = (pa[-1], xa[-1], ua) if pa[-1] @ u >= pb[-1] @ u else (pb[-1], xb[-1], ub)
            for kl in ENDS:
                for kh in ENDS:
                    p0, d0 = first[0] - kl * width * first[2], first[1]
                    p1, d1 = last[0] + kh * width * last[2], last[1]
                    try:
                        out.append(np.array([_meet(ra, ua, p0, d0), _meet(ra, ua, p1, d1),
                                             _meet(rb, ub, p1, d1), _meet(rb, ub, p0, d0)]))
                    except np.linalg.LinAlgError:  # an end along a rim: no field
                        continue
    return out, laid




BAR_POINTS = (0.5, 1.0, 1.5, 2.0)  # the bar's width in points' widths, as boards have it
SITE_TOL = 0.25  # a tip lies on its point's site within this share of the points' spacing there
AXIS_TOL = np.sin(np.deg2rad(10))  # and points across the board (along the line to its opposite site) within this
PERSPECTIVE = 3.0  # a row's points seen at most this many times wider at one end than at the other
OBLIQUE = 1.3  # and at least this many times on one of two rows: a camera at an angle
LAYOUT_KEEP = 6  # pairs of rows' fits kept a bar width (the points' edges judge their fields): with few tips a row,
# several explain them alike (tips two points apart fit a board seen twice as large as well)
END_POINTS = (0.0, 0.4)  # each end this many points' widths beyond the outermost point's side


def _sites(bar: float) -> np.ndarray:
    """Where the twelve points' tips of a row lie along it, in points' widths from the field's end: a point
    wide each, ``bar`` wide between the sixth and the seventh."""
    k = np.arange(12)
    return k + 0.5 + bar * (k >= 6)


def _row_fits(t: np.ndarray, bar: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A row's tips at ``t`` (ascending, along its line) as the images of points' sites: every choice of the
    points under them (increasing), with the row's map from the board, t = (a s + b) / (c s + 1) (a homography
    keeps a line's points in order and maps them so), fitted by least squares. Kept where every tip lies within
    `SITE_TOL` of its site and the spacing changes at most `PERSPECTIVE`-fold along the row. Returns the choices
    (M, n) (sites' indices), their maps (M, 3), misfits (M,) (summed, in points' spacings) and how many times wider
    a point is seen at one end of the row than at the other (M,)."""
    n = len(t)
    idx = np.array(list(combinations(range(12), n)))
    s = _sites(bar)[idx]  # (M, n)
    a = np.stack([s, np.ones_like(s), -s * t], 2)
    ata = a.transpose(0, 2, 1) @ a
    ok = np.abs(np.linalg.det(ata)) > 1e-9
    m = np.zeros((len(idx), 3))
    m[ok] = np.linalg.solve(ata[ok], a[ok].transpose(0, 2, 1) @ t[:, None])[..., 0]
    slope = m[:, :1] - m[:, 1:2] * m[:, 2:]  # dt/ds = (a - b c) / (c s + 1)^2
    den = m[:, 2:] * s + 1
    off = np.abs((m[:, :1] * s + m[:, 1:2]) / den - t) / np.maximum(np.abs(slope / den ** 2), 1e-9)
    ends = m[:, 2:] * np.array([0.0, 12 + bar]) + 1  # the field's ends: no vanishing point between them
    ok &= (ends > 0).all(1) & (slope[:, 0] > 0) & (off.max(1) <= SITE_TOL)
    spread = (ends.max(1) / np.maximum(ends.min(1), 1e-9)) ** 2
    ok &= spread <= PERSPECTIVE
    return idx[ok], m[ok], off[ok].sum(1), spread[ok]


def _along(m: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Rows' maps (M, 3) at sites ``s`` ((M, K), (K,), or (L, 1, K): each map at each L's sites): positions along
    their lines ((M, K), or (L, M, K))."""
    return (m[:, :1] * s + m[:, 1:2]) / (m[:, 2:] * s + 1)


def layout_quads(a: tuple, b: tuple) -> list[np.ndarray]:
    """The fields two rows of tips facing each other give through the board's layout (each row as ``(tips (N, 2)
    in order along it, their axes (N, 2), their longest sides (N,))``, the two running the same way). Seen at an
    angle a row's points are not evenly spaced in the picture, but on the board they are: twelve a row with the
    bar among them. Each row is fitted on its own (`_row_fits`: which points its tips are, and how the camera
    spaces them); two rows' fits belong together where every tip's axis runs along the line to its opposite
    point's site (the board's across, however the camera sees it). The likeliest pairs give fields: the ends
    through both rows' ends (`END_POINTS` beyond the outermost points' sides), each rim where the row's side
    reaching furthest ends, on the line through it towards the row's vanishing point."""
    (pa, xa, sa), (pb, xb, sb) = a, b
    u, ub = ((p[-1] - p[0]) / np.linalg.norm(p[-1] - p[0]) for p in (pa, pb))  # each row's line, from its first tip
    ca, cb = pa[0], pb[0]
    across = _vanishing(np.concatenate([pa, pb]), np.concatenate([xa, -xb]))
    ta, tb = (pa - ca) @ u, (pb - cb) @ ub
    out = []
    for bar in BAR_POINTS:
        sites = _sites(bar)
        ia, ma, ea, wa = _row_fits(ta, bar)
        ib, mb, eb, wb = _row_fits(tb, bar)
        if not len(ia) or not len(ib):
            continue
        # each row's tips against the line to the other row's site of the same point: (A fits, B fits, n)
        at_a = ca + _along(ma, sites[ia])[..., None] * u  # (MA, na, 2): A's tips where its fit puts them
        at_b = cb + _along(mb, sites[ib])[..., None] * ub
        turn = np.zeros((len(ia), len(ib)))
        hits = np.zeros((len(ia), len(ib)), int)
        for here, axes, opp in ((at_a[:, None], xa, _opposite(mb, sites[ia], cb, ub)),
                                (at_b[None], xb, _opposite(ma, sites[ib], ca, u).transpose(1, 0, 2, 3))):
            way = here - opp  # from the opposite site towards this tip: its axis's way
            way /= np.maximum(np.linalg.norm(way, axis=3, keepdims=True), 1e-9)
            sin = np.abs(way[..., 0] * axes[..., 1] - way[..., 1] * axes[..., 0])
            sin = np.where((way * axes).sum(3) > 0, sin, 1.0)
            turn += np.minimum(sin / AXIS_TOL, 2.0).sum(2)
            hits += (sin <= AXIS_TOL).sum(2)
        err = turn + ea[:, None] / SITE_TOL + eb[None] / SITE_TOL
        # seen at an angle: a view nearer square on is the evenly spaced outlines' (`tip_quads`), and more hypotheses
        # there only give wrong fields more chances to rate well (two real pictures, 1.7 -> 4.1 % and 3.3 -> 9.1 %)
        fine = (hits >= len(pa) + len(pb) - 1) & (np.maximum(wa[:, None], wb[None]) >= OBLIQUE)
        for k in [k for k in np.argsort(err, axis=None, kind="stable") if fine.flat[k]][:LAYOUT_KEEP]:
            i, j = np.unravel_index(k, err.shape)
            rim_a, rim_b = _rim(pa, xa, sa, u, ma[i]), _rim(pb, xb, sb, ub, mb[j])
            for end in END_POINTS:
                s = np.array([-end, 12 + bar + end])
                ends = (ca + _along(ma[i:i + 1], s)[0][:, None] * u + cb + _along(mb[j:j + 1], s)[0][:, None] * ub) / 2
                lines = [(e, e + _toward(across, e)) for e in ends]
                try:
                    out.append(np.array([_cross(rim_a, lines[0]), _cross(rim_a, lines[1]),
                                         _cross(rim_b, lines[1]), _cross(rim_b, lines[0])]))
                except np.linalg.LinAlgError:
                    continue
    return out


def _vanishing(at: np.ndarray, ways: np.ndarray) -> np.ndarray:
    """Where lines through ``at`` along ``ways`` (N, 2) meet, least squares, as a homogeneous point (3,): the tips'
    axes all run along the board's across, and meet where the camera puts its vanishing point (the ends of the
    field run there too; through two rows' ends alone, tips a point's length apart or less, their way is lost)."""
    lines = np.cross(np.c_[at, np.ones(len(at))], np.c_[at + ways, np.ones(len(at))])
    lines /= np.maximum(np.linalg.norm(lines[:, :2], axis=1, keepdims=True), 1e-12)
    return np.linalg.svd(lines)[2][-1]


def _toward(vp: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The unit way from ``p`` to the homogeneous point ``vp`` (at infinity: its direction)."""
    d = vp[:2] - p * vp[2]  # (vp / w - p) * w: the way, up to sign and scale, finite or not
    return d / max(float(np.linalg.norm(d)), 1e-12)


def _opposite(m: np.ndarray, s: np.ndarray, c: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The other row's sites (its fits ``m`` (MB, 3), its line through ``c`` along ``u``) of the points ``s``
    (MA, n) of this row's fits: (MA, MB, n, 2)."""
    return c + _along(m, s[:, None])[..., None] * u


def _rim(at: np.ndarray, axes: np.ndarray, size: np.ndarray, u: np.ndarray, m: np.ndarray
         ) -> tuple[np.ndarray, np.ndarray]:
    """A row's rim as two points on it: where its side reaching furthest from the tips' line ends, and towards the
    row's vanishing point (its map's limit far along the board), or along the row where that lies at infinity."""
    base = at + axes * size[:, None]
    k = int(np.argmax(np.abs((base - at[0]) @ np.array([-u[1], u[0]]))))
    far = m[0] / m[2] if abs(m[2]) > 1e-6 else np.inf  # t = (a s + b) / (c s + 1) -> a / c
    return base[k], (at[0] + far * u) if abs(far) < 1e5 else base[k] + u


def _cross(p: tuple, q: tuple) -> np.ndarray:
    """Where the line through ``p``'s two points meets the one through ``q``'s."""
    d, e = p[1] - p[0], q[1] - q[0]
    return _meet(p[0], d, q[0], e)
