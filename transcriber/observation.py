"""What the camera stage tells the transcriber about one analysed frame.

Everything is in the *physical* board frame (slots as in `vision.geometry`): vision
does not know whose home board is where. Probabilities are stored sparsely on disk
(entries below `EPS` dropped) so a whole match of observations stays small.
JSON Lines: one `FrameObservation.to_json()` per line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

MAX_COUNT = 15
CUBE_VALUES = (1, 2, 4, 8, 16, 32, 64)  # 1: the cube shows 64 in the centre
CUBE_PLACES = ("centre", "top", "bottom", "off")
EPS = 1e-4


@dataclass
class SlotReading:
    """P(count = k) for k = 0..15, for light and for dark checkers on one slot."""

    light: np.ndarray  # (16,)
    dark: np.ndarray  # (16,)

    @classmethod
    def certain(cls, light: int, dark: int) -> SlotReading:
        a, b = np.zeros(MAX_COUNT + 1), np.zeros(MAX_COUNT + 1)
        a[light], b[dark] = 1.0, 1.0
        return cls(a, b)

    def best(self) -> tuple[int, int]:
        return int(np.argmax(self.light)), int(np.argmax(self.dark))

    def confidence(self) -> float:
        return float(self.light.max() * self.dark.max())


@dataclass
class DieReading:
    values: np.ndarray  # (6,) P(value = 1..6)
    xy: tuple[float, float]  # board millimetres
    cocked: float = 0.0  # probability
    on_checker: float = 0.0
    bar_x: float = 0.0  # board x (mm) of the bar's centre line, where the halves meet

    @property
    def value(self) -> int:
        return int(np.argmax(self.values)) + 1

    @property
    def half(self) -> str:
        """'left' or 'right' of the bar as the camera sees it."""
        return "left" if self.xy[0] < self.bar_x else "right"


@dataclass
class CubeReading:
    values: np.ndarray  # (7,) over CUBE_VALUES
    place: dict[str, float]  # over CUBE_PLACES (off the bar, in a tray or on the frame: its owner's side, or centre)
    frame: float = 0.0  # P(it lies off the bar, in a tray or on the frame, rather than on the bar)

    @property
    def value(self) -> int:
        return CUBE_VALUES[int(np.argmax(self.values))]

    @property
    def where(self) -> str:
        return max(self.place, key=self.place.get)


@dataclass
class FrameObservation:
    i: int
    t: float
    status: str = "ok"  # ok, moving (hands / motion: not read in full), no_board, corrupt, black
    calibrated: bool = False
    calib_quality: float = 0.0  # 0..1
    corners: list[list[float]] | None = None  # board corners in the image (TL, TR, BR, BL)
    motion: float = 0.0  # fraction of the board that changed since the previous analysed frame
    occluded: float = 0.0  # fraction of the board covered (hands, arms)
    slots: list[SlotReading] | None = None  # 27, when read
    dice: list[DieReading] = field(default_factory=list)
    cube: CubeReading | None = None
    bar_x: float = 0.0  # board x (mm) of the bar's centre line: dice left of it lie in the left half

    @property
    def quiet(self) -> bool:
        return self.status == "ok" and self.slots is not None

    def to_json(self) -> str:
        d: dict = {"i": self.i, "t": round(self.t, 3), "status": self.status, "calibrated": self.calibrated,
                   "calib_quality": round(self.calib_quality, 3), "motion": round(self.motion, 4),
                   "occluded": round(self.occluded, 4)}
        if self.bar_x:
            d["bar_x"] = round(self.bar_x, 1)
        if self.corners is not None:
            d["corners"] = [[round(float(u), 1), round(float(v), 1)] for u, v in self.corners]
        if self.slots is not None:
            d["slots"] = [[_sparse(s.light), _sparse(s.dark)] for s in self.slots]
        if self.dice:
            d["dice"] = [{"values": _sparse(r.values, 1), "xy": [round(r.xy[0], 1), round(r.xy[1], 1)],
                          "cocked": round(r.cocked, 4), "on_checker": round(r.on_checker, 4)} for r in self.dice]
        if self.cube is not None:
            d["cube"] = {"values": {str(CUBE_VALUES[k]): round(float(p), 4) for k, p in enumerate(self.cube.values)
                                    if p > EPS},
                         "place": {k: round(v, 4) for k, v in self.cube.place.items() if v > EPS}}
            if self.cube.frame > EPS:
                d["cube"]["frame"] = round(self.cube.frame, 4)
        return json.dumps(d, separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str) -> FrameObservation:
        d = json.loads(line)
        obs = cls(i=d["i"], t=d["t"], status=d.get("status", "ok"), calibrated=d.get("calibrated", False),
                  calib_quality=d.get("calib_quality", 0.0), corners=d.get("corners"), motion=d.get("motion", 0.0),
                  occluded=d.get("occluded", 0.0), bar_x=d.get("bar_x", 0.0))
        if "slots" in d:
            obs.slots = [SlotReading(_dense(a, MAX_COUNT + 1), _dense(b, MAX_COUNT + 1)) for a, b in d["slots"]]
        obs.dice = [DieReading(_dense(r["values"], 6, offset=1), tuple(r["xy"]), r.get("cocked", 0.0),
                               r.get("on_checker", 0.0), obs.bar_x) for r in d.get("dice", [])]
        if "cube" in d:
            vals = np.zeros(len(CUBE_VALUES))
            for k, p in d["cube"]["values"].items():
                vals[CUBE_VALUES.index(int(k))] = p
            obs.cube = CubeReading(vals, {k: d["cube"]["place"].get(k, 0.0) for k in CUBE_PLACES},
                                   d["cube"].get("frame", 0.0))
        return obs


def _sparse(p: np.ndarray, offset: int = 0) -> dict[str, float]:
    return {str(k + offset): round(float(v), 4) for k, v in enumerate(p) if v > EPS}


def _dense(d: dict[str, float], n: int, offset: int = 0) -> np.ndarray:
    out = np.zeros(n)
    for k, v in d.items():
        out[int(k) - offset] = v
    s = out.sum()
    return out / s if s > 0 else out
