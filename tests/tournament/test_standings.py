"""Standings, Cup points, ranking points and prizes as the rules say, on crafted ties."""

from __future__ import annotations

import pytest

from tournament.formats import EventState, RoundNotReady
from tournament.model import EventRules, Result
from tournament.points import SeasonEntry, cup_points, ranking_points, season_table
from tournament.prizes import prize_split
from tournament.standings import standings


def R(rnd, a, b, winner, pr_a=None, pr_b=None, provisional=False):
    return Result(rnd, a, b, winner, pr_a, pr_b, provisional)


def places(table):
    return [(st.player, st.place, st.shared) for st in table]


def test_two_way_tie_on_wins_goes_to_the_lower_average_pr():
    res = [R(1, "A", "C", "A", 8.0, 9.0), R(1, "B", "D", "B", 5.0, 9.0), R(2, "A", "D", "D", 6.0, 7.0),
           R(2, "B", "C", "C", 7.0, 4.0)]
    table = standings(["A", "B", "C", "D"], res)
    # A, B, C, D all on 1 win: PR averages A 7.0, B 6.0, C 6.5, D 8.0
    assert places(table) == [("B", 1, False), ("C", 2, False), ("A", 3, False), ("D", 4, False)]
    assert table[0].decided_by == "pr" and not table[0].provisional


def test_three_way_tie_on_wins_and_pr_goes_to_head_to_head():
    # A, B, C each 2 wins, the same average PR 6.00; A beat B and C, B beat C: head-to-head orders them.
    res = [R(1, "A", "B", "A", 6.0, 6.0), R(2, "A", "C", "A", 6.0, 6.0), R(3, "B", "C", "B", 6.0, 6.0),
           R(1, "C", "D", "C", 6.0, 9.0), R(2, "B", "D", "B", 6.0, 9.0), R(3, "A", "D", "D", 6.0, 9.0),
           R(4, "C", "D", "C", 6.0, 9.0)]
    table = standings(["A", "B", "C", "D"], res)
    top = [st for st in table if st.player in "ABC"]
    assert {st.match_wins for st in top} == {2}
    assert places(table)[:3] == [("A", 1, False), ("B", 2, False), ("C", 3, False)]
    assert table[0].decided_by == "head-to-head"


def test_a_head_to_head_cycle_is_a_shared_placing():
    # A beat B, B beat C, C beat A; all on 1 win, PR 5.0 each (to two decimals): nothing separates them.
    res = [R(1, "A", "B", "A", 5.0, 5.0), R(2, "B", "C", "B", 5.001, 5.0), R(3, "C", "A", "C", 5.0, 5.0)]
    table = standings(["A", "B", "C", "D"], res)
    assert places(table) == [("A", 1, True), ("B", 1, True), ("C", 1, True), ("D", 4, False)]


def test_tied_players_who_never_met_share_the_place():
    res = [R(1, "A", "C", "A", 6.0, 9.0), R(1, "B", "D", "B", 6.0, 9.0)]
    table = standings(["A", "B", "C", "D"], res)
    assert places(table)[:2] == [("A", 1, True), ("B", 1, True)]
    assert places(table)[2:] == [("C", 3, True), ("D", 3, True)]


def test_a_pr_not_known_yet_cannot_break_a_tie_and_marks_the_table_provisional():
    res = [R(1, "A", "C", "A", 6.0, None, provisional=True), R(1, "B", "D", "B", None, 9.0, provisional=True)]
    table = standings(["A", "B", "C", "D"], res)
    assert [st.player for st in table][:2] == ["A", "B"] and all(st.provisional for st in table)
    assert table[1].place == 2  # B's PR unknown: after the known one, never before it


def test_prizes_split_40_30_20_10_with_ties_split_evenly_and_side_pools():
    # 6 players, EUR 600: 1st alone, 2nd and 3rd shared (30 + 20 split), 4th alone.
    res = [R(1, "A", "B", "A", 4.0, 8.0), R(1, "C", "D", "C", 8.0, 8.0), R(1, "E", "F", "E", 8.0, 9.0),
           R(2, "A", "C", "A", 4.0, 6.0), R(2, "B", "E", "B", 7.0, 7.0), R(2, "D", "F", "D", 7.0, 9.0),
           R(3, "A", "D", "A", 4.0, 7.0), R(3, "B", "F", "F", 7.0, 7.0), R(3, "C", "E", "C", 7.0, 7.0)]
    table = standings(list("ABCDEF"), res)
    assert table[0].player == "A" and table[0].match_wins == 3
    p = prize_split(table, EventRules())
    assert p.pool_cents == 60000
    assert p.places["A"] == 24000
    assert sum(p.places.values()) == 60000
    assert p.most_points == {"A": 10000} and p.best_pr == {"A": 10000}


