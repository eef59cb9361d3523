"""Every .mat we write imports into real GNU Backgammon as the same match."""

from __future__ import annotations

import pytest

from transcriber.compare import diff_matches
from transcriber.generate import GenOptions, random_match
from transcriber.gnubg import find_gnubg, gnubg_reimport
from transcriber.mat import read_mat, write_mat
from transcriber.record import Timeout
from transcriber.replay import replay_match

pytestmark = [
    pytest.mark.gnubg,
    pytest.mark.skipif(find_gnubg() is None, reason="GNU Backgammon is not installed (apt-get install gnubg)"),
]


def test_real_matches_import_into_gnubg(sample_paths, tmp_path):
    for path in sample_paths:
        record = read_mat(path)
        out = tmp_path / (path.stem + ".mat")
        write_mat(record, out)
        back = gnubg_reimport(out)
        assert diff_matches(record, back) == [], path.name
        assert len(back.games) == len(record.games)
        assert replay_match(back).final_score == replay_match(record).final_score


def _representable(record) -> bool:
    """A .mat has no notation for a timeout: it is written as 'Wins N points', which gnubg
    reads as a resignation and so caps at three times the cube."""
    rep = replay_match(record)
    for g in rep.games:
        if any(isinstance(a, Timeout) for a in g.game.actions) and g.points > 3 * g.cube.value:
            return False
    return True


def test_generated_matches_import_into_gnubg(tmp_path):
    opts = GenOptions(double_rate=0.08, drop_rate=0.3, resign_rate=0.05, timeout_rate=0.05)
    checked = 0
    for seed in range(100, 130):
        record = random_match(seed, opts=opts)
        if not _representable(record):
            continue
        out = tmp_path / f"g{seed}.mat"
        write_mat(record, out)
        assert diff_matches(record, gnubg_reimport(out)) == [], seed
        checked += 1
    assert checked >= 25
