"""Helpers for the review tests: accounts, a match on board 7, the fixture transcript."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from fastapi.testclient import TestClient

from review_ui.auth import create_user
from review_ui.models import Board, Event
from review_ui.services import create_match

DATA = Path(__file__).parent / "data"
REPORT = DATA / "report.json"
MAT = DATA / "match.mat"
PASSWORD = "correct horse battery"
# The fixture's one misread (see data/make_fixture.py): game 2, action 55 was rolled 12, read 15.
MISREAD = (2, 55)


def add_users(app_state) -> None:
    with app_state.db.session() as s:
        create_user(s, "ann", PASSWORD, "staff")
        create_user(s, "ben", PASSWORD, "staff")
        create_user(s, "dora", PASSWORD, "director")
        s.commit()


def add_match(app_state, board: int = 7) -> int:
    with app_state.db.session() as s:
        ev = s.query(Event).first()
        b = s.query(Board).filter_by(number=board).one()
        m = create_match(s, ev, b, datetime(2026, 11, 29, 10, 0), "", "", datetime(2026, 11, 29, 11, 0))
        s.commit()
        return m.id


def login(client: TestClient, username: str, password: str = PASSWORD) -> dict:
    """Log ``client`` in; returns the headers (CSRF token) for its state-changing calls."""
    r = client.post("/api/v1/login", json={"username": username, "password": password})
    assert r.status_code == 200, r.text
    return {"X-CSRF-Token": r.json()["csrf_token"]}


def upload(client: TestClient, match_id: int, headers: dict, report: bytes | None = None, mat: bytes | None = None):
    files = {"report": ("report.json", REPORT.read_bytes() if report is None else report, "application/json")}
    if mat is not False:
        files["mat"] = ("match.mat", MAT.read_bytes() if mat is None else mat, "text/plain")
    return client.post(f"/api/v1/matches/{match_id}/transcript", files=files, headers=headers)


def report_of(record) -> dict:
    """The decoder's report shape (`bgscribe transcribe --report`) for a match record, with no flags."""
    from transcriber.record import Move, Resign

    games = [{"number": g.number, "score": list(g.score), "winner": g.winner, "points": g.points,
              "actions": [{"kind": type(x).__name__.lower(), "player": x.player,
                           **({"dice": list(x.dice), "play": x.play} if isinstance(x, Move) else {}),
                           **({"value": x.value} if isinstance(x, Resign) else {})} for x in g.actions]}
             for g in record.games]
    return {"players": list(record.players), "length": record.length, "games": games, "flags": []}
