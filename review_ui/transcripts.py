"""Transcripts under review: the editable document, its import from a decoder report, edits, findings.

The document (JSON, stored in `Transcript.doc_json`) is the match as the report lists it::

    {"players": ["Ann", "Ben"], "length": 7, "profile": "bmab", "meta": {...header tags...},
     "games": [{"number": 1, "score": [0, 0], "winner": 0, "points": 2,
                "actions": [{"kind": "move", "player": 1, "dice": [5, 2], "play": "13/6",
                             "time": 3.8, "confidence": 1.0, "alternatives": ["8/3 6/4", ...],
                             "flags": [{"reason": "dice_unclear", "message": "...",
                                        "resolved": {"by": "ann", "how": "picked 42: bar/21", "at": "..."}}],
                             "basis": "confirmed"},
                            {"kind": "double", "player": 0, ...}, {"kind": "resign", "player": 1, "value": 2}]}],
     "notes": [decoder flags that belong to no action],
     "seating": {"p0_bottom": true, "home_right": false, "p0_light": true}}   (as the camera saw the board)

An action a person has looked at carries its ``basis``: ``"confirmed"`` (a person set it, or confirmed the
read from the footage) or ``"trusted"`` (a person accepted the decoder's guess for a roll nobody saw: a
footage gap, unclear dice, a turn out of sight; see `GUESS_REASONS`). Actions without one are the camera's
reading, never flagged.

The rules engine (`transcriber.replay`) is the referee: findings are recomputed from the document after
every edit, and only a document without findings and without open flags can be approved.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass

from transcriber.errors import MatchFormatError, NotationError
from transcriber.ids import XgState, xgid
from transcriber.mat import parse_mat, write_mat
from transcriber.moves import legal_plays, parse_play
from transcriber.position import Position
from transcriber.record import (
    PROFILES,
    Beaver,
    Double,
    Drop,
    Game,
    MatchRecord,
    Move,
    Raccoon,
    Resign,
    RulesProfile,
    Take,
    Timeout,
)
from transcriber.replay import MatchReplay, replay_match

KINDS = {"move": Move, "double": Double, "take": Take, "drop": Drop, "beaver": Beaver, "raccoon": Raccoon,
         "resign": Resign, "timeout": Timeout}
CUBE_KINDS = ("double", "take", "drop", "beaver", "raccoon")
# Flags that mean the dice were not seen, or were read otherwise: the roll is the decoder's guess from the board
# afterwards.
GUESS_REASONS = ("footage_gap", "dice_unclear", "dice_overruled", "unseen_turn")
ROLLS = [(a, b) for a in range(6, 0, -1) for b in range(a, 0, -1)]
CONFIRMED, TRUSTED = "confirmed", "trusted"


def guessed(action: dict) -> bool:
    """Were this move's dice not seen (a footage gap, dice unclear, a turn out of sight)?"""
    return action.get("kind") == "move" and any(f.get("reason") in GUESS_REASONS for f in action.get("flags", []))


def guess_why(action: dict) -> str:
    """Why a guessed move's dice are a guess, in a few words ("" when they are not)."""
    reasons = {f.get("reason") for f in action.get("flags", [])}
    if not guessed(action):
        return ""
    return "dice not seen" if reasons & {"footage_gap", "unseen_turn"} else "dice unclear"


def on_trust(doc: dict) -> list[dict]:
    """Every action a person accepted as the decoder guessed it, without the dice having been seen."""
    return [{"game": gi + 1, "action": ai + 1} for gi, g in enumerate(doc["games"])
            for ai, a in enumerate(g["actions"]) if a.get("basis") == TRUSTED]


class TranscriptError(ValueError):
    """Bad input (an upload that is not a report, an edit that does not fit): the message says where."""


# ----------------------------------------------------------------------------- import


