"""Server-rendered pages (Jinja2, a little plain JS): login, dashboard, match review."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates
from sqlalchemy import select
from sqlalchemy.orm import Session

from .api.deps import SessionDep
from .api.review import get_transcript
from .auth import (
    LOGIN_CSRF_COOKIE,
    SESSION_COOKIE,
    AuthError,
    PageLoginDep,
    csrf_ok,
    login,
    set_session_cookie,
    start_session,
)
from .board_svg import board_svg, view_flips
from .dashboard import board_rows, event_rows, match_rows
from .footage_frames import locate, match_segments
from .models import Match
from .pipeline import match_stage
from .review_models import AuditLog, TranscriptRevision
from .services import audit_log, utcnow
from .throttle import LoginThrottled
from .transcripts import alternatives, check, guess_why

HERE = Path(__file__).parent
templates = Jinja2Templates(directory=str(HERE / "templates"))
router = APIRouter(include_in_schema=False)

ALT_SOURCE = {"decoder": "the decoder's runner-up", "board": "another roll that leaves this board"}
KIND_LABEL = {"move": "", "double": "Doubles", "take": "Takes", "drop": "Drops", "beaver": "Beavers",
              "raccoon": "Raccoons", "resign": "Resigns", "timeout": "Time out"}


def as_sentence(e: Exception) -> str:
    """An error's message as the page says it: a capital first, a full stop last."""
    text = str(e)
    return f"{text[:1].upper()}{text[1:]}."


def _safe_next(next_url: str | None) -> str:
    return next_url if next_url and next_url.startswith("/") and not next_url.startswith("//") else "/"


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request, next: str = "/", error: str = ""):
    return _login_page(request, next, "Wrong username or password." if error else "")


def _login_page(request: Request, next_url: str, message: str, status: int = 200):
    token = secrets.token_urlsafe(24)
    resp = templates.TemplateResponse(request, "login.html", {"csrf": token, "next": _safe_next(next_url),
                                                               "error": message}, status_code=status)
    resp.set_cookie(LOGIN_CSRF_COOKIE, token, httponly=True, samesite="strict", path="/login",
                    secure=request.url.scheme == "https")
    return resp


@router.post("/login")
def login_post(request: Request, session: SessionDep, username: Annotated[str, Form()],
               password: Annotated[str, Form()], csrf_token: Annotated[str, Form()] = "",
               next: Annotated[str, Form()] = "/"):
    if not csrf_ok(request.cookies.get(LOGIN_CSRF_COOKIE, ""), csrf_token):
        raise HTTPException(403, "missing or wrong CSRF token (reload the login page and try again)")
    try:
        user = login(request, session, username, password)
    except LoginThrottled as e:
        resp = _login_page(request, next, as_sentence(e), status=429)
        resp.headers["Retry-After"] = str(e.retry_after)
        return resp
    except AuthError:
        session.commit()
        return RedirectResponse(f"/login?error=1&next={quote(_safe_next(next))}", status_code=303)
    token, _row = start_session(session, user)
    session.commit()
    resp = RedirectResponse(_safe_next(next), status_code=303)
    set_session_cookie(resp, request, token)
    resp.delete_cookie(LOGIN_CSRF_COOKIE, path="/login")
    return resp


@router.post("/logout")
def logout_post(login: PageLoginDep, session: SessionDep):
    audit_log(session, login.user.username, "logout", "this session")
    session.delete(login)
    session.commit()
    resp = RedirectResponse("/login", status_code=303)
    resp.delete_cookie(SESSION_COOKIE, path="/")
    return resp


# ----------------------------------------------------------------------------- pipeline


def pipeline_stage(session: Session, match: Match) -> dict:
    """{"stage": "recording" | "observing" | "transcribing" | "failed" | None, "score": [a, b] | None,
    "error": str} for a match (stage None once a transcript exists, or when nothing is known)."""
    return match_stage(session, match.id)


# ----------------------------------------------------------------------------- dashboard


def _dashboard_ctx(login, session: Session) -> dict:
    return {"login": login, "boards": board_rows(session, pipeline_stage), "rows": match_rows(session, pipeline_stage),
            "events": event_rows(session), "now": utcnow()}


@router.get("/", response_class=HTMLResponse)
def dashboard(request: Request, login: PageLoginDep, session: SessionDep):
    return templates.TemplateResponse(request, "dashboard.html", _dashboard_ctx(login, session))


@router.get("/dashboard/live", response_class=HTMLResponse)
def dashboard_live(request: Request, login: PageLoginDep, session: SessionDep):
    """The dashboard's boards and matches alone, for its refresh every few seconds."""
    return templates.TemplateResponse(request, "_live.html", _dashboard_ctx(login, session),
                                      headers={"Cache-Control": "no-store"})


