"""Accounts on the page: everybody changes their own password and ends their other sessions; a director also
creates accounts, disables and enables them, and ends anybody's sessions. Every change is audited (auth.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from .api.deps import SessionDep
from .auth import AuthError, PageLoginDep, change_password, create_user, revoke_sessions, set_disabled
from .pages import as_sentence, templates
from .review_models import ROLE_DIRECTOR, ROLES, User, UserSession
from .services import audit_log, utcnow
from .setup_pages import PageDirectorDep

router = APIRouter(include_in_schema=False)


def _accounts(s: Session) -> list[dict]:
    live = dict(s.execute(select(UserSession.user_id, func.count()).where(UserSession.expires_at > utcnow())
                          .group_by(UserSession.user_id)).all())
    return [{"username": u.username, "role": u.role, "disabled": u.disabled_at is not None,
             "sessions": live.get(u.id, 0)}
            for u in sorted(s.scalars(select(User)), key=lambda u: u.username)]  # not by collation: see setup.players


def _page(request: Request, login: UserSession, s: Session, message: str = "", error: str = "", status: int = 200):
    director = login.user.role == ROLE_DIRECTOR
    return templates.TemplateResponse(request, "account.html", {
        "login": login, "director": director, "accounts": _accounts(s) if director else [], "roles": ROLES,
        "message": message, "error": error}, status_code=status)


def _done(message: str) -> RedirectResponse:
    from urllib.parse import quote

    return RedirectResponse(f"/account?done={quote(message)}", status_code=303)


DONE = {"password": "Your password is changed; your other sessions have ended.",
        "sessions": "Your other sessions have ended.", "created": "The account is created.",
        "disabled": "The account is disabled and its sessions have ended.", "enabled": "The account is enabled.",
        "revoked": "Their sessions have ended."}


@router.get("/account", response_class=HTMLResponse)
def account_page(request: Request, login: PageLoginDep, session: SessionDep, done: str = ""):
    return _page(request, login, session, message=DONE.get(done, ""))


@router.post("/account/password")
def password_post(request: Request, login: PageLoginDep, session: SessionDep, current: Annotated[str, Form()],
                  new: Annotated[str, Form()], again: Annotated[str, Form()]):
    if new != again:
        return _page(request, login, session, error="The two new passwords differ.", status=422)
    try:
        change_password(session, login.user, current, new, keep=login)
    except AuthError as e:
        session.rollback()
        return _page(request, login, session, error=as_sentence(e), status=422)
    session.commit()
    return _done("password")


@router.post("/account/sessions/revoke")
def my_sessions_post(login: PageLoginDep, session: SessionDep):
    n = revoke_sessions(session, login.user, keep=login)
    audit_log(session, login.user.username, "revoke_sessions", f"user {login.user.username}", "", f"{n} ended")
    session.commit()
    return _done("sessions")


def _user(s: Session, username: str) -> User:
    u = s.scalar(select(User).where(User.username == username))
    if u is None:
        raise HTTPException(404, f"no account {username!r}")
    return u


@router.post("/accounts")
def create_post(request: Request, login: PageDirectorDep, session: SessionDep, username: Annotated[str, Form()],
                password: Annotated[str, Form()], role: Annotated[str, Form()] = "staff"):
    try:
        create_user(session, username, password, role, by=login.user.username)
    except AuthError as e:
        session.rollback()
        return _page(request, login, session, error=as_sentence(e), status=422)
    session.commit()
    return _done("created")


@router.post("/accounts/{username}/{what}")
def account_post(request: Request, username: str, what: str, login: PageDirectorDep, session: SessionDep):
    u = _user(session, username)
    try:
        if what in ("disable", "enable"):
            set_disabled(session, u, what == "disable", by=login.user)
        elif what == "revoke":
            n = revoke_sessions(session, u, keep=login)
            audit_log(session, login.user.username, "revoke_sessions", f"user {u.username}", "", f"{n} ended")
        else:
            raise HTTPException(404, f"no such change: {what}")
    except AuthError as e:
        session.rollback()
        return _page(request, login, session, error=as_sentence(e), status=422)
    session.commit()
    return _done({"disable": "disabled", "enable": "enabled", "revoke": "revoked"}[what])