def doc_from_report(report: dict, mat_text: str | None = None, profile: str = "bmab") -> dict:
    """The review document for a decoder report (`bgscribe transcribe --report`), checked field by field.
    With the `.mat` the decoder wrote, its header tags are kept and its games must agree with the report."""
    if not isinstance(report, dict):
        raise TranscriptError("the report is not a JSON object")
    players = report.get("players")
    if not (isinstance(players, list) and len(players) == 2 and all(isinstance(p, str) for p in players)):
        raise TranscriptError("report: 'players' must be a list of two names")
    players = _names(players, "report: players")
    length = report.get("length")
    if not isinstance(length, int) or isinstance(length, bool) or length < 0:
        raise TranscriptError("report: 'length' must be a whole number of points (0 for money)")
    games_in = report.get("games")
    if not isinstance(games_in, list) or not games_in:
        raise TranscriptError("report: 'games' must be a non-empty list")
    games = []
    for gi, g in enumerate(games_in, start=1):
        where = f"report: game {gi}"
        if not isinstance(g, dict) or not isinstance(g.get("actions"), list):
            raise TranscriptError(f"{where}: needs an 'actions' list")
        score = g.get("score", [0, 0])
        if not (isinstance(score, list) and len(score) == 2 and all(isinstance(x, int) for x in score)):
            raise TranscriptError(f"{where}: 'score' must be two numbers")
        actions = [_action_in(a, f"{where} action {k}") for k, a in enumerate(g["actions"], start=1)]
        games.append({"number": int(g.get("number", gi)), "score": score, "winner": g.get("winner"),
                      "points": g.get("points"), "actions": actions})
    notes = [f for f in report.get("flags", []) if isinstance(f, dict) and f.get("action") is None]
    doc = {"players": players, "length": length, "profile": profile if profile in PROFILES else "bmab",
           "meta": {}, "games": games, "notes": notes}
    seating = report.get("seating")
    if isinstance(seating, dict) and all(isinstance(seating.get(k), bool) for k in ("p0_bottom", "home_right")):
        doc["seating"] = {k: seating[k] for k in ("p0_bottom", "home_right", "p0_light") if k in seating}
    if mat_text is not None:
        try:
            rec = parse_mat(mat_text, "upload.mat")
        except (NotationError, MatchFormatError) as e:
            raise TranscriptError(f"the .mat does not read: {e}") from None
        # a .mat has no words for a resignation or a timeout (its 'Wins N points' tells), so they are not counted
        said = [sum(a["kind"] not in ("resign", "timeout") for a in g["actions"]) for g in games]
        if [len(g.actions) for g in rec.games] != said:
            raise TranscriptError(f"the .mat ({[len(g.actions) for g in rec.games]} actions per game) is not the "
                                  f"report's match ({said} actions per game)")
        doc["meta"] = {k: v for k, v in rec.meta.items() if k not in ("Player 1", "Player 2")}
    record_from_doc(doc)  # every play must at least be notation
    return doc


def _action_in(a: object, where: str) -> dict:
    if not isinstance(a, dict):
        raise TranscriptError(f"{where}: not an object")
    kind = a.get("kind")
    if kind not in KINDS:
        raise TranscriptError(f"{where}: unknown kind {kind!r}; one of {', '.join(KINDS)}")
    player = a.get("player")
    if player not in (0, 1):
        raise TranscriptError(f"{where}: 'player' must be 0 or 1")
    out = {"kind": kind, "player": player}
    if kind == "move":
        dice = a.get("dice")
        if not (isinstance(dice, list) and len(dice) == 2 and all(isinstance(d, int) and 1 <= d <= 6 for d in dice)):
            raise TranscriptError(f"{where}: 'dice' must be two numbers 1 to 6")
        play = a.get("play", "")
        if not isinstance(play, str):
            raise TranscriptError(f"{where}: 'play' must be text")
        out.update(dice=dice, play="" if play == "Cannot Move" else play)
    if kind == "resign":
        if a.get("value") not in (1, 2, 3):
            raise TranscriptError(f"{where}: a resignation's 'value' is 1, 2 or 3")
        out["value"] = a["value"]
    alts = a.get("alternatives", [])
    flags = a.get("flags", [])
    if not isinstance(alts, list) or not all(isinstance(x, str) for x in alts):
        raise TranscriptError(f"{where}: 'alternatives' must be a list of text")
    if not isinstance(flags, list) or not all(isinstance(f, dict) and isinstance(f.get("reason"), str)
                                              for f in flags):
        raise TranscriptError(f"{where}: 'flags' must be a list of {{reason, message}}")
    out.update(time=a.get("time"), confidence=a.get("confidence"), alternatives=alts,
               flags=[{"reason": f["reason"], "message": str(f.get("message", ""))} for f in flags])
    return out


