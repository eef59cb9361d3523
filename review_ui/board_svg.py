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
              title: str = "") -> str:
    """``changed``: another position; the points where it differs from ``pos`` are ringed."""
    a, b = pos.sides
    width = 10 + 12 * COL + BAR_W + 10 + TRAY_W + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {H}" class="board" role="img" '
           f'aria-label="{escape(title or "board")}">',
           f'<rect x="0" y="0" width="{width}" height="{H}" fill="#6b4a2b" rx="6"/>',
           f'<rect x="10" y="10" width="{12 * COL + BAR_W}" height="{H - 20}" fill="#d9c29a"/>',
           f'<rect x="{10 + 6 * COL}" y="10" width="{BAR_W}" height="{H - 20}" fill="#6b4a2b"/>']
    diff = set()
    if changed is not None:
        ca, cb = changed.sides
        diff = {i for i in range(24) if a[i] != ca[i] or b[23 - i] != cb[23 - i]}
    for i in range(24):  # i: player 0's point i + 1
        top = i >= 12
        col = i - 12 if top else 11 - i
        x = _x(col)
        y0, tip = (10, 10 + 110) if top else (H - 10, H - 10 - 110)
        colour = "#a33b2b" if i % 2 else "#efe6cf"
        ring = ' stroke="#1e6fd9" stroke-width="3" class="changed"' if i in diff else ""
        out.append(f'<polygon points="{x - COL / 2 + 1},{y0} {x + COL / 2 - 1},{y0} {x},{tip}" fill="{colour}"{ring}/>')
        label_y = 8 if top else H - 1
        out.append(f'<text x="{x}" y="{label_y}" font-size="8" text-anchor="middle" fill="#fff">{i + 1}</text>')
        n, fill = (a[i], LIGHT) if a[i] else (b[23 - i], DARK)
        out += _stack(x, y0, 1 if top else -1, n, fill)
    bx = 10 + 6 * COL + BAR_W / 2
    out += _stack(bx, H / 2 - 20, -1, a[BAR], LIGHT) + _stack(bx, H / 2 + 20, 1, b[BAR], DARK)
    tx = 10 + 12 * COL + BAR_W + 10
    out.append(f'<rect x="{tx}" y="10" width="{TRAY_W}" height="{H - 20}" fill="#4a321c"/>')
    for k, (n, fill, y) in enumerate(((pos.off(1), DARK, 14), (pos.off(0), LIGHT, H - 14 - 6))):
        for j in range(n):
            yy = y + (j * 7 if k == 0 else -j * 7)
            out.append(f'<rect x="{tx + 4}" y="{yy}" width="{TRAY_W - 8}" height="6" fill="{fill}" stroke="#000" '
                       'stroke-width="0.5"/>')
    if names[0] or names[1]:
        out.append(f'<text x="{tx + TRAY_W / 2}" y="{H / 2 + 4}" font-size="8" text-anchor="middle" fill="#fff">'
                   f'{pos.pips(0)}/{pos.pips(1)}</text>')
    out.append("</svg>")
    return "".join(out)


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
