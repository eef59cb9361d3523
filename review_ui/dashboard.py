"""The live dashboard's data: every board (agent online, preview still, its match in the current round with
players, score, status and flags left) and every match's status.

A match's status runs recording → transcribing → needs review → approved → submitted. Before a transcript
exists it is the background pipeline's stage (`stage`: a function (session, match) -> {"stage", "score",
"error"}, see `pages.pipeline_stage`); with one, the transcript's own status. Open flags and validator
findings are counted once per transcript version (cached), so a dashboard refresh stays cheap.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session, defer

from .board_field import board_field
from .models import Board, Event, Heartbeat, Match, Segment
from .pipeline_models import OBSERVE, QUEUED, RUNNING, PipelineJob
from .review_models import Transcript
from .services import clashing, utcnow
from .setup import current_round
from .transcripts import check

ONLINE_SECONDS = 30  # an agent is online if its last heartbeat is at most this old
WAITING = "waiting"  # no footage and no transcript yet

Stage = Callable[[Session, Match], dict]

_counts: dict[tuple, tuple[int, int, list[int] | None]] = {}


def transcript_counts(t: Transcript) -> tuple[int, int, list[int] | None]:
    """(open flags, validator findings, score so far) of a transcript version; computed once per version."""
    key = (t.id, t.match_id, t.version, t.created_at, t.updated_at)
    got = _counts.get(key)
    if got is None:
        c = check(json.loads(t.doc_json))
        got = (len(c.open_flags()), len(c.findings), transcript_score(c.doc))
        if len(_counts) > 2000:
            _counts.clear()
        _counts[key] = got
    return got


def transcript_score(doc: dict) -> list[int] | None:
    """The match score after the transcript's last game (its score before, plus the points won in it)."""
    if not doc.get("games"):
        return None
    g = doc["games"][-1]
    score = list(g.get("score") or [0, 0])
    if g.get("winner") in (0, 1) and g.get("points"):
        score[g["winner"]] += g["points"]
    return score


def match_status(s: Session, m: Match, t: Transcript | None, stage: Stage) -> dict:
    info = stage(s, m) or {}
    row = {"status": t.status if t is not None else info.get("stage") or WAITING, "score": info.get("score"),
           "error": info.get("error") or "", "open_flags": None, "findings": None,
           "version": t.version if t is not None else None}
    if t is not None:
        flags, findings, score = transcript_counts(t)
        row.update(open_flags=flags, findings=findings, score=row["score"] or score)
    return row


def _transcripts(s: Session) -> dict[int, Transcript]:
    q = select(Transcript).options(defer(Transcript.doc_json), defer(Transcript.report_json))
    return {t.match_id: t for t in s.scalars(q)}


def match_rows(s: Session, stage: Stage, event_id: int | None = None) -> list[dict]:
    """Every match (of one event, given its id) with its round, board, players, status, score and flags left."""
    transcripts = _transcripts(s)
    out = []
    q = select(Match).order_by(Match.id)
    if event_id is not None:
        q = q.where(Match.event_id == event_id)
    for m in s.scalars(q):
        out.append({"id": m.id, "event": m.event.name, "round": m.round.number if m.round else None,
                    "board": m.board.number, "player1": m.player1, "player2": m.player2,
                    "length": m.event.match_length, "started_at": m.started_at, "ended_at": m.ended_at,
                    **match_status(s, m, transcripts.get(m.id), stage)})
    return out


def board_match(s: Session, b: Board, rounds: dict[int, object], now: datetime) -> Match | None:
    """The board's match in its event's current round; without rounds, its latest match that has started."""
    r = rounds.get(b.event_id)
    if r is not None:
        m = s.scalar(select(Match).where(Match.round_id == r.id, Match.board_id == b.id))
        if m is not None:
            return m
    q = select(Match).where(Match.board_id == b.id)
    return (s.scalar(q.where(Match.started_at <= now).order_by(Match.started_at.desc(), Match.id.desc()))
            or s.scalar(q.order_by(Match.started_at, Match.id)))


def board_rows(s: Session, stage: Stage, now: datetime | None = None) -> list[dict]:
    now = now or utcnow()
    transcripts = _transcripts(s)
    rounds = {ev.id: current_round(s, ev, now) for ev in s.scalars(select(Event))}
    clashes, backlog = _clashing(s), _backlog(s)
    out = []
    for b in s.scalars(select(Board).order_by(Board.number)):
        age = (now - b.last_seen_at).total_seconds() if b.last_seen_at else None
        hb = s.scalar(select(Heartbeat).where(Heartbeat.board_id == b.id).order_by(Heartbeat.id.desc()).limit(1))
        row = {"number": b.number, "event": b.event.name if b.event else None,
               "online": age is not None and age <= ONLINE_SECONDS, "last_seen_at": b.last_seen_at,
               "seen_seconds_ago": None if age is None else round(age),
               "preview": b.preview_jpeg is not None,
               "preview_version": int(b.last_seen_at.timestamp()) if b.last_seen_at else 0,
               "agent": None if hb is None else {"state": hb.state, "fps": hb.fps, "dropped_frames": hb.dropped_frames,
                                                 "spool_segments": hb.spool_segments, "error": hb.error},
               "camera": camera_summary(b), "field": _field(b), "clashing": clashes.get(b.id, 0),
               "backlog_minutes": round(backlog.get(b.id, 0.0), 1), "match": None}
        m = board_match(s, b, rounds, now)
        if m is not None:
            row["match"] = {"id": m.id, "round": m.round.number if m.round else None, "player1": m.player1,
                            "player2": m.player2, "length": m.event.match_length,
                            **match_status(s, m, transcripts.get(m.id), stage)}
        out.append(row)
    return out