@router.get("/matches/{match_id}", response_class=HTMLResponse)
def review_page(request: Request, match_id: int, login: PageLoginDep, session: SessionDep,
                g: int | None = None, a: int | None = None):
    m = session.get(Match, match_id)
    if m is None:
        raise HTTPException(404, f"no match {match_id}")
    t = get_transcript(session, match_id)
    checked = check(json.loads(t.doc_json))
    doc = checked.doc
    open_flags = checked.open_flags()
    if g is None or a is None or not (1 <= g <= len(doc["games"]) and 1 <= a <= len(doc["games"][g - 1]["actions"])):
        gi, ai = (open_flags[0][0], open_flags[0][1]) if open_flags else (0, 0)
    else:
        gi, ai = g - 1, a - 1
    act = doc["games"][gi]["actions"][ai]
    before, after = checked.positions(gi, ai)
    cube_before, cube_after = checked.cubes(gi, ai)
    flip_x, flip_y = view_flips(doc.get("seating"))  # the boards drawn the way round the camera shows the board
    names = tuple(doc["players"])
    flagged = sorted({(x + 1, y + 1) for x, y, _f in open_flags})
    later = [f for f in flagged if f > (gi + 1, ai + 1)]
    earlier = [f for f in flagged if f < (gi + 1, ai + 1)]
    next_flag = (later or flagged or [None])[0]
    ctx = {
        "login": login, "match": m, "t": t, "doc": doc, "findings": checked.findings, "open_flags": open_flags,
        "cause": _findings_cause(session, t, checked.findings),
        "gi": gi, "ai": ai, "act": act, "kind_label": KIND_LABEL, "alt_source": ALT_SOURCE,
        "xgid": checked.xgid(gi, ai),
        "svg_before": board_svg(before, names=names, title="before", cube=cube_before, flip_x=flip_x, flip_y=flip_y),
        "svg_after": board_svg(after, changed=before, names=names, title="after", cube=cube_after, flip_x=flip_x,
                               flip_y=flip_y),
        "alts": alternatives(checked, gi, ai), "flagged": set(flagged), "guess": guess_why(act),
        "next_flag": next_flag, "prev_flag": (earlier[-1:] or flagged[-1:] or [None])[0],
        "locked": t.status != "needs_review",
        **_camera(match_id, match_segments(session, match_id), act, doc, next_flag),
    }
    from .desk import gnubg_decision  # the approved match's provisional analysis (tournament desk)

    ctx["gnubg"] = gnubg_decision(session, match_id, gi + 1, ai + 1, act["kind"])
    return templates.TemplateResponse(request, "review.html", ctx)


def _findings_cause(session: Session, t, findings: list[dict]) -> dict | None:
    """The last edit, where it brought findings the version before it did not have (a pick that makes later
    moves illegal shows its problems there, not at the edit): {"target", "by", "action", "game", "new"}."""
    if not findings or t.version <= 1:
        return None
    prev = session.scalar(select(TranscriptRevision).where(TranscriptRevision.transcript_id == t.id,
                                                           TranscriptRevision.version == t.version - 1))
    if prev is None:
        return None
    before = {(f.get("game"), f.get("action"), f.get("message")) for f in check(json.loads(prev.doc_json)).findings}
    new = [f for f in findings if (f.get("game"), f.get("action"), f.get("message")) not in before]
    last = session.scalar(select(AuditLog).where(AuditLog.match_id == t.match_id, AuditLog.version == t.version)
                          .order_by(AuditLog.id.desc()))
    if not new or last is None:
        return None
    out = {"target": last.target, "by": last.username, "op": last.action, "new": len(new), "game": None,
           "action": None}
    words = last.target.split()
    if len(words) == 4 and words[0] == "game" and words[2] == "action" and words[1].isdigit() and words[3].isdigit():
        out["game"], out["action"] = int(words[1]), int(words[3])
    return out


CLIP_BEFORE = 5.0  # seconds of footage before the action where its clip starts


def _camera(match_id: int, segments, act: dict, doc: dict, next_flag) -> dict:
    """The camera frame and clip for the selected action (or why there is none), and the next flag's frame to
    prefetch."""
    at = locate(segments, act.get("time"))
    out = {"footage": at, "frame_url": None, "clip_url": None, "clip_start": 0.0, "prefetch_url": None}
    if at.available:
        out["frame_url"] = f"/api/v1/matches/{match_id}/frame.jpg?t={at.t:g}"
        out["clip_url"] = f"/api/v1/matches/{match_id}/segments/{at.segment.id}.mp4"
        out["clip_start"] = round(max(0.0, at.offset - CLIP_BEFORE), 2)
    if next_flag:
        nt = doc["games"][next_flag[0] - 1]["actions"][next_flag[1] - 1].get("time")
        if nt is not None and locate(segments, nt).available:
            out["prefetch_url"] = f"/api/v1/matches/{match_id}/frame.jpg?t={nt:g}"
    return out


def login_redirect(request: Request, next_url: str):
    return RedirectResponse(f"/login?next={quote(next_url)}", status_code=303)