def test_a_shared_place_splits_the_places_it_covers_to_the_cent():
    from tournament.standings import Standing

    table = [Standing("A", 1, 3, avg_pr=5.0), Standing("B", 2, 2, avg_pr=6.0, shared=True),
             Standing("C", 2, 2, avg_pr=6.0, shared=True), Standing("D", 2, 2, avg_pr=7.0, shared=True),
             Standing("E", 5, 1, avg_pr=6.0)]
    p = prize_split(table, EventRules(entry_fee=101))
    pool = 5 * 101 * 100
    assert p.places["A"] == pool * 40 // 100
    thirds = [p.places[x] for x in "BCD"]  # (30 + 20 + 10) % of 505 EUR split three ways: 101.00 each
    assert thirds == [10100, 10100, 10100] and "E" not in p.places
    assert sum(p.places.values()) == pool
    assert p.best_pr == {"A": 10000}
    two = prize_split([Standing("A", 1, 1, avg_pr=5.0), Standing("B", 1, 1, avg_pr=5.0)], EventRules(side_pool=1))
    assert two.best_pr == {"A": 50, "B": 50} and two.most_points == {"A": 50, "B": 50}
    assert two.places == {"A": 7000, "B": 7000}  # level for 1st: (40 + 30) % of EUR 200, halved


def test_cup_points_one_for_the_win_one_for_the_lower_pr():
    res = [R(1, "A", "B", "A", 9.0, 5.0), R(2, "A", "C", "A", 4.0, 6.0), R(3, "B", "C", "C", 7.0, 7.0),
           R(4, "B", "D", "B", None, 3.0, provisional=True)]
    cups = {c.player: c for c in cup_points(list("ABCD"), res)}
    assert (cups["A"].win_points, cups["A"].pr_points, cups["A"].total) == (2, 1, 3)
    assert (cups["B"].win_points, cups["B"].pr_points) == (1, 1)  # equal PRs (round 3): no PR point for either
    assert cups["B"].pr_pending == 1 and cups["D"].pr_pending == 1


def test_amberg_ranking_points_and_the_season_table():
    rules = EventRules(format="swiss-top4", match_length=7)
    res = [R(1, "A", "B", "A"), R(2, "A", "C", "A"), Result(3, "B", "", "B", bye=True, provisional=False)]
    pts = {r.player: r.total for r in ranking_points(list("ABC"), res, rules, left_early=frozenset({"C"}))}
    assert pts == {"A": 7 + 14, "B": 7, "C": 0}  # a bye scores nothing; leaving early forfeits the 7
    table = season_table([SeasonEntry("A", 40, 1, 3), SeasonEntry("B", 40, 2, 4), SeasonEntry("C", 40, 2, 3),
                          SeasonEntry("D", 40, 2, 3), SeasonEntry("E", 50, 0, 5)])
    assert [(e.player, e.place) for e in table] == [("E", 1), ("C", 2), ("D", 2), ("B", 4), ("A", 5)]


def play(ev: EventState, pick):
    while not ev.finished:
        d = ev.next_draw()
        for p in d.pairings:
            ev.record(Result(d.number, p.a, p.b, pick(p), 5.0, 6.0))
    return ev


def test_swiss_top4_plays_semi_finals_final_and_third_place():
    players = [f"P{i}" for i in range(1, 11)]
    ev = play(EventState(players, EventRules(format="swiss-top4", rounds=4)), lambda p: min(p.a, p.b))
    assert len(ev.draws) == 6
    semis = ev.draws[4].pairings
    assert [p.stage for p in semis] == ["semi-final", "semi-final"]
    table = ev.standings()
    final = next(p for p in ev.draws[5].pairings if p.stage == "final")
    third = next(p for p in ev.draws[5].pairings if p.stage == "third-place")
    assert table[0].player == min(final.a, final.b) and table[1].player == max(final.a, final.b)
    assert table[2].player == min(third.a, third.b) and table[3].place == 4
    assert [st.place for st in table] == sorted(st.place for st in table)


def test_the_cup_has_a_consolation_bracket_and_places_by_round_out():
    players = [f"P{i:02d}" for i in range(1, 12)]  # 11: a 16 bracket, 5 byes to the top seeds
    ev = EventState(players, EventRules(format="cup"))
    d1 = ev.next_draw()
    assert len(d1.pairings) == 3 and sorted(b.player for b in d1.byes) == players[:5]
    for p in d1.pairings:
        ev.record(Result(1, p.a, p.b, min(p.a, p.b), 5.0, 6.0))
    play(ev, lambda p: min(p.a, p.b))
    stages = {p.stage for d in ev.draws for p in d.pairings}
    assert stages == {"cup", "consolation"}
    table = ev.standings()
    assert table[0].player == "P01" and table[0].place == 1 and table[1].place == 2
    byes = [r.a for r in ev.results if r.bye]
    assert len(byes) == len(set(byes))  # never two byes for one player


def test_a_round_is_drawn_only_when_the_previous_one_is_complete():
    ev = EventState(["A", "B", "C", "D"], EventRules(rounds=2))
    d = ev.next_draw()
    ev.record(Result(1, d.pairings[0].a, d.pairings[0].b, d.pairings[0].a))
    with pytest.raises(RoundNotReady, match="round 1 still has 1 match without a result"):
        ev.next_draw()
    with pytest.raises(ValueError, match="has a result already"):
        ev.record(Result(1, d.pairings[0].a, d.pairings[0].b, d.pairings[0].b))
    with pytest.raises(ValueError, match="has no pairing"):
        ev.record(Result(1, "A", "A2", "A"))
