"""Real dice for the dice classifier: crops cut from the Rune55 photos (numpy + OpenCV only: no torch).

Rune55 v3 (N3VERS4YDIE/dice-recognition, Roboflow, CC BY 4.0): 640x640 photos of dice on tables, one YOLO
box per die, class = the value shown. ``PATH`` (``--real-dice``) holds ``train/``, ``valid/`` and
``test/``, each with ``images/`` and ``labels/``. Training takes train and valid; the test split is never
trained on, and neither is any train/valid photo that is a copy of a test photo: the export holds the same
photos re-encoded, mirrored and turned (see `near_copies`).

Every die is cut as the benchmark cuts it (`box_crop`: the die's box scaled to ``die_px`` in a
`DIE_CROP` crop), with ``die_px`` drawn over the sizes a die has on a rectified board of a real overhead
camera, turned, slightly in perspective, blurred, tinted (97 % of the photos are grey) and JPEG'd.
Labels: the value, flat (the photos show dice lying on tables), not on a checker, the crop's offset.
Negatives: crops of the same photos' table away from every die, at the scale of that photo's dice.

With ``--real-masters`` (a recipe that trains on a GPU) every die is instead cut once as a master
(`real_dice_masters`: upright, centred, its box spanning `MASTER_DIE` px of `MASTER`, kept in the recipe's cache
as WebP) and the crops are cut from the masters afresh in every batch (`vision.train.dice_aug`), at die sizes
`MASTER_PX_RANGE`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..readers import DIE_CROP, DIE_PX

# px a real die spans in the crop: about the default's 24 (a board's dice are read at the scale that brings them
# there, `vision.dicesize`), down to what a 12 mm die spans at the default's scale
DIE_PX_RANGE = (12.0, 30.0)
COPY_HASH_BITS = 12  # of 256: at most this far apart (any turn or mirror) is one photo (see `near_copies`)


@dataclass
class Photo:
    path: Path
    boxes: np.ndarray  # (n, 5): class 0..5 (value - 1), cx, cy, w, h as fractions of the photo

    def in_pixels(self, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
        """The dice's centres (n, 2) and sides (n,: the box's longer side) in a ``w`` x ``h`` photo's pixels."""
        return (np.stack([self.boxes[:, 1] * w, self.boxes[:, 2] * h], 1),
                np.maximum(self.boxes[:, 3] * w, self.boxes[:, 4] * h))


def load_split(root: Path, split: str) -> list[Photo]:
    out = []
    for p in sorted((root / split / "images").glob("*")):
        lab = root / split / "labels" / (p.stem + ".txt")
        if not lab.exists():
            continue
        rows = [r.split() for r in lab.read_text().split("\n")]
        rows = [list(map(float, r)) for r in rows if len(r) == 5]
        if rows:
            out.append(Photo(p, np.array(rows, np.float64)))
    return out


def box_crop(img: np.ndarray, cx: float, cy: float, side: float, die_px: float = DIE_PX) -> np.ndarray:
    """The `DIE_CROP` crop around a die whose box (the larger side, photo px) is ``side``, scaled so the
    die spans ``die_px`` of it (the benchmark's cut; `DIE_PX`: as a die shows on a rectified board)."""
    win = max(int(round(side * DIE_CROP / die_px)), 2)
    crop = cv2.getRectSubPix(img, (win, win), (float(cx), float(cy)))
    return cv2.resize(crop, (DIE_CROP, DIE_CROP), interpolation=cv2.INTER_AREA)


def _dhash(grey: np.ndarray) -> np.ndarray:
    s = cv2.resize(grey, (17, 16), interpolation=cv2.INTER_AREA).astype(np.int16)
    return (s[:, 1:] > s[:, :-1]).ravel()


def _thumb(path: Path) -> np.ndarray:
    return cv2.resize(cv2.imread(str(path), cv2.IMREAD_GRAYSCALE), (32, 32), interpolation=cv2.INTER_AREA)


