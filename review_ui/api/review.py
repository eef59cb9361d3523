"""Review API (staff login: session cookie, CSRF token on every change): accounts, transcripts, edits,
approval, `.mat` download, audit log.

Every edit names the transcript version it was made on; the database row is updated only where the
version still matches (compare-and-set), so of two people editing at once the second gets HTTP 409
with the current version and who made it, and nothing is overwritten silently.
"""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, File, HTTPException, Request, Response, UploadFile
from pydantic import BaseModel
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from transcriber.errors import MatchFormatError

from ..auth import (
    SESSION_COOKIE,
    AuthError,
    DirectorDep,
    LoginDep,
    create_user,
    set_session_cookie,
    start_session,
)
from ..auth import login as login_as
from ..models import Match
from ..review_models import (
    STATUS_APPROVED,
    STATUS_NEEDS_REVIEW,
    STATUS_SUBMITTED,
    AuditLog,
    Transcript,
    TranscriptRevision,
    UserSession,
)
from ..services import audit_log, update_match, utcnow
from ..throttle import LoginThrottled
from ..transcripts import (
    TranscriptError,
    alternatives,
    apply_edit,
    check,
    doc_from_report,
    dumps,
    export_mat,
    on_trust,
)
from .deps import SessionDep

router = APIRouter(prefix="/api/v1", tags=["review"])

MAX_UPLOAD = 20 << 20


class LoginIn(BaseModel):
    username: str
    password: str


@router.post("/login")
def login(body: LoginIn, request: Request, response: Response, session: SessionDep):
    """JSON login (a cross-site form cannot send JSON without a CORS preflight, which this server never grants)."""
    try:
        user = login_as(request, session, body.username, body.password)
    except LoginThrottled as e:
        raise HTTPException(429, str(e), headers={"Retry-After": str(e.retry_after)}) from None
    except AuthError as e:
        raise HTTPException(401, str(e)) from None
    token, row = start_session(session, user)
    session.commit()
    set_session_cookie(response, request, token)
    return {"username": user.username, "role": user.role, "csrf_token": row.csrf_token}


@router.post("/logout")
def logout(login: LoginDep, response: Response, session: SessionDep):
    audit_log(session, login.user.username, "logout", "this session")
    session.delete(login)
    session.commit()
    response.delete_cookie(SESSION_COOKIE, path="/")
    return {"ok": True}


@router.get("/me")
def me(login: LoginDep):
    return {"username": login.user.username, "role": login.user.role, "csrf_token": login.csrf_token}


class UserIn(BaseModel):
    username: str
    password: str
    role: str = "staff"


@router.post("/users", status_code=201)
def post_user(body: UserIn, login: DirectorDep, session: SessionDep):
    try:
        u = create_user(session, body.username, body.password, body.role, by=login.user.username)
    except AuthError as e:
        raise HTTPException(422, str(e)) from e
    session.commit()
    return {"username": u.username, "role": u.role}


# ----------------------------------------------------------------------------- transcripts


def get_transcript(session: Session, match_id: int) -> Transcript:
    t = session.scalar(select(Transcript).where(Transcript.match_id == match_id))
    if t is None:
        raise HTTPException(404, f"match {match_id} has no transcript")
    return t


def audit(session: Session, login: UserSession, match_id: int | None, action: str, target: str = "",
          before: object = "", after: object = "", version: int | None = None) -> None:
    audit_log(session, login.user.username, action, target, before, after, match_id=match_id, version=version)


def transcript_out(t: Transcript, checked=None) -> dict:
    doc = json.loads(t.doc_json)
    checked = checked or check(doc)
    return {"match_id": t.match_id, "version": t.version, "status": t.status, "approved_by": t.approved_by,
            "approved_at": t.approved_at, "submitted_at": t.submitted_at, "updated_by": t.updated_by,
            "players": doc["players"], "length": doc["length"], "findings": checked.findings,
            "open_flags": [{"game": gi + 1, "action": ai + 1, **f} for gi, ai, f in checked.open_flags()],
            "on_trust": on_trust(doc), "games": doc["games"], "notes": doc.get("notes", [])}


