"""From per-frame observations to settled states: what the board showed while nobody touched it.

A settled state merges consecutive full reads that agree (same most-likely counts in
every slot, same dice, same cube): their log-probabilities are averaged, not summed,
because reads of an unchanged board share the same lighting and the same errors.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from .observation import CUBE_PLACES, CUBE_VALUES, MAX_COUNT, FrameObservation
from .physical import N_SLOTS

LOG_FLOOR = np.log(1e-6)  # one wildly wrong slot read costs at most this much


@dataclass
class DiceRead:
    values: list[np.ndarray]  # per die: P(value 1..6)
    xs: list[float]  # per die: x (mm) from the bar's centre; > 0 is the right half as the camera sees it
    cocked: float  # the largest cocked probability among the dice
    on_checker: float
    ys: list[float] = field(default_factory=list)  # per die: y (mm) on the board

    def order_of(self, other: DiceRead) -> list[int]:
        """For each of these dice, which of ``other``'s (as many) lies there: a reader lists the dice of a
        throw in no fixed order, and averaging reads die by die must not mix two dice."""
        ys, oys = self.ys or [0.0] * len(self.xs), other.ys or [0.0] * len(other.xs)

        def cost(perm) -> float:
            return sum((self.xs[i] - other.xs[j]) ** 2 + (ys[i] - oys[j]) ** 2 for i, j in enumerate(perm))

        return list(min(itertools.permutations(range(len(other.xs))), key=cost))

    def _shifted(self, other: DiceRead, tol_mm: float = 4.0, max_mm: float = 60.0) -> bool:
        """The same dice moved together, as one rigid piece (the same distance apart): the board was knocked
        and read on the old grid until it was found again, not thrown. A new throw does not land so."""
        if len(self.xs) != 2 or len(other.xs) != 2 or len(self.ys) != 2 or len(other.ys) != 2 \
                or self.signature() != other.signature():
            return False
        order = self.order_of(other)
        a = [(self.xs[i], self.ys[i]) for i in range(2)]
        b = [(other.xs[j], other.ys[j]) for j in order]
        moved = max(np.hypot(p[0] - q[0], p[1] - q[1]) for p, q in zip(a, b))
        apart = np.hypot(a[0][0] - a[1][0], a[0][1] - a[1][1]) - np.hypot(b[0][0] - b[1][0], b[0][1] - b[1][1])
        return bool(moved < max_mm and abs(apart) < tol_mm)

    def signature(self) -> tuple:
        return tuple(sorted(int(np.argmax(v)) + 1 for v in self.values))

    def same_throw(self, other: DiceRead | None, tol_mm: float = 12.0) -> bool:
        """The same dice lying where they lay (values may be read differently, and a die may be missed
        in one read; positions do not lie): every die of the sparser read lies where one of the other's did."""
        if other is None or not self.xs or not other.xs:
            return False
        if len(self.xs) == len(other.xs):
            if all(abs(a - b) < tol_mm for a, b in zip(sorted(self.xs), sorted(other.xs))):
                return True
            return self._shifted(other)
        few, many = sorted((self.xs, other.xs), key=len)
        return all(any(abs(a - b) < tol_mm for b in many) for a in few)


@dataclass
class Settle:
    t0: float
    t1: float
    logp: np.ndarray  # (27, 2, 16) averaged log-probabilities of counts
    reads: int = 1
    dice: DiceRead | None = None
    cube_value: np.ndarray | None = None  # P over CUBE_VALUES
    cube_place: dict[str, float] = field(default_factory=dict)
    gap_before: float = 0.0  # seconds without any observation before this settle
    _best: tuple | None = field(default=None, repr=False, compare=False)  # (logp it was of, best_loglik)

    @property
    def best(self) -> np.ndarray:
        return self.logp.argmax(-1)

    def loglik(self, counts: np.ndarray) -> float:
        """log P(this settle | the board holds ``counts``) for (27, 2) physical counts."""
        c = np.clip(counts, 0, MAX_COUNT)
        return float(self.logp[np.arange(N_SLOTS), 0, c[:, 0]].sum() + self.logp[np.arange(N_SLOTS), 1, c[:, 1]].sum())

    def own_tray(self, tray: int, colour: int) -> None:
        """Only one colour is borne off into this tray: read its checkers as that colour, whichever colour
        the reader gave them (on some boards it cannot tell in the tray, where it matters least)."""
        lp = self.logp[tray]
        other = 1 - colour
        both = np.logaddexp(lp[colour] + lp[other, 0], lp[colour, 0] + lp[other])
        both[0] = lp[colour, 0] + lp[other, 0]
        self.logp[tray, colour] = both
        self.logp[tray, other] = LOG_FLOOR
        self.logp[tray, other, 0] = 0.0
        self._best = None

    def best_loglik(self) -> float:
        """The likelihood of the unconstrained most likely reading: what no legal play can beat. (Asked for
        many times per settle by the beam: kept until `logp` changes.)"""
        if self._best is None or self._best[0] is not self.logp:
            self._best = (self.logp, float(self.logp.max(-1).sum()))
        return self._best[1]

    @property
    def cube(self) -> tuple[int, str] | None:
        if self.cube_value is None:
            return None
        return CUBE_VALUES[int(np.argmax(self.cube_value))], max(self.cube_place, key=self.cube_place.get)


