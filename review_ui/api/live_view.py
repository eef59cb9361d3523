"""Live boards for viewers: each board's state as JSON and as Server-Sent Events, the hall's (every board in
progress), and the director's switches (public viewing, the read-only viewer token).

Who may look: everybody where the director made the event's boards public; else whoever presents the event's
viewer token (`?token=` in the address: an OBS browser source sends no headers) or is logged in as staff. Off by
default: positions and names are personal data. A public state may be cached for a second (a venue's proxy then
serves a crowd); any other answer is never stored.
"""

from __future__ import annotations

import asyncio
import hmac

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel
from sqlalchemy import select

from .. import setup
from ..auth import SESSION_COOKIE, DirectorDep, session_from_cookie
from ..models import Board, Event
from ..services import hash_token
from .deps import SessionDep, bearer
from .setup import _event

router = APIRouter(tags=["live"])

KEEPALIVE_S = 15.0  # an idle feed sends a comment this often (proxies close silent connections)
PUBLIC_CACHE = "public, max-age=1"


def _may_view(request: Request, session, ev: Event | None) -> bool:
    if ev is not None and ev.live_public:
        return True
    token = request.query_params.get("token") or bearer(request.headers.get("authorization"))
    if ev is not None and ev.live_token_hash and token \
            and hmac.compare_digest(hash_token(token), ev.live_token_hash):
        return True
    return session_from_cookie(session, request.cookies.get(SESSION_COOKIE)) is not None


def _viewable_board(request: Request, session, number: int) -> tuple[Board, Event | None]:
    b = session.scalar(select(Board).where(Board.number == number))
    ev = session.get(Event, b.event_id) if b is not None and b.event_id else None
    if b is None or not _may_view(request, session, ev):
        # (the same answer for a board that does not exist: strangers learn nothing of the room)
        raise HTTPException(404, f"no live board {number} to show (or not public: ask the director for the "
                                 "viewer link)")
    return b, ev


def _sse(version: int, body: bytes, event: str = "state") -> bytes:
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (version, event.encode(), body)


@router.get("/api/v1/live/boards/{number}/state")
def get_state(number: int, request: Request, session: SessionDep):
    """The board's live state (JSON): players, score, cube, dice, position (XGID and checkers), pips, the game's
    actions (each settled or still weighed), the board as SVG. ETag: its version."""
    _, ev = _viewable_board(request, session, number)
    board = request.app.state.live.board(number)
    board.check_silent()
    version, body = board.version, board.body
    tag = f'"{number}-{version}"'
    headers = {"ETag": tag, "Cache-Control": PUBLIC_CACHE if ev is not None and ev.live_public else "no-store"}
    if request.headers.get("if-none-match") == tag:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)


def _checked(request: Request, check, *args):
    """`check(request, session, *args)` in a session of its own, closed before the answer streams: a feed lasts as
    long as its viewer watches, and a database connection held by each of hundreds would drain the pool."""
    with request.app.state.db.session() as s:
        return check(request, s, *args)


@router.get("/api/v1/live/boards/{number}/feed")
async def get_feed(number: int, request: Request):
    """The same state as Server-Sent Events (`event: state`), sent at once and again at every change."""
    from fastapi.concurrency import run_in_threadpool

    await run_in_threadpool(_checked, request, _viewable_board, number)
    board = request.app.state.live.board(number)
    start = request.headers.get("last-event-id")
    seen = int(start) if start and start.isdigit() and int(start) <= board.version else -1

    async def events():
        nonlocal seen
        while True:
            got = await board.next_state(seen, KEEPALIVE_S)
            if got is None:
                yield b": keep-alive\n\n"
            else:
                seen, body = got
                yield _sse(seen, body)
            if await request.is_disconnected():
                return

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def _hall_numbers(request: Request, session) -> list[int]:
    """The boards this viewer may see, in number order."""
    events = {ev.id: ev for ev in session.scalars(select(Event))}
    return [b.number for b in session.scalars(select(Board).order_by(Board.number))
            if _may_view(request, session, events.get(b.event_id))]


def _hall_body(request: Request, numbers: list[int]) -> bytes:
    hub = request.app.state.live
    parts = []
    for n in numbers:
        board = hub.board(n)
        if board.state.get("match") is not None:  # in progress (a board without a match is not in the hall)
            parts.append(board.body)
    return b'{"boards":[' + b",".join(parts) + b"]}"


@router.get("/api/v1/live/hall")
def get_hall(request: Request, session: SessionDep):
    """Every board in progress that this viewer may see: their states, in board order."""
    return Response(_hall_body(request, _hall_numbers(request, session)), media_type="application/json",
                    headers={"Cache-Control": "no-store"})


@router.get("/api/v1/live/hall/feed")
async def get_hall_feed(request: Request):
    """The hall as Server-Sent Events: one connection for the whole room (a browser keeps six per server)."""
    from fastapi.concurrency import run_in_threadpool

    numbers = await run_in_threadpool(_checked, request, _hall_numbers)
    hub = request.app.state.live

    async def events():
        seen = -1
        while True:
            if seen < 0 or await hub.hall_change(seen, KEEPALIVE_S):
                seen = hub.hall_version
                yield _sse(seen, _hall_body(request, numbers), "hall")
                await asyncio.sleep(0.25)  # (a room of boards changing at once is sent as one)
            else:
                yield b": keep-alive\n\n"
            if await request.is_disconnected():
                return

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


class LiveSwitch(BaseModel):
    public: bool


@router.put("/api/v1/events/{event_id}/live")
def put_live(event_id: int, body: LiveSwitch, login: DirectorDep, session: SessionDep):
    """The director opens the event's live boards to everyone, or closes them again."""
    ev = _event(session, event_id)
    setup.set_live_public(session, login.user.username, ev, body.public)
    session.commit()
    return {"event_id": ev.id, "public": ev.live_public, "viewer_token": ev.live_token_hash is not None}


@router.post("/api/v1/events/{event_id}/live/token")
def post_live_token(event_id: int, login: DirectorDep, session: SessionDep, response: Response):
    """A new read-only viewer token for the event's live boards (the old one stops working); shown this once."""
    ev = _event(session, event_id)
    token = setup.new_live_token(session, login.user.username, ev)
    session.commit()
    response.headers["Cache-Control"] = "no-store"
    return {"event_id": ev.id, "token": token}


@router.delete("/api/v1/events/{event_id}/live/token")
def delete_live_token(event_id: int, login: DirectorDep, session: SessionDep):
    ev = _event(session, event_id)
    setup.revoke_live_token(session, login.user.username, ev)
    session.commit()
    return {"event_id": ev.id, "viewer_token": False}