def near_copies(train: list[Photo], test: list[Photo], bits: int = COPY_HASH_BITS) -> np.ndarray:
    """Which ``train`` photos are copies of a ``test`` photo: no two files are byte-identical, but the
    export holds one photo re-encoded, mirrored or turned by quarter turns in different splits (a 16x16
    difference hash within ``bits`` of one of the 8 turned and mirrored hashes of a test photo; seen by eye:
    up to ~10 bits apart such pairs are one photo, from ~10 on mostly another throw on the same table)."""
    variants = []
    for ph in test:
        t = _thumb(ph.path)
        for k in range(4):
            r = np.rot90(t, k)
            variants += [_dhash(np.ascontiguousarray(r)), _dhash(np.ascontiguousarray(r[:, ::-1]))]
    a = np.array(variants)
    b = np.array([_dhash(_thumb(ph.path)) for ph in train])
    best = np.full(len(b), 256)
    for k in range(0, len(a), 512):
        best = np.minimum(best, (a[k:k + 512, None, :] != b[None]).sum(2).min(0))
    return best <= bits


def training_photos(root: Path, splits=("train", "valid")) -> tuple[list[Photo], dict]:
    """The photos of ``splits`` less copies of photos of the splits not trained on (test, and valid when it is
    kept to choose settings on: a copy trained on would make it no check), and what was left out."""
    photos = [ph for s in splits for ph in load_split(root, s)]
    held = [ph for s in ("train", "valid", "test") if s not in splits for ph in load_split(root, s)]
    copies = near_copies(photos, held) if held else np.zeros(len(photos), bool)
    kept = [ph for ph, c in zip(photos, copies) if not c]
    info = {"splits": list(splits), "photos": len(photos), "copies_left_out": int(copies.sum()),
            "photos_used": len(kept), "dice_used": int(sum(len(ph.boxes) for ph in kept)),
            "test_photos": len(load_split(root, "test"))}
    return kept, info