def _dice_of(obs: FrameObservation, fixed: list[tuple[float, float]] = ()) -> DiceRead | None:
    """The dice, with x measured from the bar (> 0: the right half as the camera sees it). A "die" where
    one has been read throw after throw is dropped, alone too: something on the board that looks like one
    (read by itself while the dice are picked up, it made a throw of its own). Of more than two left, the
    two lying flattest and read surest are the throw: a third is something else (the cube, read as a cocked
    die, voided every throw it was read beside; a checker's printed ring or dot, read as a 1 or so, unsure, on
    real tournament checkers). Nor is a "die" on the bar: dice count only on the playing surface,
    and what lies on the bar is the cube (read as a die by itself, it made a throw of its own)."""
    dice = [d for d in obs.dice if abs(d.xy[0] - d.bar_x) >= ON_BAR_MM
            and not any(abs(d.xy[0] - x) < FIXTURE_MM and abs(d.xy[1] - y) < FIXTURE_MM for x, y in fixed)]
    if len(dice) > 2:
        keep = sorted(range(len(dice)), key=lambda k: dice[k].cocked + 1.0 - float(np.max(dice[k].values)))[:2]
        dice = [dice[k] for k in sorted(keep)]  # (in the order read)
    if not dice:
        return None
    return DiceRead([d.values for d in dice], [d.xy[0] - d.bar_x for d in dice],
                    max(d.cocked for d in dice), max(d.on_checker for d in dice), [d.xy[1] for d in dice])


ON_BAR_MM = 20.0  # from the bar's centre line: within half its width (bars are 40-60 mm wide)
FIXTURE_MM = 4.0  # a thing that lies still is read within a few mm; dice thrown anew are not
FIXTURE_S = 90.0
FIXTURE_THROWS = 8  # places of dice read beside it (30 mm cells): a throw's partner die is one or two


