"""Game ends the camera sees in a cluttered way: a drop after a (re)double, then the board cleared with the
dice still lying and the cube taken off or put back in the centre for the next game."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from transcriber.mat import read_mat
from transcriber.observation import CUBE_VALUES
from transcriber.record import Double, Drop
from vision.synth.observe_sim import observations_from_truth
from vision.synth.truth import read_truth
from vision.synth.video import render_match

from ..conftest import SAMPLES
from .streams import SMALL, decode_truth


@pytest.fixture(scope="module")
def drops(tmp_path_factory):
    """Games 1-3 of a real match: a redouble dropped, a double dropped, a double dropped."""
    rec = copy.deepcopy(read_mat(SAMPLES[1]))
    rec.games = rec.games[:3]
    d = tmp_path_factory.mktemp("drops")
    render_match(rec, None, d / "truth.jsonl", profile="clean", seed=11, fps=5, size=SMALL, progress=False)
    return d / "truth.jsonl"


def test_a_drop_is_read_through_the_clearing_of_the_board(drops):
    obs = observations_from_truth(drops)
    ends = [e["t"] for e in read_truth(drops) if e.get("kind") == "drop"]
    assert len(ends) == 3
    for o in obs:
        after = [t for t in ends if t + 4 <= o.t < t + 25]  # (once hands are clearing the board)
        if after and o.cube is not None:
            # while the board is cleared the cube is first taken off (and read as a 2 off the board, as a
            # camera may), then set back in the centre on 1
            if o.t < after[0] + 8:
                o.cube.place, o.cube.values = {"off": 1.0}, np.eye(len(CUBE_VALUES))[CUBE_VALUES.index(2)]
            else:
                o.cube.place, o.cube.values = {"centre": 1.0}, np.eye(len(CUBE_VALUES))[CUBE_VALUES.index(1)]
    truth, rec, res, figures = decode_truth(drops, obs)
    assert figures["silent_errors"] == 0, figures["silent_error_list"]
    assert figures["cube_actions_right"] == figures["cube_actions"] and figures["results_right"] == 3
    for g in rec.games:
        assert isinstance(g.actions[-1], Drop) and isinstance(g.actions[-2], Double)


def test_an_opening_roll_with_one_die_missed_still_starts_the_game(drops):
    """The camera misses one of the two opening dice (a white die showing 1 on a light point): the game still
    starts there, and the play decides who started and with what."""
    items = list(read_truth(drops))
    start = [e["t"] for e in items if e.get("kind") == "game_start"][1]
    first_play = next(e["t"] for e in items if e.get("kind") == "play" and e["t"] > start)
    obs = observations_from_truth(drops)
    for o in obs:
        if start <= o.t < first_play and len(o.dice) == 2:
            o.dice = o.dice[:1]
    truth, rec, res, figures = decode_truth(drops, obs)
    assert figures["games_in_transcript"] == 3
    assert figures["silent_errors"] == 0, figures["silent_error_list"]
    assert figures["plays_right"] >= figures["plays"] - 1


@pytest.mark.parametrize("half", [1, -1])
def test_opening_rolls_in_one_half_start_their_games(drops, half):
    """Every opening roll of the three games (an opening double thrown again among them) lies in one half, the
    right (``half`` 1) or the left: both dice thrown from one cup, as casual players do, or one read against the
    bar. Where they lie then says nothing of who starts; the board does. Read by where they lay, the opening went
    to the player whose half they lay in (the second game's in the left half: 21 silent errors), and a rethrown
    double in one half on the opening position counted as play, so that the roll after it split a phantom game
    off (11 silent errors either way)."""
    items = list(read_truth(drops))
    moved = 0
    obs = observations_from_truth(drops)
    for start in [e["t"] for e in items if e.get("kind") == "game_start"]:
        first_play = next(e["t"] for e in items if e.get("kind") == "play" and e["t"] > start)
        for o in obs:
            if start <= o.t < first_play and len(o.dice) == 2:
                for d in o.dice:
                    d.xy = (d.bar_x + half * abs(d.xy[0] - d.bar_x), d.xy[1])
                moved += 1
    assert moved > 10
    truth, rec, res, figures = decode_truth(drops, obs)
    assert figures["games_in_transcript"] == 3 and figures["results_right"] == 3
    assert figures["silent_errors"] == 0, figures["silent_error_list"]
    assert figures["plays_right"] >= figures["plays"] - 1


def test_an_opening_never_seen_is_guessed_from_the_board_and_flagged(drops):
    """Games 2 and 3: the board is set up, the opening thrown and played while the camera sees only hands.
    The first board seen is one play from the opening: the game starts there (it was merged into the game
    before, every later play wrong), the opening play is chosen by the board and flagged."""
    items = list(read_truth(drops))
    starts = [e["t"] for e in items if e.get("kind") == "game_start"]
    obs = observations_from_truth(drops)
    for start in starts[1:]:
        first_play = next(e["t"] for e in items if e.get("kind") == "play" and e["t"] > start)
        for o in obs:
            if start - 5 <= o.t < first_play + 0.5 and o.slots is not None:
                o.slots, o.dice, o.cube, o.status = None, [], None, "moving"
    truth, rec, res, figures = decode_truth(drops, obs)
    assert figures["games_in_transcript"] == 3 and figures["results_right"] == 3
    assert figures["silent_errors"] == 0, figures["silent_error_list"]
    assert figures["plays_right"] >= figures["plays"] - 2  # (an opening roll with two plays alike: flagged)
    for g in rec.games[1:]:
        assert [f.reason for f in g.actions[0].prov.flags] == ["unseen_turn"]
