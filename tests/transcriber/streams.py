"""Helpers for the decoder's tests: a match rendered clean and small, and its observations decoded and
scored against the simulator's truth."""

from __future__ import annotations

from transcriber.decode import decode
from transcriber.evaluate import evaluate_transcript
from transcriber.generate import GenOptions, random_match
from vision.synth.observe_sim import observations_from_truth
from vision.synth.truth import match_from_truth, read_truth
from vision.synth.video import render_match

SMALL = (320, 180)


def render_clean(tmp_path_factory, record, name, video: bool = False, **kw):
    """``record`` rendered clean and small: its truth file (and, with ``video``, the footage `v.mp4` beside it;
    the decoder's tests read the truth alone)."""
    d = tmp_path_factory.mktemp(name)
    truth = d / "truth.jsonl"
    render_match(record, d / "v.mp4" if video else None, truth, profile="clean", fps=5, size=SMALL, progress=False,
                 **kw)
    return truth


def render_game_ending(tmp_path_factory, ending, name: str, seed: int, tries: int, **rates):
    """The first game of the first generated 3-point match (no cube) that ends with an `ending` action,
    rendered clean and small."""
    for match_seed in range(tries):
        rec = random_match(match_seed, opts=GenOptions(length=3, double_rate=0.0, **rates))
        if any(isinstance(a, ending) for a in rec.games[0].actions):
            rec.games = rec.games[:1]
            return render_clean(tmp_path_factory, rec, name, seed=seed)
    raise AssertionError(f"no generated game ends with a {ending.__name__}")


def decode_truth(truth_path, observations, **kw):
    header = next(read_truth(truth_path))
    truth = match_from_truth(truth_path)
    light_first = header["rig"]["seating"]["p0_light"]
    players = truth.players if light_first else truth.players[::-1]
    res = decode(observations, players=players, length=truth.length, **kw)
    rec = res.record
    if not light_first:  # number the players as the truth does
        from vision.cli import align_players

        align_players(truth, rec)
    return truth, rec, res, evaluate_transcript(truth, rec, res.flags)


def illegal_play_shown(truth_path):
    """The observations of a rendered match in which, after game 1's seventh play, the board shows one checker of
    that play a point further on than the roll allows (a play the players condoned)."""
    obs = observations_from_truth(truth_path)
    plays = [e for e in read_truth(truth_path) if e.get("type") == "event" and e["kind"] == "play" and e["game"] == 1]
    target, nxt = plays[6], plays[7]
    for o in obs:
        if o.slots is not None and target["t"] <= o.t < nxt["t"]:
            src = next(s for s in range(24) if o.slots[s].light.argmax() >= 2)
            dst = next(s for s in range(24) if o.slots[s].light.argmax() == 0 and o.slots[s].dark.argmax() == 0)
            o.slots[src].light = o.slots[src].light.copy()
            k = int(o.slots[src].light.argmax())
            o.slots[src].light[:] = 0.0
            o.slots[src].light[k - 1] = 1.0
            o.slots[dst].light = o.slots[dst].light.copy()
            o.slots[dst].light[:] = 0.0
            o.slots[dst].light[1] = 1.0
    return obs


def dice_misread(truth_path, at_least: int = 8):
    """The observations of a rendered match in which the dice of one of game 1's throws (the first from its
    `at_least`-th on that is not a double, nor the opening) are read, sure and wrong, as a double of another value:
    no play of the dice read explains the board afterwards. The throw's index among the game's events, too."""
    import numpy as np

    obs = observations_from_truth(truth_path)
    events = [e for e in read_truth(truth_path) if e.get("type") == "event" and e.get("game") == 1]
    rolls = [k for k, e in enumerate(events) if e["kind"] == "roll" and not e.get("opening")
             and e["dice"][0] != e["dice"][1]]
    k = next(k for k in rolls if events[k]["move"] >= at_least)
    roll = events[k]
    end = next(e["t"] for e in events[k + 1:] if e["kind"] == "play")
    wrong = next(v for v in (6, 5, 4) if v not in roll["dice"])
    for o in obs:
        if roll["t"] <= o.t < end:
            for d in o.dice:
                d.values = np.eye(6)[wrong - 1]
    return obs, roll
