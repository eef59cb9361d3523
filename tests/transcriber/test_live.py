"""The live decoder: observations fed as the camera makes them, the board shown at each look, and at the end
the very record the batch decoder makes of the same observations."""

from __future__ import annotations

import functools

import pytest

from transcriber.compare import diff_matches
from transcriber.decode import decode
from transcriber.live import LiveDecoder
from transcriber.moves import legal_plays
from transcriber.record import Move
from transcriber.replay import replay_match
from vision.synth.observe_sim import Noise, observations_from_truth
from vision.synth.truth import match_from_truth, read_truth

from .streams import dice_misread

HARD = Noise(slot_misread=0.01, dice_misread=0.02)


def _players(truth_path):
    header = next(read_truth(truth_path))
    truth = match_from_truth(truth_path)
    return (truth.players if header["rig"]["seating"]["p0_light"] else truth.players[::-1]), truth.length


def feed(truth_path, obs, chunk: int = 5, batch=None):
    """The live decoder fed ``obs`` ``chunk`` at a time, its view after each, and the batch decoder's result (or
    ``batch``, that result already made)."""
    players, length = _players(truth_path)
    live = LiveDecoder(players, length)
    views = []
    for k in range(0, len(obs), chunk):
        live.add(obs[k:k + chunk])
        views.append(live.view())
    return live, views, batch if batch is not None else decode(obs, players=players, length=length)


NOISES = {"clean": None, "hard": HARD}


@functools.cache
def _observed(truth_path, noise: str, seed: int):
    """The observations of ``truth_path`` with ``noise`` (a key of `NOISES`), and their batch decoding: made once
    for the tests that share them (decoding a real match twice over is most of this file's time)."""
    obs = observations_from_truth(truth_path, NOISES[noise], seed=seed)
    players, length = _players(truth_path)
    return obs, decode(obs, players=players, length=length)


@functools.cache
def _fed(truth_path, noise: str, seed: int, chunk: int):
    """`feed` on `_observed`'s observations, made once: the tests only look at its views."""
    obs, batch = _observed(truth_path, noise, seed)
    return feed(truth_path, obs, chunk, batch)


def _after_each(record):
    """Per game: the position after each action."""
    out = []
    for gr in replay_match(record).games:
        out.append(gr.positions[1:] + [gr.final])
    return out


@pytest.mark.parametrize("noise", ["clean", "hard"])
def test_the_finished_live_record_is_the_batch_record(real_truth, noise):
    obs, batch = _observed(real_truth, noise, 2)
    live, _, _ = feed(real_truth, obs, chunk=7, batch=batch)
    done = live.finish()
    assert diff_matches(batch.record, done.record) == []
    assert [(f["game"], f["action"], f["reason"]) for f in done.flags] == \
        [(f["game"], f["action"], f["reason"]) for f in batch.flags]


@pytest.mark.parametrize("noise", ["clean", "hard"])
def test_what_is_shown_settled_is_the_record_and_never_changes(real_truth, noise):
    _, views, batch = _fed(real_truth, noise, 2, 5)
    after = _after_each(batch.record)
    settled_seen: dict[tuple[int, int], tuple] = {}
    for v in views:
        assert v.game - 1 < len(after)
        for k, a in enumerate(v.actions):
            if not a.settled:
                assert all(not b.settled for b in v.actions[k:])  # settled actions are a prefix
                break
            assert v.positions[k] == after[v.game - 1][k], (v.game, k, a)
            assert settled_seen.setdefault((v.game, k), a.key()) == a.key()
    assert len(settled_seen) >= 0.8 * sum(len(g) for g in after)  # most of the match was shown settled live


def test_the_board_shown_is_always_one_the_match_passed_through(real_truth):
    """On a clean camera, every look shows a position of the game in progress: before the first play, or
    after one of its actions (a throw being played shows the board before it, with its dice)."""
    _, views, batch = _fed(real_truth, "clean", 2, 5)
    after = _after_each(batch.record)
    games = batch.record.games
    playing = 0
    for v in views:
        if not v.started:
            continue
        game = games[v.game - 1]
        assert v.position in [*after[v.game - 1], replay_match(batch.record).games[v.game - 1].positions[0]]
        if v.phase == "playing":
            playing += 1
            # the throw being played is the record's next (a double before it may not be read yet: the
            # cube's turning is judged over several reads)
            nxt = next(a for a in game.actions[len(v.actions):] if isinstance(a, Move))
            assert tuple(nxt.dice) == v.dice and nxt.player == v.turn
    assert playing > len(views) // 4
    assert views[-1].phase == "game_over" and len(views[-1].games) == len(games) - 1


def test_a_play_the_dice_read_do_not_allow_is_shown_as_the_board_showed_it(real_truth):
    """A throw's dice read sure and wrong: the record keeps the play the board shows (flagged), which the dice read
    do not allow; the live view shows that play and the position it made, and never fails on it (it used to look
    for the play among the dice's legal ones)."""
    obs, _ = dice_misread(real_truth)
    live, views, batch = feed(real_truth, obs)  # (a view every 5 observations)
    game = replay_match(batch.record).games[0]
    k = next(k for k, a in enumerate(game.game.actions) if isinstance(a, Move) and a.play
             and all(p.notation != a.play for p in legal_plays(game.positions[k], a.player, a.dice)))
    after = _after_each(batch.record)[0]
    keys = [(a.player, a.play) for a in game.game.actions[:k + 1]]
    shown = [v for v in views if [(a.player, a.play) for a in v.actions[:k + 1]] == keys]
    assert shown and all(v.positions[k] == after[k] for v in shown)
    assert live.finish().record.games[0].actions == batch.record.games[0].actions


def test_nothing_read_yet():
    live = LiveDecoder(("A", "B"), 7)
    v = live.view()
    assert not v.started and v.phase == "setup" and v.actions == []
    with pytest.raises(ValueError, match="nothing to decode"):
        live.finish()
