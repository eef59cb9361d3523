"""Staff API (bearer admin token): events and their retention, boards, matches, purge log.

Every change is written to the audit log as done by `STAFF_TOKEN`. A match is approved only through the review
flow (a transcript with no open flags and no findings, approved by a logged-in person): `approved_at` cannot be
set here."""

from __future__ import annotations

import json
from datetime import datetime

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict
from sqlalchemy import select

from ..models import Board, Event, Heartbeat, Match, PurgeLog
from ..retention import purge
from ..services import (
    PolicyError,
    audit_log,
    check_policy,
    create_event,
    create_match,
    new_token,
    register_board,
    set_legal_hold,
    update_match,
)
from .deps import SessionDep, staff_auth

router = APIRouter(prefix="/api/v1", tags=["staff"], dependencies=[Depends(staff_auth)])
STAFF_TOKEN = "staff API token"  # who the audit log names for a change made with the admin token


class EventIn(BaseModel):
    name: str
    retention_policy: str = "after_approval"
    retention_days: float | None = 30
    purge_unapproved: bool = False


class EventPatch(BaseModel):
    retention_policy: str | None = None
    retention_days: float | None = None
    purge_unapproved: bool | None = None
    legal_hold: bool | None = None
    legal_hold_reason: str = ""


def event_out(e: Event) -> dict:
    return {"id": e.id, "name": e.name, "retention_policy": e.retention_policy, "retention_days": e.retention_days,
            "purge_unapproved": e.purge_unapproved, "legal_hold": e.legal_hold,
            "legal_hold_reason": e.legal_hold_reason}


@router.post("/events", status_code=201)
def post_event(body: EventIn, session: SessionDep):
    try:
        e = create_event(session, body.name, body.retention_policy, body.retention_days, body.purge_unapproved)
    except PolicyError as err:
        raise HTTPException(422, str(err)) from err
    audit_log(session, STAFF_TOKEN, "create_event", f"event {e.id}", "", event_out(e))
    session.commit()
    return event_out(e)


@router.get("/events")
def get_events(session: SessionDep):
    return [event_out(e) for e in session.scalars(select(Event).order_by(Event.id))]


@router.patch("/events/{event_id}")
def patch_event(event_id: int, body: EventPatch, session: SessionDep):
    e = session.get(Event, event_id) or _404("event")
    before = event_out(e)
    policy = body.retention_policy or e.retention_policy
    days = body.retention_days if body.retention_days is not None else e.retention_days
    unapproved = body.purge_unapproved if body.purge_unapproved is not None else e.purge_unapproved
    try:
        check_policy(policy, days, unapproved)
    except PolicyError as err:
        raise HTTPException(422, str(err)) from err
    e.retention_policy, e.retention_days, e.purge_unapproved = policy, days, unapproved
    if body.legal_hold is not None:
        set_legal_hold(session, e, body.legal_hold, body.legal_hold_reason)
        if body.legal_hold != before["legal_hold"] or body.legal_hold_reason:
            audit_log(session, STAFF_TOKEN, "set_legal_hold" if body.legal_hold else "release_legal_hold",
                      f"event {e.id}", before["legal_hold_reason"], e.legal_hold_reason)
    if {k: v for k, v in event_out(e).items() if not k.startswith("legal_hold")} != \
            {k: v for k, v in before.items() if not k.startswith("legal_hold")}:
        audit_log(session, STAFF_TOKEN, "update_event", f"event {e.id}", before, event_out(e))
    session.commit()
    return event_out(e)


class BoardIn(BaseModel):
    event_id: int | None = None
    token: str | None = None  # omitted: the server makes one and returns it once


@router.put("/boards/{number}")
def put_board(number: int, body: BoardIn, session: SessionDep):
    event = session.get(Event, body.event_id) if body.event_id else None
    if body.event_id and event is None:
        _404("event")
    token = body.token or new_token()
    try:
        b = register_board(session, number, token, event)
    except ValueError as e:
        raise HTTPException(422, str(e)) from None
    audit_log(session, STAFF_TOKEN, "register_board", f"board {number}", "",
              f"event {b.event_id}, {'given' if body.token else 'new'} token")
    session.commit()
    return {"number": b.number, "event_id": b.event_id, "token": None if body.token else token}


