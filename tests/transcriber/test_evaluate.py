"""The transcript scorer: what a flag excuses, and what stays a silent error."""

import copy
from dataclasses import replace
from pathlib import Path

import pytest

from transcriber.evaluate import COVERS, evaluate_transcript
from transcriber.mat import read_mat

SAMPLE = sorted((Path(__file__).resolve().parents[2] / "bgscribe" / "samples").glob("*.txt"))[0]
LOST = 6  # the first game's last actions: four plays, a double and the drop


@pytest.fixture(scope="module")
def cut():
    truth = read_mat(SAMPLE)
    transcript = copy.deepcopy(truth)
    g = transcript.games[0]
    g.actions = g.actions[:-LOST]
    return truth, transcript, len(g.actions)


def test_identical_transcript_is_all_right():
    truth = read_mat(SAMPLE)
    fig = evaluate_transcript(truth, copy.deepcopy(truth), [])
    assert fig["plays_right"] == fig["plays"] and fig["cube_actions_right"] == fig["cube_actions"]
    assert fig["silent_errors"] == 0 and fig["results_right"] == fig["games"] and fig["flags"] == 0


def test_lost_actions_without_a_flag_are_each_silent(cut):
    truth, transcript, _ = cut
    fig = evaluate_transcript(truth, transcript, [])
    assert fig["silent_errors"] == LOST
    assert fig["plays"] - fig["plays_right"] == 4 and fig["cube_actions"] - fig["cube_actions_right"] == 2


def test_one_flag_excuses_only_the_actions_it_can_account_for(cut):
    truth, transcript, k = cut
    fig = evaluate_transcript(truth, transcript, [{"game": 1, "action": k, "reason": "close_call"}])
    assert fig["silent_errors"] == LOST - COVERS
    # two flags on the same action are one moment to look at: they account for no more than one
    two = [{"game": 1, "action": k, "reason": r} for r in ("close_call", "dice_unclear")]
    fig = evaluate_transcript(truth, transcript, two)
    assert fig["silent_errors"] == LOST - COVERS and fig["flags"] == 1


def test_each_flagged_replacement_accounts_for_its_share(cut):
    """The transcript put other actions where the lost ones were: each of them flagged is a moment a
    person looks at, so together they account for more."""
    truth, transcript, k = cut
    wrong = copy.deepcopy(transcript)
    g = wrong.games[0]
    g.actions += [replace(a, dice=(6, 6) if a.dice != (6, 6) else (1, 1)) for a in truth.games[0].actions[k:k + 2]]
    flags = [{"game": 1, "action": a, "reason": "close_call"} for a in (k + 1, k + 2)]
    assert evaluate_transcript(truth, wrong, flags)["silent_errors"] == LOST - 2 * COVERS
    assert evaluate_transcript(truth, wrong, flags[:1])["silent_errors"] == LOST - COVERS


def test_a_footage_gap_excuses_everything_lost_in_it(cut):
    truth, transcript, k = cut
    fig = evaluate_transcript(truth, transcript, [{"game": 1, "action": k, "reason": "footage_gap"}])
    assert fig["silent_errors"] == 0


def test_a_flag_elsewhere_excuses_nothing(cut):
    truth, transcript, k = cut
    fig = evaluate_transcript(truth, transcript, [{"game": 1, "action": k - 5, "reason": "footage_gap"},
                                                  {"game": None, "action": None, "reason": "score_contradiction"}])
    assert fig["silent_errors"] == LOST and fig["flags"] == 2
