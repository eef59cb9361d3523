"""Match files: read GNU Backgammon / Jellyfish `.mat` and XG-style text exports; write canonical `.mat`.

Tolerant reader, strict writer (as python-chess does with PGN). The reader takes
header tags (``; [Key "Value"]``), a BOM, CRLF, ``bar``/``b``/``25``,
``off``/``o``/``0``, ``*`` present or missing, combined steps and ``(n)`` repeats,
``point``/``points``, "Cannot Move" or nothing, and either column layout. The
writer produces what GNU Backgammon itself exports (one ``from/to`` per die,
25 for the bar, 0 for off) which both gnubg and XG import; the same record always
gives the same bytes.
"""

from __future__ import annotations

import re
from pathlib import Path
from statistics import median

from .errors import MatchFormatError, NotationError
from .fileio import write_text_atomic
from .moves import parse_paths
from .record import Action, Beaver, Double, Drop, Game, MatchRecord, Move, Raccoon, Resign, RulesProfile, Take, Timeout

_TAG = re.compile(r'^;\s*\[\s*([^"\]]+?)\s+"(.*)"\s*\]\s*$')
_LENGTH = re.compile(r"^\s*(\d+)[\s-]*points?[\s-]*match\b", re.I)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.I)
_SCORE = re.compile(r"^\s*(\S.*?)\s*:\s*(\d+)\s+(\S.*?)\s*:\s*(\d+)\s*$")
_MOVE_LINE = re.compile(r"^\s*(\d+)\)(.*)$")
_ACTION = re.compile(
    r"(?P<roll>\b[1-6][1-6]:)|(?P<double>\bDoubles?\b(?:\s*=>\s*\d+)?)|(?P<beaver>\bBeavers?\b(?:\s*=>\s*\d+)?)"
    r"|(?P<raccoon>\bRaccoons?\b(?:\s*=>\s*\d+)?)|(?P<take>\b(?:Takes?|Accepts?)\b)"
    r"|(?P<drop>\b(?:Drops?|Pass(?:es)?|Rejects?)\b)|(?P<win>\bWins\s+(?P<pts>\d+)\s+points?\b(?:\s+and\s+the\s+match)?)",
    re.I,
)
_NO_MOVE = re.compile(r"^\s*(cannot\s+move|can't\s+move|no\s+move)?\s*$", re.I)


