"""Helpers for the decoder's tests: a match rendered clean and small, and its observations decoded and
scored against the simulator's truth."""

from __future__ import annotations

from transcriber.decode import decode
from transcriber.evaluate import evaluate_transcript
from transcriber.generate import GenOptions, random_match
from vision.synth.truth import match_from_truth, read_truth
from vision.synth.video import render_match

SMALL = (320, 180)


def render_clean(tmp_path_factory, record, name, **kw):
    d = tmp_path_factory.mktemp(name)
    truth = d / "truth.jsonl"
    render_match(record, d / "v.mp4", truth, profile="clean", fps=5, size=SMALL, progress=False, **kw)
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