def _backlog(s: Session) -> dict[int, float]:
    """Per board id, minutes of stored footage not observed yet (waiting for a worker, or being observed): how
    far the pipeline is behind on that board. Footage waits on disk however long that gets; nothing is dropped."""
    waiting = (select(Segment.board_id, Segment.start, Segment.end)
               .outerjoin(PipelineJob, (PipelineJob.segment_id == Segment.id) & (PipelineJob.kind == OBSERVE))
               .where(Segment.deleted_at.is_(None),
                      PipelineJob.id.is_(None) | PipelineJob.state.in_((QUEUED, RUNNING))))
    out: dict[int, float] = {}
    for row in s.execute(waiting):
        out[row.board_id] = out.get(row.board_id, 0.0) + max(0.0, (row.end - row.start).total_seconds()) / 60
    return out


def _clashing(s: Session) -> dict[int, int]:
    """Per board id, how many of its live segments claim time another of them claims too (linked to no
    match): one query for the whole room, not one a board on every refresh."""
    by_board: dict[int, list] = {}
    for row in s.execute(select(Segment.board_id, Segment.id, Segment.start, Segment.end)
                         .where(Segment.deleted_at.is_(None))):
        by_board.setdefault(row.board_id, []).append(row)
    return {board: len(clashing(rows)) for board, rows in by_board.items()}


def _field(b: Board) -> dict | None:
    f = board_field(b)
    return None if f is None else {"corners": f.corners, "by": f.by, "at": f.at,
                                   "points": " ".join(f"{x},{y}" for x, y in f.corners)}


# The camera check's names (vision.camcheck) as the board card says them.
CHECK_LABELS = {"board": "board in view", "resolution": "resolution", "sharpness": "sharpness",
                "exposure": "exposure", "glare": "glare", "frame_rate": "frame rate"}


def check_label(name) -> str:
    return CHECK_LABELS.get(name, str(name).replace("_", " "))


def camera_summary(b: Board) -> dict | None:
    """The agent's latest camera check, for the board's card: pass or what failed, and every message."""
    if not b.camera_check:
        return None
    try:
        grade = json.loads(b.camera_check)
    except ValueError:
        return None
    checks = [c for c in grade.get("checks", []) if isinstance(c, dict)]
    return {"passed": bool(grade.get("passed")), "failed": [c.get("name", "?") for c in checks
                                                           if c.get("status") == "fail"],
            "warned": [c.get("name", "?") for c in checks if c.get("status") == "warn"],
            "failed_labels": [check_label(c.get("name", "?")) for c in checks if c.get("status") == "fail"],
            "warned_labels": [check_label(c.get("name", "?")) for c in checks if c.get("status") == "warn"],
            "detail": "; ".join(f"{check_label(c.get('name'))}: {c.get('message')}" for c in checks
                                if c.get("status") != "pass"),
            "checked_at": b.camera_checked_at}


TOP = 8  # standings rows per event on the dashboard (the full table is on the desk)


def event_rows(s: Session, now: datetime | None = None) -> list[dict]:
    """Each event the desk runs (a format chosen, players entered): its current round (the one the boards show)
    with how many of its results are in, and the top of its standings, `provisional` while any PR is."""
    from tournament.report import event_json

    from .desk import event_state

    now = now or utcnow()
    out = []
    for ev in s.scalars(select(Event).where(Event.desk_format.is_not(None)).order_by(Event.id)):
        st = event_state(s, ev)
        if not st.players:
            continue
        data = event_json(st)
        r = current_round(s, ev, now)
        draw = next((d for d in st.draws if r is not None and d.number == r.number), None)
        waiting = st.missing(r.number) if r is not None else []
        out.append({"event_id": ev.id, "name": ev.name, "format": ev.desk_format, "rounds_total": st.rounds,
                    "round": None if r is None else r.number,
                    "matches": len(draw.pairings) if draw else 0, "results_in": (len(draw.pairings) - len(waiting))
                    if draw else 0, "finished": st.finished, "provisional": data["provisional"],
                    "standings": data["standings"][:TOP], "players": len(st.players)})
    return out