# ----------------------------------------------------------------------------- record, findings


def _names(names: list[str], where: str) -> list[str]:
    """Players' names as every entry takes them: no line breaks or other control characters (a name goes into
    every game's score line of the .mat), at most security.MAX_NAME characters."""
    from .security import check_name

    try:
        return [check_name(n, f"{where}: player {i}'s name") for i, n in enumerate(names, start=1)]
    except ValueError as e:
        raise TranscriptError(str(e)) from None


def record_from_doc(doc: dict) -> MatchRecord:
    base = PROFILES.get(doc.get("profile", "bmab"), PROFILES["bmab"])
    profile = RulesProfile(name=base.name, length=doc["length"], crawford=base.crawford,
                           dice_on_checker_valid=base.dice_on_checker_valid)
    rec = MatchRecord(players=tuple(doc["players"]), length=doc["length"], meta=dict(doc.get("meta", {})),
                      profile=profile)
    for g in doc["games"]:
        game = Game(number=g["number"], score=tuple(g["score"]), winner=g.get("winner"), points=g.get("points"))
        for a in g["actions"]:
            cls = KINDS[a["kind"]]
            if cls is Move:
                game.actions.append(Move(a["player"], tuple(a["dice"]), a["play"]))
            elif cls is Resign:
                game.actions.append(Resign(a["player"], a["value"]))
            else:
                game.actions.append(cls(a["player"]))
        rec.games.append(game)
    return rec


@dataclass
class Checked:
    """A document with its replay: positions, cube, scores, and the validator's findings."""

    doc: dict
    record: MatchRecord
    replay: MatchReplay

    @property
    def findings(self) -> list[dict]:
        return [p.as_dict() for p in self.replay.problems]

    def open_flags(self) -> list[tuple[int, int, dict]]:
        """(game index, action index, flag) of every flag nobody has resolved, in match order."""
        return [(gi, ai, f) for gi, g in enumerate(self.doc["games"]) for ai, a in enumerate(g["actions"])
                for f in a.get("flags", []) if not f.get("resolved")]

    def positions(self, gi: int, ai: int) -> tuple[Position, Position]:
        """The position before and after action ``ai`` of game ``gi`` (0-based)."""
        gr = self.replay.games[gi]
        before = gr.positions[ai] if ai < len(gr.positions) else gr.final
        after = gr.positions[ai + 1] if ai + 1 < len(gr.positions) else gr.final
        return before, after

    def cubes(self, gi: int, ai: int):
        """The cube (`transcriber.replay.CubeState`) before and after action ``ai`` of game ``gi``."""
        gr = self.replay.games[gi]
        before = gr.cubes[ai] if ai < len(gr.cubes) else gr.cube
        after = gr.cubes[ai + 1] if ai + 1 < len(gr.cubes) else gr.cube
        return before, after

    def xgid(self, gi: int, ai: int) -> str:
        before, _ = self.positions(gi, ai)
        a = self.doc["games"][gi]["actions"][ai]
        g = self.doc["games"][gi]
        dice = tuple(a["dice"]) if a["kind"] == "move" else None
        return xgid(XgState(before, turn=a["player"], dice=dice, score=tuple(g["score"]), length=self.doc["length"]))


def check(doc: dict) -> Checked:
    rec = record_from_doc(doc)
    return Checked(doc, rec, replay_match(rec))


