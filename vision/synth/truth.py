"""Read a truth file back, and turn its events into the match they record."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from transcriber.record import Double, Drop, Game, MatchRecord, Move, Resign, RulesProfile, Take, Timeout


def read_truth(path: str | Path) -> Iterator[dict]:
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, start=1):
            line = line.strip()
            if not line:
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{n}: not a JSON line ({e.msg})") from None


def match_from_truth(path: str | Path) -> MatchRecord:
    """The match the truth's events describe (what a perfect transcriber would write)."""
    header: dict | None = None
    games: list[Game] = []
    pending_roll: dict | None = None
    for item in read_truth(path):
        kind = item.get("type")
        if kind == "header":
            header = item
            continue
        if kind != "event":
            continue
        k = item["kind"]
        if k == "game_start":
            games.append(Game(number=item["game"], score=tuple(item["score"])))
        elif k == "roll":
            pending_roll = item
        elif k == "play":
            if pending_roll is None or pending_roll["player"] != item["player"]:
                raise ValueError(f"{path}: a play at t={item['t']} without its roll")
            games[-1].actions.append(Move(item["player"], tuple(pending_roll["dice"]), item["play"]))
            pending_roll = None
        elif k == "double":
            games[-1].actions.append(Double(item["player"]))
        elif k == "take":
            games[-1].actions.append(Take(item["player"]))
        elif k == "drop":
            games[-1].actions.append(Drop(item["player"]))
        elif k == "resign":
            games[-1].actions.append(Resign(item["player"], item["value"]))
        elif k == "timeout":
            games[-1].actions.append(Timeout(item["player"]))
        elif k == "game_end":
            games[-1].winner, games[-1].points = item["player"], item["points"]
    if header is None:
        raise ValueError(f"{path}: no header line")
    length = header["length"]
    return MatchRecord(players=tuple(header["players"]), length=length, games=games, meta=dict(header["meta"]),
                       profile=RulesProfile(name=header.get("rules", "bmab"), length=length))
