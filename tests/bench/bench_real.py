"""The vision stage on real pictures of real boards (JSON): board finding, checkers, dice.

    python tests/bench/bench_real.py [--real ../shared/data/real] [--negatives 40] [--dice 10000] [--only FOLDER]
                                     [--per-folder 16] [--follow 40] [--models DIR] [--jitter DRAWS]

Reads the pictures from ../shared/data/real (never copied into the project) and our labels of them,
made by eye, twice (tests/data/real_labels.json: a field is the playing surface, where the points are
painted and the checkers lie; where a raised rim's inner walls show, it ends at their foot). Per folder:

* field: pictures whose playing field is fully in view; corner error (largest of the four, as a share of
  the field's diagonal); within 1.5 % (and 3 %, 5 %); found (quality >= 0.5); wrong but sure (found with an
  error over 5 %: a wrong board passed as found); per folder and over all folders. Negatives: real pictures
  with no board (the dice photos) found as a board.
* checkers: given the labelled corners, points with the right count (and colour, where labelled), whole
  boards exactly right; and the same end to end, from the corners the program found; per folder and over all.
* bars: given the labelled corners, the checkers on the bar (both colours) read right on every picture whose bar
  is labelled; those holding checkers and those empty apart (an empty bar read as holding some: the points beside a
  narrow bar, its fittings).
* adapt: a board learnt from one labelled picture of it (`bgscribe adapt`), read on its other pictures.
* cube on boards: the doubling cube on the real board pictures, read with the labelled field: cubes on the bar
  read right, cubes resting elsewhere on the board (trays, frame) found there and read right, and false cubes on
  the bar and off it.
* follow: a confirmed field followed through a known bump of the camera (real frames of real play, the
  checkers moved between the two), and never moved where the camera stayed put.
* dice: the dice classifier on the CC BY 4.0 Rune55 test split (each die cut out and scaled to the size a
  die has on a rectified board, and smaller: ``by_die_px``); ``--only dice-rune55`` runs this part alone.
* dice on boards: the dice on real board pictures, read with the labelled field (`bgscribe read --field`):
  single pictures (stream frames, photos) at the default's dice size, nothing to learn it from; the pine
  board's two games frame by frame, its dice size learnt over each game as the observer learns it
  (`vision.dicesize`). Dice values right (as multisets), missed, extra (false dice, or wrong values),
  frames whose dice are all right.
* jitter (``--jitter DRAWS``): the checkers, bars, dice and cubes again, each field given a little off (corners
  moved at random within 0.5 % of its diagonal), DRAWS times: how much of a figure is one labelled field's draw.
* speed: board finding per picture scaled to 1280 px wide, one core.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

cv2.setNumThreads(1)  # the seconds a picture are one core's (the target), not OpenCV's pool's

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from vision.dicesize import DiceSize  # noqa: E402
from vision.fieldfind import find_field  # noqa: E402
from vision.readers import DIE_PX, MODELS, Readers  # noqa: E402
from vision.still import read_picture, to_json  # noqa: E402
from vision.train.real_dice import checked_values, dice_figures, load_split  # noqa: E402

LABELS = Path(os.environ.get("BGSCRIBE_REAL_LABELS", ROOT / "tests" / "data" / "real_labels.json"))
PLAY_LABELS = ROOT / "tests" / "data" / "real_play_labels.json"  # the pine board's games (bench_real_play.py)
DICE_CHECKED = ROOT / "tests" / "data" / "rune55_test_checked.json"  # our values of the Rune55 test dice
DEFAULT_REAL = ROOT.parent / "shared" / "data" / "real"
WRONG = 0.05  # a found field off by more than this share of its diagonal is a wrong board
JITTER = 0.005  # `--jitter`: each corner of a given field moved at random within this share of its diagonal
DICE_SIZES = (16, 20, 32)  # px per die in the crop, beside DIE_PX (24: the default 16 mm die; 32: a folding board's)


@lru_cache(maxsize=512)
def _given_reading(path: str, field: tuple) -> dict:
    """`bgscribe read --field`'s JSON of the picture at ``path`` with ``field`` (corners as a tuple of pairs): the
    checkers', bars', dice and cube figures all count from the same reading, read once."""
    return to_json(read_picture(cv2.imread(path), np.array(field, np.float64)))


def given_reading(real: Path, rel: str, field) -> dict:
    """`_given_reading` of the labelled picture ``rel`` with ``field`` (its label's, or one moved a little)."""
    return _given_reading(str(real / rel), tuple(tuple(float(v) for v in c) for c in field))


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner distance over the field's diagonal, for the best matching of the corners (either
    winding, any starting corner: which end is 'top' is the reader's business, not the finder's)."""
    diag = max(np.linalg.norm(truth[0] - truth[2]), np.linalg.norm(truth[1] - truth[3]))
    best = np.inf
    for q in (found, found[::-1]):
        for k in range(4):
            best = min(best, float(np.linalg.norm(np.roll(q, k, 0) - truth, axis=1).max()))
    return best / diag


def _counts(row: list[str]) -> list[tuple[str, int]]:
    return [("", 0) if not p else (p[0], int(p[1:])) for p in row]


def point_figures(read: dict, label: dict, colour: bool = True) -> tuple[int, int, bool]:
    """(points right, points, whole board right) of a reading against a label. Where the label has
    colours (and ``colour``) both must match, up to swapping the two for the whole board (which of two
    colours of one brightness, red and blue, is 'dark' is a convention: telling them apart is what
    counts); rows may be read the other way round (a half turn). The best of these is taken."""
    best = _matched(read, label, colour)[0]
    return best, 24, best == 24


def _matched(read: dict, label: dict, colour: bool = True) -> tuple[int, bool]:
    """`point_figures`' points right, and whether the reading's colours were swapped for it."""
    truth = _counts(label["top"]) + _counts(label["bottom"])
    got = _counts(read["top"]) + _counts(read["bottom"])
    swapped = [({"L": "D", "D": "L"}.get(c, c), n) for c, n in got]
    best = (0, False)
    for g, swap in ((got, False), (got[12:][::-1] + got[:12][::-1], False), (swapped, True),
                    (swapped[12:][::-1] + swapped[:12][::-1], True)):
        right = sum(1 for (tc, tn), (gc, gn) in zip(truth, g)
                    if tn == gn and (tn == 0 or not colour or tc in ("", "?") or tc == gc))
        best = max(best, (right, swap), key=lambda b: b[0])
    return best


def bar_right(read: dict, label: dict) -> bool:
    """Whether the checkers on the bar are read right (light and dark, with the colours as the points' best match
    takes them where the points are labelled; as read where not: the label's light and dark are the checkers'
    brightness)."""
    light, dark = read["bar"]["light"], read["bar"]["dark"]
    if "top" in label and "bottom" in label and _matched(read, label)[1]:
        light, dark = dark, light
    return (light, dark) == (label["bar"]["light"], label["bar"]["dark"])


def measured(labels: dict, only: str | None, per_folder: int) -> list[tuple[str, dict]]:
    """The labelled pictures with their field in view, at most ``per_folder`` of a folder (evenly spread:
    a sequence's frames share one camera)."""
    by: dict = defaultdict(list)
    for rel, lab in sorted(labels.items()):
        folder = rel.split("/")[0]
        if (not only or folder == only) and lab.get("board") and lab.get("field_in_view") and "field" in lab:
            by[folder].append((rel, lab))
    out = []
    for items in by.values():
        idx = np.unique(np.linspace(0, len(items) - 1, min(per_folder, len(items))).round().astype(int))
        out += [items[i] for i in idx]
    return out


def bench_fields(real: Path, labels: dict, only: str | None, per_folder: int) -> tuple[dict, dict, dict]:
    per: dict = defaultdict(lambda: defaultdict(list))
    ends: dict = {}
    bars: dict = {}  # rel -> (read right, the label's checkers on the bar), the field given
    for rel, lab in measured(labels, only, per_folder):
        folder = rel.split("/")[0]
        path = real / rel
        if not path.exists():
            continue
        img = cv2.imread(str(path))
        t0 = time.process_time()
        fit = find_field(img)
        per[folder]["s"].append(time.process_time() - t0)
        err = corner_error(fit.corners, np.array(lab["field"], np.float64))
        f = per[folder]
        f["err"].append(err)
        f["found"].append(fit.found)
        f["wrong_sure"].append(fit.found and err > WRONG)
        f["names"].append((Path(rel).name, round(err, 4), round(fit.quality, 2)))
        points = "top" in lab and "bottom" in lab
        if points or "bar" in lab:
            given = given_reading(real, rel, lab["field"])
        if points:
            e2e = to_json(read_picture(img)) if fit.found else None
            ends[rel] = (point_figures(given, lab), point_figures(e2e, lab) if e2e and "top" in e2e else (0, 24, False),
                         point_figures(given, lab, colour=False))
        if "bar" in lab:
            bars[rel] = (bar_right(given, lab), lab["bar"]["light"] + lab["bar"]["dark"])
    out = {folder: dict(_field_counts(f), each=f["names"]) for folder, f in per.items()}
    if per:
        every = {k: [x for f in per.values() for x in f[k]] for k in ("err", "found", "wrong_sure", "s")}
        out["all folders"] = _field_counts(every)
    return out, ends, bars


def bar_figures(bars: dict) -> dict:
    """The checkers on the bar, the field given, per folder and over all: bars read right; of those holding
    checkers, how many (and right); of the empty ones, how many read as holding some."""
    def counts(items: list) -> dict:
        full = [right for right, n in items if n]
        empty = [right for right, n in items if not n]
        return {"bars": len(items), "right": sum(r for r, _ in items), "holding_checkers": len(full),
                "holding_right": sum(full), "empty": len(empty), "empty_read_holding": len(empty) - sum(empty)}

    by: dict = defaultdict(list)
    for rel, v in bars.items():
        by[rel.split("/")[0]].append(v)
    out = {folder: counts(v) for folder, v in sorted(by.items())}
    out["all folders"] = counts(list(bars.values()))
    return out


def _field_counts(f: dict) -> dict:
    """A set of pictures' field figures: within 1.5 % of the diagonal (the target), 3 % and 5 % (how near the
    misses come), the median error, found, wrong but sure, and the finder's median time on one core (also of the
    pictures found and of those not: a field not sure on the first look is looked for again, `fieldfind.INSETS`)."""
    e, s, found = np.array(f["err"]), np.array(f["s"]), np.array(f["found"], bool)

    def median(x: np.ndarray) -> float | None:
        return round(float(np.median(x)), 2) if len(x) else None

    return {"pictures": len(e), "within_1.5%": int((e <= 0.015).sum()),
            "share_within_1.5%": round(float((e <= 0.015).mean()), 3),
            "within_3%": int((e <= 0.03).sum()), "within_5%": int((e <= WRONG).sum()),
            "median_error": round(float(np.median(e)), 4), "found": int(np.sum(f["found"])),
            "wrong_but_sure": int(np.sum(f["wrong_sure"])), "seconds_per_picture": median(s),
            "seconds_found": median(s[found]), "seconds_not_found": median(s[~found])}


def bench_negatives(real: Path, n: int) -> dict:
    files = sorted((real / "dice-rune55" / "test" / "images").glob("*"))[:n]
    found, q = 0, []
    for p in files:
        fit = find_field(cv2.imread(str(p)))
        found += fit.found
        q.append(fit.quality)
    return {"pictures": len(files), "found_as_board": int(found), "max_quality": round(max(q, default=0.0), 3)}


def bench_dice(real: Path, n: int, split: str = "test", models: Path | None = None) -> dict:
    """The dice classifier on Rune55 dice (all flat; `vision.train.real_dice.dice_figures`): the die spanning
    `DIE_PX` of the crop (a 16 mm die on a rectified board), and ``by_die_px``: smaller, as 11-13 mm dice
    show, or as a 720p camera sees the default die. Against Rune55's labels and against our own, looked at by
    eye (`DICE_CHECKED`: ``values_right_checked``, dice unreadable by eye left out)."""
    readers = Readers(models or MODELS, threads=1)
    photos = load_split(real / "dice-rune55" if (real / "dice-rune55").is_dir() else real, split)
    checked = checked_values(DICE_CHECKED) if DICE_CHECKED.exists() and split == "test" else None
    out = dice_figures(readers, photos, n, DIE_PX, checked)
    out["by_die_px"] = {str(px): dice_figures(readers, photos, n, px, checked) for px in DICE_SIZES}
    return out


def _bump(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A camera knocked on its mount: up to 2 degrees, 3 % of the picture aside, 3 % nearer or further, a
    little tilt (a homography of the picture)."""
    a, s = np.deg2rad(rng.uniform(-2, 2)), 1 + rng.uniform(-0.03, 0.03)
    c = np.array([w / 2, h / 2])
    R = s * np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    H = np.eye(3)
    H[:2, :2], H[:2, 2] = R, c - R @ c + rng.uniform(-0.03, 0.03, 2) * [w, h]
    H[2, :2] = rng.uniform(-2e-5, 2e-5, 2) * 1280 / w
    return H


def bench_follow(real: Path, labels: dict, pairs: int = 40, seed: int = 0) -> dict:
    """A confirmed field followed through bumps (vision.follow) on real play: each pair is a frame of the
    pine board's sequences (the anchor) and one five frames later (checkers moved, hands), that one bumped
    by a known homography; and the same pairs unbumped, where nothing may move."""
    from vision.follow import Anchor

    rng = np.random.default_rng(seed)
    seqs = defaultdict(list)
    for rel, d in sorted(labels.items()):
        if rel.startswith("sequences-wood-board/") and d.get("field"):
            seqs[rel.split("/")[1]].append((rel, np.asarray(d["field"], np.float64)))
    todo = [(frames[i], frames[i + 5][0]) for frames in seqs.values() for i in range(0, len(frames) - 5, 2)]
    todo = [todo[int(k)] for k in np.linspace(0, len(todo) - 1, min(pairs, len(todo)))] if todo else []
    errors, moved_still, ms = [], 0, []
    for (rel, field), rel2 in todo:
        img, img2 = cv2.imread(str(real / rel)), cv2.imread(str(real / rel2))
        if img is None or img2 is None:
            continue
        gray, gray2 = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.cvtColor(img2, cv2.COLOR_BGR2GRAY)
        h, w = gray.shape
        H = _bump(rng, w, h)
        anchor = Anchor.take(gray, field)
        t0 = time.perf_counter()
        got = anchor.follow(cv2.warpPerspective(gray2, H, (w, h))) if anchor is not None else None
        ms.append(1000 * (time.perf_counter() - t0))
        truth = cv2.perspectiveTransform(np.float32(field)[None], H)[0]
        errors.append(np.inf if got is None else corner_error(got, truth))
        moved_still += anchor is not None and anchor.follow(gray2) is not None
    e = np.array(errors)
    return {"bumped": {"pairs": len(e), "followed": int(np.isfinite(e).sum()),
                       "within_0.5%": int((e <= 0.005).sum()), "within_1.5%": int((e <= 0.015).sum()),
                       "median_error": round(float(np.median(e)), 4) if len(e) else None},
            "still": {"pairs": len(e), "moved": int(moved_still)},
            "ms_per_check": round(float(np.median(ms)), 1) if ms else None}


# pictures of one board each (the same board, other frames or another camera), for learning a board
SAME_BOARD = {"pine (two cameras)": ["sequences-wood-board/seq_F_1280x720/frame_18_1.58.jpg",
                                     "sequences-wood-board/seq_G_1064x600/frame_7_1.50.jpg"],
              "fmgammon stream": ["streams/test10.jpg", "streams/test11.jpg", "streams/test12.jpg"]}


def learnt_readings(real: Path, labels: dict, src: str, others) -> list[tuple[dict, dict, dict]]:
    """A board learnt from the labelled picture ``src`` (vision.adapt), then each of ``others`` read as
    shipped and as learnt: (before, after, label) a picture, `read_picture`'s JSON."""
    from vision.adapt import adapt_to_picture

    img, lab = cv2.imread(str(real / src)), labels[src]
    r = read_picture(img, np.array(lab["field"], np.float64))
    adapter = adapt_to_picture(img, r.corners, r.fit.geometry(), lab["top"], lab["bottom"])
    out = []
    for dst in others:
        o, olab = cv2.imread(str(real / dst)), labels[dst]
        field = np.array(olab["field"], np.float64)
        out.append((to_json(read_picture(o, field)), to_json(read_picture(o, field, adapter=adapter)), olab))
    return out


def bench_adapt(real: Path, labels: dict) -> dict:
    """A board learnt from one labelled picture of it, read on its other pictures: points right (count and
    colour; count alone) before and after, every picture in turn the one learnt from."""
    out = {}
    for board, pics in SAME_BOARD.items():
        pics = [p for p in pics if (real / p).exists() and "top" in labels.get(p, {})]
        f = np.zeros(5, int)  # before, after, before (counts), after (counts), points
        for src in pics:
            for before, after, olab in learnt_readings(real, labels, src, [p for p in pics if p != src]):
                f += [point_figures(before, olab)[0], point_figures(after, olab)[0],
                      point_figures(before, olab, colour=False)[0], point_figures(after, olab, colour=False)[0], 24]
        if f[4]:
            out[board] = {"pictures": len(pics), "points": int(f[4]), "right_before": round(f[0] / f[4], 3),
                          "right_after": round(f[1] / f[4], 3), "counts_right_before": round(f[2] / f[4], 3),
                          "counts_right_after": round(f[3] / f[4], 3)}
    return out


def _dice_match(read: list[int], labelled: list[int]) -> tuple[int, int, int]:
    """(values right, missed, extra) of the dice read against the labelled ones, as multisets."""
    left, right = list(labelled), 0
    for v in read:
        if v in left:
            left.remove(v)
            right += 1
    return right, len(labelled) - right, len(read) - right


def read_sequence(real: Path, seq: dict, adapter=None) -> tuple[list[tuple[dict, dict]], DiceSize]:
    """A labelled sequence of real play (`PLAY_LABELS`): its frames with no hand over the board, in order, each
    read as a still with the labelled field (``adapter``: the board's own points head), the board's dice size
    learnt over them as the observer learns it, and its profile as the first frame's read measures it (a board is
    read in one geometry, as the observer keeps it in the board's state). Returns (frame label, reading JSON) each,
    and that size."""
    field, size, out, profile = np.array(seq["field"], np.float64), DiceSize(), [], None
    for fr in sorted(seq["frames"], key=lambda f: f["order"]):
        if fr.get("partial"):
            continue  # a hand over the board: its dice may be in the hand
        img = cv2.imread(str(real / seq["folder"] / fr["file"]))
        r = read_picture(img, field, adapter=adapter, dice_size=size, profile=profile)
        profile = profile or r.fit.geometry().field_shape()
        out.append((fr, to_json(r)))
    return out, size


def bench_board_dice(real: Path, labels: dict) -> dict:
    tot: dict = {}

    def add(source: str, read: list[int], labelled: list[int]) -> None:
        f = tot.setdefault(source, {"frames": 0, "dice": 0, "values_right": 0, "missed": 0, "extra": 0,
                                    "frames_all_right": 0})
        right, missed, extra = _dice_match(read, labelled)
        f["frames"] += 1
        f["dice"] += len(labelled)
        f["values_right"] += right
        f["missed"] += missed
        f["extra"] += extra
        f["frames_all_right"] += sorted(read) == sorted(labelled)

    def values(r: dict) -> list[int]:
        return [d["value"] for d in r["dice"]]

    for rel, lab in labels.items():
        if isinstance(lab, dict) and "dice" in lab and "field" in lab and (real / rel).exists():
            add(rel.split("/")[0], values(given_reading(real, rel, lab["field"])), lab["dice"])
    scales = {}
    for name, seq in json.loads(PLAY_LABELS.read_text())["sequences"].items():
        if not (real / seq["folder"]).is_dir():
            continue
        reads, size = read_sequence(real, seq)
        for fr, r in reads:
            add("pine games (dice size learnt)", values(r), fr.get("dice") or [])
        scales[name] = size.scale
    for f in tot.values():
        f["share_right"] = round(f["values_right"] / max(f["dice"], 1), 3)
    if scales:
        tot["pine games (dice size learnt)"]["scale_learnt"] = scales
    return tot


def bench_cube(real: Path, labels: dict) -> dict:
    """The doubling cube on the real board pictures, read with the labelled field (`bgscribe read --field`), per
    folder: cubes on the bar (read on the bar with the right value: a 64 in the bar's middle is a centred cube, 1),
    cubes elsewhere on the board (in a tray, on the frame: found there, and with the right value where the face is
    legible: a 64 there is the centred cube, 1), pictures with no cube on the bar that read one there (false cubes:
    a printed board's middle, a checker on the bar), and pictures with no cube off the bar that read one there."""
    tot: dict = {}
    for rel, lab in sorted(labels.items()):
        if not (isinstance(lab, dict) and "cube" in lab and "field" in lab and (real / rel).exists()):
            continue
        cube = lab["cube"]
        read = given_reading(real, rel, lab["field"])["cube"]
        f = tot.setdefault(rel.split("/")[0], {"pictures": 0, "on_bar": 0, "on_bar_right": 0, "elsewhere": 0,
                                               "elsewhere_found": 0, "elsewhere_legible": 0, "elsewhere_right": 0,
                                               "not_on_bar": 0, "false_on_bar": 0, "false_elsewhere": 0})
        f["pictures"] += 1
        on_bar = read["where"] == "bar"
        if cube["where"] == "bar":
            want = 1 if cube["face"] == 64 and cube.get("bar_end") == "centre" else cube["face"]
            f["on_bar"] += 1
            f["on_bar_right"] += on_bar and read["value"] == want
            continue
        f["not_on_bar"] += 1
        f["false_on_bar"] += on_bar
        if cube["where"] in ("frame", "field"):
            f["elsewhere"] += 1
            f["elsewhere_found"] += read["where"] == "frame"
            if cube["face"] is not None:  # (a face nobody can read is found or not, never right)
                f["elsewhere_legible"] += 1
                want = 1 if cube["face"] == 64 else cube["face"]  # a 64 off the bar is the centred cube
                f["elsewhere_right"] += read["where"] == "frame" and read["value"] == want
        else:
            f["false_elsewhere"] += read["where"] == "frame"
    if tot:
        tot["all folders"] = {k: sum(f[k] for f in tot.values()) for k in next(iter(tot.values()))}
    return tot


def jittered(labels: dict, rng: np.random.Generator, reach: float) -> dict:
    """The labels with every field's corners moved at random, each within ``reach`` of the field's diagonal: what a
    finder or a tracker a little off gives the readers."""
    out = {}
    for rel, lab in labels.items():
        if isinstance(lab, dict) and "field" in lab:
            q = np.array(lab["field"], np.float64)
            diag = max(np.linalg.norm(q[0] - q[2]), np.linalg.norm(q[1] - q[3]))
            r = reach * diag * np.sqrt(rng.random(4))
            a = rng.uniform(0.0, 2 * np.pi, 4)
            lab = dict(lab, field=(q + np.stack([r * np.cos(a), r * np.sin(a)], 1)).tolist())
        out[rel] = lab
    return out


def bench_jitter(real: Path, labels: dict, draws: int, reach: float = JITTER, seed: int = 0) -> dict:
    """The readers' figures on the real pictures, the field given a little off (`jittered`), ``draws`` times: the
    checkers, the bar, the dice and the cube. A read at a decision's edge turns on a few pixels of the field, so one
    labelled field's figures are one draw among these."""
    rng = np.random.default_rng(seed)
    out: dict = defaultdict(list)
    for _ in range(draws):
        labs = jittered(labels, rng, reach)
        right = n = 0
        bars: dict = {}
        for rel, lab in measured(labs, None, 100):
            if not ("top" in lab or "bar" in lab) or not (real / rel).exists():
                continue
            read = given_reading(real, rel, lab["field"])
            if "top" in lab and "bottom" in lab:
                r, k, _ = point_figures(read, lab)
                right, n = right + r, n + k
            if "bar" in lab:
                bars[rel] = (bar_right(read, lab), lab["bar"]["light"] + lab["bar"]["dark"])
        out["points_right_given_field"].append(round(right / max(n, 1), 3))
        b = bar_figures(bars)["all folders"]
        for k in ("right", "holding_right", "empty_read_holding"):
            out[f"bars_{k}"].append(b[k])
        dice = bench_board_dice(real, labs)
        for folder in ("streams", "photos-jvitors23"):
            if folder in dice:
                out[f"dice_{folder}_right_missed_extra"].append(
                    [dice[folder][k] for k in ("values_right", "missed", "extra")])
        cube = bench_cube(real, labs).get("all folders", {})
        for k in ("on_bar_right", "elsewhere_found", "elsewhere_right", "false_on_bar", "false_elsewhere"):
            out[f"cube_{k}"].append(cube.get(k))
    return {"reach": reach, "draws": draws, **out}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--real", type=Path, default=DEFAULT_REAL, help="the real pictures (default: %(default)s)")
    ap.add_argument("--negatives", type=int, default=40, help="pictures without a board (default: %(default)s)")
    ap.add_argument("--dice", type=int, default=10_000, help="real dice to classify, in the order of the photos' names "
                    "(default: %(default)s: all 3,011)")
    ap.add_argument("--follow", type=int, default=40, help="pairs of real frames for following a bump "
                    "(default: %(default)s)")
    ap.add_argument("--only", metavar="FOLDER", help="one folder of pictures (dice-rune55: the dice alone)")
    ap.add_argument("--models", type=Path, help="reader weights for the dice (default: the shipped models/)")
    ap.add_argument("--per-folder", type=int, default=16, help="at most this many pictures of a folder, evenly "
                    "spread (default: %(default)s)")
    ap.add_argument("--jitter", type=int, default=0, metavar="DRAWS", help="also read the labelled pictures with "
                    f"their fields' corners moved at random within {JITTER * 100:.1f} %% of the diagonal, DRAWS times "
                    "(default: %(default)s): how the readers' figures hold with a field a little off")
    args = ap.parse_args()
    if not args.real.is_dir():
        print(json.dumps({"benchmark": "real", "skipped": f"no real pictures at {args.real}"}))
        return
    if not LABELS.exists():
        print(json.dumps({"benchmark": "real", "skipped": f"no labels at {LABELS}"}))
        return
    labels = json.loads(LABELS.read_text())["pictures"]
    fields, ends, bars = bench_fields(args.real, labels, args.only, args.per_folder)
    out: dict = {"benchmark": "real", "field": fields}
    # given right, points, boards right, boards, e2e right, e2e boards, counts right (colour aside)
    pts = defaultdict(lambda: [0, 0, 0, 0, 0, 0, 0])
    for rel, ((r, n, whole), (r2, _, whole2), (r3, _, _)) in ends.items():
        f = pts[rel.split("/")[0]]
        f[6] += r3
        f[0] += r
        f[1] += n
        f[2] += whole
        f[3] += 1
        f[4] += r2
        f[5] += whole2
    if pts:
        pts["all folders"] = [sum(v[i] for v in pts.values()) for i in range(7)]
    out["checkers"] = {k: {"boards": v[3], "points_right_given_field": round(v[0] / v[1], 3),
                           "counts_right_given_field": round(v[6] / v[1], 3),
                           "boards_right_given_field": v[2], "points_right_end_to_end": round(v[4] / v[1], 3),
                           "boards_right_end_to_end": v[5]}
                       for k, v in pts.items()}
    if bars:
        out["bars"] = bar_figures(bars)
    if args.negatives and not args.only:
        out["no_board"] = bench_negatives(args.real, args.negatives)
    if args.dice and args.only in (None, "dice-rune55"):
        out["dice_rune55_test"] = bench_dice(args.real, args.dice, models=args.models)
    if not args.only:
        out["dice_on_boards"] = bench_board_dice(args.real, labels)
        out["cube_on_boards"] = bench_cube(args.real, labels)
    if args.follow and not args.only:
        out["follow"] = bench_follow(args.real, labels, args.follow)
    if not args.only:
        out["adapt"] = bench_adapt(args.real, labels)
    if args.jitter and not args.only:
        out["jitter"] = bench_jitter(args.real, labels, args.jitter)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
