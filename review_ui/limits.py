"""Request bodies: who may send one and how large, decided from the request line and headers before a byte of the
body is read (FastAPI reads and parses a body before it runs an endpoint's login check, and multipart uploads are
spooled to disk while they are parsed: without this gate a stranger could fill the server's memory or /tmp).

`BodyGate` (an ASGI middleware, outermost but for the error handler):
1. finds the route's rule: its size limit and who may send a body (anybody: the login form; the board's agent:
   ingest; otherwise a logged-in session or the staff token);
2. answers 401 (a page: a redirect to the login form) to a request without those credentials, unread;
3. answers 413 to a declared Content-Length over the limit, unread;
4. counts the bytes of the body as the app reads them and stops it with 413 once they pass the limit (a chunked
   body, or one longer than it said).
The endpoints' own dependencies still decide what a credential may do (roles, CSRF tokens).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse, RedirectResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

KIB, MIB = 1 << 10, 1 << 20

PUBLIC, BOARD, LOGIN = "public", "board", "login"


@dataclass(frozen=True)
class Rule:
    method: str  # "*": any
    path: re.Pattern
    limit: int | str  # bytes, or the name of the Settings field that holds it
    who: str


RULES = (
    Rule("POST", re.compile(r"/login|/api/v1/login"), 16 * KIB, PUBLIC),
    Rule("PUT", re.compile(r"/api/v1/ingest/boards/\d+/segments/[^/]+/data"), "max_chunk_bytes", BOARD),
    Rule("POST", re.compile(r"/api/v1/ingest/boards/\d+/heartbeat"), 3 * MIB, BOARD),  # a 2 MB preview, base64
    Rule("POST", re.compile(r"/api/v1/ingest/boards/\d+/live"), 4 * MIB, BOARD),  # observations, after an outage
    Rule("POST", re.compile(r"/api/v1/ingest/boards/\d+/live/frames"), 16 * MIB, BOARD),  # JPEGs for the server
    Rule("*", re.compile(r"/api/v1/ingest/boards/\d+/.*"), 64 * KIB, BOARD),  # manifests
    Rule("POST", re.compile(r"/api/v1/matches/\d+/transcript"), 41 * MIB, LOGIN),  # report and .mat, 20 MB each
    Rule("POST", re.compile(r".*/(pairings|official-prs)\.csv"), 2 * MIB, LOGIN),
    Rule("*", re.compile(r".*"), 256 * KIB, LOGIN),  # every other JSON or form body
)
_BOARD = re.compile(r"/api/v1/ingest/boards/(\d+)/")


def rule_for(method: str, path: str) -> Rule:
    return next(r for r in RULES if r.method in ("*", method) and r.path.fullmatch(path))


class BodyTooLarge(HTTPException):
    """Raised from `receive` once the body passes its limit: FastAPI and the exception middleware answer 413."""

    def __init__(self, limit: int):
        super().__init__(413, f"request body larger than this route accepts ({limit} bytes)")


def _has_body(conn: HTTPConnection) -> bool:
    length = conn.headers.get("content-length")
    return "transfer-encoding" in conn.headers or (length is not None and length.strip() not in ("", "0"))


def allowed(app, who: str, conn: HTTPConnection) -> bool:
    """Whether the request carries a credential that may send this route a body (checked in a thread: a query)."""
    from .api.deps import bearer
    from .auth import SESSION_COOKIE, session_from_cookie
    from .services import board_by_number, token_matches

    if who == PUBLIC:
        return True
    token = bearer(conn.headers.get("authorization"))
    with app.state.db.session() as s:
        if who == BOARD:
            m = _BOARD.match(conn.url.path)
            b = board_by_number(s, int(m.group(1))) if m else None
            return token_matches(token, b.token_hash if b else "0" * 64) and b is not None
        import hmac

        expected = app.state.settings.admin_token
        if token and expected and hmac.compare_digest(token.encode(), expected.encode()):
            return True
        return session_from_cookie(s, conn.cookies.get(SESSION_COOKIE)) is not None


class BodyGate:
    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        conn = HTTPConnection(scope)
        if not _has_body(conn):
            return await self.app(scope, receive, send)
        app = scope["app"]
        rule = rule_for(scope["method"], conn.url.path)
        limit = rule.limit if isinstance(rule.limit, int) else getattr(app.state.settings, rule.limit)
        if not await run_in_threadpool(allowed, app, rule.who, conn):
            if conn.url.path.startswith("/api/"):
                detail = "missing or wrong board token" if rule.who == BOARD else \
                    "not logged in (this request needs a session or the staff token)"
                resp = JSONResponse({"detail": detail}, status_code=401,
                                    headers={"WWW-Authenticate": "Bearer", "Connection": "close"})
            else:
                resp = RedirectResponse(f"/login?next={quote(conn.url.path)}", status_code=303,
                                        headers={"Connection": "close"})
            return await resp(scope, receive, send)
        try:
            declared = int(conn.headers.get("content-length", "0"))
        except ValueError:
            declared = 0
        if declared > limit:
            resp = JSONResponse({"detail": BodyTooLarge(limit).detail}, status_code=413,
                                headers={"Connection": "close"})
            return await resp(scope, receive, send)
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(limit)
            return message

        await self.app(scope, counted, send)


def add_limits(app: FastAPI) -> None:
    app.add_middleware(BodyGate)
