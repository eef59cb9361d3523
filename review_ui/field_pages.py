"""The board's field page (staff login): the camera's picture, the outline the camera stage finds, and the four
corners the staff click or confirm (review_ui/board_field.py keeps them)."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlalchemy.orm import Session

from transcriber.fileio import write_text_atomic

from .api.deps import SessionDep
from .auth import PageLoginDep
from .board_field import FieldError, board_field, clear_field, latest_segment, set_field, suggest
from .board_learning import learnt_lately
from .footage_frames import FootageMissing, cache_dir, frame_jpeg
from .models import Board
from .pages import templates
from .pipeline import adapter_path, forget_board_field
from .services import audit_log, board_by_number

router = APIRouter(include_in_schema=False)


def _board(s: Session, number: int) -> Board:
    b = board_by_number(s, number)
    if b is None:
        raise HTTPException(404, f"no board {number}")
    return b


def board_picture(request: Request, s: Session, b: Board) -> tuple[bytes, str] | None:
    """The sharpest picture of the board as its camera sees it now: a frame near the end of its newest
    footage, else the agent's preview still; with where it comes from, for the page."""
    seg = latest_segment(s, b)
    if seg is not None:
        try:
            offset = max(0.0, (seg.end - seg.start).total_seconds() - 1.0)
            jpeg = frame_jpeg(request.app.state.store, seg, offset, cache_dir(request.app.state.settings.data_dir))
            return jpeg, f"the last second of segment {seg.segment_id} ({seg.end:%Y-%m-%d %H:%M:%S} UTC)"
        except FootageMissing:
            pass
    if b.preview_jpeg is not None:
        return b.preview_jpeg, "the agent's latest preview still"
    return None


def _page(request: Request, login, s: Session, b: Board, error: str = "", notice: str = "", status: int = 200):
    pic = board_picture(request, s, b)
    found = suggest(pic[0]) if pic is not None else None
    f = board_field(b)
    ctx = {"login": login, "board": b.number, "picture_from": pic[1] if pic else None, "found": found,
           "field": f.as_dict() if f else None, "error": error, "notice": notice, "learnt": learnt_lately(s, b.id)}
    return templates.TemplateResponse(request, "field.html", ctx, status_code=status,
                                      headers={"Cache-Control": "no-store"})


@router.get("/boards/{number}/field", response_class=HTMLResponse)
def field_page(request: Request, number: int, login: PageLoginDep, session: SessionDep, saved: str = "",
               right: int = 0):
    notice = {"set": "Corners saved: the board's next footage is read through them.",
              "cleared": "Corners cleared: the camera stage finds the field itself again.",
              "learnt": f"Board learnt from this picture of the opening (the shipped reader had {right} of 24 points "
                        "right): its next footage is read with what it learnt."}.get(saved, "")
    return _page(request, login, session, _board(session, number), notice=notice)


@router.get("/boards/{number}/field/picture.jpg")
def field_picture(request: Request, number: int, login: PageLoginDep, session: SessionDep):
    pic = board_picture(request, session, _board(session, number))
    if pic is None:
        raise HTTPException(404, f"board {number} has sent no picture yet")
    return Response(pic[0], media_type="image/jpeg", headers={"Cache-Control": "private, no-store"})


def learn_board(request: Request, s: Session, b: Board, by: str) -> int:
    """Teach the camera stage this board from its newest picture, which shows the opening position (the morning
    set-up): `bgscribe adapt --opening` through the confirmed corners, kept where the pipeline gives it to
    `observe --adapter`. Returns how many points the shipped reader had right."""
    import cv2
    import numpy as np

    from vision.adapt import adapt_to_picture, looks_like_opening, opening_rows
    from vision.still import read_picture, to_json

    f = board_field(b)
    pic = board_picture(request, s, b)
    if f is None or pic is None:
        raise FieldError("confirm the field's corners on a picture of the board first")
    img = cv2.imdecode(np.frombuffer(pic[0], np.uint8), cv2.IMREAD_COLOR)
    h, w = img.shape[:2]
    reading = read_picture(img, np.asarray(f.corners) * [w, h])
    seen = to_json(reading)
    top, bottom = opening_rows(seen["top"], seen["bottom"])
    right = sum(a == c for a, c in zip(seen["top"] + seen["bottom"], top + bottom))
    if not looks_like_opening(seen["top"], seen["bottom"], (top, bottom)):
        raise FieldError(f"this picture does not look like the opening position ({right} of 24 points as the "
                         "opening has them): set the checkers up for play, wait for the next picture, try again")
    adapter = adapt_to_picture(img, reading.corners, reading.fit.geometry(), top, bottom)
    write_text_atomic(adapter_path(request.app.state.settings.data_dir, b.number), json.dumps(adapter.to_json()))
    audit_log(s, by, "learn_board", f"board {b.number}", "", f"adapted on {pic[1]}; {right} of 24 points before")
    return right


@router.post("/boards/{number}/field")
def field_post(request: Request, number: int, login: PageLoginDep, session: SessionDep,
               corners: Annotated[str, Form()] = "", action: Annotated[str, Form()] = "set"):
    b = _board(session, number)
    if action == "learn":
        try:
            right = learn_board(request, session, b, login.user.username)
        except FieldError as e:
            return _page(request, login, session, b, error=str(e), status=422)
        session.commit()
        return RedirectResponse(f"/boards/{number}/field?saved=learnt&right={right}", status_code=303)
    if action == "clear":
        clear_field(session, b, login.user.username)
        session.commit()
        forget_board_field(request.app.state.settings.data_dir, number)
        return RedirectResponse(f"/boards/{number}/field?saved=cleared", status_code=303)
    try:
        pts = json.loads(corners) if corners.strip() else None
        if pts is None:
            raise FieldError("click the four corners of the playing field first")
        set_field(session, b, pts, login.user.username)
    except (FieldError, ValueError) as e:
        session.rollback()
        msg = str(e) if isinstance(e, FieldError) else "the corners did not arrive as numbers; click them again"
        return _page(request, login, session, b, error=msg, status=422)
    session.commit()
    return RedirectResponse(f"/boards/{number}/field?saved=set", status_code=303)
