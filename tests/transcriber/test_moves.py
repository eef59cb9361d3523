from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from transcriber.errors import NotationError
from transcriber.moves import IllegalPlayError, legal_plays, parse_paths, parse_play
from transcriber.position import Position

from .brute import brute_results
from .positions import dice, positions, real_positions

OPENING = Position.opening()


def notations(pos, player, roll):
    return {p.notation for p in legal_plays(pos, player, roll)}


# ------------------------------------------------------------------ cross-check against brute force


@settings(max_examples=400, deadline=None)
@given(positions(), st.integers(0, 1), dice)
def test_generator_matches_brute_force(pos, player, roll):
    fast = [p.result for p in legal_plays(pos, player, roll)]
    assert len(fast) == len(set(fast)), "a play listed twice"
    brute = brute_results(pos, player, roll)
    assert set(fast) == brute


@pytest.mark.parametrize("kind", ["bearoff", "closed", "race"])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_generator_matches_brute_force_special(kind, data):
    pos = data.draw(positions(kind))
    roll = data.draw(dice)
    assert {p.result for p in legal_plays(pos, 0, roll)} == brute_results(pos, 0, roll)


def test_generator_matches_brute_force_on_real_play():
    for pos, player, roll in real_positions()[::7]:
        assert {p.result for p in legal_plays(pos, player, roll)} == brute_results(pos, player, roll)


# ------------------------------------------------------------------ invariants


@settings(max_examples=300, deadline=None)
@given(positions(), st.integers(0, 1), dice)
def test_checkers_conserved_and_pips_drop_by_pips_played(pos, player, roll):
    for play in legal_plays(pos, player, roll):
        r = play.result
        for k in (0, 1):
            assert sum(r.sides[k]) + r.off(k) == 15
        assert pos.pips(player) - r.pips(player) == play.pips
        hits = sum(h for _, _, h in play.steps)
        assert r.bar(1 - player) - pos.bar(1 - player) == hits
        # the opponent only loses pips through hits
        assert r.pips(1 - player) >= pos.pips(1 - player)


@settings(max_examples=300, deadline=None)
@given(positions(), st.integers(0, 1), dice)
def test_notation_round_trips(pos, player, roll):
    for play in legal_plays(pos, player, roll):
        assert parse_play(pos, player, roll, play.notation) == play
        assert parse_play(pos, player, roll, play.step_notation) == play


def test_every_play_in_real_matches_round_trips():
    for pos, player, roll in real_positions():
        for play in legal_plays(pos, player, roll):
            assert parse_play(pos, player, roll, play.notation).result == play.result


# ------------------------------------------------------------------ rules, case by case


def test_opening_plays():
    assert notations(OPENING, 0, (3, 1)) >= {"8/5 6/5", "24/20", "13/9", "24/21 6/5"}
    assert "13/7 8/7" in notations(OPENING, 0, (6, 1))
    assert "24/18(2) 13/7(2)" in notations(OPENING, 0, (6, 6))
    assert "24/13" in notations(OPENING, 0, (6, 5))
    # 6-6 cannot run the back checkers to the opponent's 13-point block: 24/12 is blocked
    assert not any("24/12" in n for n in notations(OPENING, 0, (6, 6)))


def test_enter_from_bar_first():
    pos = Position.from_points({25: 1, 13: 14}, {6: 5, 8: 3, 13: 5, 24: 2})
    for play in legal_plays(pos, 0, (6, 5)):
        assert play.steps[0][0] == 25
    # entering with the 6 (on 19) is blocked by player 1's 6 point: only the 5 enters
    assert all(p.steps[0][:2] == (25, 20) for p in legal_plays(pos, 0, (6, 5)))