class FixtureFinder:
    """Places where a "die" is read beside the dice of many throws (FIXTURE_THROWS), for longer than any
    throw lies (FIXTURE_S): not a die, something on the board that looks like one. Observations are added
    one by one (the live path knows only those seen so far)."""

    def __init__(self):
        self.spots: list[list] = []  # x, y, first t, last t, the places of the dice read beside it
        # FIXTURE_MM cells -> the spots first read there (a match reads thousands of places: looking only in
        # the neighbouring cells keeps this linear)
        self.grid: dict[tuple[int, int], list[int]] = {}

    def add(self, o: FrameObservation) -> None:
        spots, grid = self.spots, self.grid
        for d in o.dice:
            gx, gy = int(d.xy[0] // FIXTURE_MM), int(d.xy[1] // FIXTURE_MM)
            near = [k for cx in (gx - 1, gx, gx + 1) for cy in (gy - 1, gy, gy + 1) for k in grid.get((cx, cy), ())
                    if abs(spots[k][0] - d.xy[0]) < FIXTURE_MM and abs(spots[k][1] - d.xy[1]) < FIXTURE_MM]
            if near:
                spot = spots[min(near)]  # the first spot made there
            else:
                grid.setdefault((gx, gy), []).append(len(spots))
                spot = [d.xy[0], d.xy[1], o.t, o.t, set()]
                spots.append(spot)
            spot[3] = o.t
            spot[4].update((round(e.xy[0] / 30), round(e.xy[1] / 30)) for e in o.dice if e is not d)

    def found(self) -> list[tuple[float, float]]:
        return [(x, y) for x, y, t0, t1, beside in self.spots if t1 - t0 > FIXTURE_S and len(beside) >= FIXTURE_THROWS]


def fixtures(observations: list[FrameObservation]) -> list[tuple[float, float]]:
    """The fixtures (`FixtureFinder`) of a whole stream."""
    finder = FixtureFinder()
    for o in observations:
        finder.add(o)
    return finder.found()


class SettleBuilder:
    """Full reads with nothing moving between them are one settled state. Observations are added one by
    one; the last settle may still take more reads (`open`) until something moves."""

    def __init__(self, gap_s: float = 4.0):
        self.gap_s = gap_s
        self.out: list[Settle] = []
        self.last_t: float | None = None
        self.moved = True  # something moved since the last read
        self.gap = 0.0  # the longest stretch without any observation since the last settle began

    @property
    def open(self) -> bool:
        """The last settle may still grow: nothing has moved since its last read."""
        return bool(self.out) and not self.moved

    def add(self, obs: FrameObservation, fixed: list[tuple[float, float]] = ()) -> None:
        step = 0.0 if self.last_t is None else obs.t - self.last_t
        self.last_t = obs.t
        self.gap = max(self.gap, step)
        if step > self.gap_s:
            self.moved = True
        if obs.slots is None:
            if obs.status not in ("quiet",):
                self.moved = True
            return
        probs = np.array([(r.light, r.dark) for r in obs.slots])  # (27, 2, 16)
        logp = np.maximum(np.log(np.maximum(probs, 1e-12)), LOG_FLOOR)
        dice = _dice_of(obs, fixed)
        cube_v = obs.cube.values if obs.cube is not None else None
        cube_p = dict(obs.cube.place) if obs.cube is not None else {}
        prev = self.out[-1] if self.out else None
        if prev is not None and prev.dice is not None and dice is not None and not dice.same_throw(prev.dice):
            # dice lying somewhere else are a new throw, whether or not motion was seen: the camera's motion
            # test can miss pale dice taken up and thrown on a pale board between two keyframes it compares
            self.moved = True
        if prev is not None and not self.moved:
            n = prev.reads
            prev.logp = (prev.logp * n + logp) / (n + 1)
            prev.reads = n + 1
            prev.t1 = obs.t
            if dice is not None and (prev.dice is None or len(dice.values) > len(prev.dice.values)):
                prev.dice = dice  # a die missed before is seen now: the fuller read wins
            elif dice is not None and len(dice.values) == len(prev.dice.values) and dice.same_throw(prev.dice):
                # averaged, cocked and on-a-checker too: a hand brushing a die tilts it in one read
                order = prev.dice.order_of(dice)
                prev.dice = DiceRead([(a * n + dice.values[j]) / (n + 1) for a, j in zip(prev.dice.values, order)],
                                     prev.dice.xs, (prev.dice.cocked * n + dice.cocked) / (n + 1),
                                     (prev.dice.on_checker * n + dice.on_checker) / (n + 1), prev.dice.ys)
            if cube_v is not None and prev.cube_value is not None:
                prev.cube_value = (prev.cube_value * n + cube_v) / (n + 1)
                prev.cube_place = {k: (prev.cube_place.get(k, 0.0) * n + cube_p.get(k, 0.0)) / (n + 1)
                                   for k in prev.cube_place.keys() | cube_p.keys()}
            return
        self.moved = False
        self.out.append(Settle(obs.t, obs.t, logp, 1, dice, cube_v, cube_p, gap_before=self.gap))
        self.gap = 0.0


def settles(observations: list[FrameObservation], gap_s: float = 4.0) -> list[Settle]:
    """The settled states of a whole stream (`SettleBuilder`), its fixtures known from the start."""
    fixed = fixtures(observations)
    builder = SettleBuilder(gap_s)
    for obs in observations:
        builder.add(obs, fixed)
    return builder.out


__all__ = ["CUBE_PLACES", "DiceRead", "FixtureFinder", "Settle", "SettleBuilder", "settles"]
