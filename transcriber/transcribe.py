"""Footage (or observations) in, a checked .mat and a report of every flag out."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from transcriber.decode import decode
from transcriber.fileio import write_text_atomic
from transcriber.mat import write_mat
from transcriber.observation import FrameObservation
from transcriber.record import PROFILES, MatchRecord, Move, Resign, RulesProfile
from transcriber.replay import replay_match


def load_observations(path: Path, progress: bool = True) -> list[FrameObservation]:
    """Observations from a .jsonl file, or by observing a video."""
    if path.suffix == ".jsonl":
        with open(path, encoding="utf-8") as f:
            out = []
            for n, line in enumerate(f, start=1):
                if line.strip():
                    try:
                        out.append(FrameObservation.from_json(line))
                    except (ValueError, KeyError) as e:
                        raise ValueError(f"{path}:{n}: not an observation ({e})") from None
            return out
    import tempfile

    from vision.observe import observe_video

    with tempfile.TemporaryDirectory() as tmp:
        obs_path = Path(tmp) / "obs.jsonl"
        observe_video(path, obs_path, progress=progress)
        return load_observations(obs_path)


def match_rules(profile: str, length: int) -> RulesProfile:
    """An event's rules profile (a key of `PROFILES`; unknown: BMAB's) for a match of this length."""
    base = PROFILES.get(profile, PROFILES["bmab"])
    return RulesProfile(name=base.name, length=length, crawford=base.crawford,
                        dice_on_checker_valid=base.dice_on_checker_valid)


def decode_match(observations: list[FrameObservation], players: tuple[str, str], length: int, profile: str,
                 first_light: bool = True, source: str = "") -> tuple[MatchRecord, dict]:
    """Decode observations into a match record and its report (every flag, every action's provenance).
    Rules problems found by replaying the record become flags too; `report["mat_written"]` is left False."""
    rules = match_rules(profile, length)
    result = decode(observations, players=players, length=length, profile=rules, p0_light=first_light)
    record = result.record
    record.meta.update({"Event": "", "Transcriber": "bgscribe"})
    replay = replay_match(record)
    problems = replay.problems
    for p in problems:
        result.flags.append({"game": p.game, "action": None, "t": None, "reason": "score_contradiction"
                             if p.kind == "score" else f"rules_{p.kind}", "message": p.message, "alternatives": []})
    final = replay.final_score
    if length and record.games and final is not None and max(final) < length:
        # a finished match's footage that stops short of its end: footage is missing, or a game's result was
        # misjudged (a resignation's value, a time out that loses the match)
        last = record.games[-1]
        result.flags.append({"game": last.number, "action": None, "t": last.actions[-1].prov.time
                             if last.actions and last.actions[-1].prov else None, "reason": "score_contradiction",
                             "message": f"the transcript ends at {final[0]}-{final[1]} in a {length}-point match: "
                                        "footage missing, or a game's result misjudged (a resignation's value, "
                                        "a time out)", "alternatives": []})
    return record, _report(source, record, result, problems, False)


def transcribe(source: Path, out: Path, report: Path | None, players: tuple[str, str], length: int,
               profile: str, first_light: bool = True, progress: bool = True) -> dict:
    observations = load_observations(source, progress)
    record, doc = decode_match(observations, players, length, profile, first_light, str(source))
    if not doc["problems"]:
        write_mat(record, out)
        doc["mat_written"] = True
    if report is not None:
        write_text_atomic(report, json.dumps(doc, indent=2) + "\n")
    if progress:
        print(f"{len(record.games)} games, {sum(len(g.actions) for g in record.games)} actions, "
              f"{len(doc['flags'])} flags", file=sys.stderr)
    return doc


def _report(source, record, result, problems, written: bool) -> dict:
    games = []
    for g in record.games:
        actions = []
        for k, a in enumerate(g.actions, start=1):
            d = {"index": k, "player": a.player, "kind": type(a).__name__.lower()}
            if isinstance(a, Move):
                d.update(dice=list(a.dice), play=a.play or "Cannot Move")
            if isinstance(a, Resign):
                d["value"] = a.value
            if a.prov is not None:
                d.update(time=a.prov.time, confidence=a.prov.confidence, alternatives=a.prov.alternatives,
                         flags=[{"reason": f.reason, "message": f.message} for f in a.prov.flags])
            actions.append(d)
        games.append({"number": g.number, "score": list(g.score), "winner": g.winner, "points": g.points,
                      "actions": actions})
    return {"input": str(source), "players": list(record.players), "length": record.length,
            "mat_written": written, "seating": result.seating.__dict__, "settles": result.settles,
            "segments": result.segments, "flags": result.flags, "problems": [p.as_dict() for p in problems],
            "games": games}
