"""Observation streams made from simulator truth with a chosen amount of reading noise.

For developing and measuring the decoder apart from the camera stage (the issue's
"decoding alone" figures, and crafted streams for each flag reason): it reads the
truth as a perfect observer would, at the moments the real observer reads (quiet
frames: no hand, nothing moving for `hold` frames; then once per `every_s`), and
blurs each reading the way camera reads err.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from transcriber.observation import (
    CUBE_PLACES,
    CUBE_VALUES,
    MAX_COUNT,
    CubeReading,
    DieReading,
    FrameObservation,
    SlotReading,
)

from ..geometry import BoardGeometry
from .truth import read_truth


@dataclass
class Noise:
    slot_spread: float = 0.01  # probability mass on the neighbouring counts
    slot_misread: float = 0.0  # chance a slot's most likely count is off by one
    dice_misread: float = 0.0  # chance a die's most likely value is wrong
    dice_confidence: float = 0.995


def observations_from_truth(truth_path, noise: Noise | None = None, seed: int = 0, hold_s: float = 0.4,
                            every_s: float = 1.0) -> list[FrameObservation]:
    noise = noise or Noise()
    items = read_truth(truth_path)
    header = next(items)
    hold = max(1, int(round(hold_s * header["fps"])))
    x0, _, x1, _ = BoardGeometry(trays_right=header["rig"]["geometry"]["trays_right"]).bar_rect()
    rng = np.random.default_rng(seed)
    out: list[FrameObservation] = []
    prev_key = None
    still = 0
    last_read = -1e9
    for item in items:
        if item.get("type") != "frame":
            continue
        key = (str(item["slots"]), str([(d["value"], d["xy"]) for d in item["dice"]]), str(item["cube"]),
               item["hands"])
        still = still + 1 if key == prev_key else 0
        prev_key = key
        quiet = still >= hold and not item["hands"] and not any(d["moving"] for d in item["dice"])
        obs = FrameObservation(item["i"], item["t"], status="quiet" if quiet else "moving", calibrated=True,
                               calib_quality=1.0, corners=item["corners"], bar_x=(x0 + x1) / 2)
        if quiet and item["t"] - last_read >= every_s or (quiet and still == hold):
            last_read = item["t"]
            obs.status = "ok"
            obs.slots = [_slot(c, noise, rng) for c in item["slots"]]
            obs.dice = [_die(d, noise, rng, obs.bar_x) for d in item["dice"]]
            obs.cube = _cube(item["cube"])
        out.append(obs)
    return out


def _counts_dist(c: int, noise: Noise, rng: np.random.Generator) -> np.ndarray:
    p = np.zeros(MAX_COUNT + 1)
    peak = c
    if noise.slot_misread and rng.random() < noise.slot_misread:
        peak = int(np.clip(c + rng.choice([-1, 1]), 0, MAX_COUNT))
    p[peak] = 1.0 - 2 * noise.slot_spread
    for n in (c - 1, c + 1, peak - 1, peak + 1):
        if 0 <= n <= MAX_COUNT:
            p[n] += noise.slot_spread
    if peak != c:
        p[c] += 0.3
    p += 1e-5
    return p / p.sum()


def _slot(c, noise, rng) -> SlotReading:
    return SlotReading(_counts_dist(int(c[0]), noise, rng), _counts_dist(int(c[1]), noise, rng))


def _die(d: dict, noise: Noise, rng: np.random.Generator, bar_x: float) -> DieReading:
    v = np.full(6, (1 - noise.dice_confidence) / 5)
    shown = d["value"]
    if noise.dice_misread and rng.random() < noise.dice_misread:
        shown = int(rng.choice([x for x in range(1, 7) if x != d["value"]]))
        v[d["value"] - 1] = 0.25
    v[shown - 1] = noise.dice_confidence
    return DieReading(v / v.sum(), (float(d["xy"][0]), float(d["xy"][1])), 0.95 if d["cocked"] else 0.01,
                      0.9 if d["on_checker"] else 0.01, bar_x)


def _cube(c: dict) -> CubeReading:
    values = np.full(len(CUBE_VALUES), 0.002)
    values[CUBE_VALUES.index(c["value"])] = 0.99
    place = {p: (0.97 if p == c["place"] else 0.01) for p in CUBE_PLACES}
    return CubeReading(values / values.sum(), place)
