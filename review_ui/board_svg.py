"""An SVG diagram of a position, from player 0's side (as `Position.diagram` draws it): points 13-24 along
the top, 12-1 along the bottom, the bar in the middle, borne-off checkers in the tray on the right.
Player 0's checkers are light, player 1's dark; points whose checkers changed are ringed."""

from __future__ import annotations

from html import escape

from transcriber.position import BAR, Position

W, COL, H, R = 30, 30, 280, 13
BAR_W, TRAY_W = 30, 40
LIGHT, DARK = "#f3ecd9", "#2b2b2b"


def _x(col: int) -> float:
    """Centre x of column 0..11 (left to right), the bar sitting between columns 5 and 6."""
    return 10 + col * COL + COL / 2 + (BAR_W if col >= 6 else 0)


def board_svg(pos: Position, changed: Position | None = None, names: tuple[str, str] = ("", ""),
              title: str = "", cube=None, flip_x: bool = False, flip_y: bool = False) -> str:
    """``changed``: another position; the points where it differs from ``pos`` are ringed. ``cube``: a
    `transcriber.replay.CubeState`, drawn on the bar: in the middle while centred (64 for a 1-cube), at its
    owner's side once taken (player 0's at the bottom), in the middle marked "offered" while a double waits.
    ``flip_x`` / ``flip_y``: drawn mirrored left-right / top-bottom, as the camera sees the board (`view_flips`)."""
    a, b = pos.sides
    width = 10 + 12 * COL + BAR_W + 10 + TRAY_W + 10

    def fx(x: float, w: float = 0.0) -> float:  # a left edge (or a centre, w=0) as drawn
        return width - x - w if flip_x else x

    def fy(y: float, h: float = 0.0) -> float:
        return H - y - h if flip_y else y

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {H}" class="board" role="img" '
           f'aria-label="{escape(title or "board")}" data-flip="{int(flip_x)}{int(flip_y)}">',
           f'<rect x="0" y="0" width="{width}" height="{H}" fill="#6b4a2b" rx="6"/>',
           f'<rect x="{fx(10, 12 * COL + BAR_W)}" y="10" width="{12 * COL + BAR_W}" height="{H - 20}" fill="#d9c29a"/>',
           f'<rect x="{fx(10 + 6 * COL, BAR_W)}" y="10" width="{BAR_W}" height="{H - 20}" fill="#6b4a2b"/>']
    diff = set()
    if changed is not None:
        ca, cb = changed.sides
        diff = {i for i in range(24) if a[i] != ca[i] or b[23 - i] != cb[23 - i]}
    for i in range(24):  # i: player 0's point i + 1
        top = i >= 12
        col = i - 12 if top else 11 - i
        x = fx(_x(col))
        y0, tip = (10, 10 + 110) if top else (H - 10, H - 10 - 110)
        y0, tip = fy(y0), fy(tip)
        colour = "#a33b2b" if i % 2 else "#efe6cf"
        ring = ' stroke="#1e6fd9" stroke-width="3" class="changed"' if i in diff else ""
        out.append(f'<polygon points="{x - COL / 2 + 1},{y0} {x + COL / 2 - 1},{y0} {x},{tip}" fill="{colour}"{ring}/>')
        label_y = 8 if top != flip_y else H - 1
        out.append(f'<text x="{x}" y="{label_y}" font-size="8" text-anchor="middle" fill="#fff">{i + 1}</text>')
        n, fill = (a[i], LIGHT) if a[i] else (b[23 - i], DARK)
        out += _stack(x, y0, 1 if top != flip_y else -1, n, fill)
    bx = fx(10 + 6 * COL + BAR_W / 2)
    up = -1 if not flip_y else 1
    out += _stack(bx, H / 2 + up * 20, up, a[BAR], LIGHT) + _stack(bx, H / 2 - up * 20, -up, b[BAR], DARK)
    tx = 10 + 12 * COL + BAR_W + 10
    out.append(f'<rect x="{fx(tx, TRAY_W)}" y="10" width="{TRAY_W}" height="{H - 20}" fill="#4a321c"/>')
    for k, (n, fill, y) in enumerate(((pos.off(1), DARK, 14), (pos.off(0), LIGHT, H - 14 - 6))):
        for j in range(n):
            yy = y + (j * 7 if k == 0 else -j * 7)
            out.append(f'<rect x="{fx(tx + 4, TRAY_W - 8)}" y="{fy(yy, 6)}" width="{TRAY_W - 8}" height="6" '
                       f'fill="{fill}" stroke="#000" stroke-width="0.5"/>')
    if cube is not None:
        out += _cube(bx, cube, names, fy)
    if names[0] or names[1]:
        out.append(f'<text x="{fx(tx + TRAY_W / 2)}" y="{H / 2 + 4}" font-size="8" text-anchor="middle" fill="#fff">'
                   f'{pos.pips(0)}/{pos.pips(1)}</text>')
    out.append("</svg>")
    return "".join(out)


def view_flips(seating: dict | None) -> tuple[bool, bool]:
    """How to draw the board as the camera sees it, from the decoder's seating (`transcriber.physical.Seating`
    as a dict): the drawing has player 0 at the bottom with their home on the right."""
    if not isinstance(seating, dict):
        return False, False
    p0_bottom, home_right = bool(seating.get("p0_bottom", True)), bool(seating.get("home_right", True))
    # player 0's home: on the bottom player's home side, at the bottom or (across from it) at the top
    return not home_right, not p0_bottom


def _cube(x: float, cube, names: tuple[str, str], fy) -> list[str]:
    side = 20
    offered = cube.offered_by is not None
    if offered or cube.owner is None:
        y, where = H / 2 - side / 2, (f"offered by {names[cube.offered_by] or f'player {cube.offered_by + 1}'}"
                                     if offered else "centred")
    else:
        y = fy(H - 12 - side if cube.owner == 0 else 12, side)
        where = f"owned by {names[cube.owner] or f'player {cube.owner + 1}'}"
    face = 64 if cube.value == 1 and not offered else cube.value
    dash = ' stroke-dasharray="3 2"' if offered else ""
    state = "offered" if offered else ("centre" if cube.owner is None else f"owner{cube.owner}")
    return [f'<g class="cube" data-value="{cube.value}" data-state="{state}">',
            f"<title>cube {face}, {escape(where)}</title>",
            f'<rect x="{x - side / 2}" y="{y}" width="{side}" height="{side}" rx="3" fill="#fff" stroke="#1e6fd9" '
            f'stroke-width="2"{dash}/>',
            f'<text x="{x}" y="{y + side / 2 + 4}" font-size="11" font-weight="bold" text-anchor="middle" '
            f'fill="#000">{face}</text>', "</g>"]


def _stack(x: float, y0: float, direction: int, n: int, fill: str) -> list[str]:
    out = []
    stroke = "#000" if fill == LIGHT else "#ccc"
    for j in range(min(n, 5)):
        cy = y0 + direction * (R + 1 + j * (2 * R - 4))
        out.append(f'<circle cx="{x}" cy="{cy}" r="{R}" fill="{fill}" stroke="{stroke}" stroke-width="1"/>')
    if n > 5:
        cy = y0 + direction * (R + 1 + 4 * (2 * R - 4))
        out.append(f'<text x="{x}" y="{cy + 4}" font-size="12" font-weight="bold" text-anchor="middle" '
                   f'fill="{"#000" if fill == LIGHT else "#fff"}">{n}</text>')
    if n:
        return [f'<g class="stack" data-count="{n}">', *out, "</g>"]
    return out
