"""The validator: replay match files and list every problem, with where it is."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .errors import MatchFormatError
from .mat import read_mat
from .replay import replay_match


@dataclass
class FileReport:
    path: str
    games: int = 0
    plays: int = 0
    final_score: tuple[int, int] | None = None
    players: tuple[str, str] | None = None
    errors: list[dict] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def as_dict(self) -> dict:
        return {"path": self.path, "games": self.games, "plays": self.plays,
                "final_score": list(self.final_score) if self.final_score else None, "errors": self.errors}


def validate_file(path: str | Path) -> FileReport:
    report = FileReport(str(path))
    bad: list[MatchFormatError] = []
    try:
        record = read_mat(path, errors=bad)
    except MatchFormatError as e:
        bad.append(e)
    if bad:  # every line that does not read; the rules are checked once the file reads
        report.errors += [{"kind": "format", "message": e.reason, "line": e.line, "game": e.game, "move": e.move}
                          for e in bad]
        return report
    rep = replay_match(record)
    report.games, report.plays, report.players = len(record.games), rep.plays, record.players
    report.final_score = rep.final_score
    for p in rep.problems:
        d = p.as_dict()
        if p.player is not None:
            d["player_name"] = record.players[p.player]
        report.errors.append(d)
    return report


def format_report(r: FileReport) -> list[str]:
    if r.ok:
        score = f", final score {r.final_score[0]}-{r.final_score[1]}" if r.final_score else ""
        return [f"{r.path}: OK ({r.games} games, {r.plays} plays{score})"]
    lines = []
    for e in r.errors:
        where = f"{r.path}:{e['line']}" if e.get("line") else r.path
        ctx = ", ".join(x for x in (f"game {e['game']}" if e.get("game") else "",
                                     f"move {e['move']}" if e.get("move") else "",
                                     e.get("player_name", "")) if x)
        lines.append(f"{where}: {e['kind']}: {e['message']}" + (f" [{ctx}]" if ctx else ""))
    lines.append(f"{r.path}: {len(r.errors)} error{'s' if len(r.errors) != 1 else ''}")
    return lines