def mat_text(doc: dict) -> str:
    """The canonical `.mat`; raises `transcriber.errors.MatchFormatError` while the validator has findings."""
    return write_mat(record_from_doc(doc))


def export_doc(doc: dict, event: str, board: int) -> dict:
    """The document as it is exported (page download and BMAB bundle alike): the event and board are header tags."""
    return {**doc, "meta": {**doc.get("meta", {}), "Event": event, "Board": str(board)}}


def export_mat(doc: dict, event: str, board: int) -> str:
    """The one `.mat` of a match: the same bytes whether downloaded from the page or taken from the bundle."""
    return mat_text(export_doc(doc, event, board))


# ----------------------------------------------------------------------------- alternatives


def alternatives(checked: Checked, gi: int, ai: int, limit: int = 30) -> list[dict]:
    """Ranked legal alternatives to a move: the decoder's own (a 'dice XY' or bare 'XY' entry expands to the
    decoder's plays that are legal with those dice), then, where the dice were not seen (`guessed`), every other
    roll with a play that leaves the board as it was seen afterwards, then the other legal plays with the dice as
    read. Each is {"dice": [a, b], "play": notation, "label": "...", "source": "decoder"|"board"|"legal"}; the
    current play is left out."""
    a = checked.doc["games"][gi]["actions"][ai]
    if a["kind"] != "move":
        return []
    before, _ = checked.positions(gi, ai)
    player, dice = a["player"], tuple(a["dice"])
    current = _result(before, player, dice, a["play"])
    roll = tuple(sorted(dice))  # 63 and 36 are one roll
    seen = {(roll, current)} if current is not None else set()
    out: list[dict] = []

    def add(d: tuple[int, int], play_text: str, source: str) -> None:
        res = _result(before, player, d, play_text)
        if res is None or (tuple(sorted(d)), res) in seen:
            return
        seen.add((tuple(sorted(d)), res))
        play = parse_play(before, player, d, play_text)
        text = play.notation
        same = tuple(sorted(d)) == roll
        label = (text or "Cannot Move") if same else f"{d[0]}{d[1]}: {text or 'Cannot Move'}"
        out.append({"dice": list(dice if same else d), "play": text, "label": label, "source": source})

    alts = a.get("alternatives", [])
    for k, alt in enumerate(alts):
        if alt.startswith("dice ") or (len(alt) == 2 and alt.isdigit()):
            digits = alt.removeprefix("dice ").strip()
            if len(digits) == 2 and digits.isdigit() and all("1" <= c <= "6" for c in digits):
                d2 = (int(digits[0]), int(digits[1]))
                legal = legal_plays(before, player, d2)
                if len(legal) == 1:
                    add(d2, legal[0].notation, "decoder")
                add(d2, a["play"], "decoder")  # the dice misread, the play seen right
                for other in alts[k + 1:]:
                    if not other.startswith("dice "):
                        add(d2, other, "decoder")
        else:
            add(dice, alt, "decoder")
    if current is not None and guessed(a):
        for d2 in ROLLS:
            for play in legal_plays(before, player, d2):
                if play.result == current:
                    add(d2, play.notation, "board")
    for play in legal_plays(before, player, dice):
        if len(out) >= limit:
            break
        add(dice, play.notation, "legal")
    return out[:limit]


def _result(before: Position, player: int, dice: tuple[int, int], text: str) -> Position | None:
    try:
        return parse_play(before, player, dice, "" if text == "Cannot Move" else text).result
    except NotationError:
        return None


# ----------------------------------------------------------------------------- edits


