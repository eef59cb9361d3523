"""Staff accounts: argon2id passwords, server-side sessions in an HttpOnly SameSite cookie, CSRF tokens.

- The session cookie holds a random token; the database keeps only its sha256 (a stolen database
  does not give live sessions) and the session's CSRF token.
- Every state-changing request made with the session cookie must carry the session's CSRF token,
  as the form field ``csrf_token`` or the header ``X-CSRF-Token`` (double submission is not enough:
  the token is compared with the one stored for the session).
- The login form itself is protected by a pre-session CSRF cookie compared with the form field.
"""

from __future__ import annotations

import hmac
import secrets
from datetime import timedelta
from typing import Annotated

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import Depends, HTTPException, Request
from sqlalchemy import select
from sqlalchemy.orm import Session

from .api.deps import SessionDep
from .review_models import ROLE_DIRECTOR, ROLES, AuditLog, User, UserSession
from .services import hash_token, utcnow

SESSION_COOKIE = "bgscribe_session"
LOGIN_CSRF_COOKIE = "bgscribe_login_csrf"
SESSION_HOURS = 12
UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}

_hasher = PasswordHasher()
_DUMMY_HASH = _hasher.hash("timing-equaliser")


class AuthError(ValueError):
    pass


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def create_user(s: Session, username: str, password: str, role: str = "staff", by: str = "setup") -> User:
    username = username.strip()
    if not username or len(username) > 100:
        raise AuthError("a username is 1 to 100 characters")
    if role not in ROLES:
        raise AuthError(f"unknown role {role!r}; one of {', '.join(ROLES)}")
    if len(password) < 8:
        raise AuthError("a password has at least 8 characters")
    if s.scalar(select(User).where(User.username == username)) is not None:
        raise AuthError(f"user {username!r} exists already")
    u = User(username=username, password_hash=hash_password(password), role=role, created_at=utcnow())
    s.add(u)
    s.add(AuditLog(at=utcnow(), username=by, action="create_user", target=username, before="", after=role))
    s.flush()
    return u


def authenticate(s: Session, username: str, password: str) -> User | None:
    u = s.scalar(select(User).where(User.username == username.strip()))
    try:
        _hasher.verify(u.password_hash if u else _DUMMY_HASH, password)
    except (VerificationError, InvalidHashError):
        return None
    if u is None:
        return None
    if _hasher.check_needs_rehash(u.password_hash):
        u.password_hash = hash_password(password)
    return u


def start_session(s: Session, user: User) -> tuple[str, UserSession]:
    """A new session for ``user``: (the cookie's token, the row)."""
    token = secrets.token_urlsafe(32)
    now = utcnow()
    row = UserSession(token_hash=hash_token(token), csrf_token=secrets.token_urlsafe(32), user_id=user.id,
                      created_at=now, expires_at=now + timedelta(hours=SESSION_HOURS))
    s.add(row)
    s.flush()
    return token, row


def session_from_cookie(s: Session, token: str | None) -> UserSession | None:
    if not token:
        return None
    row = s.scalar(select(UserSession).where(UserSession.token_hash == hash_token(token)))
    if row is None or row.expires_at < utcnow():
        return None
    return row


def set_session_cookie(response, request: Request, token: str) -> None:
    response.set_cookie(SESSION_COOKIE, token, max_age=SESSION_HOURS * 3600, httponly=True, samesite="strict",
                        secure=request.url.scheme == "https", path="/")


def csrf_ok(expected: str, presented: str | None) -> bool:
    return bool(presented) and hmac.compare_digest(expected.encode(), presented.encode())


class LoginRequired(Exception):
    """Raised for a page without a login: the app turns it into a redirect to /login."""

    def __init__(self, next_url: str):
        self.next_url = next_url


async def _presented_csrf(request: Request) -> str | None:
    token = request.headers.get("x-csrf-token")
    if token:
        return token
    ctype = request.headers.get("content-type", "")
    if ctype.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        form = await request.form()
        value = form.get("csrf_token")
        return value if isinstance(value, str) else None
    return None


async def _current(request: Request, session: Session) -> UserSession | None:
    row = session_from_cookie(session, request.cookies.get(SESSION_COOKIE))
    if row is not None and request.method in UNSAFE and not csrf_ok(row.csrf_token, await _presented_csrf(request)):
        raise HTTPException(403, "missing or wrong CSRF token (reload the page and try again)")
    return row


async def api_login(request: Request, session: SessionDep) -> UserSession:
    """API routes: the logged-in session (401 without one; 403 for a state change without its CSRF token)."""
    row = await _current(request, session)
    if row is None:
        raise HTTPException(401, "not logged in")
    request.state.login = row
    return row


async def page_login(request: Request, session: SessionDep) -> UserSession:
    """Page routes: like api_login, but a missing login redirects to the login form."""
    row = await _current(request, session)
    if row is None:
        raise LoginRequired(str(request.url.path) + (f"?{request.url.query}" if request.url.query else ""))
    request.state.login = row
    return row


def director(login: Annotated[UserSession, Depends(api_login)]) -> UserSession:
    if login.user.role != ROLE_DIRECTOR:
        raise HTTPException(403, "only a tournament director may do this")
    return login


LoginDep = Annotated[UserSession, Depends(api_login)]
PageLoginDep = Annotated[UserSession, Depends(page_login)]
DirectorDep = Annotated[UserSession, Depends(director)]
