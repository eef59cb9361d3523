"""What happens around a real board besides play: a hand resting over the points, the board knocked, a flag
falling on the clock, a die landing on a checker. Each crafted into a clean stream of a rendered match; the
decoder must stay right or flag, never be silently wrong."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from transcriber.mat import read_mat
from transcriber.observation import MAX_COUNT
from transcriber.record import PROFILES, Resign, Timeout
from vision.synth.observe_sim import observations_from_truth
from vision.synth.truth import read_truth

from ..conftest import SAMPLES
from .streams import decode_truth, render_clean, render_game_ending


def _reads_after(obs, times):
    """Index of the first full read at or after each time."""
    return [next(i for i, o in enumerate(obs) if o.slots is not None and o.t >= t) for t in times]


def _isolate(obs, i):
    """Make read i a settle of its own: something moved just before and just after it."""
    for j in (i - 1, i + 1):
        obs[j].slots, obs[j].dice, obs[j].cube, obs[j].status = None, [], None, "moving"


def _sure(count: int) -> np.ndarray:
    p = np.full(MAX_COUNT + 1, 0.001 / MAX_COUNT)
    p[count] = 0.999
    return p


def _plays(truth, game=None):
    return [e for e in read_truth(truth) if e.get("type") == "event" and e["kind"] == "play"
            and (game is None or e["game"] == game)]


def test_a_hand_resting_over_the_points_is_not_a_play(real_truth):
    """A player leans over the board after playing; the hand detector misses the still hand and the camera
    reads one quarter of the board empty, once, after every third play. The plays stay right."""
    obs = observations_from_truth(real_truth)
    plays = _plays(real_truth)[::3]
    for i in _reads_after(obs, [p["t"] + 0.5 for p in plays]):
        _isolate(obs, i)
        obs[i].slots = [copy.copy(r) for r in obs[i].slots]
        for s in range(6, 12):  # a quarter of the board, read empty under the hand
            obs[i].slots[s].light, obs[i].slots[s].dark = _sure(0), _sure(0)
    _, _, res, figures = decode_truth(real_truth, obs)
    assert figures["silent_errors"] == 0, figures["silent_error_list"]
    assert figures["plays_right"] == figures["plays"]
    assert len(res.flags) <= 2, res.flags


def test_a_knocked_board_read_on_the_old_grid_is_not_a_play(real_truth):
    """The board is knocked during a turn; until the observer finds it again, two reads are made on the old
    grid: every point read as its neighbour's checkers, the dice moved together (turned 5 degrees, 15 mm
    along). The plays stay right: no new throw is seen in dice that moved as one piece."""
    obs = observations_from_truth(real_truth)
    plays = _plays(real_truth)[2::5]
    turn = np.radians(5.0)
    for i in _reads_after(obs, [p["t"] + 0.5 for p in plays]):
        shifted = list(obs[i].slots)
        shifted[:24] = shifted[1:24] + shifted[:1]
        dice = [copy.copy(d) for d in obs[i].dice]
        for d in dice:
            x, y = d.xy
            d.xy = (x * np.cos(turn) - y * np.sin(turn) + 15.0, x * np.sin(turn) + y * np.cos(turn) - 4.0)
        for k in (i, i + 1):  # two reads with nothing moving between them: one settle
            obs[k].slots, obs[k].dice, obs[k].cube, obs[k].status = shifted, dice, obs[i].cube, "ok"
        obs[i - 1].slots, obs[i - 1].status = None, "moving"
        obs[i + 2].slots, obs[i + 2].status = None, "moving"
    _, _, res, figures = decode_truth(real_truth, obs)
    assert figures["silent_errors"] == 0, figures["silent_error_list"]
    assert figures["plays_right"] == figures["plays"]
    assert len(res.flags) <= 2, res.flags


@pytest.fixture(scope="module")
def timeout_truth(tmp_path_factory):
    return render_game_ending(tmp_path_factory, Timeout, "timeout", seed=7, tries=60, timeout_rate=0.5)


def test_a_timeout_ends_the_game_flagged_for_its_value(timeout_truth):
    """A flag falls: the board is cleared before the game is finished. The loser is the player whose clock
    ran (on turn); the value (under BMAB rules the rest of the match) is flagged for a person to enter."""
    truth, rec, res, figures = decode_truth(timeout_truth, observations_from_truth(timeout_truth))
    assert figures["silent_errors"] == 0, figures["silent_error_list"]
    assert figures["plays_right"] >= figures["plays"] - 1  # (a quick turn may pass between two reads: flagged)
    end = rec.games[0].actions[-1]
    assert isinstance(end, Resign) and end.player == truth.games[0].actions[-1].player
    assert rec.games[0].winner == truth.games[0].winner
    flag = next(f for f in res.flags if f["action"] == len(rec.games[0].actions))
    assert flag["reason"] == "resignation_value_unknown"


def test_a_die_on_a_checker_counts_under_bmab_rules(tmp_path_factory):
    """Under BMAB rules a die lying flat on a checker counts: the throw is played, not thrown again.
    Decoded as if it did not count (Amberg rules), the same footage cannot come out clean."""
    rec = copy.deepcopy(read_mat(SAMPLES[2]))
    rec.games = rec.games[:1]
    truth = None
    for seed in range(12):  # a rendering where a counted throw has a die on a checker
        path = render_clean(tmp_path_factory, rec, f"bmab{seed}", seed=seed, rules="bmab")
        rolls = [e for e in read_truth(path) if e.get("type") == "frame" and any(
            d["on_checker"] and not d["moving"] and not d["cocked"] for d in e["dice"])]
        if rolls and not any(e.get("kind") == "reroll" for e in read_truth(path)):
            truth = path
            break
    assert truth is not None
    obs = observations_from_truth(truth)
    assert any(d.on_checker > 0.5 for o in obs for d in o.dice)
    _, _, res, figures = decode_truth(truth, obs, profile=PROFILES["bmab"])
    assert figures["plays_right"] == figures["plays"]
    assert not [f for f in res.flags if f["reason"] == "dice_on_checker"]
    _, _, res_amb, fig_amb = decode_truth(truth, obs, profile=PROFILES["amberg"])
    assert fig_amb["plays_right"] < fig_amb["plays"] or res_amb.flags


def test_dice_moved_as_one_piece_are_the_same_throw():
    """What the knock does to the dice the decoder sees: both moved together, the same distance apart (here
    14 mm along and turned 5 degrees, as a read on the old grid gives them): the same throw. The same values
    thrown anew land elsewhere and at another distance: a new throw."""
    from transcriber.settle import DiceRead

    def read(points):
        return DiceRead([np.eye(6)[1], np.eye(6)[1]], [p[0] for p in points], 0.0, 0.0, [p[1] for p in points])

    lying = [(-102.0, -13.0), (-258.0, -99.0)]
    c, s = np.cos(np.radians(5)), np.sin(np.radians(5))
    knocked = [(x * c - y * s + 14.0, x * s + y * c - 4.0) for x, y in lying]
    assert read(lying).same_throw(read(knocked)) and read(knocked).same_throw(read(lying))
    assert not read(lying).same_throw(read([(-90.0, -20.0), (-230.0, -60.0)]))  # 26 mm closer together
    assert not read(lying).same_throw(read([(x + 80.0, y) for x, y in lying]))  # moved too far for a knock


def test_a_die_like_thing_lying_on_the_board_is_not_a_die(real_truth):
    """Something on the board that the reader takes for a 6 (a third die left lying, a coin) is read in every
    throw, where it lies, and alone between throws (while the dice are picked up). It is dropped, and every
    play stays right (before: a 6 in every roll, most of a game lost; read alone, a throw of its own)."""
    obs = observations_from_truth(real_truth)
    reads = [k for k, o in enumerate(obs) if o.dice]
    added = alone = 0
    where = {k: {d.xy for d in obs[k].dice} for k in reads}  # the dice read, before the phantom is added
    for prev, k, nxt in zip([None, *reads], reads, reads[1:]):
        o = obs[k]
        phantom = copy.copy(o.dice[0])
        phantom.values, phantom.xy, phantom.cocked, phantom.on_checker = np.eye(6)[5], (
            phantom.bar_x + 250.0, -40.0), 0.0, 0.0
        same = prev is not None and where[prev] == where[k]
        # the last read of a throw read more than once (a throw read once, replaced, is a throw unseen:
        # guessed and flagged, which another test covers)
        if where[nxt] != where[k] and same and alone < 40:
            o.dice = [phantom]  # the throw's last read: its dice being picked up, the phantom left alone
            alone += 1
        else:
            o.dice = [phantom, *o.dice]  # (readers list dice in no fixed order)
        added += 1
    assert added > 100 and alone == 40
    _, _, res, figures = decode_truth(real_truth, obs)
    assert figures["silent_errors"] == 0, figures["silent_error_list"]
    assert figures["plays_right"] == figures["plays"], figures


def test_the_cube_read_as_a_cocked_die_beside_the_dice_voids_no_throw(real_truth):
    """The dice reader takes the cube on the bar for a cocked die, in every other read of every throw: beside
    two flat dice, a third thing is not part of the throw (before: every such throw was taken as void)."""
    obs = observations_from_truth(real_truth)
    added = 0
    for k, o in enumerate(obs):
        if len(o.dice) == 2 and k % 2:
            cube = copy.copy(o.dice[0])
            cube.values, cube.xy, cube.cocked = np.eye(6)[5], (o.dice[0].bar_x, 220.0), 1.0
            o.dice = [o.dice[0], cube, o.dice[1]]
            added += 1
    assert added > 100
    _, _, res, figures = decode_truth(real_truth, obs)
    assert figures["silent_errors"] == 0, figures["silent_error_list"]
    assert figures["plays_right"] == figures["plays"] and not res.flags, res.flags


def test_the_cube_on_the_bar_read_as_a_die_is_no_throw(real_truth):
    """The dice reader takes the cube on the bar for a 6 now and then, moving with the cube (no fixed spot),
    alone while the dice are picked up too. Dice count only on the playing surface: a "die" on the bar is no
    throw (before: read alone, a throw of its own, and the game after it lost)."""
    obs = observations_from_truth(real_truth)
    reads = [k for k, o in enumerate(obs) if o.dice]
    alone = 0
    for n, (prev, k, nxt) in enumerate(zip(reads, reads[1:], reads[2:])):
        o = obs[k]
        cube = copy.copy(o.dice[0])
        cube.values, cube.xy, cube.cocked = np.eye(6)[5], (o.dice[0].bar_x + 3.0, -150.0 + 7.0 * (n % 40)), 0.0
        seen = {d.xy for d in obs[prev].dice} == {d.xy for d in o.dice}  # (the throw was read before)
        if seen and {d.xy for d in obs[nxt].dice} != {d.xy for d in o.dice}:
            o.dice = [cube]  # the throw's last read: its dice being picked up
            alone += 1
        elif n % 3 == 0:
            o.dice = [*o.dice, cube]
    assert alone > 50
    _, _, res, figures = decode_truth(real_truth, obs)
    assert figures["silent_errors"] == 0, figures["silent_error_list"]
    assert figures["plays_right"] == figures["plays"] and not res.flags, res.flags


def test_half_a_roll_played_and_condoned_is_recorded_as_the_board_shows_it(real_truth):
    """A player plays one die of a roll and leaves the other (an illegal play the opponent lets stand); the
    footage ends before the next throw. The dice are read sure (any other value 12 nats behind): no legal play of
    them, nor of a die misread, explains the board, so the play is recorded as the board shows it, flagged
    `illegal_play`; the plays before it stay right. (Dice read less surely, a misread die that leaves the
    other unplayable may explain the board better: then the roll is flagged `dice_overruled`, the roll read
    its alternative; `test_decode_readings`.)"""
    from transcriber.physical import DARK, LIGHT, Seating
    from transcriber.record import Move

    header = next(read_truth(real_truth))
    seating = Seating(**header["rig"]["seating"])
    events = [e for e in read_truth(real_truth) if e.get("type") == "event" and e["game"] == 1]
    plays = [e for e in events if e["kind"] == "play"]
    rolls = [e["t"] for e in events if e["kind"] == "roll"]
    all_obs = observations_from_truth(real_truth)

    def quiet_reads_after(e):  # reads of the board between the play and the next throw
        nxt = next(t for t in rolls if t > e["t"])
        return sum(1 for o in all_obs if e["t"] < o.t < nxt - 0.5 and o.slots is not None)

    k, p = next((k, e) for k, e in enumerate(plays) if k >= 6 and len(e["steps"]) == 2
                and not any(h for _, _, h in e["steps"]) and e["steps"][0][0] not in (25, e["steps"][1][0])
                and e["steps"][0][1] != e["steps"][1][0] and quiet_reads_after(e) >= 4)
    (a1, b1, _), (a2, b2, _) = p["steps"]
    next_roll = next(t for t in rolls if t > p["t"])
    obs = [o for o in all_obs if o.t < next_roll - 0.5]
    thrown = max(t for t in rolls if t < p["t"])
    for o in obs:
        if o.t >= thrown:
            for d in o.dice:
                d.values = np.where(np.arange(6) == np.argmax(d.values), 1 - 5 * 6e-6, 6e-6)
    colour = LIGHT if seating.light(p["player"]) else DARK
    src, dst = seating.slot(p["player"], a2), seating.slot(p["player"], b2)
    for o in obs:
        if o.t > p["t"] and o.slots is not None:  # the second checker back where it was
            o.slots = [copy.copy(r) for r in o.slots]
            for slot, d in ((src, 1), (dst, -1)):
                r = o.slots[slot]
                now = int(np.argmax(r.light if colour == LIGHT else r.dark))
                if colour == LIGHT:
                    r.light = _sure(now + d)
                else:
                    r.dark = _sure(now + d)
    _, _, res, _ = decode_truth(real_truth, obs)
    moves = [a for a in res.record.games[0].actions if isinstance(a, Move)]
    assert len(moves) == k + 1, [m.play for m in moves]
    truth_moves = [e["play"] for e in plays[:k]]
    assert [m.play for m in moves[:k]] == truth_moves
    assert moves[k].play == f"{a1}/{b1}", (moves[k].play, p["play"])
    assert "illegal_play" in [f.reason for f in moves[k].prov.flags], moves[k].prov.flags


def _throws(truth) -> list[dict]:
    return [e for e in read_truth(truth) if e.get("type") == "event" and e["kind"] == "roll" and e["game"] == 1]


def test_a_new_throw_the_camera_saw_no_motion_before_is_still_a_new_throw(real_truth):
    """Pale dice taken up and thrown again on a pale board can leave the camera's motion test quiet (it compares
    small copies of the keyframes: the pine board's real footage, `bench_real_play.py`, lost a whole throw to it).
    With no motion reported from the play before each throw to the throw's first read, every throw is still one:
    dice read lying somewhere new are a new throw. (Before, the new throw's reads joined the settle before it and
    its play was lost.)"""
    obs = observations_from_truth(real_truth)
    throws = _throws(real_truth)[1:9]
    quieted = 0
    for e in throws:
        first = next(i for i, o in enumerate(obs) if o.t >= e["t"] and o.slots is not None and o.dice)
        before = max(i for i, o in enumerate(obs[:first]) if o.slots is not None and o.t < e["t"] - 0.2)
        for o in obs[before + 1:first]:
            if o.slots is None:
                o.status = "quiet"
                quieted += 1
    assert quieted > 8
    _, _, res, figures = decode_truth(real_truth, obs)
    assert figures["silent_errors"] == 0, figures["silent_error_list"]
    assert figures["plays_right"] == figures["plays"], figures


def test_a_throw_into_the_other_half_that_is_played_is_the_player_on_turn(real_truth):
    """A player throws into the opponent's half (a void throw under most rules: casual players play it, as on the
    pine board's real footage). The dice say the other player threw; the board says who played: the player on turn,
    flagged `dice_wrong_half`. (Before, a turn of the player on turn was guessed unseen and the plays after it went
    wrong.)"""
    obs = observations_from_truth(real_truth)
    e = _throws(real_truth)[6]
    nxt = next(t["t"] for t in _throws(real_truth) if t["t"] > e["t"])
    for o in obs:
        if e["t"] <= o.t < nxt:
            for d in o.dice:
                d.xy = (2 * d.bar_x - d.xy[0], d.xy[1])
    _, rec, res, figures = decode_truth(real_truth, obs)
    assert figures["silent_errors"] == 0, figures["silent_error_list"]
    assert figures["plays_right"] == figures["plays"], figures
    flagged = [a for a in rec.games[0].actions if a.prov and any(f.reason == "dice_wrong_half" for f in a.prov.flags)]
    assert len(flagged) == 1 and flagged[0].dice == tuple(e["dice"]), flagged


def test_an_opening_double_that_is_played_is_recorded_as_played(tmp_path_factory):
    """Equal opening dice are thrown again under every rule set; casual players (the pine board's real footage)
    sometimes play them. Where the board shows the double played, the transcript records it, flagged
    `illegal_play`, and goes on from there (before, the throw was taken for a tie thrown again and the game's
    first plays were lost)."""
    import random

    from transcriber.moves import legal_plays
    from transcriber.position import Position
    from transcriber.record import Game, MatchRecord, Move, RulesProfile

    rng = random.Random(4)
    pos, actions = Position.opening(), []
    for k in range(9):
        player, dice = k % 2, ((6, 6) if k == 0 else (rng.randint(1, 6), rng.randint(1, 6)))
        play = rng.choice(legal_plays(pos, player, dice))
        actions.append(Move(player, dice, play.notation))
        pos = play.result
    actions.append(Resign(0, 1))
    record = MatchRecord(("Alice", "Bob"), 3, [Game(1, (0, 0), actions, winner=1, points=1)],
                         profile=RulesProfile(name="casual", length=3))
    truth = render_clean(tmp_path_factory, record, "opening-double", seed=2)
    _, rec, res, figures = decode_truth(truth, observations_from_truth(truth))
    assert figures["silent_errors"] == 0, figures["silent_error_list"]
    assert figures["plays_right"] == figures["plays"] == 9, figures
    first = rec.games[0].actions[0]
    assert (first.dice, first.play) == ((6, 6), actions[0].play)
    assert [f.reason for f in first.prov.flags] == ["illegal_play"], first.prov.flags


def test_a_checkers_printed_mark_read_as_a_third_die_is_not_part_of_the_throw(real_truth):
    """Real tournament checkers carry printed rings and dots that the dice reader takes for a die showing 1 now and
    then, unsure (the stream frames of `bench_real.py`: 11 such "dice" on 7 frames), and lying as flat as the dice:
    beside two dice read sure, in every read of every throw, the third is not part of the throw (before: the two
    listed first were kept)."""
    obs = observations_from_truth(real_truth)
    added = 0
    for o in obs:
        if len(o.dice) == 2:
            mark = copy.copy(o.dice[0])
            mark.values = np.array([0.6, 0.1, 0.1, 0.1, 0.05, 0.05])
            # on a checker somewhere else each throw (a mark read at one place throw after throw is a fixture)
            x, y = o.dice[0].xy
            mark.xy, mark.cocked, mark.on_checker = (x + 70.0 if x < o.dice[0].bar_x else x - 70.0, -y), 0.0, 1.0
            o.dice = [mark, *o.dice]
            added += 1
    assert added > 100
    _, _, res, figures = decode_truth(real_truth, obs)
    assert figures["silent_errors"] == 0, figures["silent_error_list"]
    assert figures["plays_right"] == figures["plays"], figures
