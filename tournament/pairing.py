"""Swiss pairing through a real engine: `swisspair` (PyPI, MIT; a minimum-cost perfect matching over score
groups, its costs growing steeply towards the top groups: no repeat pairing, at most one bye a player, opponents
of as equal match points as possible, a group's odd player floated to the next group down).

This module only adapts: it ranks the players by match-win points (the standings at the time of the draw: PR
comes days later, BMAB pairs on wins alone), gives the engine each player's past opponents (symmetric sets, as
the engine demands) and whether they may still get a bye, and turns the engine's bare RuntimeError ("no
matching") into a message that names the constraint that blocked it and the alternative taken (or offered).

Among equally good draws (within a score group) the engine picks at random, from its own C++ generator seeded
by the machine (nothing outside can seed it): a draw from a hat, not repeatable, so every draw is kept as made
(the server's rounds and audit log). Its standings mode (`power_pairing`, each player ranked apart) would be
repeatable but pairs the closest ranks first, floating players out of the top group that the score-group mode
keeps in (the property test in tests/tournament/test_pairing.py found such a draw), so it is not used.
"""

from __future__ import annotations

from collections import defaultdict

import swisspair

from .model import Bye, EventRules, Pairing, Result, RoundDraw


class PairingError(ValueError):
    """No draw satisfies the rules; the message says which rule blocked it and what the forced draw would be."""

    def __init__(self, message: str, forced: RoundDraw | None = None):
        super().__init__(message)
        self.forced = forced


def swiss_scores(players: list[str], results: list[Result], rules: EventRules) -> dict[str, int]:
    """Match-win points per player from the Swiss rounds' results (a bye counts `rules.bye_wins`)."""
    score = dict.fromkeys(players, 0)
    for r in results:
        if r.stage == "swiss" and r.winner in score:
            score[r.winner] += rules.bye_wins if r.bye else 1
    return score


def opponents(results: list[Result]) -> dict[str, set[str]]:
    """Who played whom (both ways round: the engine wants symmetric no-repeat sets)."""
    seen: dict[str, set[str]] = defaultdict(set)
    for r in results:
        if not r.bye:
            seen[r.a].add(r.b)
            seen[r.b].add(r.a)
    return seen


def had_bye(results: list[Result]) -> set[str]:
    return {r.a for r in results if r.bye}


def _engine(order: list[str], score: dict[str, int], avoid: dict[str, set[str]], may_bye: set[str]):
    """One call of the engine; None when it finds no matching (its RuntimeError)."""
    players = [swisspair.Player(id=p, points=score[p], rank=i + 1, can_get_bye=p in may_bye,
                                cannot_be_paired_against_ids=set(avoid.get(p, ())) & set(order))
               for i, p in enumerate(order)]
    try:
        return swisspair.create_matches(players)
    except RuntimeError:
        return None


def swiss_pairing(players: list[str], results: list[Result], number: int, rules: EventRules | None = None,
                  strict: bool = False) -> RoundDraw:
    """The draw of Swiss round `number` for `players` (in seeding order: it breaks ties of score for the
    ranking the engine pairs by), given every result so far.

    Where the rules leave no draw (every pairing left would repeat one, or every player has had a bye), a
    forced draw is made and `RoundDraw.forced` says what gave way; with `strict`, PairingError is raised
    instead, its message naming the constraint and the forced draw's change."""
    rules = rules or EventRules()
    if len(set(players)) != len(players):
        dup = sorted({p for p in players if players.count(p) > 1})
        raise PairingError(f"players listed twice: {', '.join(dup)}")
    if len(players) < 2:
        raise PairingError(f"a round needs at least 2 players, not {len(players)}")
    score = swiss_scores(players, results, rules)
    seed = {p: i for i, p in enumerate(players)}
    order = sorted(players, key=lambda p: (-score[p], seed[p]))
    met = opponents(results)
    byes = had_bye(results)
    may_bye = set(players) - byes

    matches = _engine(order, score, met, may_bye)
    forced: list[str] = []
    if matches is None:
        forced, matches = _forced(order, score, met, may_bye, byes)
    draw = _draw(number, matches, score, seed)
    draw.forced = forced
    if forced:
        changes = _describe_forced(draw, met, byes)
        draw.forced = [*forced, *changes]
        if strict:
            raise PairingError("; ".join(forced) + (f"; the forced draw: {'; '.join(changes)}" if changes else ""),
                               draw)
    return draw


def _forced(order, score, met, may_bye, byes):
    """Which rule blocks the draw: try each relaxation alone, then both (repeats first: a second bye costs a
    player a whole round's chance to score, so it is the last resort)."""
    n = len(order)
    if n % 2 == 1 and not may_bye:
        why_bye = [f"every one of the {n} players has had a bye already and the field is odd"]
    else:
        why_bye = []
    if not why_bye:
        matches = _engine(order, score, {}, may_bye)
        if matches is not None:
            return [f"no draw avoids a repeat pairing ({_repeat_reason(order, met)}); "
                    "repeats were allowed"], matches
    matches = _engine(order, score, met, set(order))
    if matches is not None:
        why = why_bye or ["no draw avoids both a repeat pairing and a second bye"]
        return [*why, "a second bye was allowed"], matches
    matches = _engine(order, score, {}, set(order))
    if matches is None:  # cannot happen with 2+ players and nothing forbidden; say so rather than guess
        raise PairingError(f"the pairing engine found no draw for {n} players even with every rule relaxed")
    why = why_bye or [f"no draw avoids a repeat pairing ({_repeat_reason(order, met)})"]
    return [*why, "repeats and a second bye were allowed"], matches


def _repeat_reason(order: list[str], met: dict[str, set[str]]) -> str:
    active = set(order)
    stuck = [p for p in order if active - {p} <= met.get(p, set())]
    if stuck:
        return f"{', '.join(stuck)} {'has' if len(stuck) == 1 else 'have'} played everybody still in the event"
    return f"the {len(order)} players have played too many of each other"


def _draw(number: int, matches, score: dict[str, int], seed: dict[str, int]) -> RoundDraw:
    pairs, byes = [], []
    for m in matches:
        if m.is_bye:
            byes.append(Bye(m.p1.id))
            continue
        a, b = sorted((m.p1.id, m.p2.id), key=lambda p: (-score[p], seed[p]))
        pairs.append((a, b))
    # Table 1 is the top pairing: by the higher player's score, then the pair's combined score, then seed.
    pairs.sort(key=lambda ab: (-score[ab[0]], -score[ab[1]], seed[ab[0]]))
    return RoundDraw(number, [Pairing(a, b) for a, b in pairs], byes)


def _describe_forced(draw: RoundDraw, met: dict[str, set[str]], byes: set[str]) -> list[str]:
    out = [f"{p.a} – {p.b} is a repeat pairing" for p in draw.pairings if p.b in met.get(p.a, set())]
    out += [f"{b.player} gets a second bye" for b in draw.byes if b.player in byes]
    return out


def assign_boards(draw: RoundDraw, boards: list[int]) -> RoundDraw:
    """Fixed tables: the draw's pairings, top first, onto the boards in the order given (the cameras stay put;
    the players move). ValueError when there are fewer boards than pairings."""
    if len(boards) < len(draw.pairings):
        raise ValueError(f"round {draw.number} has {len(draw.pairings)} pairings but only {len(boards)} boards")
    if len(set(boards)) != len(boards):
        raise ValueError("a board is listed twice")
    draw.pairings = [Pairing(p.a, p.b, board, p.stage) for p, board in zip(draw.pairings, boards)]
    return draw
