"""What a bye is worth, per event: the match wins it counts in the Swiss (pairing and standings), its Cup points
and its Amberg ranking points; the defaults per format come from the rule texts."""

from __future__ import annotations

import pytest

from tournament.formats import EventState
from tournament.model import BYE_DEFAULTS, EventRules, Result, bye_result
from tournament.pairing import swiss_scores
from tournament.points import cup_points, ranking_points
from tournament.standings import standings


def test_the_rule_texts_defaults():
    # BMAB: a bye is a match win, no Cup point (none for a PR not played); Amberg: byes score 0 ranking points
    assert BYE_DEFAULTS["swiss"] == {"bye_wins": 1, "bye_cup_points": 0, "bye_ranking_points": 0}
    assert BYE_DEFAULTS["swiss-top4"]["bye_ranking_points"] == 0
    r = EventRules()
    assert (r.bye_wins, r.bye_cup_points, r.bye_ranking_points) == (1, 0, 0)


@pytest.mark.parametrize("wins, cups, ranking", [(1, 0, 0), (0, 1, 7), (1, 2, 3)])
def test_a_bye_scores_as_the_event_says(wins, cups, ranking):
    rules = EventRules(format="swiss-top4", bye_wins=wins, bye_cup_points=cups, bye_ranking_points=ranking)
    res = [Result(1, "A", "B", "A", 5.0, 6.0, False), bye_result(1, "C")]
    table = {st.player: st for st in standings(list("ABC"), res, rules)}
    assert table["C"].match_wins == wins and table["C"].byes == 1 and table["C"].played == 0
    assert swiss_scores(list("ABC"), res, rules)["C"] == wins  # the next draw's score groups too
    assert {c.player: c.total for c in cup_points(list("ABC"), res, rules)}["C"] == cups
    assert {p.player: p.total for p in ranking_points(list("ABC"), res, rules)}["C"] == 7 + ranking


def test_a_bye_worth_nothing_leaves_its_player_behind_in_the_draw():
    ev = EventState(list("ABCDE"), EventRules(rounds=2, bye_wins=0))
    d1 = ev.next_draw()
    (bye,) = d1.byes
    for p in d1.pairings:
        ev.record(Result(1, p.a, p.b, p.a, None, None))
    winners = {p.a for p in d1.pairings}
    table = {st.player: st.match_wins for st in ev.standings()}
    assert table[bye.player] == 0 and all(table[w] == 1 for w in winners)


@pytest.mark.parametrize("kw, msg", [({"bye_wins": 2}, "0 or 1 match wins"), ({"bye_cup_points": 3}, "0 to 2 Cup"),
                                     ({"bye_ranking_points": 8}, "0 to 7 ranking points"),
                                     ({"bye_cup_points": -1}, "0 to 2 Cup")])
def test_impossible_bye_scores_are_refused(kw, msg):
    with pytest.raises(ValueError, match=msg):
        EventRules(**kw)
