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
from .review_models import ROLE_DIRECTOR, ROLES, User, UserSession
from .services import audit_log, hash_token, utcnow

SESSION_COOKIE = "bgscribe_session"
LOGIN_CSRF_COOKIE = "bgscribe_login_csrf"
SESSION_HOURS = 12
UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
MIN_PASSWORD = 12
MAX_PASSWORD = 1024  # argon2 takes any length; this only bounds the work one login asks of the server

_hasher = PasswordHasher()
_DUMMY_HASH = _hasher.hash("timing-equaliser")


class AuthError(ValueError):
    pass


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def check_password(password: object) -> str:
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AuthError(f"a password has at least {MIN_PASSWORD} characters (a few words make a good one), "
                        f"at most {MAX_PASSWORD}")
    return password


def create_user(s: Session, username: str, password: str, role: str = "staff", by: str = "setup") -> User:
    from .security import check_name

    try:
        username = check_name(username, "a username", max_len=100)
    except ValueError as e:
        raise AuthError(str(e)) from None
    if role not in ROLES:
        raise AuthError(f"unknown role {role!r}; one of {', '.join(ROLES)}")
    check_password(password)
    if s.scalar(select(User).where(User.username == username)) is not None:
        raise AuthError(f"user {username!r} exists already")
    u = User(username=username, password_hash=hash_password(password), role=role, created_at=utcnow())
    s.add(u)
    audit_log(s, by, "create_user", username, "", role)
    s.flush()
    return u


def authenticate(s: Session, username: str, password: str) -> User | None:
    """The user, if the password is theirs and the account is not disabled (the hash is checked either way, so the
    time taken does not tell which accounts exist)."""
    u = s.scalar(select(User).where(User.username == username.strip()))
    try:
        _hasher.verify(u.password_hash if u else _DUMMY_HASH, password[:MAX_PASSWORD])
    except (VerificationError, InvalidHashError):
        return None
    if u is None or u.disabled_at is not None:
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
    if row is None or row.expires_at < utcnow() or row.user.disabled_at is not None:
        return None
    return row


def login(request: Request, s: Session, username: str, password: str) -> User:
    """The one way in (the login form and the JSON login): throttled per account and per address, audited.
    Raises throttle.LoginThrottled (429) or AuthError (wrong username or password)."""
    import logging

    throttle = request.app.state.login_throttle
    address = request.client.host if request.client else "?"
    throttle.check(username, address)
    user = authenticate(s, username, password)
    if user is None:
        throttle.failed(username, address)
        logging.getLogger("bgscribe.auth").warning("failed login for %r from %s", username[:100], address)
        raise AuthError("wrong username or password")
    throttle.succeeded(username)
    audit_log(s, user.username, "login", f"from {address}")
    return user


def change_password(s: Session, user: User, current: str, new: str, keep: UserSession | None = None) -> None:
    """A new password for ``user`` (who gives the current one); every other session of theirs ends."""
    if authenticate(s, user.username, current) is None:
        raise AuthError("the current password is wrong")
    user.password_hash = hash_password(check_password(new))
    revoke_sessions(s, user, keep=keep)
    audit_log(s, user.username, "change_password", f"user {user.username}", "", "other sessions ended")


def revoke_sessions(s: Session, user: User, keep: UserSession | None = None) -> int:
    """End every session of ``user`` but ``keep``; returns how many ended."""
    rows = [r for r in s.scalars(select(UserSession).where(UserSession.user_id == user.id)) if r is not keep]
    for r in rows:
        s.delete(r)
    s.flush()
    return len(rows)


def set_disabled(s: Session, user: User, disabled: bool, by: User) -> None:
    """Disable (every session ends, no login) or enable an account; a director cannot disable themself."""
    if disabled and user.id == by.id:
        raise AuthError("you cannot disable your own account")
    before = "disabled" if user.disabled_at else "enabled"
    user.disabled_at = utcnow() if disabled else None
    if disabled:
        revoke_sessions(s, user)
    audit_log(s, by.username, "disable_user" if disabled else "enable_user", f"user {user.username}", before,
              "disabled" if disabled else "enabled")


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
