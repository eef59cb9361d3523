"""Cube, Crawford, game ends, resignations, timeouts and money rules, through the replay referee."""

from __future__ import annotations

import copy

import pytest

from transcriber.generate import GenOptions, random_match
from transcriber.mat import read_mat
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
from transcriber.replay import replay_match
from transcriber.scoring import BACKGAMMON, GAMMON, SINGLE, gin_win, likely_resignation, result_value

from ..conftest import SAMPLES


def kinds(record):
    return [p.kind for p in replay_match(record).problems]


def opening_moves():
    """A few legal plays from the opening: player 0 rolls 31 first."""
    return [Move(0, (3, 1), "8/5 6/5"), Move(1, (4, 2), "8/4 6/4"), Move(0, (6, 5), "24/13"),
            Move(1, (2, 1), "13/11 6/5")]


def match_of(*games: Game, length: int = 7, profile: RulesProfile | None = None) -> MatchRecord:
    prof = profile or RulesProfile(length=length)
    return MatchRecord(players=("Ann", "Ben"), length=length, games=list(games), profile=prof)


def finished_game(ending: str, seed_from: int = 0) -> Game:
    """A generated game (no cube action) that ends in ``ending`` (single/gammon/backgammon)."""
    for seed in range(seed_from, seed_from + 400):
        rec = random_match(seed, opts=GenOptions(double_rate=0, resign_rate=0, length=1))
        rep = replay_match(rec)
        g = rep.games[0]
        if g.ending == ending:
            return copy.deepcopy(rec.games[0])
    raise AssertionError(f"no generated game ends in a {ending}")


# ------------------------------------------------------------------ game ends


def test_result_value_from_final_position():
    assert result_value(Position.from_points({}, {6: 15}), 0) == GAMMON
    assert result_value(Position.from_points({}, {6: 14}), 0) == SINGLE  # one checker off
    assert result_value(Position.from_points({}, {6: 14, 20: 1}), 0) == BACKGAMMON  # in winner's home
    assert result_value(Position.from_points({}, {6: 14, 25: 1}), 0) == BACKGAMMON  # on the bar
    assert result_value(Position.from_points({}, {6: 14, 18: 1}), 0) == GAMMON


def test_a_resignation_is_guessed_from_the_race_to_save_the_gammon():
    # A checker off: nothing but a single game is left to resign.
    assert likely_resignation(Position.from_points({6: 14}, {1: 15}), 0) == SINGLE
    # All home, the winner with most of a bear-off to go: one roll saves the gammon.
    assert likely_resignation(Position.from_points({6: 15}, {1: 5, 2: 5, 3: 5}), 0) == SINGLE
    # Five checkers in the outfield and beyond, the winner two rolls from done: a gammon.
    assert likely_resignation(Position.from_points({20: 2, 13: 3, 6: 10}, {1: 3, 2: 2}), 0) == GAMMON
    assert likely_resignation(Position.from_points({1: 3, 2: 2}, {20: 2, 13: 3, 6: 10}), 1) == GAMMON
    # A checker on the bar counts from the 25 point.
    assert likely_resignation(Position.from_points({25: 1, 6: 14}, {1: 2}), 0) == GAMMON


@pytest.mark.parametrize("ending, value", [("single", 1), ("gammon", 2), ("backgammon", 3)])
def test_game_end_scores_from_position(ending, value):
    g = finished_game(ending)
    g.winner, g.points = None, None
    g.winner = replay_match(match_of(copy.deepcopy(g))).games[0].winner
    g.points = value
    rep = replay_match(match_of(g))
    assert rep.problems == []
    assert rep.games[0].ending == ending and rep.games[0].points == value


def test_result_that_contradicts_the_position():
    g = finished_game("single")
    g.points = 2
    assert kinds(match_of(g)) == ["result"]
    g = finished_game("single")
    g.winner = 1 - g.winner
    assert "result" in kinds(match_of(g))


def test_game_without_result_is_a_problem():
    g = Game(1, (0, 0), opening_moves())
    assert kinds(match_of(g)) == ["result"]


# ------------------------------------------------------------------ cube


def test_double_take_then_drop_scores_last_accepted_value():
    acts = opening_moves() + [Double(0), Take(1), Move(0, (3, 1), "13/10 6/5"), Double(1), Drop(0)]
    g = Game(1, (0, 0), acts, winner=1, points=2)
    rep = replay_match(match_of(g))
    assert rep.problems == []
    gr = rep.games[0]
    assert (gr.winner, gr.points, gr.ending) == (1, 2, "drop")
    assert rep.final_score == (0, 2)


