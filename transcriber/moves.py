"""Legal plays: generation, notation and parsing.

Points are in the mover's numbering: 24..1, 25 is the bar and 0 is off.
A `Play` is identified by the position it produces: two step sequences that
end in the same position are the same play (as in XG and GNU Backgammon).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .errors import NotationError
from .position import BAR, Position, Side

Step = tuple[int, int, bool]  # (from, to, hit) in the mover's numbering; 25 = bar, 0 = off


@dataclass(frozen=True, slots=True)
class Play:
    """One legal play: checker steps in an order they can be made, and the position they produce."""

    dice: tuple[int, int]
    steps: tuple[Step, ...]
    result: Position

    @property
    def notation(self) -> str:
        return format_steps(self.steps)

    @property
    def step_notation(self) -> str:
        """One ``from/to`` per die, highest point first, as GNU Backgammon's .mat export writes it."""
        return " ".join(f"{a}/{b}{'*' if h else ''}" for a, b, h in _canonical(self.steps))

    @property
    def pips(self) -> int:
        return sum(a - b for a, b, _ in self.steps)

    def __str__(self) -> str:
        return self.notation or "Cannot Move"


# --------------------------------------------------------------------- generation


def legal_plays(position: Position, player: int, dice: tuple[int, int]) -> list[Play]:
    """Every legal play for ``player`` rolling ``dice``; ``[]`` is never returned:
    when nothing can move the single play has no steps ("Cannot Move")."""
    d1, d2 = dice
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise ValueError(f"dice must be 1..6, got {dice}")
    me, op = position.sides[player], position.sides[1 - player]
    found = _generate(me, op, max(d1, d2), min(d1, d2))
    dice_t = (d1, d2)
    if player == 0:
        return [Play(dice_t, steps, Position.trusted((a, b))) for (a, b), steps in found]
    return [Play(dice_t, steps, Position.trusted((b, a))) for (a, b), steps in found]


@lru_cache(maxsize=65536)
def _generate(me: Side, op: Side, hi: int, lo: int) -> tuple[tuple[tuple[Side, Side], tuple[Step, ...]], ...]:
    """Distinct results of the longest legal step sequences (``hi >= lo``)."""
    results: dict[tuple[Side, Side], tuple[Step, ...]] = {}
    best = [0]  # most dice used by any sequence found so far
    m, o = list(me), list(op)
    if hi == lo:
        _search(m, o, (hi,) * 4, 0, 24, [], results, best, True)
    else:
        _search(m, o, (hi, lo), 0, 24, [], results, best, False)
        by_hi = dict(results) if best[0] == 1 else None  # the larger die alone (the smaller first may play both)
        _search(m, o, (lo, hi), 0, 24, [], results, best, False)
        if by_hi is not None and best[0] == 1:  # only one die can be played: the larger one must be
            results = by_hi
    if not results:
        return (((me, op), ()),)
    return tuple(results.items())


def _search(m, o, dice, depth, max_src, steps, results, best, doubles) -> None:
    """Depth-first over dice; records positions reached by the longest sequences."""
    moved = False
    if depth < len(dice):
        d = dice[depth]
        sources = (BAR,) if m[BAR] else range(min(max_src, 23), -1, -1)
        highest = -1
        for i in sources:
            if not m[i]:
                continue
            t = i - d
            if t >= 0:
                opp = 23 - t
                if o[opp] > 1:
                    continue
                hit = o[opp] == 1
                m[i] -= 1
                m[t] += 1
                if hit:
                    o[opp] = 0
                    o[BAR] += 1
                steps.append((i + 1, t + 1, hit))
                _search(m, o, dice, depth + 1, i if doubles else 24, steps, results, best, doubles)
                steps.pop()
                if hit:
                    o[BAR] -= 1
                    o[opp] = 1
                m[t] -= 1
                m[i] += 1
                moved = True
            else:  # bearing off
                if highest < 0:
                    highest = max(j for j in range(25) if m[j])
                if highest > 5 or (t < -1 and i != highest):
                    continue
                m[i] -= 1
                steps.append((i + 1, 0, False))
                _search(m, o, dice, depth + 1, i if doubles else 24, steps, results, best, doubles)
                steps.pop()
                m[i] += 1
                moved = True
    if moved:
        return
    if depth > best[0]:
        best[0] = depth
        results.clear()
    if depth == best[0] and depth:
        key = (tuple(m), tuple(o))
        if key not in results:
            results[key] = tuple(steps)


def _canonical(steps: list[Step]) -> tuple[Step, ...]:
    """Steps from the highest point down (always a valid order: the bar first, a
    checker's own steps in turn, checkers coming home before bearing off), with
    each hit on the first step that lands on the hit point."""
    hits = {b for _, b, h in steps if h}
    out = []
    for a, b, _ in sorted(steps, key=lambda s: (-s[0], -s[1])):
        out.append((a, b, b in hits))
        hits.discard(b)
    return tuple(out)


# --------------------------------------------------------------------- notation


@lru_cache(maxsize=1 << 16)  # the decoder names the same few thousand plays over and over
def format_steps(steps: tuple[Step, ...]) -> str:
    """Canonical combined notation: ``24/13``, ``13/7(2)``, ``bar/22*``, ``6/off``, ``13/7*/5``."""
    paths: list[list] = []  # [points..., hits...] per checker: [[from, to], {hit points}]
    for a, b, h in steps:
        for p in paths:  # the same checker continuing from where it stopped
            if p[0][-1] == a and a != 0:
                p[0].append(b)
                if h:
                    p[1].add(b)
                break
        else:
            paths.append([[a, b], {b} if h else set()])
    texts = []
    for pts, hits in paths:
        # A checker's intermediate stops are shown only where it hit.
        shown = [pts[0]] + [q for q in pts[1:-1] if q in hits] + [pts[-1]]
        texts.append("/".join(_point_name(q) + ("*" if q in hits else "") for q in shown))
    texts.sort(key=_sort_key)
    out, i = [], 0
    while i < len(texts):
        j = i
        while j < len(texts) and texts[j] == texts[i]:
            j += 1
        out.append(texts[i] + (f"({j - i})" if j - i > 1 else ""))
        i = j
    return " ".join(out)


