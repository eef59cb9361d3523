"""Measure the readers (through onnxruntime, as shipped) on held-out rendered frames. No torch.

Frames: the held-out colour scheme(s) and rig seeds from `EVAL_SEED0` (never used to train or
calibrate), one profile, corner noise N(0, ``noise``) px per corner coordinate, JPEG at the
profile's quality (standing in for H.264: 60 for standard, 40 for hard, 90 for clean).

Figures (all fractions 0..1 unless named otherwise):

* ``slot_acc``: slots (27 per board) whose most likely (light, dark) count is right;
  ``point_acc``, ``bar_acc``, ``tray_acc`` the same per kind; ``exact_position``: boards whose
  27 slots are all right;
* ``p99_wrong_rate``: among slot reads whose confidence (P of the most likely light count x P of
  the most likely dark count) is >= 0.99, the fraction that is wrong (calibrated: <= ~0.01);
  ``p99_share``: the fraction of slot reads that confident; ``ece``: expected calibration error
  of slot confidence (10 bins);
* dice: ``dice_recall`` (uncocked dice found within 12 mm of where they show),
  ``dice_value_acc`` (their value right), ``dice_false_per_frame`` (detections matching no die),
  ``cocked_acc`` (cocked or not, on all found dice), ``dice_p99_wrong_rate``;
* cube: ``cube_place_acc`` (on the bar, or in a tray / on the frame on the right side: `cube_place`),
  ``cube_value_acc`` (value right where the cube is on the board);
* ``ms_per_board``: mean wall time of `Readers.read_board` (one process, onnxruntime on 2 threads).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from ..dicesize import DiceSize
from ..readers import Readers
from ..synth.scene import end_cube_place
from .readers_data import EVAL_SEED0, HELD_OUT_SCHEMES, Frame, frames

JPEG = {"clean": 90, "standard": 60, "hard": 40}
PER_RIG = 4


def eval_frames(profile: str, n: int, noise: float = 2.0, seed: int = 0, schemes: list[str] | None = None,
                die_size: float = 16.0, shaped: float = 0.0, bar_middle: float = 0.5, cube_ends: float = 0.0,
                bar_free: float = 0.0):
    """``shaped``: the share of boards of a shape of their own (`readers_data.random_shape`), rectified as the
    observer rectifies a real board (its field's corners and measured shape); ``bar_middle``, ``cube_ends``,
    ``bar_free``: see `readers_data.frames` (0: the frames of before)."""
    schemes = schemes or HELD_OUT_SCHEMES
    n_rigs = max(1, -(-n // PER_RIG))
    rig_seeds = [EVAL_SEED0 + 1000 * seed + k for k in range(n_rigs)]
    q = JPEG[profile]
    gen = frames(schemes, rig_seeds, PER_RIG, seed + 424242, profiles=(profile,), corner_noise=(noise, noise),
                 jpeg=(q, q), max_dice=2, die_size=die_size, shaped=shaped, bar_middle=bar_middle,
                 cube_ends=cube_ends, bar_free=bar_free)
    for _, f in zip(range(n), gen):
        yield f


def evaluate(models: Path | str | Readers, profile: str, n: int, noise: float = 2.0, seed: int = 0,
             schemes: list[str] | None = None, die_size: float = 16.0, learn_dice_size: bool = False,
             shaped: float = 0.0, bar_middle: float = 0.5, cube_ends: float = 0.0, bar_free: float = 0.0) -> dict:
    """``learn_dice_size``: read the dice as the observer does, at the scale learnt from the frames so far
    (`vision.dicesize`); else at the default's. ``shaped``: see `eval_frames`."""
    readers = models if isinstance(models, Readers) else Readers(models)
    acc = _Acc()
    size = DiceSize() if learn_dice_size else None
    for f in eval_frames(profile, n, noise, seed, schemes, die_size, shaped, bar_middle, cube_ends, bar_free):
        t = time.perf_counter()
        slots, dice, cube = readers.read_board(f.rect, f.geom, dice_size=size, ends=f.ends)
        acc.ms.append((time.perf_counter() - t) * 1000)
        acc.add(f, slots, dice, cube)
    return acc.result()


def cube_place(f: Frame) -> str:
    """Where the cube reader should place a frame's cube (`CubeReading.where`): on the bar where it lies, and one in
    a tray or on the frame on its owner's side (top or bottom of the board), or in the centre when it shows 64."""
    return f.scene.cube_place if f.cube_mm is None else end_cube_place(f.scene.cube_value, f.cube_mm[1])


class _Acc:
    def __init__(self):
        self.ok = {"point": [], "bar": [], "tray": []}
        self.exact: list[bool] = []
        self.conf: list[float] = []
        self.right: list[bool] = []
        self.die_found, self.die_total, self.die_value_ok, self.false_dice = 0, 0, 0, 0
        self.cocked_ok, self.cocked_n = 0, 0
        self.die_conf: list[float] = []
        self.die_right: list[bool] = []
        self.cube_place_ok, self.cube_value_ok, self.cube_value_n, self.frames = 0, 0, 0, 0
        self.ms: list[float] = []

    def add(self, f: Frame, slots, dice, cube) -> None:
        self.frames += 1
        counts = f.scene.counts
        all_ok = True
        for s, r in enumerate(slots):
            best = r.best()
            right = best == (int(counts[s, 0]), int(counts[s, 1]))
            kind = "point" if s < 24 else "bar" if s == 24 else "tray"
            self.ok[kind].append(right)
            all_ok &= right
            self.conf.append(r.confidence())
            self.right.append(right)
        self.exact.append(all_ok)
        # dice: match each die to the nearest detection within 12 mm of where it shows
        used = set()
        g = f.geom
        for die, x, y in f.dice_px:
            xm, ym = x / 1.5 - g.width / 2, y / 1.5 - g.height / 2
            best, bd = None, 12.0**2
            for k, r in enumerate(dice):
                d2 = (r.xy[0] - xm) ** 2 + (r.xy[1] - ym) ** 2
                if k not in used and d2 < bd:
                    best, bd = k, d2
            if best is not None:
                used.add(best)
                self.cocked_n += 1
                self.cocked_ok += (dice[best].cocked >= 0.5) == die.cocked
            if die.cocked:
                continue
            self.die_total += 1
            if best is not None:
                self.die_found += 1
                right = dice[best].value == die.value
                self.die_value_ok += right
                self.die_conf.append(float(dice[best].values.max()))
                self.die_right.append(right)
        self.false_dice += len(dice) - len(used)
        if cube is not None:
            self.cube_place_ok += cube.where == cube_place(f) and (cube.frame >= 0.5) == (f.cube_mm is not None)
            if f.scene.cube_place != "off":
                self.cube_value_n += 1
                self.cube_value_ok += cube.value == f.scene.cube_value

    def result(self) -> dict:
        def frac(a, b):
            return round(a / b, 5) if b else None

        allok = self.ok["point"] + self.ok["bar"] + self.ok["tray"]
        conf, right = np.array(self.conf), np.array(self.right, bool)
        hi = conf >= 0.99
        bins = np.clip((conf * 10).astype(int), 0, 9)
        ece = sum(abs(conf[bins == b].mean() - right[bins == b].mean()) * (bins == b).mean()
                  for b in range(10) if (bins == b).any())
        dconf, dright = np.array(self.die_conf), np.array(self.die_right, bool)
        dhi = dconf >= 0.99 if len(dconf) else np.zeros(0, bool)
        return {
            "frames": self.frames,
            "slot_acc": frac(sum(allok), len(allok)),
            "point_acc": frac(sum(self.ok["point"]), len(self.ok["point"])),
            "bar_acc": frac(sum(self.ok["bar"]), len(self.ok["bar"])),
            "tray_acc": frac(sum(self.ok["tray"]), len(self.ok["tray"])),
            "exact_position": frac(sum(self.exact), len(self.exact)),
            "p99_wrong_rate": frac(int((~right[hi]).sum()), int(hi.sum())),
            "p99_share": frac(int(hi.sum()), len(conf)),
            "ece": round(float(ece), 5),
            "dice": self.die_total,
            "dice_recall": frac(self.die_found, self.die_total),
            "dice_value_acc": frac(self.die_value_ok, self.die_found),
            "dice_false_per_frame": frac(self.false_dice, self.frames),
            "cocked_acc": frac(self.cocked_ok, self.cocked_n),
            "dice_p99_wrong_rate": frac(int((~dright[dhi]).sum()), int(dhi.sum())),
            "cube_place_acc": frac(self.cube_place_ok, self.frames),
            "cube_value_acc": frac(self.cube_value_ok, self.cube_value_n),
            "ms_per_board": round(float(np.mean(self.ms)), 2) if self.ms else None,
        }