def test_cube_misuse():
    # doubling when the opponent owns the cube
    acts = opening_moves() + [Double(0), Take(1), Move(0, (3, 1), "13/10 6/5"), Move(1, (2, 1), "13/11 6/5"),
                              Double(0), Drop(1)]
    assert "cube" in kinds(match_of(Game(1, (0, 0), acts, winner=0, points=2)))
    # doubling out of turn (player 1 has just rolled and it is player 0's turn)
    acts = opening_moves() + [Double(1), Drop(0)]
    assert "cube" in kinds(match_of(Game(1, (0, 0), acts, winner=1, points=1)))
    # taking a double nobody offered
    acts = opening_moves() + [Take(1)]
    assert "cube" in kinds(match_of(Game(1, (0, 0), acts)))
    # doubling before the opening roll
    assert "cube" in kinds(match_of(Game(1, (0, 0), [Double(0), Drop(1)], winner=0, points=1)))


def test_crawford_violation_and_post_crawford_double():
    rec = read_mat(SAMPLES[1])
    assert kinds(rec) == []
    crawford_game = rec.games[12]
    # Insert a double in the Crawford game after the first two rolls.
    doubler = crawford_game.actions[2].player
    crawford_game.actions[2:2] = [Double(doubler), Take(1 - doubler)]
    crawford_game.sources[2:2] = [crawford_game.sources[2]] * 2
    problems = [p.kind for p in replay_match(rec).problems]
    assert "crawford" in problems
    # The same double in the post-Crawford game is no Crawford violation.
    rec = read_mat(SAMPLES[1])
    post = rec.games[13]
    assert not replay_match(rec).games[13].crawford
    doubler = post.actions[2].player
    post.actions[2:2] = [Double(doubler), Take(1 - doubler)]
    post.sources[2:2] = [post.sources[2]] * 2
    assert "crawford" not in [p.kind for p in replay_match(rec).problems]


def test_crawford_off_allows_doubling():
    rec = read_mat(SAMPLES[1])
    g = rec.games[12]
    doubler = g.actions[2].player
    g.actions[2:2] = [Double(doubler), Take(1 - doubler)]
    g.sources[2:2] = [g.sources[2]] * 2
    rec.profile = RulesProfile(length=13, crawford=False)
    assert "crawford" not in [p.kind for p in replay_match(rec).problems]


def test_wrong_score_line():
    rec = read_mat(SAMPLES[0])
    rec.games[3].score = (2, 7)
    rep = replay_match(rec)
    assert [(p.kind, p.game) for p in rep.problems] == [("score", 4)]


def test_score_capped_at_match_length():
    g = finished_game("gammon")
    w = replay_match(match_of(copy.deepcopy(g), length=1)).games[0].winner
    g.winner, g.points = w, 2
    rep = replay_match(match_of(g, length=1))
    assert rep.problems == []
    assert max(rep.final_score) == 1


def test_illegal_play_and_dice_problems_name_the_move():
    acts = opening_moves()
    acts[2] = Move(0, (6, 5), "13/7 6/1")  # 11 pips, but the 1 point is held: legal count given
    rep = replay_match(match_of(Game(1, (0, 0), acts)))
    p = next(p for p in rep.problems if p.kind == "illegal_play")
    assert p.move == 2 and p.player == 0 and p.legal_plays and p.legal_plays > 1
    acts = opening_moves()
    acts[2] = Move(0, (6, 5), "24/14")  # 10 pips: does not fit 6-5
    assert "dice" in kinds(match_of(Game(1, (0, 0), acts)))
    acts = [Move(0, (3, 3), "8/5(2) 6/3(2)")] + opening_moves()[1:]
    assert "dice" in kinds(match_of(Game(1, (0, 0), acts)))  # opening roll cannot be a double
    acts = opening_moves()
    acts[1] = Move(0, (4, 2), "8/4 6/4")  # player 0 twice in a row
    assert "turn" in kinds(match_of(Game(1, (0, 0), acts)))


# ------------------------------------------------------------------ resignations and timeouts


def test_resignation_with_stated_value():
    acts = opening_moves() + [Double(0), Take(1), Resign(1, 2)]
    rep = replay_match(match_of(Game(1, (0, 0), acts, winner=0, points=4)))
    assert rep.problems == []
    assert (rep.games[0].winner, rep.games[0].points, rep.games[0].ending) == (0, 4, "resign")


def test_early_wins_line_is_read_as_resignation():
    acts = opening_moves()
    rep = replay_match(match_of(Game(1, (0, 0), acts, winner=1, points=2)))
    assert rep.problems == [] and rep.games[0].ending == "resign"
    rep = replay_match(match_of(Game(1, (0, 0), acts, winner=1, points=5), length=13))
    assert [p.kind for p in rep.problems] == ["result"]  # 5 on a 1-cube is no resignation