def _point_name(p: int) -> str:
    return "bar" if p == 25 else "off" if p == 0 else str(p)


def _sort_key(text: str) -> tuple[int, int]:
    a, *_, b = text.replace("*", "").split("/")
    num = {"bar": 25, "off": 0}
    return (-num.get(a, int(a) if a.isdigit() else 0), -num.get(b, int(b) if b.isdigit() else 0))


_TOKEN = re.compile(r"^(?P<path>[^()]+?)\s*(?:\((?P<n>\d+)\))?$")
_POINT = re.compile(r"^(bar|b|off|o|\d{1,2})(\*?)$")


def parse_paths(text: str) -> list[tuple[list[int], set[int], int]]:
    """Parse play notation into checker paths ``(points, hit points, count)``.

    Tolerant of ``bar``/``b``/``25``, ``off``/``o``/``0``, ``*`` present or missing,
    combined steps (``24/13``, ``13/7*/5``), ``(n)`` repeats, commas and extra spaces.
    """
    text = text.strip().lower().replace(",", " ")
    if text in ("", "cannot move", "can't move", "no move", "----"):
        return []
    out = []
    for tok in text.split():
        m = _TOKEN.match(tok)
        if not m:
            raise NotationError(f"cannot read {tok!r} as a checker move")
        parts = m.group("path").split("/")
        if len(parts) < 2:
            raise NotationError(f"{tok!r}: a move needs from/to")
        pts: list[int] = []
        hits: set[int] = set()
        for part in parts:
            pm = _POINT.match(part)
            if not pm:
                raise NotationError(f"{tok!r}: {part!r} is not a point (1-24, bar, off)")
            name = pm.group(1)
            p = 25 if name in ("bar", "b") else 0 if name in ("off", "o") else int(name)
            if p > 25:
                raise NotationError(f"{tok!r}: point {p} does not exist")
            pts.append(p)
            if pm.group(2):
                hits.add(p)
        for a, b in zip(pts, pts[1:]):
            if b >= a:
                raise NotationError(f"{tok!r}: checkers move from higher to lower points")
        count = int(m.group("n") or 1)
        if not 1 <= count <= 4:
            raise NotationError(f"{tok!r}: a play moves at most 4 checkers the same way")
        out.append((pts, hits, count))
    return out


def apply_paths(position: Position, player: int, paths: list[tuple[list[int], set[int], int]]) -> Position:
    """The position after moving checkers along ``paths`` (no legality check).

    A checker landing on a lone opposing checker hits it, marked or not; an
    intermediate stop hits only where it is marked ``*``.
    """
    me, op = list(position.sides[player]), list(position.sides[1 - player])
    for pts, hits, count in paths:
        for _ in range(count):
            a = pts[0]
            if me[a - 1] <= 0:
                raise NotationError(f"no checker of this player on {_point_name(a)} to move")
            me[a - 1] -= 1
            for k, p in enumerate(pts[1:], start=1):
                if p == 0:
                    break
                opp = 24 - p
                if op[opp] == 1 and (p in hits or k == len(pts) - 1):
                    op[opp] = 0
                    op[BAR] += 1
                elif op[opp] >= 1 and k == len(pts) - 1:
                    raise NotationError(f"point {p} is held by the opponent")
            if pts[-1]:
                me[pts[-1] - 1] += 1
    sides = (tuple(me), tuple(op))
    return Position(sides if player == 0 else sides[::-1])


def parse_play(position: Position, player: int, dice: tuple[int, int], text: str) -> Play:
    """The legal play that ``text`` describes for this roll; raises `IllegalPlayError`
    (with the number of legal plays) when the notation names no legal play."""
    legal = legal_plays(position, player, dice)
    paths = parse_paths(text)
    if not paths:
        if legal[0].steps:
            raise IllegalPlayError(f"'Cannot Move' but {len(legal)} legal plays exist", legal, None)
        return legal[0]
    try:
        reached = apply_paths(position, player, paths)
    except NotationError as e:
        raise IllegalPlayError(f"{text.strip()!r}: {e} ({len(legal)} legal plays)", legal, None) from None
    for p in legal:
        if p.result == reached:
            return p
    # A '*' left out: accept the one legal play that leaves the mover's checkers the same way.
    mine = [p for p in legal if p.result.sides[player] == reached.sides[player]]
    if len(mine) == 1:
        return mine[0]
    moved = sum((pts[0] - pts[-1]) * n for pts, _, n in paths)
    bears_off = any(pts[-1] == 0 for pts, _, _ in paths)
    if not bears_off and moved not in {p.pips for p in legal}:
        kind = f"moves {moved} pips, which the roll {dice[0]}{dice[1]} does not give"
    elif mine:
        kind = "is ambiguous: it fits several plays that differ only in which checkers are hit"
    else:
        kind = "is not a legal play"
    raise IllegalPlayError(f"{text.strip()!r} {kind} ({len(legal)} legal plays)", legal, reached)


class IllegalPlayError(NotationError):
    """Notation that names no legal play; carries the legal plays and the position it reached."""

    def __init__(self, message: str, legal: list[Play], reached: Position | None):
        super().__init__(message)
        self.legal = legal
        self.reached = reached
