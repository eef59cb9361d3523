"""Score a transcript against the truth: what is right, what is flagged, and what is silently wrong.

Moves are compared by who moved, the roll, and the position the play produced;
games are aligned action by action (longest common subsequence), so one missing
move costs one move, not the rest of the game. A *silent error* is a truth action
the transcript got wrong or lost, or a wrong game result, that no flag accounts for.

A lost truth action is looked for by a person at the flagged moments (transcript actions carrying
flags) between the matched actions around it, those two included: each moment accounts for at most
`COVERS` lost actions (its own and the other player's turn beside it, when the two were mixed up),
however many flags it carries; one with a `footage_gap` flag accounts for every action lost there:
nobody could see them. A wrong result (winner and points) is excused by any flag in that game; the
final score is reported apart.
"""

from __future__ import annotations

from .record import Double, Drop, MatchRecord, Move, Resign, Take, Timeout
from .replay import replay_match

COVERS = 2  # lost truth actions one flagged moment (other than a footage gap) may account for


def _keys(record: MatchRecord) -> list[list[tuple]]:
    out = []
    for gr in replay_match(record).games:
        keys = []
        for a, play in zip(gr.game.actions, gr.plays):
            if isinstance(a, Move):
                keys.append(("move", a.player, tuple(sorted(a.dice)), play.result if play else a.play))
            elif isinstance(a, Double | Take | Drop):
                keys.append((type(a).__name__.lower(), a.player))
            elif isinstance(a, Resign | Timeout):
                keys.append(("end", None))
        out.append(keys)
    return out


def _lcs(a: list, b: list) -> list[tuple[int, int]]:
    n, m = len(a), len(b)
    dp = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            dp[i][j] = dp[i + 1][j + 1] + 1 if a[i] == b[j] else max(dp[i + 1][j], dp[i][j + 1])
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if a[i] == b[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif dp[i + 1][j] >= dp[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def evaluate_transcript(truth: MatchRecord, transcript: MatchRecord, flags: list[dict]) -> dict:
    """``flags``: the report's flags, each with "game", "reason" and "action" (1-based index in the
    transcript's game; flags without one concern the whole match and excuse no action)."""
    tk, dk = _keys(truth), _keys(transcript)
    plays = plays_right = cube = cube_right = 0
    silent = []
    results_right = 0
    budget: dict[tuple[int, int], float] = {}  # flagged moment (game, action) -> lost actions it may still excuse
    for f in flags:
        if f.get("action"):
            key = (f["game"], f["action"])
            budget[key] = max(budget.get(key, 0), float("inf") if f["reason"] == "footage_gap" else COVERS)
    flags_total = len(budget) + sum(1 for f in flags if not f.get("action"))
    rt, rd = replay_match(truth), replay_match(transcript)
    for g, tkeys in enumerate(tk):
        dkeys = dk[g] if g < len(dk) else []
        matched = dict(_lcs(tkeys, dkeys))
        game_flagged = any(f.get("game") == g + 1 for f in flags)
        for i, key in enumerate(tkeys):
            is_move = key[0] == "move"
            if key[0] == "end":
                continue
            if is_move:
                plays += 1
            else:
                cube += 1
            if i in matched:
                plays_right += is_move
                cube_right += not is_move
                continue
            # the transcript's actions between the matched ones around this place (1-based, those two included)
            before = max((j for ti, j in matched.items() if ti < i), default=-1)
            after = min((j for ti, j in matched.items() if ti > i), default=len(dkeys))
            by = next((k for k in ((g + 1, a) for a in range(max(before + 1, 1), after + 2)) if budget.get(k, 0) > 0),
                      None)
            if by is not None:
                budget[by] -= 1
            else:
                silent.append({"game": g + 1, "action": i + 1, "truth": _describe(key)})
        # a game's result is who won it and how many points; the score lines follow from the results, so a
        # result gone wrong (flagged or not) is counted once, in its own game, not again in every later one
        tg = rt.games[g]
        dg = rd.games[g] if g < len(rd.games) else None
        if dg is not None and (tg.winner, tg.points) == (dg.winner, dg.points):
            results_right += 1
        elif not game_flagged:
            silent.append({"game": g + 1, "action": None, "truth": f"result: player {tg.winner} wins {tg.points}"})
    games = len(tk)
    return {
        "games": games,
        "games_in_transcript": len(dk),
        "plays": plays,
        "plays_right": plays_right,
        "plays_right_rate": round(plays_right / plays, 5) if plays else None,
        "cube_actions": cube,
        "cube_actions_right": cube_right,
        "results_right": results_right,
        "final_score_right": rt.final_score == rd.final_score,
        "flags": flags_total,
        "flags_per_game": round(flags_total / games, 3) if games else None,
        "silent_errors": len(silent),
        "silent_error_list": silent[:50],
    }


def _describe(key: tuple) -> str:
    if key[0] == "move":
        return f"player {key[1]} rolls {key[2][0]}{key[2][1]}"
    return f"player {key[1]} {key[0]}s"