def test_timeout_loses_the_match():
    acts = opening_moves() + [Timeout(0)]
    g = Game(1, (0, 0), acts, winner=1, points=7)
    rep = replay_match(match_of(g))
    assert rep.problems == []
    assert rep.games[0].ending == "timeout" and rep.final_score == (0, 7)
    # a .mat cannot say 'timeout': the same game read back as "Wins 7" is a timeout as well
    rep = replay_match(match_of(Game(1, (0, 0), opening_moves(), winner=1, points=7)))
    assert rep.games[0].ending == "timeout" and rep.final_score == (0, 7)


def test_gin_win():
    # Player 0 has two checkers on the ace point and is on roll; player 1 still has 15 on its 6 point.
    pos = Position.from_points({1: 2}, {6: 15})
    assert gin_win(pos, 0, on_roll=0) is True
    # Player 1 needs at least 4 rolls (15 checkers, 66 bears off 4); player 0 with 8 checkers on
    # the 6 point: 2-1 bears off nothing for a while -> not a gin win.
    pos = Position.from_points({6: 8}, {1: 15})
    assert gin_win(pos, 0, on_roll=0) is False
    # contact: never a gin win
    assert gin_win(Position.opening(), 0, on_roll=0) is False


def test_timeout_with_gin_win_wins_the_match():
    from transcriber.replay import CubeState, GameReplay, _timeout

    gr = GameReplay(Game(1, (3, 4)))
    pos = Position.from_points({1: 2}, {6: 15})
    rec = match_of(length=7)
    _timeout(gr, pos, 0, (3, 4), rec, rec.profile, CubeState(), turn=0)
    assert (gr.winner, gr.points) == (0, 4)  # the timed-out player holds a gin win: wins the match
    _timeout(gr, Position.from_points({6: 8}, {1: 15}), 0, (3, 4), rec, rec.profile, CubeState(), turn=0)
    assert (gr.winner, gr.points) == (1, 3)


# ------------------------------------------------------------------ money play


def test_jacoby_gammon_counts_single_with_centred_cube():
    g = finished_game("gammon")
    g.points = 1
    money = PROFILES["money"]
    rep = replay_match(match_of(g, length=0, profile=money))
    assert rep.problems == [] and rep.games[0].points == 1
    no_jacoby = RulesProfile(name="m", length=0, crawford=False, jacoby=False)
    g.points = 2
    assert replay_match(match_of(g, length=0, profile=no_jacoby)).problems == []


def test_beaver_and_raccoon():
    money = PROFILES["money"]
    acts = opening_moves() + [Double(0), Beaver(1), Raccoon(0), Move(0, (3, 1), "13/10 6/5"), Resign(1, 1)]
    rep = replay_match(match_of(Game(1, (0, 0), acts, winner=0, points=8), length=0, profile=money))
    assert rep.problems == [], rep.problems
    assert rep.games[0].cube.value == 8 and rep.games[0].points == 8
    # no beavers in a match
    acts = opening_moves() + [Double(0), Beaver(1), Resign(1, 1)]
    assert "cube" in kinds(match_of(Game(1, (0, 0), acts, winner=0, points=4)))


def test_cube_limit():
    money = RulesProfile(name="m", length=0, crawford=False, jacoby=False, beavers=False, cube_limit=2)
    acts = opening_moves() + [Double(0), Take(1), Move(0, (3, 1), "13/10 6/5"), Move(1, (2, 1), "13/11 6/5"),
                              Double(1), Drop(0)]
    assert "cube" in kinds(match_of(Game(1, (0, 0), acts, winner=1, points=2), length=0, profile=money))


def test_money_timeout_is_like_resignation():
    money = PROFILES["money"]
    acts = opening_moves() + [Timeout(0)]
    rep = replay_match(match_of(Game(1, (0, 0), acts, winner=1, points=1), length=0, profile=money))
    assert rep.games[0].points == 1  # Jacoby with a centred cube: single
    strict = RulesProfile(name="m", length=0, crawford=False, jacoby=False)
    rep = replay_match(match_of(Game(1, (0, 0), acts, winner=1, points=3), length=0, profile=strict))
    assert rep.problems == [] and rep.games[0].points == 3


def test_profiles():
    assert PROFILES["bmab"].length == 7 and PROFILES["bmab"].dice_on_checker_valid
    assert not PROFILES["amberg"].dice_on_checker_valid
    assert PROFILES["money"].money and PROFILES["money"].jacoby
