"""Compare two match records by what was played, not by how it was written."""

from __future__ import annotations

from .record import MatchRecord, Move, Resign, Timeout
from .replay import replay_match


def diff_matches(a: MatchRecord, b: MatchRecord, limit: int = 20) -> list[str]:
    """Differences in games, plays (by resulting position), cube actions, results and score."""
    ra, rb = replay_match(a), replay_match(b)
    out: list[str] = []
    if len(a.games) != len(b.games):
        out.append(f"{len(a.games)} games vs {len(b.games)}")
    for ga, gb in zip(ra.games, rb.games):
        n = ga.game.number
        sa, sb = _actions(ga), _actions(gb)
        if len(sa) != len(sb):
            out.append(f"game {n}: {len(sa)} actions vs {len(sb)}")
        for k, (x, y) in enumerate(zip(sa, sb), start=1):
            if x != y:
                out.append(f"game {n}, action {k}: {x[:3]} vs {y[:3]}")
                break
        # Results compare by what they do to the score: a .mat cannot say "resigned" or "timed out",
        # and a result past the match length counts only up to it.
        if (ga.winner, ga.score_after) != (gb.winner, gb.score_after):
            out.append(f"game {n}: {ga.winner} wins -> {ga.score_after} ({ga.ending}) vs "
                       f"{gb.winner} wins -> {gb.score_after} ({gb.ending})")
        if ga.game.score != gb.game.score:
            out.append(f"game {n}: score line {ga.game.score} vs {gb.game.score}")
    if ra.final_score != rb.final_score:
        out.append(f"final score {ra.final_score} vs {rb.final_score}")
    return out[:limit]


def _actions(gr) -> list[tuple]:
    out = []
    for a, play, before in zip(gr.game.actions, gr.plays, gr.positions):
        if isinstance(a, Resign | Timeout):
            continue  # carried by the game's result
        if isinstance(a, Move):
            result = play.result if play else None
            out.append(("move", a.player, a.dice, play.notation if play else a.play, result, before))
        else:
            out.append((type(a).__name__.lower(), a.player))
    return out
