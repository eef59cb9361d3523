"""Real dice: the shipped dice classifier on the Rune55 test split (never trained on; skipped where
../shared/data/real is absent), and the cutting of real training crops (`vision.train.real_dice`, and from its
masters `vision.train.dice_aug` where torch is installed) on a small made-up set in the same form."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.bench.bench_real import DEFAULT_REAL, DICE_CHECKED
from vision.geometry import BoardGeometry
from vision.readers import DIE_CROP, DIE_PX, MODELS, Readers
from vision.rectify import SCALE
from vision.train.real_dice import (
    MASTER,
    MASTER_DIE,
    box_crop,
    checked_values,
    dice_figures,
    load_split,
    near_copies,
    photo_examples,
    photo_masters,
    real_dice_masters,
    training_photos,
)

RUNE55 = DEFAULT_REAL / "dice-rune55"


@pytest.mark.skipif(not (RUNE55 / "test" / "labels").is_dir() or not (MODELS / "dice.onnx").exists(),
                    reason=f"the Rune55 dice photos are not at {RUNE55} (they are never copied into the project)")
def test_shipped_model_reads_real_dice():
    """All 3,011 test dice, cut as on a rectified board: the renders-only model read 12.9 % of the values
    and called 62.8 % of these flat dice cocked. Against our own values (`DICE_CHECKED`), on the 1,737 dice
    readable by eye: 98.9 %; 42 % of the test dice are too small, blurred or hidden for anyone to read."""
    f = dice_figures(Readers(threads=1), load_split(RUNE55, "test"), 10_000, DIE_PX, checked_values(DICE_CHECKED))
    assert f["dice"] > 3000
    assert f["values_right"] >= 0.8, f  # 0.865 measured, against Rune55's own classes
    assert f["readable_by_eye"] == 1737, f
    assert f["values_right_checked"] >= 0.97, f  # 0.989 measured; the target is 0.99
    assert f["called_not_a_die"] <= 0.02, f
    assert f["flat_called_cocked"] <= 0.01, f


def test_checked_values_cover_every_test_die():
    """Our values hold one entry per box of every labelled test photo (a box added or lost in the set would
    shift a photo's values onto the wrong dice)."""
    checked = checked_values(DICE_CHECKED)
    assert len(checked) == 717 and sum(len(v) for v in checked.values()) == 3011
    assert all(v is None or 1 <= v <= 6 for vs in checked.values() for v in vs)
    if (RUNE55 / "test" / "labels").is_dir():
        photos = load_split(RUNE55, "test")
        assert {ph.path.name: len(ph.boxes) for ph in photos} == {k: len(v) for k, v in checked.items()}


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


def test_masters_centre_each_die_at_master_die_px(tmp_path):
    """A master per die: the die's box spans MASTER_DIE px at the centre, its value the label; the table crops
    (value 0) hold no die; cached, a second call reads the same (WebP-decoded) masters back."""
    rng = np.random.default_rng(7)
    _write_set(tmp_path / "set", "train", [_die_photo(rng, 2) for _ in range(3)])
    (ph, *_) = load_split(tmp_path / "set", "train")
    crops, ys = photo_masters(ph, np.random.default_rng(0), negatives=1)
    assert sorted(ys[:2]) == sorted(int(c) + 1 for c in ph.boxes[:, 0]) and set(ys[2:]) <= {0}
    for c, y in zip(crops, ys):
        grey = cv2.cvtColor(c, cv2.COLOR_BGR2GRAY)
        assert c.shape == (MASTER, MASTER, 3)
        row = grey[MASTER // 2]
        if y > 0:  # the white square spans MASTER_DIE px of the centre row
            assert abs(int((row > 200).sum()) - MASTER_DIE) <= 2
        else:
            assert (grey[MASTER // 2 - 16:MASTER // 2 + 16, MASTER // 2 - 16:MASTER // 2 + 16] < 200).all()
    first, info = real_dice_masters(tmp_path / "set", 0, ("train",), tmp_path / "cache", log=lambda *_: None)
    again, info2 = real_dice_masters(tmp_path / "nowhere", 0, ("train",), tmp_path / "cache", log=lambda *_: None)
    assert info == info2 and info["masters"] == len(first["y"]) and (first["y"] > 0).sum() == 6
    assert np.array_equal(first["x"], again["x"]) and np.array_equal(first["y"], again["y"])


def test_real_dice_cut_from_masters_put_the_die_where_labelled():
    """`dice_aug.RealDice` cuts crops as `box_crop` would: the die spans the drawn px, turned and mirrored, its
    centre where the offset label says (within a pixel: the slight perspective moves it a little)."""
    torch = pytest.importorskip("torch")
    from vision.train.dice_aug import RealDice

    x = np.full((2, MASTER, MASTER, 3), 60, np.uint8)
    lo, hi = (MASTER - MASTER_DIE) // 2, (MASTER + MASTER_DIE) // 2
    x[:, lo:hi, lo:hi] = 230
    real = RealDice({"x": x, "y": np.array([3, 5])}, "cpu", die_px_range=(24.0, 24.0001))
    real.degrade = lambda crops, die_px, g: crops
    xb, yb, aux = real.batch(32, torch.Generator().manual_seed(0))
    assert xb.shape == (32, 3, DIE_CROP, DIE_CROP) and set(yb.tolist()) <= {3, 5}
    assert (aux[:, :2] == 0).all() and aux[:, 2:].abs().max() <= 8 / (DIE_CROP / 2)
    for crop, a in zip(xb[:, 0].numpy(), aux.numpy()):
        ys, xs = np.nonzero(crop > 150)
        centre = np.array([xs.mean(), ys.mean()]) + 0.5 - DIE_CROP / 2
        assert np.abs(centre - a[2:] * DIE_CROP / 2).max() < 1.2
        assert 0.85 * 24**2 < len(xs) < 1.1 * 24**2


def test_a_second_stage_starts_from_the_first_stages_weights(tmp_path):
    """`train_model(init=...)`: the dice classifier starts from a saved state dict (``--init``, a second stage of
    the recipe); a few steps on made-up crops and masters (``--real-masters``), or real crops cut once (the
    default), then run on the CPU."""
    torch = pytest.importorskip("torch")
    from vision.train.readers import build, train_model

    first = build("dice")
    torch.save(first.state_dict(), tmp_path / "dice.pt")
    rng = np.random.default_rng(8)
    data = {"die_x": rng.integers(0, 255, (16, DIE_CROP, DIE_CROP, 3), dtype=np.uint8),
            "die_y": rng.integers(0, 7, 16), "die_aux": np.zeros((16, 4), np.float32)}
    masters = {"x": rng.integers(0, 255, (4, MASTER, MASTER, 3), dtype=np.uint8), "y": np.array([0, 1, 2, 6])}
    same, summary = train_model("dice", data, 1e-9, 0, lambda *_: None, masters=masters, init=tmp_path / "dice.pt")
    assert summary["steps"] == 0 and summary["init"] == str(tmp_path / "dice.pt")
    assert all(torch.equal(a, b) for a, b in zip(first.state_dict().values(), same.state_dict().values()))
    _, summary = train_model("dice", data, 2.0, 0, lambda *_: None, masters=masters, init=tmp_path / "dice.pt",
                             lr=1e-4)
    assert summary["steps"] >= 1 and summary["lr"] == 1e-4 and summary["real_masters"] == 4
    # the recipe's default: real dice cut once (`real_dice_examples`), drawn beside the rendered ones
    _, summary = train_model("dice", data, 2.0, 0, lambda *_: None, real=data)
    assert summary["steps"] >= 1 and summary["real_examples"] == 16