def read_mat(path: str | Path, profile: RulesProfile | None = None,
             errors: list[MatchFormatError] | None = None) -> MatchRecord:
    """Read a match file; raises `MatchFormatError` naming the line on anything malformed (with ``errors``, a
    list: see `parse_mat`)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise MatchFormatError(f"cannot read the file: {e.strerror}", path=str(path)) from None
    return parse_mat(decode(data), str(path), profile, errors)


def decode(data: bytes) -> str:
    if b"\0" in data[:4096]:
        raise MatchFormatError("this is a binary file, not a match text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def parse_mat(text: str, path: str | None = None, profile: RulesProfile | None = None,
              errors: list[MatchFormatError] | None = None) -> MatchRecord:
    """The match a text holds; raises `MatchFormatError` at the first malformed line. With ``errors`` (a list),
    a malformed line is added to it and skipped, and reading goes on, so that every such line is named (the
    record returned then lacks them; only a file with nothing to read at all still raises)."""
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").expandtabs(8).split("\n")
    meta: dict[str, str] = {}
    length: int | None = None
    games: list[Game] = []
    players: tuple[str, str] | None = None
    layout = _column_layout(lines)
    game: Game | None = None
    want_score = False

    def fail(msg: str, ln: int, move: int | None = None) -> MatchFormatError:
        return MatchFormatError(msg, path=path, line=ln, game=game.number if game else None, move=move)

    for ln, line in enumerate(lines, start=1):
        try:
            if not line.strip():
                continue
            if line.lstrip().startswith(";"):
                m = _TAG.match(line.strip())
                if m:
                    meta[m.group(1).strip()] = m.group(2)
                continue
            if length is None:
                m = _LENGTH.match(line)
                if m:
                    length = int(m.group(1))
                    continue
                if _GAME.match(line) or _MOVE_LINE.match(line):
                    raise fail("the match length line (e.g. '7 point match') is missing before the first game", ln)
                raise fail(f"unexpected text before the match length: {line.strip()[:60]!r}", ln)
            m = _GAME.match(line)
            if m:
                if game is not None and want_score:
                    raise fail(f"game {game.number} has no score line", ln)
                game = Game(number=int(m.group(1)), score=(0, 0), line=ln)
                if games and game.number != games[-1].number + 1:
                    raise fail(f"game {game.number} follows game {games[-1].number}", ln)
                games.append(game)
                want_score = True
                continue
            if game is None:
                raise fail(f"unexpected text before 'Game 1': {line.strip()[:60]!r}", ln)
            if want_score:
                m = _SCORE.match(line)
                if not m:
                    raise fail("expected the score line 'Player : score   Player : score', got "
                               f"{line.strip()[:60]!r}", ln)
                names = (m.group(1), m.group(3))
                if players is None:
                    players = names
                elif names != players:
                    raise fail(f"score line names {names[0]!r} and {names[1]!r}, not {players[0]!r} and "
                               f"{players[1]!r}", ln)
                game.score = (int(m.group(2)), int(m.group(4)))
                want_score = False
                continue
            m = _MOVE_LINE.match(line)
            body_start = m.start(2) if m else 0
            label = int(m.group(1)) if m else None
            if not m and not _ACTION.search(line):
                raise fail(f"cannot read this line: {line.strip()[:60]!r}", ln)
            for column, action_text, kind, match in _split_actions(line, body_start, layout, fail, ln, label):
                _add_action(game, column, action_text, kind, match, fail, ln, label)
        except MatchFormatError as e:
            if errors is None or length is None:  # (without the length line nothing after it reads)
                raise
            errors.append(e)
            if want_score and _MOVE_LINE.match(line):
                want_score = False  # the score line is missing: read on as moves
    if length is None:
        raise MatchFormatError("no match length line (e.g. '7 point match') and no games", path=path)
    if not games:
        raise MatchFormatError("the file holds no games", path=path)
    if want_score:
        raise MatchFormatError(f"game {games[-1].number} is cut off after its header", path=path, line=len(lines))
    if players is None:
        players = (meta.get("Player 1", "Player 1"), meta.get("Player 2", "Player 2"))
    prof = profile or _profile_from_meta(meta, length)
    return MatchRecord(players=players, length=length, games=games, meta=meta, profile=prof)


def _profile_from_meta(meta: dict[str, str], length: int) -> RulesProfile:
    crawford = meta.get("Crawford", "On").strip().lower() not in ("off", "false", "no", "0")
    limit = meta.get("CubeLimit", "")
    return RulesProfile(name="file", length=length, crawford=crawford and length > 0,
                        cube_limit=int(limit) if limit.isdigit() else 1024)


def _column_layout(lines: list[str]) -> float:
    """Where the right-hand column starts, learned from lines holding two actions."""
    firsts, seconds = [], []
    for line in lines:
        m = _MOVE_LINE.match(line.expandtabs(8))
        if not m:
            continue
        starts = [a.start() for a in _ACTION.finditer(line.expandtabs(8), m.start(2))]
        if len(starts) == 2:
            firsts.append(starts[0])
            seconds.append(starts[1])
    if not seconds:
        return 30.0
    return (median(firsts) + median(seconds)) / 2


def _split_actions(line, start, layout, fail, ln, label):
    found = list(_ACTION.finditer(line, start))
    if not found:
        if line[start:].strip():
            raise fail(f"cannot read {line[start:].strip()[:60]!r} as a roll or cube action", ln, label)
        return []
    lead = line[start:found[0].start()].strip()
    if lead:
        raise fail(f"cannot read {lead[:60]!r}: expected a roll like '31:' or a cube action", ln, label)
    if len(found) > 2:
        raise fail("more than two actions on one move line", ln, label)
    out = []
    for k, m in enumerate(found):
        end = found[k + 1].start() if k + 1 < len(found) else len(line)
        column = k if len(found) == 2 else int(m.start() > layout)
        kind = m.lastgroup if m.lastgroup != "pts" else "win"
        out.append((column, line[m.end():end], kind, m))
    if len(out) == 2 and out[0][0] == out[1][0]:
        raise fail("two actions for the same player on one line", ln, label)
    return out


def _add_action(game: Game, player: int, rest: str, kind: str, m, fail, ln: int, label) -> None:
    action: Action
    if kind == "roll":
        dice = (int(m.group()[0]), int(m.group()[1]))
        text = "" if _NO_MOVE.match(rest) else rest.strip()
        try:
            parse_paths(text)
        except NotationError as e:
            raise fail(f"move {dice[0]}{dice[1]}: {e}", ln, label) from None
        action = Move(player, dice, text)
    elif kind == "win":
        if rest.strip():
            raise fail(f"unexpected text after the result: {rest.strip()[:40]!r}", ln, label)
        if game.winner is not None:
            raise fail("a second result for the same game", ln, label)
        game.winner, game.points = player, int(m.group("pts"))
        return
    else:
        if rest.strip():
            raise fail(f"unexpected text after {m.group().strip()!r}: {rest.strip()[:40]!r}", ln, label)
        action = {"double": Double, "take": Take, "drop": Drop, "beaver": Beaver, "raccoon": Raccoon}[kind](player)
    if game.winner is not None:
        raise fail("a move after the game's result", ln, label)
    game.actions.append(action)
    game.sources.append((ln, label))


# ------------------------------------------------------------------ writing

_TAG_ORDER = ("Site", "Match ID", "Event", "Round", "Board", "Player 1", "Player 2", "EventDate", "EventTime",
              "Variation", "Unrated", "Crawford", "CubeLimit", "Transcriber")
LEFT = 34  # width of the left column; the widest per-step play ("66: 25/19* 19/13* 13/7* 7/1*") fits


def write_mat(record: MatchRecord, path: str | Path | None = None, *, allow_invalid: bool = False) -> str:
    """Canonical `.mat` text for ``record`` (also written to ``path`` when given).

    The record is replayed first; if the rules engine finds any problem the file
    is not written (`MatchFormatError` lists them) unless ``allow_invalid``.
    """
    from .replay import replay_match

    rep = replay_match(record)
    if rep.problems and not allow_invalid:
        first = rep.problems[:5]
        more = f" (and {len(rep.problems) - 5} more)" if len(rep.problems) > 5 else ""
        raise MatchFormatError("refusing to write an invalid match: "
                               + "; ".join(f"game {p.game}: {p.message}" for p in first) + more)
    out = []
    meta = dict(record.meta)
    meta["Player 1"], meta["Player 2"] = record.players
    meta["Match ID"] = record.match_id
    meta.setdefault("Variation", "Backgammon")
    if record.length:
        meta.setdefault("Crawford", "On" if record.profile.crawford else "Off")
    for key in _TAG_ORDER + tuple(sorted(k for k in meta if k not in _TAG_ORDER)):
        if meta.get(key):
            out.append(f'; [{key} "{_clean(meta[key])}"]')
    out += ["", f" {record.length} point match", ""]
    p1, p2 = (_one_line(p) for p in record.players)
    for g, gr in zip(record.games, rep.games):
        out.append(f" Game {g.number}")
        left = f" {p1} : {gr.game.score[0]}"
        out.append(left.ljust(LEFT + 5) + f"  {p2} : {gr.game.score[1]}" if len(left) >= LEFT + 5
                   else left.ljust(LEFT + 5) + f"{p2} : {gr.game.score[1]}")
        cells = [(a.player, _cell(a, play, gr)) for a, play in zip(g.actions, gr.plays)
                 if not isinstance(a, Resign | Timeout)]  # .mat has no words for these: 'Wins' tells
        winner = gr.winner if gr.winner is not None else g.winner
        points = gr.points if gr.points is not None else g.points
        if winner is not None:
            tail = " and the match" if record.length and gr.score_after[winner] >= record.length else ""
            cells.append((winner, f" Wins {points} point{'s' if points != 1 else ''}{tail}"))
        out += _move_lines(cells)
        out.append("")
    text = "\n".join(out) + "\n"
    if path is not None:
        write_text_atomic(path, text)
    return text


def _one_line(value: str) -> str:
    """Text as it may stand on one line of a .mat: every control, line or paragraph separator character becomes
    a space (a name with a line break must never start a line of its own: it would be read as a move or a game)."""
    import unicodedata

    return " ".join("".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in value).split())


def _clean(value: str) -> str:
    return _one_line(value).replace('"', "'")


def _cell(a: Action, play, gr) -> str:
    if isinstance(a, Move):
        notation = play.step_notation if play is not None else a.play
        return f"{a.dice[0]}{a.dice[1]}: {notation}".rstrip() if notation else f"{a.dice[0]}{a.dice[1]}:"
    if isinstance(a, Double):
        return f" Doubles => {_cube_after(a, gr)}"
    if isinstance(a, Beaver):
        return f" Beavers => {_cube_after(a, gr)}"
    if isinstance(a, Raccoon):
        return f" Raccoons => {_cube_after(a, gr)}"
    if isinstance(a, Take):
        return " Takes"
    if isinstance(a, Drop):
        return " Drops"
    raise TypeError(a)


def _cube_after(action: Action, gr) -> int:
    """The cube value an offer turns to, counted through the game's cube actions."""
    value = 1
    for a in gr.game.actions:
        if isinstance(a, Double | Beaver | Raccoon):
            value *= 2
        if a is action:
            return value
    return value


def _move_lines(cells: list[tuple[int, str]]) -> list[str]:
    """Two numbered columns, player 1 left, player 2 right, read left to right and
    top to bottom. A result that needs a row of its own gets no number: GNU
    Backgammon's importer reads a numbered 'Wins' row as a further move."""
    rows: list[list[str | None]] = []
    for player, cell in cells:
        if not rows or rows[-1][player] is not None or (player == 0 and rows[-1][1] is not None):
            rows.append([None, None])
        rows[-1][player] = cell
    out = []
    for n, (left, right) in enumerate(rows, start=1):
        only_result = (left or right or "").startswith(" Wins") and not (left and right)
        head = (" " * 5 if only_result else f"{n:3d}) ") + (left or "").ljust(LEFT)
        out.append((head + (right or "")).rstrip())
    return out
