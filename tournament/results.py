"""A match's result as its transcript gives it: who reached the match length (the rules engine replays it)."""

from __future__ import annotations

from transcriber.record import MatchRecord
from transcriber.replay import replay_match


class UnfinishedMatch(ValueError):
    pass


def match_winner(record: MatchRecord) -> tuple[str, tuple[int, int]]:
    """The winner's name and the final score; UnfinishedMatch when nobody reached the match length."""
    rep = replay_match(record)
    score = rep.final_score
    if not record.length or max(score) < record.length:
        raise UnfinishedMatch(f"the transcript ends at {score[0]}-{score[1]} in a {record.length}-point match: "
                              "nobody has won it yet")
    return record.players[0 if score[0] > score[1] else 1], score


def check_result(record: MatchRecord, a: str, b: str, winner: str) -> str | None:
    """Why a result entered for `a` – `b` contradicts the transcript, or None when it agrees."""
    names = set(record.players)
    if names != {a, b}:
        return (f"the transcript is of {record.players[0]} – {record.players[1]}, not {a} – {b}")
    try:
        w, score = match_winner(record)
    except UnfinishedMatch as e:
        return str(e)
    if w != winner:
        return f"the transcript has {w} winning {max(score)}-{min(score)}, not {winner}"
    return None
