"""A board's last read, kept so that the models are spared what has not changed since.

A board lies still for most of a match, and between two reads a play moves a few checkers and the dice: the other
points, and the dice still lying where they lay, show the same pixels to within the camera's noise. `ReadMemo`
keeps each model's outputs for each crop of the last read (a point; a die candidate at one crop scale, in so many
views), and a crop that is the same as then (no more than `SAME_SHARE` of its pixels over `SAME_LEVELS` apart in
any channel) whose outputs are sure (`SURE_READ`) takes them again instead of a run of the model. What is not sure
is read again: the fresh noise is a second opinion (as `vision.observe` repeats an unsure read of a still board).
One memo per board, kept by its `vision.observe.Observer`; the readers without one read everything.

Rendered footage (`bench_live.py`'s game: 52 reads of its 3-minute, 5-fps copy, 2026-12-06): every point whose
reading changed between two reads differed on 655 of its 9,216 pixels or more, by more than 12 levels; 77 % of the
points' crops came from the memo, and the live observer's CPU fell from 7.45 to 6.07 s (one thread; its readings
the same, the dice's probabilities within 0.01). While a new board's dice size is learnt every die is read at six
scales in eight views: a die lying still is read once, not at every read until it is picked up.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import cv2
import numpy as np

SURE_READ = 0.98  # a reading this sure is not repeated while its picture stays the same
SAME_LEVELS = 12  # a crop's pixel may differ by this much (0..255, any channel) and be the same picture ...
SAME_SHARE = 0.002  # ... and this share of its pixels may differ by more (sensor noise, compression)

Outputs = tuple  # a model's outputs, one array per output with a row per crop


def same_crop(a: np.ndarray, b: np.ndarray) -> bool:
    """Two crops (H, W, 3 uint8) show the same picture, to within the camera's noise (counted per channel value:
    a little stricter than per pixel, and a tenth of the cost)."""
    if a.shape != b.shape:
        return False
    return np.count_nonzero(cv2.absdiff(a, b) > SAME_LEVELS) <= SAME_SHARE * a.shape[0] * a.shape[1]


class ReadMemo:
    def __init__(self):
        self._last: dict = {}  # key -> (crop, that crop's outputs: a row of each output), of the last read
        self._now: dict = {}  # the same, of this read
        self.reused = 0  # crops whose outputs were taken again (over the memo's life)
        self.run = 0  # crops run through a model

    def next_read(self) -> None:
        """A new read begins: what the one before did not see is forgotten."""
        self._last, self._now = self._now, {}

    def outputs(self, keys: Sequence[Hashable], crops: np.ndarray, run: Callable[[np.ndarray], Outputs],
                sure: Callable[[Outputs], np.ndarray]) -> Outputs:
        """`run`'s outputs (crops -> arrays, a row per crop) for every crop of ``crops``: the last read's for a crop
        under the same key that is the same picture as then and whose outputs are ``sure`` (outputs -> a bool per
        row), `run`'s for the others (in one batch)."""
        n = len(crops)
        if n == 0:
            return run(crops)
        old = [self._last.get(k) for k in keys]
        same = [i for i in range(n) if old[i] is not None and same_crop(old[i][0], crops[i])]
        if same:  # (sure judged now: for the points, with the board's head of now)
            ok = sure(tuple(np.stack([old[i][1][j] for i in same]) for j in range(len(old[same[0]][1]))))
            same = [i for i, s in zip(same, ok) if s]
        rows: list = [None] * n
        for i in same:
            rows[i] = old[i][1]
            self._now[keys[i]] = old[i]
        todo = [i for i in range(n) if rows[i] is None]
        if todo:
            fresh = run(crops[todo])
            for j, i in enumerate(todo):
                rows[i] = tuple(a[j] for a in fresh)
                self._now[keys[i]] = (crops[i].copy(), rows[i])
        self.reused += len(same)
        self.run += len(todo)
        return tuple(np.stack([r[j] for r in rows]) for j in range(len(rows[0])))
