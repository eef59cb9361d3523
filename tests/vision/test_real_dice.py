"""Real dice: the shipped dice classifier on the Rune55 test split (never trained on; skipped where
../shared/data/real is absent), and the cutting of real training crops (`vision.train.real_dice`) on a
small made-up set in the same form."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.bench.bench_real import DEFAULT_REAL
from vision.geometry import BoardGeometry
from vision.readers import DIE_CROP, DIE_PX, MODELS, Readers
from vision.rectify import SCALE
from vision.train.real_dice import box_crop, dice_figures, load_split, near_copies, photo_examples, training_photos

RUNE55 = DEFAULT_REAL / "dice-rune55"


@pytest.mark.skipif(not (RUNE55 / "test" / "labels").is_dir() or not (MODELS / "dice.onnx").exists(),
                    reason=f"the Rune55 dice photos are not at {RUNE55} (they are never copied into the project)")
def test_shipped_model_reads_real_dice():
    """All 3,011 test dice, cut as on a rectified board: the renders-only model read 12.9 % of the values
    and called 62.8 % of these flat dice cocked."""
    f = dice_figures(Readers(threads=1), load_split(RUNE55, "test"), 10_000, DIE_PX)
    assert f["dice"] > 3000
    assert f["values_right"] >= 0.8, f  # 0.844 measured (eight views; 0.813 in one); the target is 0.99
    assert f["called_not_a_die"] <= 0.02, f
    assert f["flat_called_cocked"] <= 0.01, f


# ---------------------------------------------------------------------- cutting (made-up photos)


def _die_photo(rng: np.random.Generator, n: int) -> tuple[np.ndarray, list[tuple[int, float, float, float]]]:
    """A 320x320 table lit unevenly, with ``n`` white squares of 30..60 px (dice), their YOLO rows."""
    light = cv2.resize(rng.uniform(40, 160, (4, 4)), (320, 320), interpolation=cv2.INTER_CUBIC)
    img = np.repeat((light[..., None] + rng.normal(0, 4, (320, 320, 1))).clip(0, 255), 3, 2).astype(np.uint8)
    rows = []
    while len(rows) < n:
        s = float(rng.uniform(30, 60))
        x, y = rng.uniform(s, 320 - s, 2)
        if any(np.hypot(x - a * 320, y - b * 320) < 3 * s for _, a, b, _ in rows):
            continue
        cv2.rectangle(img, (int(x - s / 2), int(y - s / 2)), (int(x + s / 2), int(y + s / 2)), (240, 240, 240), -1)
        rows.append((int(rng.integers(6)), x / 320, y / 320, s / 320))
    return img, rows


def _write_set(root: Path, split: str, photos) -> None:
    (root / split / "images").mkdir(parents=True)
    (root / split / "labels").mkdir(parents=True)
    for k, (img, rows) in enumerate(photos):
        cv2.imwrite(str(root / split / "images" / f"p{k}.png"), img)
        (root / split / "labels" / f"p{k}.txt").write_text(
            "\n".join(f"{c} {x:.6f} {y:.6f} {s:.6f} {s:.6f}" for c, x, y, s in rows) + "\n")


def test_die_px_is_the_rendered_die():
    """The benchmark and the real crops scale a die to DIE_PX: what a default die spans on the rectified
    board, where the heat-map finds it and the classifier reads it."""
    assert BoardGeometry().die_size * SCALE == DIE_PX


def test_box_crop_scales_the_die_to_die_px():
    img = np.zeros((400, 400, 3), np.uint8)
    cv2.rectangle(img, (170, 170), (229, 229), (255, 255, 255), -1)  # a 60 px die at (200, 200)
    for px in (16, 24):
        crop = box_crop(img, 200.0, 200.0, 60.0, px)
        assert crop.shape == (DIE_CROP, DIE_CROP, 3)
        span = (crop[DIE_CROP // 2, :, 0] > 127).sum()
        assert abs(int(span) - px) <= 1


def test_copies_of_test_photos_are_left_out(tmp_path):
    rng = np.random.default_rng(3)
    test = [_die_photo(rng, 2) for _ in range(3)]
    others = [_die_photo(rng, 2) for _ in range(3)]
    img, rows = test[1]
    copies = [(cv2.flip(img, 1), rows), (np.ascontiguousarray(np.rot90(img)), rows)]
    jpeg = cv2.imdecode(cv2.imencode(".jpg", test[2][0], [cv2.IMWRITE_JPEG_QUALITY, 60])[1], cv2.IMREAD_COLOR)
    _write_set(tmp_path, "test", test)
    _write_set(tmp_path, "train", others + copies + [(jpeg, test[2][1])])
    train = load_split(tmp_path, "train")
    assert near_copies(train, load_split(tmp_path, "test")).tolist() == [False] * 3 + [True] * 3
    kept, info = training_photos(tmp_path, splits=("train",))
    assert len(kept) == 3 and info["copies_left_out"] == 3


def test_real_examples_labels(tmp_path):
    """Dice crops show a die at the centre with its value and the centre's offset; negatives show none."""
    rng = np.random.default_rng(5)
    _write_set(tmp_path, "train", [_die_photo(rng, 2)])
    (ph,) = load_split(tmp_path, "train")
    rows = ph.boxes[:, :4].tolist()
    out = photo_examples(ph, rng, copies=3, negatives=4)
    y = np.array(out["die_y"])
    aux = np.array(out["die_aux"])
    assert sorted(set(y[y > 0])) == sorted({c + 1 for c, *_ in rows}) and (y > 0).sum() == 6
    assert (aux[:, :2] == 0).all()  # flat, not on a checker
    assert np.abs(aux[:, 2:]).max() <= 8 / (DIE_CROP / 2)
    for x, lab, a in zip(out["die_x"], y, aux):
        grey = cv2.cvtColor(x, cv2.COLOR_BGR2GRAY).astype(np.float32)
        # where the die's centre is said to be, the crop differs from its rim (tint and inversion aside)
        cx, cy = DIE_CROP / 2 + a[2] * DIE_CROP / 2, DIE_CROP / 2 + a[3] * DIE_CROP / 2
        centre = grey[int(cy) - 3:int(cy) + 3, int(cx) - 3:int(cx) + 3].mean()
        rim = np.median(np.concatenate([grey[:3].ravel(), grey[-3:].ravel()]))
        if lab > 0:
            assert abs(centre - rim) > 25
        else:
            assert abs(grey[18:30, 18:30].mean() - rim) < 25


