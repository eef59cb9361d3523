"""Position identifiers that XG and GNU Backgammon paste: XGID and the gnubg Position ID."""

from __future__ import annotations

import base64
from dataclasses import dataclass

from .errors import NotationError
from .position import BAR, Position


def position_id(position: Position, on_roll: int) -> str:
    """GNU Backgammon Position ID (14 characters): player on roll first, each point
    from that player's ace point to the bar as n ones and a zero, little-endian bits."""
    bits: list[int] = []
    for side in (position.sides[on_roll], position.sides[1 - on_roll]):
        for n in side:
            bits += [1] * n + [0]
    bits += [0] * (80 - len(bits))
    data = bytes(sum(bits[8 * i + j] << j for j in range(8)) for i in range(10))
    return base64.b64encode(data).decode()[:14]


def from_position_id(pid: str, on_roll: int = 0) -> Position:
    """Inverse of `position_id`; ``on_roll`` says which player the first half belongs to."""
    pid = pid.strip()
    if len(pid) != 14:
        raise NotationError(f"a Position ID has 14 characters, {pid!r} has {len(pid)}")
    try:
        data = base64.b64decode(pid + "==", validate=True)
    except ValueError:
        raise NotationError(f"{pid!r} is not a Position ID") from None
    bits = [(data[i // 8] >> (i % 8)) & 1 for i in range(80)]
    sides: list[list[int]] = [[0] * 25, [0] * 25]
    k, i = 0, 0
    for b in bits:
        if k == 2:
            break
        if b:
            sides[k][i] += 1
        else:
            i += 1
            if i == 25:
                k, i = k + 1, 0
    if k < 2:
        raise NotationError(f"{pid!r} does not describe both players")
    first, second = tuple(sides[0]), tuple(sides[1])
    try:
        return Position((first, second) if on_roll == 0 else (second, first))
    except ValueError as e:
        raise NotationError(f"{pid!r}: {e}") from None


@dataclass(frozen=True)
class XgState:
    """Everything an XGID carries. Player 0 is the bottom player (upper-case in XGID)."""

    position: Position
    cube: int = 1
    cube_owner: int | None = None
    turn: int = 0
    dice: tuple[int, int] | None = None  # None: to roll (or to answer a double)
    score: tuple[int, int] = (0, 0)
    crawford_or_jacoby: bool = False
    length: int = 0
    max_cube_log2: int = 10


def xgid(s: XgState) -> str:
    """``XGID=<26 chars>:cube:owner:turn:dice:score1:score2:crawford/jacoby:length:maxcube``.
    Position chars: index 0 the top player's bar, 1..24 the bottom player's points 1..24,
    25 the bottom player's bar; upper case bottom, lower case top, '-' empty."""
    a, b = s.position.sides
    chars = ["-"] * 26
    chars[0] = _ch(b[BAR], lower=True)
    chars[25] = _ch(a[BAR], lower=False)
    for i in range(24):
        if a[i]:
            chars[i + 1] = _ch(a[i], lower=False)
        elif b[23 - i]:
            chars[i + 1] = _ch(b[23 - i], lower=True)
    owner = 0 if s.cube_owner is None else (1 if s.cube_owner == 0 else -1)
    dice = "00" if s.dice is None else f"{s.dice[0]}{s.dice[1]}"
    turn = 1 if s.turn == 0 else -1
    return (f"XGID={''.join(chars)}:{s.cube.bit_length() - 1}:{owner}:{turn}:{dice}:{s.score[0]}:{s.score[1]}:"
            f"{int(s.crawford_or_jacoby)}:{s.length}:{s.max_cube_log2}")


def parse_xgid(text: str) -> XgState:
    t = text.strip()
    if t.upper().startswith("XGID="):
        t = t[5:]
    parts = t.split(":")
    if len(parts) < 5 or len(parts[0]) != 26:
        raise NotationError(f"{text!r} is not an XGID")
    a, b = [0] * 25, [0] * 25
    for i, c in enumerate(parts[0]):
        if c == "-":
            continue
        if not ("a" <= c.lower() <= "o"):
            raise NotationError(f"XGID: {c!r} is not a checker count (A-O, a-o or -)")
        n = ord(c.lower()) - ord("a") + 1
        upper = c.isupper()
        if i == 0 or i == 25:
            if upper != (i == 25):
                raise NotationError("XGID: wrong player on a bar")
            (a if upper else b)[BAR] = n
        elif upper:
            a[i - 1] = n
        else:
            b[24 - i] = n
    try:
        nums = [int(x) for x in parts[1:3] + [parts[3]] + parts[5:]]
    except ValueError:
        raise NotationError(f"{text!r}: XGID fields must be numbers") from None
    cube_log, owner, turn = nums[0], nums[1], nums[2]
    rest = nums[3:] + [0] * (5 - len(nums[3:]))
    dice = parts[4]
    try:
        position = Position((tuple(a), tuple(b)))
    except ValueError as e:
        raise NotationError(f"XGID: {e}") from None
    return XgState(position=position, cube=2**cube_log, cube_owner=None if owner == 0 else (0 if owner == 1 else 1),
                   turn=0 if turn == 1 else 1, dice=(int(dice[0]), int(dice[1])) if dice.isdigit() and dice != "00"
                   else None, score=(rest[0], rest[1]), crawford_or_jacoby=bool(rest[2]), length=rest[3],
                   max_cube_log2=rest[4] or 10)


def _ch(n: int, lower: bool) -> str:
    if not n:
        return "-"
    c = chr(ord("A") + n - 1)
    return c.lower() if lower else c
