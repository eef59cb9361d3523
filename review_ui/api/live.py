"""The live dashboard's API (staff login): every board with its agent and current match, its preview still, and
each desk event's current round and top standings."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Response

from ..auth import LoginDep
from ..dashboard import board_rows, event_rows
from ..services import board_by_number
from .deps import SessionDep

router = APIRouter(prefix="/api/v1/live", tags=["dashboard"])


@router.get("/boards")
def get_boards(login: LoginDep, session: SessionDep):
    from ..pages import pipeline_stage

    return board_rows(session, pipeline_stage)


@router.get("/events")
def get_events(login: LoginDep, session: SessionDep):
    """Each event the desk runs: its current round, results in, the top of its standings (`provisional`)."""
    return event_rows(session)


@router.get("/boards/{number}/preview.jpg")
def get_preview(number: int, login: LoginDep, session: SessionDep):
    """The agent's last preview still (sent with its heartbeat)."""
    b = board_by_number(session, number)
    if b is None:
        raise HTTPException(404, f"no board {number}")
    if b.preview_jpeg is None:
        raise HTTPException(404, f"board {number} has sent no preview yet")
    return Response(b.preview_jpeg, media_type="image/jpeg", headers={"Cache-Control": "private, no-cache"})
