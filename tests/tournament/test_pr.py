"""Provisional PR from real GNU Backgammon (0-ply, to stay quick) on the real matches people played; gnubg
missing or failing gives a clear message, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bgscribe.cli import main
from tournament.pr import GnubgError, analyse_mat, find_gnubg
from transcriber.errors import MatchFormatError

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "bgscribe" / "samples").glob("*.txt"))
needs_gnubg = pytest.mark.skipif(find_gnubg() is None, reason="GNU Backgammon is not installed (apt-get install "
                                                              "gnubg)")


@needs_gnubg
@pytest.mark.gnubg
def test_pr_of_a_real_match_at_0_ply():
    a = analyse_mat(SAMPLES[0], ply=0)
    assert [p.name for p in a.players] == ["adrien75116", "raphael_gin"]
    for p in a.players:
        assert 1.0 < p.pr < 30.0  # people online: a PR a club player has, not a bot's 0 nor a random 60
        assert p.pr == pytest.approx(p.error_rate / 2)
        assert p.decisions == p.checker_decisions + p.cube_decisions and p.checker_decisions > 100
        assert p.pr == pytest.approx(500 * (p.checker_error + p.cube_error) / p.decisions)
        mine = [d for d in a.decisions if d.player == p.name and d.kind == "move"]
        # every checker play is kept with its error; they add up to gnubg's own total
        assert sum(d.error or 0 for d in mine) == pytest.approx(p.checker_error, abs=1e-3)
        assert sum(1 for d in mine if not d.forced) >= p.checker_decisions - 2
        assert all(d.best != d.played for d in mine if (d.error or 0) > 1e-6)
    out = a.to_json(with_decisions=True)
    assert out["provisional"] is True and out["ply"] == 0 and out["decisions"]


def test_missing_gnubg_is_a_clear_message(monkeypatch, capsys):
    monkeypatch.setenv("BGSCRIBE_GNUBG", "/nonexistent/gnubg")
    with pytest.raises(GnubgError, match="GNU Backgammon is not installed"):
        analyse_mat(SAMPLES[0], ply=0)
    assert main(["pr", str(SAMPLES[0]), "--json", "--ply", "0"]) == 1
    err = capsys.readouterr().err
    assert "bgscribe pr: GNU Backgammon is not installed" in err and "Traceback" not in err


def test_failing_gnubg_is_a_clear_message(monkeypatch):
    monkeypatch.setenv("BGSCRIBE_GNUBG", "/bin/false")
    with pytest.raises(GnubgError, match=r"did not analyse .* \(exit status 1\)"):
        analyse_mat(SAMPLES[0], ply=0)


def test_a_bad_match_file_names_its_line(tmp_path, capsys):
    bad = tmp_path / "bad.mat"
    bad.write_text(" 7 point match\n\n Game 1\n Ann : 0   Ben : 0\n  1) 61: 13/7 8/7  99: 1/2\n")
    with pytest.raises(MatchFormatError):
        analyse_mat(bad, ply=0)
    assert main(["pr", str(bad), "--ply", "0"]) == 2
    assert "bad.mat:5:" in capsys.readouterr().err  # file and line
    assert main(["pr", str(tmp_path / "none.mat")]) == 2
    with pytest.raises(ValueError, match="ply must be one of"):
        analyse_mat(SAMPLES[0], ply=7)


@needs_gnubg
@pytest.mark.gnubg
def test_bgscribe_pr_json(capsys):
    assert main(["pr", str(SAMPLES[1]), "--json", "--ply", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ply"] == 0 and len(out["players"]) == 2
    assert {"name", "pr", "error_rate", "decisions", "checker_decisions", "cube_decisions"} <= set(out["players"][0])
