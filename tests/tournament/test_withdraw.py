"""A player withdrawing mid-event: not drawn from the next round on, their results kept, the standings showing
them marked; at Amberg's cut the top 4 still in play; in the cup their next opponent goes through on a bye."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournament.formats import EventState
from tournament.model import EventRules, Result
from tournament.report import event_json

PLAYERS = [f"P{i}" for i in range(1, 9)]


def finish_round(ev: EventState, pick=lambda p: p.a):
    for p in ev.draws[-1].pairings:
        ev.record(Result(ev.draws[-1].number, p.a, p.b, pick(p), 8.0, 9.0))


def test_a_withdrawn_player_is_not_drawn_again_and_keeps_their_results():
    ev = EventState(list(PLAYERS), EventRules(rounds=4))
    ev.next_draw()
    finish_round(ev)
    gone = ev.draws[0].pairings[0].a  # won round 1
    assert ev.withdraw(gone) == 1
    for _ in range(3):
        d = ev.next_draw()
        assert gone not in d.players() and d.players() == set(PLAYERS) - {gone}
        assert len(d.byes) == 1  # seven left: a bye each round, never twice to one player
        finish_round(ev)
    byes = [r.a for r in ev.results if r.bye]
    assert len(byes) == len(set(byes)) == 3
    met = [frozenset((r.a, r.b)) for r in ev.results if not r.bye]
    assert len(met) == len(set(met))  # still no repeat pairing
    table = {st.player: st for st in ev.standings()}
    assert table[gone].withdrawn and table[gone].match_wins == 1 and table[gone].played == 1
    assert not any(st.withdrawn for p, st in table.items() if p != gone)
    out = event_json(ev)
    assert out["withdrawn"] == {gone: 1}
    assert next(s for s in out["standings"] if s["player"] == gone)["withdrawn"] is True


def test_withdrawing_during_a_round_keeps_that_round_s_match():
    ev = EventState(list(PLAYERS), EventRules(rounds=3))
    ev.next_draw()
    finish_round(ev)
    d2 = ev.next_draw()
    gone = d2.pairings[1].b
    assert ev.withdraw(gone) == 2
    finish_round(ev, pick=lambda p: p.a)  # their round-2 match still takes its result (here: conceded)
    assert gone not in ev.next_draw().players()
    assert sum(1 for r in ev.results if gone in (r.a, r.b)) == 2


def test_withdrawals_refused_with_the_reason():
    ev = EventState(list(PLAYERS), EventRules(rounds=1))
    with pytest.raises(ValueError, match="'Nobody' is not a player of the event"):
        ev.withdraw("Nobody")
    ev.withdraw("P2")
    with pytest.raises(ValueError, match=r"P2 has withdrawn already \(before round 1\)"):
        ev.withdraw("P2")
    ev.next_draw()
    with pytest.raises(ValueError, match="all 1 rounds are drawn"):
        ev.withdraw("P3")


def test_amberg_cut_takes_the_top_four_still_in_play_and_the_knockout_is_conceded_not_left():
    ev = EventState(list(PLAYERS), EventRules(format="swiss-top4", rounds=3))
    for _ in range(3):
        ev.next_draw()
        finish_round(ev, pick=lambda p: min(p.a, p.b))
    swiss_top = [st.player for st in ev.standings()][:5]
    ev.withdraw(swiss_top[0], forfeit_attendance=True)
    semis = ev.next_draw()
    assert {p for x in semis.pairings for p in (x.a, x.b)} == set(swiss_top[1:5])
    assert [x.stage for x in semis.pairings] == ["semi-final", "semi-final"]
    with pytest.raises(ValueError, match="plays the knockout: leaving it is conceding the match"):
        ev.withdraw(semis.pairings[0].a)
    points = event_json(ev)["ranking_points"]
    assert points[swiss_top[0]] == 7 * 3  # three matches won, the 7 for attending taken
    assert points[swiss_top[1]] >= 7 + 7


def test_in_the_cup_the_next_opponent_goes_through_on_a_bye():
    ev = EventState(list(PLAYERS), EventRules(format="cup"))
    r1 = ev.next_draw()
    finish_round(ev)
    winners = [p.a for p in r1.pairings]
    ev.withdraw(winners[0])
    r2 = ev.next_draw()
    main = [p for p in r2.pairings if p.stage == "cup"]
    assert winners[0] not in r2.players()
    assert len(main) == 1 and [b.player for b in r2.byes if b.stage == "cup"] != []
    (through,) = [b.player for b in r2.byes if b.stage == "cup"]
    assert through in winners[1:]
    finish_round(ev)
    r3 = ev.next_draw()
    final = next(p for p in r3.pairings if p.stage == "cup")
    assert through in (final.a, final.b)
    finish_round(ev)
    table = {st.player: st for st in ev.standings()}
    assert table[winners[0]].withdrawn and table[winners[0]].match_wins == 1
    assert table[final.a].place == 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(8, 40), rounds=st.integers(3, 7), seed=st.integers(0, 10**6))
def test_random_withdrawals_never_drawn_again(n, rounds, seed):
    rng = random.Random(seed)
    players = [f"P{i:02d}" for i in range(n)]
    ev = EventState(list(players), EventRules(rounds=rounds))
    while not ev.finished:
        if len(ev.draws) < rounds and rng.random() < 0.4 and len(ev.withdrawn) < n - 4:
            ev.withdraw(rng.choice([p for p in players if p not in ev.withdrawn]))
        had_bye = {r.a for r in ev.results if r.bye}
        d = ev.next_draw()
        assert not {p for p, last in ev.withdrawn.items() if last < d.number} & d.players()
        assert d.players() == {p for p in players if ev.withdrawn.get(p, rounds) >= d.number}
        if not d.forced:  # no second bye while the rules can be kept
            assert not {b.player for b in d.byes} & had_bye
        finish_round(ev, pick=lambda p: rng.choice((p.a, p.b)))
    table = ev.standings()
    assert sorted(st.player for st in table) == players
    for st_ in table:
        assert st_.withdrawn == (st_.player in ev.withdrawn)
        games = sum(1 for r in ev.results if st_.player in (r.a, r.b) and not r.bye)
        assert st_.played == games
        if st_.player in ev.withdrawn:
            assert games + st_.byes == ev.withdrawn[st_.player]  # every round until they left, none after