def apply_edit(doc: dict, edit: dict, username: str, now: str) -> tuple[dict, str, object, object]:
    """A new document with ``edit`` applied: (doc, target, before, after) for the audit log.
    Ops: accept, set_move, set_kind, set_resign, set_result, set_players. Raises TranscriptError."""
    doc = copy.deepcopy(doc)
    op = edit.get("op")
    if op == "set_players":
        names = edit.get("players")
        if not (isinstance(names, list) and len(names) == 2 and all(isinstance(n, str) and n.strip() for n in names)):
            raise TranscriptError("players: two non-empty names")
        before = list(doc["players"])
        doc["players"] = _names(names, "players")
        return doc, "players", before, doc["players"]
    gi, g = _game(doc, edit)
    if op == "set_result":
        winner, points = edit.get("winner"), edit.get("points")
        if winner not in (0, 1, None) or not (points is None or (isinstance(points, int) and points > 0)):
            raise TranscriptError("result: winner 0 or 1 (or none) and points a positive number")
        before = {"winner": g.get("winner"), "points": g.get("points")}
        g["winner"], g["points"] = winner, points
        return doc, f"game {gi + 1} result", before, {"winner": winner, "points": points}
    ai, a = _action(g, gi, edit)
    target = f"game {gi + 1} action {ai + 1}"
    before = {k: v for k, v in a.items() if k in ("kind", "player", "dice", "play", "value")}
    basis = CONFIRMED
    if op == "accept":
        if guessed(a) and edit.get("basis") != CONFIRMED:
            basis = TRUSTED
            how = f"accepted the decoder's guess ({guess_why(a)}): taken on trust"
        elif guessed(a):
            how = "confirmed from the footage"
        else:
            how = "accepted as read"
    elif op == "set_move":
        if a["kind"] != "move":
            raise TranscriptError(f"{target} is a {a['kind']}, not a move")
        dice, play = edit.get("dice"), edit.get("play", "")
        if not (isinstance(dice, list) and len(dice) == 2 and all(isinstance(d, int) and 1 <= d <= 6 for d in dice)):
            raise TranscriptError(f"{target}: dice must be two numbers 1 to 6")
        if not isinstance(play, str):
            raise TranscriptError(f"{target}: the play must be text")
        play = "" if play.strip() in ("Cannot Move", "") else play.strip()
        if play:
            from transcriber.moves import parse_paths

            try:
                parse_paths(play)
            except NotationError as e:
                raise TranscriptError(f"{target}: {play!r} is not a play ({e})") from None
        a["dice"], a["play"] = dice, play
        how = edit.get("how") or f"set to {dice[0]}{dice[1]}: {play or 'Cannot Move'}"
    elif op == "set_kind":
        kind = edit.get("kind")
        if a["kind"] not in CUBE_KINDS or kind not in CUBE_KINDS:
            raise TranscriptError(f"{target}: only cube actions ({', '.join(CUBE_KINDS)}) change kind")
        a["kind"] = kind
        how = f"cube action set to {kind}"
    elif op == "set_resign":
        if a["kind"] != "resign" or edit.get("value") not in (1, 2, 3):
            raise TranscriptError(f"{target}: a resignation's value is 1, 2 or 3")
        a["value"] = edit["value"]
        how = f"resignation value set to {a['value']}"
    else:
        raise TranscriptError(f"unknown edit {op!r}")
    for f in a.get("flags", []):
        if not f.get("resolved"):
            f["resolved"] = {"by": username, "how": how, "at": now}
    a["basis"] = basis
    after = {k: v for k, v in a.items() if k in ("kind", "player", "dice", "play", "value")}
    return doc, target, before, after


def _game(doc: dict, edit: dict) -> tuple[int, dict]:
    gi = edit.get("game")
    if not isinstance(gi, int) or not 1 <= gi <= len(doc["games"]):
        raise TranscriptError(f"game must be 1 to {len(doc['games'])}")
    return gi - 1, doc["games"][gi - 1]


def _action(g: dict, gi: int, edit: dict) -> tuple[int, dict]:
    ai = edit.get("action")
    if not isinstance(ai, int) or not 1 <= ai <= len(g["actions"]):
        raise TranscriptError(f"game {gi + 1}: action must be 1 to {len(g['actions'])}")
    return ai - 1, g["actions"][ai - 1]


def dumps(doc: dict) -> str:
    return json.dumps(doc, separators=(",", ":"))
