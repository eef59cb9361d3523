"""Random but legal matches: for tests, benchmarks and the simulator.

Plays are chosen by a tiny heuristic (hit, make points, race home) with noise,
so games look like backgammon: contact, hits, closed boards, bear-offs. Cube
actions, resignations and timeouts appear at configurable rates.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .moves import Play, legal_plays
from .position import Position
from .record import Double, Drop, Game, MatchRecord, Move, Resign, RulesProfile, Take, Timeout
from .scoring import finished, result_value


@dataclass
class GenOptions:
    length: int = 7
    double_rate: float = 0.04  # chance per turn that a player with cube access doubles
    drop_rate: float = 0.3
    resign_rate: float = 0.01  # per turn once the race is on
    timeout_rate: float = 0.0  # per game
    noise: float = 0.35  # 0: always the heuristic's favourite play; 1: uniform


def random_match(seed: int, players: tuple[str, str] = ("Alice", "Bob"), opts: GenOptions | None = None,
                 max_games: int = 60) -> MatchRecord:
    opts = opts or GenOptions()
    rng = random.Random(seed)
    profile = RulesProfile(name="generated", length=opts.length)
    record = MatchRecord(players=players, length=opts.length, profile=profile,
                         meta={"Event": "Generated match", "Round": str(seed)})
    score = [0, 0]
    crawford_done = False
    for number in range(1, max_games + 1):
        crawford = False
        if not crawford_done and max(score) == opts.length - 1:
            crawford = crawford_done = True
        game = Game(number=number, score=(score[0], score[1]))
        winner, points = random_game(rng, game, opts, crawford, tuple(score), opts.length)
        game.winner, game.points = winner, points
        record.games.append(game)
        score[winner] = min(opts.length, score[winner] + points)
        if max(score) >= opts.length:
            break
    return record


def random_game(rng: random.Random, game: Game, opts: GenOptions, crawford: bool, score, length: int):
    pos = Position.opening()
    a, b = rng.randint(1, 6), rng.randint(1, 6)
    while a == b:
        a, b = rng.randint(1, 6), rng.randint(1, 6)
    turn = 0 if a > b else 1
    dice = (max(a, b), min(a, b))
    cube, owner = 1, None
    timeout_at = rng.randint(10, 80) if rng.random() < opts.timeout_rate else None
    first = True
    while True:
        if timeout_at is not None and len(game.actions) >= timeout_at:
            game.actions.append(Timeout(turn))
            return 1 - turn, length - score[1 - turn]  # no gin check needed: contact positions mostly
        if not first:
            if (not crawford and owner in (None, turn) and cube < 64 and cube < 2 * length
                    and rng.random() < opts.double_rate):
                game.actions.append(Double(turn))
                if rng.random() < opts.drop_rate:
                    game.actions.append(Drop(1 - turn))
                    return turn, cube
                game.actions.append(Take(1 - turn))
                cube, owner = cube * 2, 1 - turn
            if not pos.contact() and rng.random() < opts.resign_rate:
                value = 1 if pos.off(turn) else rng.choice((1, 2))
                game.actions.append(Resign(turn, value))
                return 1 - turn, value * cube
            dice = (rng.randint(1, 6), rng.randint(1, 6))
        first = False
        plays = legal_plays(pos, turn, dice)
        play = _choose(rng, plays, pos, turn, opts.noise)
        game.actions.append(Move(turn, dice, play.notation))
        pos = play.result
        if finished(pos, turn):
            return turn, result_value(pos, turn) * cube
        turn = 1 - turn


def _choose(rng: random.Random, plays: list[Play], pos: Position, player: int, noise: float) -> Play:
    if len(plays) == 1 or rng.random() < noise:
        return rng.choice(plays)
    return max(plays, key=lambda p: _score(p, pos, player) + rng.random() * 0.5)


def _score(play: Play, before: Position, player: int) -> float:
    me = play.result.sides[player]
    hits = play.result.bar(1 - player) - before.bar(1 - player)
    made = sum(1 for n in me[:24] if n >= 2)
    blots = sum(1 for n in me[:24] if n == 1)
    return 2.0 * hits + 0.8 * made - 0.6 * blots + 0.15 * play.result.off(player) - 0.01 * play.result.pips(player)
