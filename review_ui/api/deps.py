"""Shared dependencies: database session, footage store, settings, and the two kinds of auth."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request
from sqlalchemy.orm import Session

from ..models import Board
from ..services import board_by_number, token_matches


def get_session(request: Request) -> Iterator[Session]:
    yield from request.app.state.db.get_session()


def get_store(request: Request):
    return request.app.state.store


def get_settings(request: Request):
    return request.app.state.settings


SessionDep = Annotated[Session, Depends(get_session)]


def bearer(authorization: str | None) -> str | None:
    if authorization and authorization[:7].lower() == "bearer ":
        return authorization[7:].strip()
    return None


def board_auth(board: int, session: SessionDep, authorization: Annotated[str | None, Header()] = None) -> Board:
    """The board in the path, if the request carries its token; else 401 (before any body is read)."""
    b = board_by_number(session, board)
    token = bearer(authorization)
    # Compare even when the board is unknown, so timing does not tell which boards exist.
    ok = token_matches(token, b.token_hash if b else "0" * 64)
    if b is None or not ok:
        raise HTTPException(401, "missing or wrong board token", headers={"WWW-Authenticate": "Bearer"})
    # The lookup's transaction ends here, so that its connection goes back to the pool: the agents' routes then read
    # their bodies and decode (the live view) for seconds on a loaded server, and 24 boards posting twice a second
    # held all of the pool's connections while they did, leaving staff and the pipeline waiting 30 s for one
    # (sessions keep their objects on commit; a route that uses the session again begins afresh).
    session.commit()
    return b


BoardDep = Annotated[Board, Depends(board_auth)]


def staff_auth(request: Request, authorization: Annotated[str | None, Header()] = None) -> None:
    import hmac

    expected = request.app.state.settings.admin_token
    token = bearer(authorization)
    if not expected or not token or not hmac.compare_digest(token.encode(), expected.encode()):
        raise HTTPException(401, "missing or wrong staff token", headers={"WWW-Authenticate": "Bearer"})
