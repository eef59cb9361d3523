"""A board's playing field as the staff confirmed it: four corners round the field in the camera's picture.

Found automatically (vision.fieldfind), a real board's outline is often near but not on the field; a person
clicking the four corners on the board's picture takes seconds and holds for the whole event (the camera
stays put). The corners are kept per board as shares of the picture's width and height (0..1), so that the
dashboard's small preview, a full-size frame and the footage all place them alike; the pipeline turns them
into pixels of each segment and gives them to `bgscribe observe --field`, which keeps them in the board's
state. Every change is audited.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import Board, Segment
from .services import audit_log, utcnow

MIN_AREA = 0.02  # of the picture: a field smaller than this is a slip of the mouse, not a board


class FieldError(ValueError):
    """Corners that cannot be a playing field; the message says why, for the person at the page."""


@dataclass
class BoardField:
    corners: list[list[float]]  # four [x, y], shares of the picture's width and height, in the order given
    by: str
    at: datetime

    def as_dict(self) -> dict:
        return {"corners": self.corners, "by": self.by, "at": self.at.isoformat()}

    def pixels(self, width: int, height: int) -> str:
        """The corners in pixels of a picture of this size, as `bgscribe observe --field` takes them."""
        return " ".join(f"{x * width:.1f},{y * height:.1f}" for x, y in self.corners)


def check_corners(corners) -> list[list[float]]:
    """Four corners (shares 0..1) in order round a convex field of some size; FieldError otherwise."""
    try:
        pts = np.asarray(corners, np.float64)
    except (TypeError, ValueError):
        raise FieldError("the corners must be four pairs of numbers [x, y]") from None
    if pts.shape != (4, 2):
        raise FieldError(f"give four corners [x, y], not {len(pts) if pts.ndim else 0}")
    if not np.all(np.isfinite(pts)) or pts.min() < 0 or pts.max() > 1:
        raise FieldError("each corner must lie on the picture (x and y between 0 and 1 of its width and height)")
    # round the field in one direction: every turn of the outline the same way (a crossed or dented
    # outline is four clicks out of order, or a slip)
    edges = np.roll(pts, -1, 0) - pts
    turns = edges[:, 0] * np.roll(edges, -1, 0)[:, 1] - edges[:, 1] * np.roll(edges, -1, 0)[:, 0]
    if not (all(t > 0 for t in turns) or all(t < 0 for t in turns)):
        raise FieldError("click the corners in order round the field (the outline crosses or folds)")
    x, y = pts[:, 0], pts[:, 1]
    area = 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    if area < MIN_AREA:
        raise FieldError(f"the outline covers {area:.1%} of the picture: too small to be the playing field")
    return [[round(float(a), 5), round(float(b), 5)] for a, b in pts]


def board_field(b: Board) -> BoardField | None:
    if not b.field_json:
        return None
    try:
        d = json.loads(b.field_json)
        return BoardField(check_corners(d["corners"]), str(d.get("by", "")), datetime.fromisoformat(d["at"]))
    except (ValueError, KeyError, TypeError):
        return None  # a damaged value is no field: the camera stage finds it again


def set_field(s: Session, b: Board, corners, by: str) -> BoardField:
    f = BoardField(check_corners(corners), by, utcnow())
    audit_log(s, by, "set_board_field", f"board {b.number}", b.field_json or "", f.corners)
    b.field_json = json.dumps(f.as_dict())
    return f


def clear_field(s: Session, b: Board, by: str) -> None:
    if b.field_json:
        audit_log(s, by, "clear_board_field", f"board {b.number}", b.field_json, "")
    b.field_json = None


def latest_segment(s: Session, b: Board) -> Segment | None:
    """The board's newest footage still in the store (its frames show the camera as it is now)."""
    return s.scalar(select(Segment).where(Segment.board_id == b.id, Segment.deleted_at.is_(None))
                    .order_by(Segment.end.desc(), Segment.id.desc()).limit(1))


def suggest(jpeg: bytes) -> dict:
    """What the camera stage finds in a picture: the field's corners (shares, clockwise from top-left as the
    picture shows them) and how sure it is; `found` False when it finds no board. Seconds of CPU: a
    picture's answer is kept (the page is reloaded while the camera shows the same frame)."""
    key = hashlib.sha256(jpeg).hexdigest()
    if key not in _found:
        if len(_found) >= 64:
            _found.clear()
        _found[key] = _suggest(jpeg)
    return dict(_found[key])


_found: dict[str, dict] = {}


def _suggest(jpeg: bytes) -> dict:
    import cv2

    from vision.fieldfind import find_field, order_corners

    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        return {"found": False, "quality": 0.0, "corners": None}
    h, w = img.shape[:2]
    fit = find_field(img)
    q = order_corners(fit.corners) / [w, h]
    return {"found": bool(fit.found), "quality": round(float(fit.quality), 2),
            "corners": [[round(float(x), 5), round(float(y), 5)] for x, y in q]}
