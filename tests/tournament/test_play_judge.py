"""The live overlay's last-play judge against real GNU Backgammon: its errors are those of gnubg's own analysis of
a real match, player by player and play by play; forced plays, illegal plays, a gnubg that dies and one that is
missing."""

from __future__ import annotations

import pytest

from tournament.play_judge import PlayJudge
from tournament.pr import GnubgError, analyse_mat
from transcriber.mat import read_mat
from transcriber.moves import IllegalPlayError, legal_plays
from transcriber.position import Position
from transcriber.record import Move
from transcriber.replay import replay_match

from .test_pr import SAMPLES, needs_gnubg

pytestmark = [needs_gnubg, pytest.mark.gnubg]


@pytest.fixture(scope="module")
def judge():
    j = PlayJudge(ply=0)
    yield j
    j.close()


def test_each_play_is_judged_as_gnubgs_analysis_of_the_whole_match_judges_it(judge):
    record = read_mat(SAMPLES[0])
    batch = {(d.game, d.move): d for d in analyse_mat(SAMPLES[0], ply=0).decisions}
    replay = replay_match(record)
    score, compared, errors = (0, 0), 0, 0
    for g, gr in enumerate(replay.games[:3], start=1):
        for k, a in enumerate(gr.game.actions):
            if not isinstance(a, Move) or not a.play:
                continue
            cube = gr.cubes[k]
            j = judge.judge(gr.positions[k], a.player, a.dice, a.play, cube.value, cube.owner, score, gr.crawford,
                            record.length)
            d = batch[(g, k + 1)]
            if j is None:  # no choice
                assert len(legal_plays(gr.positions[k], a.player, tuple(a.dice))) == 1 and d.forced
                continue
            assert j.error == pytest.approx(d.error, abs=2e-4), (g, k + 1, a.play, d.best)
            assert (j.rank == 1) == (j.error == 0.0)
            compared += 1
            errors += j.error > 0.02
        score = gr.score_after
    assert compared > 60 and errors > 5  # people's matches: most plays judged, some of them errors


def test_the_best_play_and_a_blunder_from_the_opening(judge):
    best = judge.judge(Position.opening(), 0, (3, 1), "8/5 6/5", length=7)
    assert best.rank == 1 and best.error == 0.0 and best.best == "8/5 6/5" and 0.1 < best.equity < 0.3
    assert best.plays == 16 and best.ply == 0
    bad = judge.judge(Position.opening(), 0, (6, 6), "13/7 8/2(3)", length=7)
    assert bad.rank > 1 and bad.error > 0.3 and bad.best == "24/18(2) 13/7(2)"
    # the other player, the same position from its side: the same judgement
    mirror = judge.judge(Position.opening(), 1, (6, 6), "13/7 8/2(3)", length=7)
    assert (mirror.error, mirror.best, mirror.rank) == (bad.error, bad.best, bad.rank)
    assert bad.to_json()["engine"] == "GNU Backgammon" and bad.to_json()["error"] == round(bad.error, 3)


def test_forced_and_illegal_plays(judge):
    closed = Position.trusted(((0,) * 24 + (1,), (2, 2, 2, 2, 2, 2) + (0,) * 12 + (1, 1, 1) + (0,) * 4))
    assert len(legal_plays(closed, 0, (6, 5))) == 1
    assert judge.judge(closed, 0, (6, 5), "") is None  # Cannot Move: nothing to judge
    with pytest.raises(IllegalPlayError):
        judge.judge(Position.opening(), 0, (3, 1), "24/18")


def test_a_gnubg_that_dies_is_started_again(judge):
    judge.judge(Position.opening(), 0, (4, 2), "8/4 6/4")
    judge._proc.kill()
    judge._proc.wait()
    assert judge.judge(Position.opening(), 0, (4, 2), "8/4 6/4").rank == 1


def test_missing_gnubg_is_one_clear_line():
    j = PlayJudge(ply=0, exe="/nonexistent/gnubg")
    with pytest.raises(GnubgError, match="could not be started"):
        j.judge(Position.opening(), 0, (3, 1), "8/5 6/5")
    with pytest.raises(ValueError, match="ply must be one of"):
        PlayJudge(ply=5)
