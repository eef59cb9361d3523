"""Staff API (bearer admin token): a board's playing field as the staff confirmed it (review_ui/board_field.py)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, HTTPException, Request
from pydantic import BaseModel

from ..board_field import FieldError, board_field, clear_field, set_field
from ..pipeline import forget_board_field
from ..services import board_by_number
from .deps import SessionDep, staff_auth

router = APIRouter(prefix="/api/v1", tags=["staff"], dependencies=[Depends(staff_auth)])

BY = "staff token"  # who the audit log names for changes made with the admin token


class FieldIn(BaseModel):
    corners: list[list[float]]  # four [x, y] round the field, shares of the picture's width and height


def _board(session, number: int):
    b = board_by_number(session, number)
    if b is None:
        raise HTTPException(404, f"no board {number}")
    return b


@router.get("/boards/{number}/field")
def get_field(number: int, session: SessionDep):
    f = board_field(_board(session, number))
    return {"board": number, "field": f.as_dict() if f else None}


@router.put("/boards/{number}/field")
def put_field(number: int, body: FieldIn, session: SessionDep):
    b = _board(session, number)
    try:
        f = set_field(session, b, body.corners, BY)
    except FieldError as e:
        raise HTTPException(422, str(e)) from e
    session.commit()
    return {"board": number, "field": f.as_dict()}


@router.delete("/boards/{number}/field")
def delete_field(number: int, request: Request, session: SessionDep):
    b = _board(session, number)
    clear_field(session, b, BY)
    session.commit()
    forget_board_field(request.app.state.settings.data_dir, number)
    return {"board": number, "field": None}