def test_held_out_valid_and_its_copies_are_left_out(tmp_path):
    """Trained on train alone, valid is the split settings are chosen on: its copies in train go too."""
    rng = np.random.default_rng(4)
    valid = [_die_photo(rng, 2) for _ in range(2)]
    others = [_die_photo(rng, 2) for _ in range(2)]
    _write_set(tmp_path, "valid", valid)
    _write_set(tmp_path, "train", others + [(cv2.flip(valid[0][0], 0), valid[0][1])])
    kept, info = training_photos(tmp_path, splits=("train",))
    assert len(kept) == 2 and info["copies_left_out"] == 1 and info["splits"] == ["train"]
    kept, info = training_photos(tmp_path, splits=("train", "valid"))
    assert len(kept) == 5 and info["copies_left_out"] == 0


@pytest.mark.skipif(not (MODELS / "dice.onnx").exists(), reason="no shipped dice weights")
def test_dice_read_the_same_turned_by_quarter_turns():
    """The classifier averages the values of the quarter turns and mirror images of each crop: a crop, its
    turns and its mirror read the same values; whether it is a die and the extras (cocked, on a checker,
    the offset) are the unturned crop's."""
    rng = np.random.default_rng(6)
    img, rows = _die_photo(rng, 1)
    _, x, y, s = rows[0]
    crop = box_crop(img, x * 320, y * 320, s * 320)
    r = Readers(threads=1)
    turned = np.stack([np.rot90(crop, k) for k in range(4)] + [crop[:, ::-1]])
    p, aux = r.classify_dice(turned)
    values = p[:, 1:] / p[:, 1:].sum(1, keepdims=True)
    assert np.allclose(values, values[0], atol=1e-5) and np.allclose(p.sum(1), 1.0, atol=1e-5)
    one_p, one_aux = r.classify_dice(crop[None], turns=1)
    assert np.allclose(p[0, 0], one_p[0, 0], atol=1e-5) and np.allclose(aux[0], one_aux[0], atol=1e-5)
