"""`bgscribe event simulate`: a whole event through the real engine and generated matches, in the issue's shape."""

from __future__ import annotations

import json

import pytest

from bgscribe.cli import main
from tournament.pr import find_gnubg


def run(capsys, *args) -> dict:
    assert main(["event", "simulate", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("fmt,players,rounds,total", [("swiss", 12, 4, 4), ("swiss-top4", 9, 3, 5), ("cup", 10, 0, 4)])
def test_simulate_prints_the_whole_event(capsys, fmt, players, rounds, total):
    out = run(capsys, "--players", str(players), "--rounds", str(rounds or 6), "--format", fmt, "--seed", "3")
    assert len(out["rounds"]) == total
    for r in out["rounds"]:
        assert set(r) >= {"number", "pairings", "byes"}
        for p in r["pairings"]:
            assert set(p) >= {"a", "b", "winner", "pr_a", "pr_b"} and p["winner"] in (p["a"], p["b"])
    assert [s["place"] for s in out["standings"]] == sorted(s["place"] for s in out["standings"])
    assert set(out["standings"][0]) >= {"player", "place", "match_wins", "avg_pr"}
    assert len(out["cup_points"]) == players
    assert out["prizes"]["pool"] == players * 100
    assert sum(out["prizes"]["places"].values()) == pytest.approx(players * 100)
    byes = [b for r in out["rounds"] for b in r["byes"]]
    assert len(byes) == len(set(byes))


@pytest.mark.gnubg
@pytest.mark.skipif(find_gnubg() is None, reason="GNU Backgammon is not installed (apt-get install gnubg)")
def test_simulate_with_gnubg_prs(capsys):
    out = run(capsys, "--players", "6", "--rounds", "2", "--seed", "1", "--pr-ply", "0")
    assert out["pr_source"] == "gnubg 0-ply"
    prs = [p["pr_a"] for r in out["rounds"] for p in r["pairings"]]
    assert len(prs) == 6 and all(isinstance(x, float) and x > 0 for x in prs)


def test_simulate_refuses_bad_input(capsys):
    assert main(["event", "simulate", "--players", "1", "--json"]) == 2
    assert "--players must be 2 or more" in capsys.readouterr().err
    assert main(["event", "simulate", "--players", "3", "--format", "swiss-top4"]) == 2
    assert "needs at least 4 players" in capsys.readouterr().err
    assert main(["event", "simulate", "--players", "8", "--rounds", "40"]) == 2
    assert "1 to 20 rounds" in capsys.readouterr().err


def test_simulate_scores_byes_as_told(capsys):
    out = run(capsys, "--players", "7", "--rounds", "3", "--seed", "2", "--bye-cup-points", "1", "--bye-wins", "0",
              "--format", "swiss-top4", "--bye-ranking-points", "3")
    assert out["bye_scoring"] == {"bye_wins": 0, "bye_cup_points": 1, "bye_ranking_points": 3}
    swiss_byes = [b for r in out["rounds"][:3] for b in r["byes"]]
    assert len(swiss_byes) == 3
    for b in swiss_byes:
        wins = sum(p["winner"] == b for r in out["rounds"] for p in r["pairings"])
        assert out["cup_points"][b]["win"] == wins + 1  # a match won is 1, the bye 1 too
        assert out["ranking_points"][b] == 7 + 7 * wins + 3
        assert next(s for s in out["standings"] if s["player"] == b)["match_wins"] == wins
    default = run(capsys, "--players", "7", "--rounds", "3", "--seed", "2")
    assert default["bye_scoring"] == {"bye_wins": 1, "bye_cup_points": 0, "bye_ranking_points": 0}


def test_simulate_refuses_an_impossible_bye(capsys):
    assert main(["event", "simulate", "--players", "7", "--bye-wins", "2"]) == 2
    assert "a bye counts 0 or 1 match wins, not 2" in capsys.readouterr().err
