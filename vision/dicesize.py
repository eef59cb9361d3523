"""How big this board's dice look on the rectified board, learnt from the dice themselves.

The dice classifier reads a die that spans about `readers.DIE_PX` of its crop (a 16 mm die on a board of
the default size). Real boards pair their own dice with their own size of field: the pine folding board's
dice span about twice that once its field is brought to the default's size (31 mm), and read 0 of 29
frames right at the default crop. A board's dice do not change size during a match, so the scale is a
property of the board, like its checker colours: each die candidate is also classified in crops cut at
every scale of `LADDER` (the crop widened by 1/scale and resized to the classifier's size), and the scale
whose readings are surest on average, over the board's dice so far, is the one its dice are read at.

The default scale stays unless another beats it clearly (`MARGIN`) over enough dice (`MIN_DICE`): on a
rendered board the default reads 0.999 sure on average against 0.94 at the next rung; on the pine board
(its first game as footage) 0.50 against 0.95 at 0.4. Only candidates that are dice at the default's crop as
well count. Once `SETTLED_DICE` dice have been seen the choice is kept and the ladder is no longer read (it
costs 48 crop views a die).

While it learns, a die is not read at one scale: its values are those of every scale, weighed by how likely
each is the board's (`weights`: the summed sureness so far, this read's dice included, as log-odds scaled so
that the choice's own threshold, `MARGIN` over `MIN_DICE` dice, is 20 to 1). The pine board's first roll (41)
read 32 at the default's scale; its dice read at the scales the roll itself favours are 41. Carried across
segments in the board state (`to_json`); a board whose dice are changed for others of another size keeps the old
scale until its state is cleared (a known limit).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

LADDER = (1.25, 1.0, 0.8, 0.64, 0.5, 0.4)  # crop scales tried: above 1 for small dice, below for large
MIN_DICE = 10  # die candidates seen before a scale other than the default may be chosen
MARGIN = 0.1  # how much surer on average another scale must read than the default
SETTLED_DICE = 40  # after this many candidates the scale is kept and the ladder no longer read
ODDS = 20.0  # how much likelier a scale is than the default once it beats it by MARGIN over MIN_DICE dice


@dataclass
class DiceSize:
    """Evidence per crop scale: the summed sureness of the die candidates read at it (the chance of a die
    times the share of its likeliest value), and how many candidates."""
    sums: dict[float, float] = field(default_factory=lambda: {s: 0.0 for s in LADDER})
    seen: int = 0

    @property
    def learning(self) -> bool:
        return self.seen < SETTLED_DICE

    @property
    def scale(self) -> float:
        if self.seen < MIN_DICE:
            return 1.0
        mean = {s: v / self.seen for s, v in self.sums.items()}
        best = max(mean, key=mean.get)
        return best if mean[best] >= mean[1.0] + MARGIN else 1.0

    def weights(self) -> dict[float, float]:
        """How likely each scale is this board's, from the evidence so far (they sum to 1): a softmax of the summed
        sureness, with a sureness of `MARGIN` x `MIN_DICE` over the default at `ODDS` to 1."""
        beta = np.log(ODDS) / (MARGIN * MIN_DICE)
        top = max(self.sums.values())
        w = {s: float(np.exp(beta * (v - top))) for s, v in self.sums.items()}
        total = sum(w.values())
        return {s: v / total for s, v in w.items()}

    def learn(self, probs_by_scale: dict[float, np.ndarray]) -> None:
        """``probs_by_scale``: for every scale of the ladder, the (N, 7) probabilities (not a die, 1..6) of
        the same N candidates."""
        n = len(next(iter(probs_by_scale.values())))
        for s, p in probs_by_scale.items():
            values = p[:, 1:] / np.maximum(p[:, 1:].sum(1, keepdims=True), 1e-12)
            self.sums[s] += float(((1.0 - p[:, 0]) * values.max(1)).sum())
        self.seen += n

    def to_json(self) -> dict:
        return {"seen": self.seen, "sums": {str(s): round(v, 4) for s, v in self.sums.items()}}

    @classmethod
    def from_json(cls, d: dict | None) -> DiceSize:
        """`to_json`'s inverse; ValueError where ``d`` is not one."""
        out = cls()
        if not d:
            return out
        try:
            sums = {float(k): float(v) for k, v in (d.get("sums") or {}).items()}
            seen = int(d.get("seen", 0))
        except (AttributeError, TypeError, ValueError):
            raise ValueError("the board's dice size must be {\"seen\": n, \"sums\": {scale: sureness}}") from None
        if set(sums) == set(LADDER):  # evidence for another ladder is not comparable: start again
            out.sums, out.seen = sums, seen
        return out