def test_closed_board_cannot_move():
    pos = Position.from_points({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    plays = legal_plays(pos, 0, (4, 2))
    assert len(plays) == 1 and plays[0].steps == () and str(plays[0]) == "Cannot Move"
    assert parse_play(pos, 0, (4, 2), "Cannot Move") == plays[0]
    assert parse_play(pos, 0, (4, 2), "") == plays[0]


def test_must_use_both_dice_when_possible():
    # One checker out on 10, player 1 holds player 0's 5 point. 5-2: 10/5 is blocked, but
    # 10/8 then 8/3 uses both dice, so 10/8 alone is not legal.
    pos = Position.from_points({10: 1, 1: 14}, {20: 2, 13: 13})
    assert [p.notation for p in legal_plays(pos, 0, (5, 2))] == ["10/3"]


def test_larger_die_when_only_one_can_be_played():
    # One checker out on 13 (the rest on the ace point, so no bear-off); player 1 holds
    # player 0's 2 point. 6-5: 13/7 or 13/8, but then 7/2 or 8/2 is blocked: either die
    # alone, never both -> the larger (6) must be played.
    pos = Position.from_points({13: 1, 1: 14}, {23: 2, 13: 13})
    assert [p.notation for p in legal_plays(pos, 0, (6, 5))] == ["13/7"]
    assert [p.notation for p in legal_plays(pos, 0, (5, 6))] == ["13/7"]


def test_smaller_die_when_the_larger_cannot_be_played():
    # As above, and player 1 also holds player 0's 7 point: the 6 cannot be played at all.
    pos = Position.from_points({13: 1, 1: 14}, {23: 2, 18: 2, 13: 11})
    assert [p.notation for p in legal_plays(pos, 0, (6, 5))] == ["13/8"]


def test_a_bear_off_with_the_smaller_die_is_not_taken_for_the_larger():
    # Checkers on 5, 5, 3 and 2; player 1 holds player 0's ace point. 4-2: the 4 cannot be played
    # (5/1 is blocked, and no bear-off with a 4 while the 5 point is occupied), before or after the 2.
    # So the 2 is played, any way: 5/3 as well as 2/off (2/off was once read as "the 4 bearing off
    # from the 2" and so the only play; hypothesis found it).
    pos = Position.from_points({5: 2, 3: 1, 2: 1}, {24: 2})
    assert notations(pos, 0, (4, 2)) == {"5/3", "2/off"}
    assert notations(pos, 0, (2, 4)) == {"5/3", "2/off"}


def test_closed_out_with_doubles():
    pos = Position.from_points({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    assert [p.steps for p in legal_plays(pos, 0, (5, 5))] == [()]


def test_bear_off_larger_die_from_lower_point():
    pos = Position.from_points({3: 1, 2: 1}, {13: 15})
    assert notations(pos, 0, (6, 5)) == {"3/off 2/off"}
    pos = Position.from_points({6: 1, 3: 1}, {13: 15})
    # 5 cannot bear off from 3 while a checker sits on 6; 6/off then 3/off with the 5
    assert "6/off 3/off" in notations(pos, 0, (6, 5))
    pos = Position.from_points({6: 2}, {13: 15})
    assert notations(pos, 0, (4, 1)) == {"6/5 6/2", "6/1"}


def test_cannot_bear_off_with_checker_outside():
    pos = Position.from_points({7: 1, 2: 14}, {13: 15})
    for play in legal_plays(pos, 0, (6, 1)):
        # the 1 must bring the 7 home before any bear-off
        assert play.steps[0] == (7, 6, False) or play.steps[0][0] == 7


def test_doubles_up_to_four_steps():
    plays = legal_plays(OPENING, 0, (2, 2))
    assert all(len(p.steps) == 4 for p in plays)
    # 6-6 from the opening cannot be played in full: 24/18(2) 13/7(2) uses four, 24/12 is blocked
    assert all(len(p.steps) == 4 for p in legal_plays(OPENING, 0, (6, 6)))
    # only two of four 6s can be played: checkers on 24, the way blocked after one step
    blocked = Position.from_points({24: 2, 1: 13}, {13: 2, 8: 2, 2: 11})  # p0's 12 and 17 held
    plays = legal_plays(blocked, 0, (6, 6))
    assert {len(p.steps) for p in plays} == {2} and {p.notation for p in plays} == {"24/18(2)"}


def test_hits_marked_and_sent_to_bar():
    pos = Position.from_points({13: 15}, {18: 1, 1: 14})  # p1's 18 = p0's 7: a blot
    play = parse_play(pos, 0, (6, 1), "13/7* 13/12")
    assert play.result.bar(1) == 1
    assert parse_play(pos, 0, (6, 1), "13/7 13/12") == play  # '*' left out
    assert "13/7*/6" in notations(pos, 0, (6, 1))


@pytest.mark.parametrize(
    "text",
    ["24/13", "24/18/13", "24/18 18/13", "24/18  18/13", "25/24 24/13"],
)
def test_parse_combined_forms(text):
    pos = Position.from_points({24: 1, 13: 14}, {6: 15})
    if text.startswith("25"):
        pos = Position.from_points({25: 1, 13: 14}, {6: 15})
        play = parse_play(pos, 0, (1, 1), "bar/24 24/23 23/22 22/21")
        assert parse_play(pos, 0, (1, 1), "25/21") == play
        assert parse_play(pos, 0, (1, 1), "b/21") == play
        return
    assert parse_play(pos, 0, (6, 5), text).notation == "24/13"


def test_parse_off_forms():
    pos = Position.from_points({6: 2, 3: 1}, {13: 15})
    a = parse_play(pos, 0, (6, 6), "6/off(2) 3/off")
    assert a == parse_play(pos, 0, (6, 6), "6/0 6/0 3/0") == parse_play(pos, 0, (6, 6), "6/o(2) 3/o")


def test_parse_rejects_nonsense():
    for bad in ["13-7", "13/", "x/7", "7/13", "13/7(9)", "30/20"]:
        with pytest.raises(NotationError):
            parse_paths(bad)


def test_illegal_play_reports_legal_count():
    with pytest.raises(IllegalPlayError) as e:
        parse_play(OPENING, 0, (3, 1), "13/10 13/12")
    assert "legal plays" in str(e.value) and len(e.value.legal) == 16
    with pytest.raises(IllegalPlayError, match="does not give"):
        parse_play(OPENING, 0, (3, 1), "13/7")


def test_cannot_move_when_moves_exist_is_illegal():
    with pytest.raises(IllegalPlayError):
        parse_play(OPENING, 0, (3, 1), "Cannot Move")
