from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from transcriber.errors import NotationError
from transcriber.ids import XgState, from_position_id, parse_xgid, position_id, xgid
from transcriber.position import Position

from .positions import positions


def test_opening_ids_match_xg_and_gnubg():
    p = Position.opening()
    assert position_id(p, 0) == "4HPwATDgc/ABMA"  # gnubg's well-known opening ID
    assert xgid(XgState(p)) == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


@settings(max_examples=300, deadline=None)
@given(positions(), st.integers(0, 1))
def test_position_id_round_trip(pos, on_roll):
    assert from_position_id(position_id(pos, on_roll), on_roll) == pos


@settings(max_examples=300, deadline=None)
@given(positions(), st.integers(0, 1), st.integers(0, 6), st.sampled_from([None, 0, 1]),
       st.sampled_from([None, (3, 1), (6, 6)]), st.tuples(st.integers(0, 12), st.integers(0, 12)))
def test_xgid_round_trip(pos, turn, cube_log, owner, dice, score):
    s = XgState(pos, cube=2**cube_log, cube_owner=owner, turn=turn, dice=dice, score=score, length=13)
    assert parse_xgid(xgid(s)) == s


def test_xgid_fields():
    s = parse_xgid("XGID=-b----E-C---eE---c-e----B-:1:-1:-1:52:3:4:1:7:10")
    assert s.cube == 2 and s.cube_owner == 1 and s.turn == 1 and s.dice == (5, 2)
    assert s.score == (3, 4) and s.crawford_or_jacoby and s.length == 7


@pytest.mark.parametrize(
    "bad", ["", "XGID=abc", "XGID=" + "Z" * 26 + ":0:0:1:00:0:0:0:0:10", "4HPwATDgc/AB", "!!!!!!!!!!!!!!"]
)
def test_bad_ids_raise_our_error(bad):
    with pytest.raises(NotationError):
        if len(bad) == 14 or bad.startswith("4H"):
            from_position_id(bad)
        else:
            parse_xgid(bad)
