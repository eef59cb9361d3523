"""The live pages: the stream overlay of one board (`/live/boards/{n}/overlay`, for an OBS browser source) and the
hall's board of every match in progress (`/live/hall`). Who may look is decided as for their feeds
(review_ui/api/live_view.py); the viewer token in the address is handed on to the feed."""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Request

from .api.deps import SessionDep
from .api.live_view import _may_view, _viewable_board
from .pages import templates

router = APIRouter(include_in_schema=False)


def _query(request: Request) -> str:
    token = request.query_params.get("token")
    return "?" + urlencode({"token": token}) if token else ""


@router.get("/live/boards/{number}/overlay")
def overlay(number: int, request: Request, session: SessionDep):
    _viewable_board(request, session, number)
    return templates.TemplateResponse(request, "live_overlay.html", {"number": number, "query": _query(request)})


@router.get("/live/hall")
def hall(request: Request, session: SessionDep):
    from sqlalchemy import select

    from .models import Event

    if not any(_may_view(request, session, ev) for ev in session.scalars(select(Event))) \
            and not _may_view(request, session, None):
        raise HTTPException(404, "no live boards to show (or not public: ask the director for the viewer link)")
    return templates.TemplateResponse(request, "live_hall.html", {"query": _query(request)})