@router.get("/boards")
def get_boards(session: SessionDep):
    out = []
    for b in session.scalars(select(Board).order_by(Board.number)):
        hb = session.scalar(select(Heartbeat).where(Heartbeat.board_id == b.id).order_by(Heartbeat.id.desc()))
        out.append({"number": b.number, "event_id": b.event_id, "last_seen_at": b.last_seen_at,
                    "has_preview": b.preview_jpeg is not None,
                    "camera_check": json.loads(b.camera_check) if b.camera_check else None,
                    "camera_checked_at": b.camera_checked_at,
                    "heartbeat": None if hb is None else {
                        k: getattr(hb, k) for k in ("received_at", "state", "fps", "frames", "dropped_frames",
                                                    "spool_segments", "spool_bytes", "free_disk_bytes",
                                                    "last_segment", "error")}})
    return out


@router.get("/boards/{number}/preview.jpg")
def get_preview(number: int, session: SessionDep):
    b = session.scalar(select(Board).where(Board.number == number))
    if b is None or b.preview_jpeg is None:
        _404("preview")
    return Response(b.preview_jpeg, media_type="image/jpeg")


class MatchIn(BaseModel):
    event_id: int
    board: int
    started_at: datetime
    ended_at: datetime | None = None
    player1: str = ""
    player2: str = ""


class MatchPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")  # approved_at among them: approval is the review flow's alone
    ended_at: datetime | None = None
    legal_hold: bool | None = None


def match_out(m: Match) -> dict:
    return {"id": m.id, "event_id": m.event_id, "board": m.board.number, "player1": m.player1,
            "player2": m.player2, "started_at": m.started_at, "ended_at": m.ended_at, "approved_at": m.approved_at,
            "legal_hold": m.legal_hold, "segments": [s.segment_id for s in m.segments if s.deleted_at is None]}


@router.post("/matches", status_code=201)
def post_match(body: MatchIn, session: SessionDep):
    e = session.get(Event, body.event_id) or _404("event")
    b = session.scalar(select(Board).where(Board.number == body.board)) or _404("board")
    try:
        m = create_match(session, e, b, body.started_at, body.player1, body.player2, body.ended_at)
    except ValueError as err:
        raise HTTPException(422, str(err)) from None
    audit_log(session, STAFF_TOKEN, "create_match", f"match {m.id}", "", match_out(m), match_id=m.id)
    session.commit()
    return match_out(m)


@router.patch("/matches/{match_id}")
def patch_match(match_id: int, body: MatchPatch, session: SessionDep):
    m = session.get(Match, match_id) or _404("match")
    changes = body.model_dump(exclude_unset=True)
    before = {k: getattr(m, k) for k in changes}
    update_match(session, m, **changes)
    for k, v in changes.items():
        action = ("set_legal_hold" if v else "release_legal_hold") if k == "legal_hold" else f"set_{k}"
        audit_log(session, STAFF_TOKEN, action, f"match {m.id}", before[k], getattr(m, k), match_id=m.id)
    session.commit()
    return match_out(m)


@router.get("/matches/{match_id}")
def get_match(match_id: int, session: SessionDep):
    return match_out(session.get(Match, match_id) or _404("match"))


@router.get("/purge-log")
def get_purge_log(session: SessionDep, limit: int = 1000):
    rows = session.scalars(select(PurgeLog).order_by(PurgeLog.id.desc()).limit(limit))
    return [{c.name: getattr(r, c.name) for c in PurgeLog.__table__.columns} for r in rows]


@router.post("/purge")
def post_purge(request: Request, session: SessionDep, dry_run: bool = False):
    from ..footage_frames import cache_dir

    report = purge(session, request.app.state.store, dry_run=dry_run, trigger="staff API",
                   frame_cache=cache_dir(request.app.state.settings.data_dir))
    audit_log(session, STAFF_TOKEN, "purge_dry_run" if dry_run else "purge", "footage", "",
              f"{report.checked} segments checked, {len(report.items)} "
              f"{'would go' if dry_run else 'deleted'}, {len(report.errors)} errors")
    session.commit()
    return report.as_dict()


def _404(what: str):
    raise HTTPException(404, f"no such {what}")
