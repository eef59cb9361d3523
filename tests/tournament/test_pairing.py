"""Swiss pairing through swisspair, over random events of 8-64 players and 3-9 rounds: no repeat pairing while
one is avoidable, pairings within score groups except the floaters, never a second bye.

"Except the floaters" is held to the engine's own rule, "opponents of as equal match points as possible, the top
groups first": each pairing across score groups costs by the two groups (`score_group_costs`, transcribed from
swisspair's `compute_penalty_matrix`: a higher group's player floating outweighs everything below it, and a float
to the next group costs less than one further down). The oracle is networkx's maximum-weight matching over the
same players, the same no-repeat graph and those costs: an independent solver. The engine's draw must cost no
more than its minimum, and a draw needs no float at all whenever one without a float exists. (Fewest players
across each group's edge is a different rule, and not this one: three top players each floating one group down
beat one top player paired with the bottom group.)"""

from __future__ import annotations

import random

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournament.formats import EventState
from tournament.model import EventRules, Result
from tournament.pairing import PairingError, had_bye, opponents, swiss_pairing, swiss_scores

BYE = "(bye)"


def score_group_costs(sizes: list[int]) -> list[list[int]]:
    """The cost of a pairing between score groups i < j (0 the top; the bye a group of its own, last)."""
    n = len(sizes)
    cost = [[0] * n for _ in range(n)]
    if n < 2:
        return cost
    cost[n - 2][n - 1] = 1
    prev = (n - 2, n - 1)
    for i in range(n - 3, -1, -1):
        for j in range(i + 1, n):
            val = cost[prev[0]][prev[1]] * max(sizes[prev[0]], sizes[prev[1]]) if i == prev[0] else 0
            val += sum(cost[k][n - 1] * max(sizes[k], sizes[n - 1]) for k in range(i + 1, n - 1))
            cost[i][j] = val + 1
            prev = (i, j)
    return cost


def groups(players, score) -> tuple[dict[str, int], list[list[int]]]:
    levels = sorted(set(score.values()), reverse=True)
    group = {p: levels.index(score[p]) for p in players}
    sizes = [sum(1 for p in players if group[p] == k) for k in range(len(levels))]
    if len(players) % 2:
        group[BYE] = len(levels)
        sizes.append(1)
    return group, score_group_costs(sizes)


def draw_cost(pairs, group, cost) -> int:
    return sum(cost[min(group[a], group[b])][max(group[a], group[b])] for a, b in pairs)


def oracle(players, results, group, cost):
    """(can every player be paired without a repeat, the least cost of such a draw) by networkx."""
    met, byes = opponents(results), had_bye(results)
    nodes = list(players) + ([BYE] if len(players) % 2 else [])
    big = max(max(row) for row in cost) + 1
    g = nx.Graph()
    g.add_nodes_from(nodes)
    for i, a in enumerate(nodes):
        for b in nodes[i + 1:]:
            if BYE in (a, b):
                if (b if a == BYE else a) in byes:
                    continue
            elif b in met.get(a, set()):
                continue
            g.add_edge(a, b, weight=big - cost[min(group[a], group[b])][max(group[a], group[b])])
    m = nx.max_weight_matching(g, maxcardinality=True)  # integer weights: exact
    if 2 * len(m) < len(nodes):
        return False, None
    return True, draw_cost(list(m), group, cost)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(8, 64), rounds=st.integers(3, 9), seed=st.integers(0, 10**6))