async def _read_upload(f: UploadFile | None, what: str) -> str | None:
    if f is None:
        return None
    data = await f.read(MAX_UPLOAD + 1)
    if len(data) > MAX_UPLOAD:
        raise HTTPException(413, f"the {what} is larger than {MAX_UPLOAD >> 20} MB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise HTTPException(422, f"the {what} is not UTF-8 text") from None


@router.post("/matches/{match_id}/transcript", status_code=201)
async def post_transcript(match_id: int, login: LoginDep, session: SessionDep,
                          report: Annotated[UploadFile, File()], mat: Annotated[UploadFile | None, File()] = None):
    """Load a transcript: the decoder's report JSON (`bgscribe transcribe --report`) and optionally its `.mat`."""
    m = session.get(Match, match_id)
    if m is None:
        raise HTTPException(404, f"no match {match_id}")
    if session.scalar(select(Transcript).where(Transcript.match_id == match_id)) is not None:
        raise HTTPException(409, f"match {match_id} has a transcript already")
    text = await _read_upload(report, "report")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise HTTPException(422, f"the report is not JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    try:
        doc = doc_from_report(data, await _read_upload(mat, ".mat"))
    except TranscriptError as e:
        raise HTTPException(422, str(e)) from None
    out = load_transcript(session, m, doc, data, login)
    session.commit()
    return out


def load_transcript(session: Session, m: Match, doc: dict, report: dict, login: UserSession | None) -> dict:
    """Add match `m`'s first transcript to `session` (the caller commits: the pipeline with its job's end)."""
    now = utcnow()
    m.player1, m.player2 = doc["players"]
    t = Transcript(match_id=m.id, version=1, doc_json=dumps(doc), report_json=json.dumps(report),
                   status=STATUS_NEEDS_REVIEW, approved_by="", updated_by=login.user.username if login else "pipeline",
                   created_at=now, updated_at=now)
    session.add(t)
    session.flush()
    session.add(TranscriptRevision(transcript_id=t.id, version=1, doc_json=t.doc_json, created_at=now))
    if login is not None:
        audit(session, login, m.id, "load_transcript", f"match {m.id}", "", f"{len(doc['games'])} games", 1)
    return transcript_out(t)


@router.get("/matches/{match_id}/transcript")
def get_transcript_route(match_id: int, login: LoginDep, session: SessionDep):
    return transcript_out(get_transcript(session, match_id))


@router.get("/matches/{match_id}/transcript/games/{game}/actions/{action}")
def get_action(match_id: int, game: int, action: int, login: LoginDep, session: SessionDep):
    """One action: the XGID before it, the ranked alternatives, its flags."""
    t = get_transcript(session, match_id)
    checked = check(json.loads(t.doc_json))
    gi, ai = _indices(checked.doc, game, action)
    return {"version": t.version, "action": checked.doc["games"][gi]["actions"][ai], "xgid": checked.xgid(gi, ai),
            "alternatives": alternatives(checked, gi, ai)}


def _indices(doc: dict, game: int, action: int) -> tuple[int, int]:
    if not 1 <= game <= len(doc["games"]) or not 1 <= action <= len(doc["games"][game - 1]["actions"]):
        raise HTTPException(404, f"no game {game} action {action}")
    return game - 1, action - 1


class EditIn(BaseModel):
    version: int
    op: str
    game: int | None = None
    action: int | None = None
    dice: list[int] | None = None
    play: str | None = None
    how: str | None = None
    basis: str | None = None  # accept: "confirmed" when a person saw the guessed dice on the footage
    kind: str | None = None
    value: int | None = None
    winner: int | None = None
    points: int | None = None
    players: list[str] | None = None


def _conflict(t: Transcript) -> HTTPException:
    return HTTPException(409, {"message": f"this transcript was changed by {t.updated_by} (now version {t.version}); "
                                          "reload to see their change, then make yours again",
                               "version": t.version, "updated_by": t.updated_by})


def _editable(t: Transcript, version: int) -> None:
    if t.status != STATUS_NEEDS_REVIEW:
        raise HTTPException(423, f"the transcript is {t.status.replace('_', ' ')} and locked")
    if version != t.version:
        raise _conflict(t)


def _save(session: Session, t: Transcript, doc: dict, expected: int, login: UserSession, **extra) -> None:
    """Compare-and-set: write the new version only if nobody else wrote one since ``expected``."""
    now = utcnow()
    values = {"doc_json": dumps(doc), "version": expected + 1, "updated_by": login.user.username,
              "updated_at": now, **extra}
    res = session.execute(update(Transcript).where(Transcript.id == t.id, Transcript.version == expected)
                          .values(**values).execution_options(synchronize_session=False))
    if res.rowcount != 1:
        session.rollback()
        session.refresh(t)
        raise _conflict(t)
    session.add(TranscriptRevision(transcript_id=t.id, version=expected + 1, doc_json=values["doc_json"],
                                   created_at=now))


@router.post("/matches/{match_id}/transcript/edits")
def post_edit(match_id: int, body: EditIn, login: LoginDep, session: SessionDep):
    t = get_transcript(session, match_id)
    _editable(t, body.version)
    try:
        doc, target, before, after = apply_edit(json.loads(t.doc_json), body.model_dump(exclude_none=True),
                                                login.user.username, utcnow().isoformat(timespec="seconds"))
    except TranscriptError as e:
        raise HTTPException(422, str(e)) from None
    checked = check(doc)
    _save(session, t, doc, body.version, login)
    if body.op == "set_players":
        m = session.get(Match, match_id)
        m.player1, m.player2 = doc["players"]
    audit(session, login, match_id, body.op, target, before, after, body.version + 1)
    session.commit()
    session.refresh(t)
    return transcript_out(t, checked)


class VersionIn(BaseModel):
    version: int


@router.post("/matches/{match_id}/transcript/undo")
def post_undo(match_id: int, body: VersionIn, login: LoginDep, session: SessionDep):
    """Restore the document as it was before the latest version (as a new version, so undo is audited too)."""
    t = get_transcript(session, match_id)
    _editable(t, body.version)
    if t.version <= 1:
        raise HTTPException(409, {"message": "nothing to undo", "version": t.version, "updated_by": t.updated_by})
    prev = session.scalar(select(TranscriptRevision).where(TranscriptRevision.transcript_id == t.id,
                                                           TranscriptRevision.version == t.version - 1))
    doc = json.loads(prev.doc_json)
    _save(session, t, doc, body.version, login)
    audit(session, login, match_id, "undo", f"version {body.version}", f"version {body.version}",
          f"content of version {body.version - 1}", body.version + 1)
    session.commit()
    session.refresh(t)
    return transcript_out(t)


@router.post("/matches/{match_id}/transcript/approve")
def post_approve(match_id: int, body: VersionIn, login: LoginDep, session: SessionDep):
    """Lock the transcript (no open flags, no validator findings) and start the event's retention clock."""
    t = get_transcript(session, match_id)
    _editable(t, body.version)
    checked = check(json.loads(t.doc_json))
    if checked.findings or checked.open_flags():
        raise HTTPException(409, {"message": f"cannot approve: {len(checked.open_flags())} flags open, "
                                             f"{len(checked.findings)} validator findings",
                                  "version": t.version, "updated_by": t.updated_by,
                                  "findings": checked.findings})
    now = utcnow()
    _save(session, t, checked.doc, body.version, login, status=STATUS_APPROVED, approved_by=login.user.username,
          approved_at=now)
    update_match(session, session.get(Match, match_id), approved_at=now)
    audit(session, login, match_id, "approve", f"match {match_id}", STATUS_NEEDS_REVIEW, STATUS_APPROVED,
          body.version + 1)
    session.commit()
    session.refresh(t)
    return transcript_out(t, checked)


def _approved(session: Session, match_id: int, version: int, to_be: str) -> Transcript:
    """The approved transcript, edited at `version`; 409 otherwise (reopen and submit need one)."""
    t = get_transcript(session, match_id)
    if t.status != STATUS_APPROVED:
        raise HTTPException(409, {"message": f"only an approved transcript can be {to_be} (it is {t.status})",
                                  "version": t.version, "updated_by": t.updated_by})
    if version != t.version:
        raise _conflict(t)
    return t


@router.post("/matches/{match_id}/transcript/reopen")
def post_reopen(match_id: int, body: VersionIn, login: DirectorDep, session: SessionDep):
    """A director unlocks an approved (not yet submitted) transcript. The retention clock is stopped again."""
    t = _approved(session, match_id, body.version, "reopened")
    _save(session, t, json.loads(t.doc_json), body.version, login, status=STATUS_NEEDS_REVIEW, approved_by="",
          approved_at=None)
    update_match(session, session.get(Match, match_id), approved_at=None)
    audit(session, login, match_id, "reopen", f"match {match_id}", STATUS_APPROVED, STATUS_NEEDS_REVIEW,
          body.version + 1)
    session.commit()
    session.refresh(t)
    return transcript_out(t)


@router.post("/matches/{match_id}/transcript/submitted")
def post_submitted(match_id: int, body: VersionIn, login: LoginDep, session: SessionDep):
    """Mark an approved transcript as sent to BMAB."""
    t = _approved(session, match_id, body.version, "submitted")
    _save(session, t, json.loads(t.doc_json), body.version, login, status=STATUS_SUBMITTED, submitted_at=utcnow())
    audit(session, login, match_id, "submitted", f"match {match_id}", STATUS_APPROVED, STATUS_SUBMITTED,
          body.version + 1)
    session.commit()
    session.refresh(t)
    return transcript_out(t)


@router.get("/matches/{match_id}/transcript.mat")
def get_mat(match_id: int, login: LoginDep, session: SessionDep):
    t = get_transcript(session, match_id)
    doc = json.loads(t.doc_json)
    m = session.get(Match, match_id)
    try:
        text = export_mat(doc, m.event.name, m.board.number)
    except MatchFormatError as e:
        raise HTTPException(409, {"message": str(e), "version": t.version, "updated_by": t.updated_by}) from None
    p1, p2 = (_safe(n) for n in doc["players"])
    return Response(text.encode("utf-8"), media_type="text/plain; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="match{match_id}_{p1}_{p2}.mat"'})


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name)[:40] or "player"


@router.get("/matches/{match_id}/audit")
def get_audit(match_id: int, login: LoginDep, session: SessionDep):
    rows = session.scalars(select(AuditLog).where(AuditLog.match_id == match_id).order_by(AuditLog.id))
    return [{"at": r.at, "username": r.username, "action": r.action, "target": r.target, "before": r.before,
             "after": r.after, "version": r.version} for r in rows]


@router.get("/review/matches")
def get_review_matches(login: LoginDep, session: SessionDep):
    """Every match with its transcript's status and open flags (the dashboard's data)."""
    return match_rows(session)


def match_rows(session: Session) -> list[dict]:
    from ..dashboard import match_rows as rows
    from ..pages import pipeline_stage

    return rows(session, pipeline_stage)


@router.get("/events/{event_id}/bmab-bundle.zip")
def get_bundle(event_id: int, login: LoginDep, session: SessionDep, round: int | None = None):  # noqa: A002
    """The approved matches' `.mat` files and a manifest (event, round, players, board, match IDs, sha256);
    `?round=N` for one round."""
    from ..bundle import bmab_bundle
    from ..models import Event
    from ..setup_models import Round

    ev = session.get(Event, event_id)
    if ev is None:
        raise HTTPException(404, f"no event {event_id}")
    rd = None
    if round is not None:
        rd = session.scalar(select(Round).where(Round.event_id == event_id, Round.number == round))
        if rd is None:
            raise HTTPException(404, f"event {event_id} has no round {round}")
    data, manifest = bmab_bundle(session, ev, rd)
    what = f"event {event_id}" + (f" round {round}" if rd else "")
    audit(session, login, None, "bmab_bundle", what, "", f"{len(manifest['matches'])} matches")
    session.commit()
    name = f"bmab_event{event_id}" + (f"_round{round}" if rd else "") + ".zip"
    return Response(data, media_type="application/zip",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})