def _warp_crop(img: np.ndarray, cx: float, cy: float, side: float, die_px: float, angle: float,
               persp: np.ndarray, off: tuple[float, float]) -> np.ndarray:
    """`box_crop` turned by ``angle``, with the crop's corners moved by ``persp`` (4x2 crop px) and its
    centre off the die by ``off`` (crop px). Shrinks by area first, as `box_crop` does."""
    s = die_px / side  # crop px per photo px
    pre = min(1.0, 2.0 * s)  # area-shrink to twice the final scale, then warp (no aliasing)
    win = int(np.ceil(side * DIE_CROP / die_px * 1.6)) + 4
    patch = cv2.getRectSubPix(img, (win, win), (float(cx), float(cy)))
    if pre < 1.0:
        patch = cv2.resize(patch, (max(int(round(win * pre)), 8),) * 2, interpolation=cv2.INTER_AREA)
    ph = patch.shape[0]
    k = s / (ph / win)  # crop px per patch px
    c = DIE_CROP / 2
    src_c = ph / 2
    th = np.deg2rad(angle)
    rot = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]]) * k
    # crop corners -> patch coords under the similarity, then perturb the crop corners for perspective
    corners = np.array([[0, 0], [DIE_CROP, 0], [DIE_CROP, DIE_CROP], [0, DIE_CROP]], np.float64)
    inv = np.linalg.inv(rot)
    src = (corners - c + np.asarray(off)) @ inv.T + src_c
    dst = corners + persp
    M = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))
    return cv2.warpPerspective(patch, M, (DIE_CROP, DIE_CROP), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def _degrade(crop: np.ndarray, rng: np.random.Generator, die_px: float) -> np.ndarray:
    """Tint, blur (a camera that saw the die smaller), JPEG; never so much that the pips of a die of
    ``die_px`` merge (an unreadable crop with a value is a wrong label)."""
    x = crop.astype(np.float32)
    if rng.random() < 0.6:  # grey photos -> any die and table colours
        x = x * rng.uniform(0.55, 1.3, 3)[None, None] + rng.uniform(-20, 20, 3)[None, None]
    if rng.random() < 0.3:  # or light dice turned dark and dark turned light
        x = 255.0 - x
    x = np.clip(x, 0, 255).astype(np.uint8)
    r = rng.random()
    if r < 0.35:
        x = cv2.GaussianBlur(x, (0, 0), float(rng.uniform(0.3, max(0.35, min(1.0, die_px / 24)))))
    elif r < 0.6:  # seen at lower resolution (the die 11 px or more) and upsampled by the rectification
        f = float(rng.uniform(min(0.85, max(0.45, 11.0 / die_px)), 0.9))
        small = cv2.resize(x, (int(DIE_CROP * f),) * 2, interpolation=cv2.INTER_AREA)
        x = cv2.resize(small, (DIE_CROP, DIE_CROP), interpolation=cv2.INTER_LINEAR)
    q = int(rng.integers(35, 96))
    ok, buf = cv2.imencode(".jpg", x, [cv2.IMWRITE_JPEG_QUALITY, q])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def photo_examples(ph: Photo, rng: np.random.Generator, copies: int = 2, negatives: int = 2,
                   jitter: float = 2.5, die_px_range=DIE_PX_RANGE) -> dict[str, list]:
    """Labelled dice classifier examples (die_x, die_y, die_aux as `readers_data.examples`) of one photo."""
    img = cv2.imread(str(ph.path))
    h, w = img.shape[:2]
    out: dict[str, list] = {"die_x": [], "die_y": [], "die_aux": []}
    cs, sides = ph.in_pixels(w, h)
    for (cls, *_), (cx, cy), side in zip(ph.boxes, cs, sides):
        for _ in range(copies):
            die_px = float(rng.uniform(*die_px_range))
            off = np.clip(rng.normal(0, jitter, 2), -8, 8)
            persp = rng.normal(0, 1.5, (4, 2)) if rng.random() < 0.7 else np.zeros((4, 2))
            crop = _warp_crop(img, cx, cy, side, die_px, float(rng.uniform(0, 360)), persp, tuple(off))
            out["die_x"].append(_degrade(crop, rng, die_px))
            out["die_y"].append(int(cls) + 1)
            out["die_aux"].append([0.0, 0.0, -off[0] / (DIE_CROP / 2), -off[1] / (DIE_CROP / 2)])
    # table away from every die, at this photo's dice scale
    side = float(np.median(sides))
    n, tries = 0, 0
    while n < negatives and tries < 30:
        tries += 1
        die_px = float(rng.uniform(*die_px_range))
        half = side * DIE_CROP / die_px / 2
        if 2 * half >= min(w, h):
            break
        x, y = rng.uniform(half, w - half), rng.uniform(half, h - half)
        # no die centre inside the crop (its half-diagonal, crop px): not every die of a photo is boxed alike,
        # and a die wrongly called "not a die" costs more than a table corner
        if (np.hypot(cs[:, 0] - x, cs[:, 1] - y) * die_px / side < 34.0).any():
            continue
        crop = _warp_crop(img, x, y, side, die_px, float(rng.uniform(0, 360)), np.zeros((4, 2)), (0.0, 0.0))
        out["die_x"].append(_degrade(crop, rng, die_px))
        out["die_y"].append(0)
        out["die_aux"].append([0.0, 0.0, 0.0, 0.0])
        n += 1
    return out


def real_dice_examples(root: Path, seed: int, copies: int = 2, negatives: int = 2, splits=("train", "valid"),
                       die_px_range=DIE_PX_RANGE, log=print) -> tuple[dict, dict]:
    """All the real examples (stacked arrays) and a summary of the data for the model card."""
    photos, info = training_photos(Path(root), tuple(splits))
    rng = np.random.default_rng([seed, 55])
    acc: dict[str, list] = {"die_x": [], "die_y": [], "die_aux": []}
    for i, ph in enumerate(photos):
        for k, v in photo_examples(ph, rng, copies, negatives, die_px_range=die_px_range).items():
            acc[k].extend(v)
        if i % 1000 == 0:
            log(f"real dice: {i}/{len(photos)} photos cut")
    out = {"die_x": np.stack(acc["die_x"]), "die_y": np.array(acc["die_y"], np.int64),
           "die_aux": np.array(acc["die_aux"], np.float32)}
    info.update({"examples": len(out["die_y"]), "negatives": int((out["die_y"] == 0).sum()),
                 "copies_per_die": copies, "die_px": list(die_px_range)})
    return out, info


def checked_values(path: Path) -> dict[str, list[int | None]]:
    """Our own values of a split's dice, looked at by eye (``{"photos": {file name: [value or null per box of
    its label file, in order]}}``; null: unreadable at the photo's resolution). Rune55's own classes are wrong
    on some dice (a 4 labelled 6, a 3 labelled 5): a benchmark against them alone counts the reader's right
    answers as misreads."""
    return json.loads(Path(path).read_text())["photos"]


def dice_figures(readers, photos: list[Photo], n: int, die_px: float = DIE_PX,
                 checked: dict[str, list[int | None]] | None = None) -> dict:
    """The dice classifier (`vision.readers.Readers`) on the first ``n`` dice of these photos, each cut by
    `box_crop` at ``die_px``: values right, called not a die, called cocked (every Rune55 die lies flat).
    With ``checked`` (`checked_values`) also the values right against those, unreadable dice left out."""
    right = not_die = total = cocked = right_checked = readable = 0
    for ph in photos:
        img = cv2.imread(str(ph.path))
        h, w = img.shape[:2]
        crops = [box_crop(img, x * w, y * h, max(bw * w, bh * h), die_px) for _, x, y, bw, bh in ph.boxes]
        probs, aux = readers.classify_dice(np.stack(crops))
        ours = (checked or {}).get(ph.path.name)
        for k, t in enumerate(ph.boxes[:, 0].astype(int) + 1):
            total += 1
            not_die += int(probs[k, 0] >= 0.5)
            read = int(np.argmax(probs[k, 1:]) + 1) if probs[k, 0] < 0.5 else 0
            right += int(read == t)
            cocked += int(aux[k, 0] >= 0.0)  # the cocked logit: P >= 0.5
            v = ours[k] if ours is not None else t
            if v is not None:
                readable += 1
                right_checked += int(read == v)
        if total >= n:
            break
    out = {"dice": total, "values_right": round(right / max(total, 1), 3),
           "called_not_a_die": round(not_die / max(total, 1), 3),
           "flat_called_cocked": round(cocked / max(total, 1), 3)}
    if checked is not None:
        out.update({"readable_by_eye": readable, "values_right_checked": round(right_checked / max(readable, 1), 3)})
    return out


def test_metrics(models: Path, root: Path, sizes=(24, 20, 16, 32)) -> dict | None:
    """`dice_figures` of the dice model in ``models`` on every die of ``root``/test at these sizes (px)."""
    from ..readers import Readers

    test = load_split(Path(root), "test")
    if not test:
        return None
    readers = Readers(models, threads=1)
    return {"photos": len(test), "by_die_px": {str(px): dice_figures(readers, test, 10**9, px) for px in sizes}}


# ---------------------------------------------------------------------- masters: each die cut once

MASTER = 96  # px of a master crop
MASTER_DIE = 28  # px the die's box spans in it (the window is MASTER / MASTER_DIE = 3.4 die sides wide)
MASTER_QUALITY = 90  # WebP quality the masters are kept at (about 1 KB each: the cache travels to a GPU machine)
MASTER_PX_RANGE = (12.0, 34.0)  # px the die spans in the crops cut from masters
MASTER_NEGATIVES = 3  # crops of each photo's table with no die at their centre


def photo_masters(ph: Photo, rng: np.random.Generator, negatives: int = MASTER_NEGATIVES) -> tuple[list, list]:
    """One `MASTER` crop per die of ``ph`` (the die's box spanning `MASTER_DIE` px, centred, upright) and
    ``negatives`` crops of its table with no die at their centre, at the scale of its dice; (crops, labels 0..6)."""
    img = cv2.imread(str(ph.path))
    h, w = img.shape[:2]
    cs, sides = ph.in_pixels(w, h)
    crops, ys = [], []

    def cut(x: float, y: float, side: float) -> np.ndarray:
        win = max(int(round(side * MASTER / MASTER_DIE)), 2)
        c = cv2.getRectSubPix(img, (win, win), (float(x), float(y)))
        return cv2.resize(c, (MASTER, MASTER), interpolation=cv2.INTER_AREA if win > MASTER else cv2.INTER_CUBIC)

    for (cls, *_), (cx, cy), side in zip(ph.boxes, cs, sides):
        crops.append(cut(cx, cy, side))
        ys.append(int(cls) + 1)
    side = float(np.median(sides))
    half = side * MASTER / MASTER_DIE / 2
    n = 0
    for _ in range(20 * max(negatives, 1)):
        if n >= negatives or 2 * half >= min(w, h):
            break
        x, y = rng.uniform(half, w - half), rng.uniform(half, h - half)
        # no die centre within 1.2 die sides: no die where the classifier looks, parts of dice at the edges as
        # the crops of a board show them (a die centred there is 29 px or more off the centre at the default's scale)
        if (np.hypot(cs[:, 0] - x, cs[:, 1] - y) < 1.2 * side).any():
            continue
        crops.append(cut(x, y, side))
        ys.append(0)
        n += 1
    return crops, ys


def real_dice_masters(root: Path, seed: int, splits=("train", "valid"), cache: Path | None = None,
                      log=print) -> tuple[dict, dict]:
    """Every real die of ``splits`` (less copies of held photos: `training_photos`) cut once as a master, and
    table crops as not a die: ({"x": (N, MASTER, MASTER, 3) uint8, "y": (N,) 0..6}, summary). Kept in ``cache``
    as WebP (the key names the splits, the seed and the master's geometry)."""
    key = (f"real-dice-masters-n{MASTER_NEGATIVES}-{'-'.join(splits)}-s{seed}-m{MASTER}d{MASTER_DIE}"
           f"q{MASTER_QUALITY}.npz")
    path = cache / key if cache is not None else None
    if path is not None and path.exists():
        z = np.load(path)
        buf, off = z["webp"], z["offsets"]
        x = np.stack([cv2.imdecode(buf[off[i]:off[i + 1]], cv2.IMREAD_COLOR) for i in range(len(off) - 1)])
        info = json.loads(str(z["info"]))
        log(f"real dice masters: {len(x)} from {path}")
        return {"x": x, "y": z["y"]}, info
    photos, info = training_photos(Path(root), tuple(splits))
    rng = np.random.default_rng([seed, 56])
    xs, ys = [], []
    for i, ph in enumerate(photos):
        c, y = photo_masters(ph, rng)
        xs += c
        ys += y
        if i % 1000 == 0:
            log(f"real dice masters: {i}/{len(photos)} photos cut")
    enc = [cv2.imencode(".webp", c, [cv2.IMWRITE_WEBP_QUALITY, MASTER_QUALITY])[1].ravel() for c in xs]
    x = np.stack([cv2.imdecode(e, cv2.IMREAD_COLOR) for e in enc])  # what a cached run gets
    y = np.array(ys, np.int64)
    info.update({"masters": len(y), "negatives": int((y == 0).sum()), "master_px": MASTER,
                 "master_die_px": MASTER_DIE})
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, webp=np.concatenate(enc), offsets=np.cumsum([0] + [len(e) for e in enc]), y=y,
                 info=json.dumps(info))
    return {"x": x, "y": y}, info
