"""A whole event run through the desk's own code: the real pairing engine, results from generated matches
(transcriber.generate: random legal matches), optionally each match's PR from gnubg's analysis of its .mat,
then the standings, Cup points and prizes. `bgscribe event simulate` prints it."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from transcriber.generate import GenOptions, random_match
from transcriber.mat import write_mat

from .formats import EventState
from .model import EventRules, Result
from .report import event_json
from .results import match_winner


def player_names(n: int) -> list[str]:
    width = len(str(n))
    return [f"Player {i + 1:0{width}d}" for i in range(n)]


def simulate_event(players: int, rules: EventRules, seed: int = 0, pr_ply: int | None = None,
                   progress=None) -> dict:
    """The event as JSON. With `pr_ply`, every match's .mat is analysed by gnubg at that ply (its PRs then
    break ties and decide the PR points); without, the PRs are drawn at random (marked `"pr_source":
    "random"`), so the tie-breaks still have something to work on."""
    if players < 2:
        raise ValueError(f"an event needs at least 2 players, not {players}")
    from .pr import analyse_mat

    rng = random.Random(seed)
    ev = EventState(player_names(players), rules)
    opts = GenOptions(length=rules.match_length)
    out_rounds = []
    with tempfile.TemporaryDirectory(prefix="bgscribe-event-") as tmp:
        while not ev.finished:
            draw = ev.next_draw()
            rows = []
            for i, p in enumerate(draw.pairings):
                record = random_match(rng.randrange(1 << 30), (p.a, p.b), opts)
                winner, _score = match_winner(record)
                if pr_ply is None:
                    pr_a, pr_b = round(rng.uniform(2.0, 16.0), 2), round(rng.uniform(2.0, 16.0), 2)
                else:
                    path = Path(tmp) / f"r{draw.number}-{i}.mat"
                    write_mat(record, path)
                    a = analyse_mat(path, ply=pr_ply)
                    pr_a, pr_b = round(a.by_name(p.a).pr, 2), round(a.by_name(p.b).pr, 2)
                ev.record(Result(draw.number, p.a, p.b, winner, pr_a, pr_b, True, p.stage))
                rows.append({"a": p.a, "b": p.b, "winner": winner, "pr_a": pr_a, "pr_b": pr_b, "stage": p.stage,
                             "board": i + 1})
            out_rounds.append({"number": draw.number, "pairings": rows, "byes": [b.player for b in draw.byes],
                               "forced": draw.forced})
            if progress:
                progress(draw.number, ev.rounds)
    return event_json(ev) | {"rounds": out_rounds, "seed": seed,
                             "pr_source": "random" if pr_ply is None else f"gnubg {pr_ply}-ply"}