def test_random_events_keep_the_swiss_rules(n, rounds, seed):
    rng = random.Random(seed)
    rules = EventRules(rounds=rounds)
    players = [f"P{i:02d}" for i in range(n)]
    ev = EventState(players, rules)
    for number in range(1, rounds + 1):
        before = list(ev.results)
        group, cost = groups(players, swiss_scores(players, before, rules))
        avoidable, least = oracle(players, before, group, cost)
        draw = ev.next_draw()
        assert draw.players() == set(players) and len(draw.byes) == n % 2
        met = opponents(before)
        repeats = [p for p in draw.pairings if p.b in met.get(p.a, set())]
        if avoidable:
            assert not repeats and not draw.forced, (number, repeats, draw.forced)
            pairs = [(p.a, p.b) for p in draw.pairings] + [(b.player, BYE) for b in draw.byes]
            got = draw_cost(pairs, group, cost)
            assert got == least, (number, got, least)  # floaters only where the groups leave no choice
            if least == 0:
                assert all(group[a] == group[b] for a, b in pairs)
        else:
            assert draw.forced
        for b in draw.byes:  # never a second bye (8+ players, at most 9 rounds: never forced)
            assert b.player not in had_bye(before)
        for p in draw.pairings:
            ev.record(Result(number, p.a, p.b, rng.choice((p.a, p.b)), rng.uniform(3, 15), rng.uniform(3, 15)))
    byes = [r.a for r in ev.results if r.bye]
    assert len(byes) == len(set(byes))


def test_the_costs_put_the_top_group_first_and_the_nearest_group_before_a_further_one():
    sizes = [3, 3, 2, 1]  # four score groups
    cost = score_group_costs(sizes)
    assert cost[0][1] < cost[0][2] < cost[0][3]  # a top player floats to the next group first
    lower = [cost[i][j] for i in range(1, 4) for j in range(i + 1, 4)]
    assert cost[0][1] > max(lower) * (sum(sizes[1:]) // 2)  # one top float outweighs any draw of the groups below
    assert cost[1][1] == 0


def round_robin(players):
    """Results of a full round robin: everybody has played everybody."""
    out, k = [], 0
    for i, a in enumerate(players):
        for b in players[i + 1:]:
            k += 1
            out.append(Result(k, a, b, a, 5.0, 6.0))
    return out


def test_an_impossible_draw_says_which_rule_blocked_it_and_what_was_forced():
    players = ["Ann", "Ben", "Cem", "Dan"]
    results = round_robin(players)
    draw = swiss_pairing(players, results, 4)
    assert draw.forced[0].startswith("no draw avoids a repeat pairing (Ann, Ben, Cem, Dan have played everybody")
    assert "repeats were allowed" in draw.forced[0]
    assert len(draw.pairings) == 2 and any("is a repeat pairing" in f for f in draw.forced)
    with pytest.raises(PairingError) as e:
        swiss_pairing(players, results, 4, strict=True)
    assert "no draw avoids a repeat pairing" in str(e.value) and "the forced draw:" in str(e.value)
    assert e.value.forced is not None and len(e.value.forced.pairings) == 2


def test_a_second_bye_only_when_everybody_has_had_one():
    players = ["Ann", "Ben", "Cem"]
    results = [Result(1, "Ann", "Ben", "Ann"), Result(2, "Ann", "Cem", "Cem"), Result(3, "Ben", "Cem", "Ben")]
    results += [Result(i, p, "", p, bye=True, provisional=False) for i, p in ((1, "Cem"), (2, "Ben"), (3, "Ann"))]
    draw = swiss_pairing(players, results, 4)
    assert any("has had a bye already" in f for f in draw.forced)
    assert any("gets a second bye" in f for f in draw.forced)


def test_the_draw_is_random_within_score_groups():
    players = [f"P{i:02d}" for i in range(16)]
    results = [Result(1, f"P{i:02d}", f"P{i + 1:02d}", f"P{i:02d}") for i in range(0, 16, 2)]
    draws = [swiss_pairing(players, results, 2) for _ in range(12)]
    assert len({tuple(sorted((p.a, p.b) for p in d.pairings)) for d in draws}) > 6  # a draw from a hat
    for d in draws:  # 8 winners (even), 8 losers (odd): nobody floats, so nobody meets round 1's opponent
        assert all(int(p.a[1:]) % 2 == int(p.b[1:]) % 2 for p in d.pairings)


def test_bad_input_is_refused_clearly():
    with pytest.raises(PairingError, match="at least 2 players"):
        swiss_pairing(["Ann"], [], 1)
    with pytest.raises(PairingError, match="players listed twice: Ann"):
        swiss_pairing(["Ann", "Ann", "Ben"], [], 1)
    with pytest.raises(ValueError, match="the winner of Ann – Ben must be one of them"):
        Result(1, "Ann", "Ben", "Cem")
