"""The referee: replays a `MatchRecord` through the rules and reports every problem.

Replay never stops at the first problem: an illegal play is applied as written
(so later moves are still checked), a wrong score line is corrected, and each
problem names the game, move number and player. The validator and the .mat
writer both stand on this.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .errors import NotationError
from .moves import IllegalPlayError, Play, apply_paths, parse_paths, parse_play
from .position import Position
from .record import Action, Beaver, Double, Drop, Game, MatchRecord, Move, Raccoon, Resign, RulesProfile, Take, Timeout
from .scoring import RESULT_NAMES, SINGLE, finished, gin_win, result_value


@dataclass
class Problem:
    kind: str  # illegal_play, notation, dice, turn, cube, crawford, score, result, structure
    message: str
    game: int | None = None
    move: int | None = None  # 1-based index of the player's roll within the game
    player: int | None = None
    line: int | None = None
    legal_plays: int | None = None
    action: int | None = None  # 1-based index of the action within the game (cube actions counted)

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass
class CubeState:
    value: int = 1
    owner: int | None = None  # None: centred
    offered_by: int | None = None  # a double waiting for take/drop
    accepted: int = 1  # last accepted value: what a drop scores
    turned: bool = False  # has the cube been turned this game (Jacoby)


@dataclass
class GameReplay:
    game: Game
    positions: list[Position] = field(default_factory=list)  # before each action
    plays: list[Play | None] = field(default_factory=list)  # per action, for Moves
    final: Position = field(default_factory=Position.opening)
    cube: CubeState = field(default_factory=CubeState)  # at the end
    cubes: list[CubeState] = field(default_factory=list)  # before each action
    crawford: bool = False
    winner: int | None = None
    points: int | None = None  # the game's value (uncapped)
    ending: str | None = None  # single, gammon, backgammon, drop, resign, timeout
    score_after: tuple[int, int] = (0, 0)


@dataclass
class MatchReplay:
    record: MatchRecord
    games: list[GameReplay] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def final_score(self) -> tuple[int, int]:
        return self.games[-1].score_after if self.games else (0, 0)

    @property
    def plays(self) -> int:
        return sum(isinstance(a, Move) for g in self.record.games for a in g.actions)


def replay_match(record: MatchRecord, profile: RulesProfile | None = None) -> MatchReplay:
    profile = profile or record.profile
    out = MatchReplay(record)
    score = (0, 0)
    crawford_done = False
    if record.games and record.games[0].number != 1:
        out.problems.append(Problem("structure", f"the first game is numbered {record.games[0].number}, not 1",
                                    record.games[0].number, line=record.games[0].line))
    for game in record.games:
        if game.score != score and record.length:
            out.problems.append(Problem("score", f"score line says {game.score[0]}-{game.score[1]}, "
                                        f"the games before give {score[0]}-{score[1]}", game.number, line=game.line))
        crawford = False
        if record.length and profile.crawford and not crawford_done and max(score) == record.length - 1:
            crawford = crawford_done = True
        gr = replay_game(game, record, profile, score, crawford, out.problems)
        out.games.append(gr)
        score = gr.score_after
        if record.length and max(score) >= record.length and game is not record.games[-1]:
            out.problems.append(Problem("structure", "the match was already won; later games should not exist",
                                        game.number, line=game.line))
    return out


def replay_game(game: Game, record: MatchRecord, profile: RulesProfile, score: tuple[int, int],
                crawford: bool, problems: list[Problem]) -> GameReplay:
    gr = GameReplay(game, crawford=crawford)
    pos = Position.opening()
    cube = gr.cube
    turn: int | None = None  # who acts next; None before the opening roll
    rolls = [0, 0]
    names = record.players

    where = [game.line, None]  # file line and move label of the action being replayed
    at: list[int | None] = [None]  # its index (1-based), None once every action is replayed

    def problem(kind: str, msg: str, player: int | None, **kw) -> None:
        move = where[1] if where[1] is not None else (rolls[player] if player is not None else None)
        problems.append(Problem(kind, msg, game.number, move, player, where[0], action=at[0], **kw))

    def end(winner: int, points: int, ending: str) -> None:
        gr.winner, gr.points, gr.ending = winner, points, ending

    for i, a in enumerate(game.actions):
        at[0] = i + 1
        if i < len(game.sources):
            where[:] = game.sources[i]
        gr.positions.append(pos)
        gr.cubes.append(replace(cube))
        gr.plays.append(None)
        p = a.player
        who = names[p]
        if gr.winner is not None:
            problem("structure", f"{who}: {_describe(a)} after the game was over", p)
            continue
        if isinstance(a, Move):
            rolls[p] += 1
            if cube.offered_by is not None:
                problem("cube", f"{who} rolled while a double was waiting for an answer", p)
                cube.offered_by = None
            if turn is not None and turn != p:
                problem("turn", f"{who} rolled out of turn", p)
            if turn is None and a.dice[0] == a.dice[1] and not profile.money:
                problem("dice", f"{who}: the opening roll cannot be a double ({a.dice[0]}{a.dice[1]})", p)
            pos, play = _play(pos, p, a, who, problem, game.actions[i + 1:])
            gr.plays[-1] = play
            turn = 1 - p
            if finished(pos, p):
                value = result_value(pos, p)
                if profile.money and profile.jacoby and not cube.turned:
                    value = SINGLE
                end(p, value * cube.value, RESULT_NAMES[result_value(pos, p)])
        elif isinstance(a, Double):
            if turn is None:
                problem("cube", f"{who} doubled before the opening roll", p)
            elif turn != p:
                problem("cube", f"{who} doubled when it was not their turn to roll", p)
            if crawford:
                problem("crawford", f"{who} doubled in the Crawford game", p)
            if cube.owner is not None and cube.owner != p:
                problem("cube", f"{who} doubled but the cube belongs to {names[cube.owner]}", p)
            if cube.offered_by is not None:
                problem("cube", f"{who} doubled while a double was already waiting for an answer", p)
            if profile.money and cube.value * 2 > profile.cube_limit:
                problem("cube", f"{who} doubled past the cube limit {profile.cube_limit}", p)
            cube.offered_by = p
            cube.value *= 2
            cube.turned = True
        elif isinstance(a, Take | Drop | Beaver | Raccoon):
            if isinstance(a, Raccoon):
                ok = cube.offered_by is None and cube.owner == 1 - p and _last_was(game, a, Beaver)
            else:
                ok = cube.offered_by == 1 - p
            if not ok:
                problem("cube", f"{who}: {_describe(a)} without a double to answer", p)
                continue
            if isinstance(a, Drop):
                end(1 - p, cube.accepted, "drop")
                cube.value = cube.accepted
                cube.offered_by = None
                continue
            if isinstance(a, Beaver | Raccoon) and not (profile.money and profile.beavers):
                problem("cube", f"{who}: beavers and raccoons are not allowed under these rules", p)
            if isinstance(a, Beaver | Raccoon):
                cube.value *= 2
                if cube.value > profile.cube_limit:
                    problem("cube", f"{who}: {_describe(a)} takes the cube past its limit", p)
            cube.owner = p
            cube.offered_by = None
            cube.accepted = cube.value
        elif isinstance(a, Resign):
            if a.value not in (1, 2, 3):
                problem("result", f"{who} resigned an impossible value {a.value}", p)
            value = a.value
            if profile.money and profile.jacoby and not cube.turned:
                value = SINGLE
            end(1 - p, value * cube.accepted, "resign")
        elif isinstance(a, Timeout):
            _timeout(gr, pos, p, score, record, profile, cube, turn)
    gr.final = pos
    at[0] = None  # (what follows concerns the whole game)
    if gr.winner is None and game.winner is not None:
        _infer_early_end(gr, pos, score, record, cube, turn, problem)
    _check_stated_result(gr, record, problem)
    if gr.winner is not None:
        gained = gr.points or 0
        s = list(score)
        s[gr.winner] += gained
        if record.length:
            s[gr.winner] = min(s[gr.winner], record.length)
        gr.score_after = (s[0], s[1])
    else:
        gr.score_after = score
        if game.winner is None:
            problem("result", "the game has no result", None)
    return gr


def _play(pos: Position, p: int, a: Move, who: str, problem, later: list[Action]) -> tuple[Position, Play | None]:
    d = a.dice
    if not (1 <= d[0] <= 6 and 1 <= d[1] <= 6):
        problem("dice", f"{who}: {d[0]}{d[1]} is not a roll", p)
        return pos, None
    try:
        play = parse_play(pos, p, d, a.play)
        return play.result, play
    except IllegalPlayError as e:
        kind = "dice" if "does not give" in str(e) else "illegal_play"
        after, note = _resync(pos, e.reached, e.legal, later)
        problem(kind, f"{who} rolled {d[0]}{d[1]}: {e}{note}", p, legal_plays=len(e.legal))
        return after, None
    except NotationError as e:
        problem("notation", f"{who} rolled {d[0]}{d[1]}: {e}", p)
        try:  # move what can be moved so that later plays are still checked
            return apply_paths(pos, p, parse_paths(a.play)), None
        except NotationError:
            return pos, None


LOOKAHEAD = 6  # moves replayed to choose how to continue after an illegal play


def _resync(pos: Position, reached: Position | None, legal: list[Play], later: list[Action]) -> tuple[Position, str]:
    """Where to continue after an illegal play: the position as written, or the legal play
    under which the next few moves replay cleanly (a typo in one play then costs one error,
    not a cascade). A condoned illegal play stays as written when later moves agree."""
    moves = [a for a in later if isinstance(a, Move)][:LOOKAHEAD]
    candidates: list[tuple[Position, str]] = [(reached, "")] if reached is not None else []
    candidates += [(pl.result, f"; later moves fit {pl.notation or 'Cannot Move'}: continuing from it")
                   for pl in legal]
    if not candidates:
        return pos, ""
    return min(candidates, key=lambda c: _clean_prefix_errors(c[0], moves))


def _clean_prefix_errors(pos: Position, moves: list[Move]) -> int:
    errors = 0
    for m in moves:
        try:
            pos = parse_play(pos, m.player, m.dice, m.play).result
        except NotationError:
            errors += 1
    return errors


def _timeout(gr: GameReplay, pos: Position, p: int, score, record, profile, cube, turn) -> None:
    """Match: the timed-out player loses the match unless they hold a gin win.
    Money: like a resignation (single if they bore off a checker or Jacoby applies, else 3x)."""
    if profile.money:
        single = pos.off(p) > 0 or (profile.jacoby and not cube.turned)
        gr.winner, gr.points, gr.ending = 1 - p, (1 if single else 3) * cube.accepted, "timeout"
        return
    on_roll = turn if turn is not None else p
    gin = gin_win(pos, p, on_roll) if profile.timeout_loses_match else False
    winner = p if gin else 1 - p
    gr.winner, gr.points, gr.ending = winner, record.length - score[winner], "timeout"


def _infer_early_end(gr: GameReplay, pos, score, record, cube, turn, problem) -> None:
    """A game that stops before the last checker is off: the record's 'Wins N'
    is a resignation (N = 1, 2 or 3 times the cube) or, in a match, a timeout."""
    g = gr.game
    w, n = g.winner, g.points or 0
    needed = record.length - score[w] if record.length else None
    if cube.offered_by is not None:
        problem("cube", f"the game ended with {record.players[cube.offered_by]}'s double unanswered", None)
        return
    for v in (1, 2, 3):
        if n == v * cube.value or (needed is not None and n >= needed and v * cube.value >= needed):
            gr.winner, gr.points, gr.ending = w, n, "resign"
            return
    if needed is not None and n == needed:
        gr.winner, gr.points, gr.ending = w, n, "timeout"
        return
    problem("result", f"{record.players[w]} wins {n} points, which no resignation at cube "
            f"{cube.value} can give; the game is not finished", w)


def _check_stated_result(gr: GameReplay, record: MatchRecord, problem) -> None:
    g = gr.game
    if g.winner is None or gr.winner is None:
        return
    names = record.players
    if g.winner != gr.winner:
        problem("result", f"the record says {names[g.winner]} wins but the game was won by {names[gr.winner]} "
                f"({gr.ending})", g.winner)
        return
    capped = gr.points
    if record.length:
        capped = min(gr.points or 0, record.length - gr.game.score[gr.winner])
    if g.points not in (gr.points, capped):
        problem("result", f"the record says {names[g.winner]} wins {g.points} points; "
                f"the final position and cube give {gr.points} ({gr.ending})", g.winner)


def _last_was(game: Game, action: Action, kind: type) -> bool:
    i = next(k for k, a in enumerate(game.actions) if a is action)
    return i > 0 and isinstance(game.actions[i - 1], kind)


def _describe(a: Action) -> str:
    if isinstance(a, Move):
        return f"roll {a.dice[0]}{a.dice[1]}"
    return type(a).__name__.lower()
