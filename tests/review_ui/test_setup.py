"""Event set-up: API and pages (events, players, rounds, pairings by hand and by CSV, boards and tokens)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from review_ui.models import Board, Match
from review_ui.review_models import AuditLog

from .conftest import auth
from .review_helpers import add_users, login

API = "/api/v1/setup"


@pytest.fixture
def dora(client):
    """dora (director) logged in; the client's event (id 1) has boards 7 and 8."""
    add_users(client.app_state)
    client.h = login(client, "dora")
    client.event_id = client.get(f"{API}/events").json()[0]["id"]
    return client


def anon(client) -> TestClient:
    return TestClient(client.app)


def as_user(client, username: str) -> tuple[TestClient, dict]:
    c = TestClient(client.app)
    return c, login(c, username)


def new_round(c, number: int = 1, starts_at: str = "2026-11-29T10:00:00") -> dict:
    r = c.post(f"{API}/events/{c.event_id}/rounds", json={"number": number, "starts_at": starts_at}, headers=c.h)
    assert r.status_code == 201, r.text
    return r.json()


def matches(c) -> list[Match]:
    with c.app_state.db.session() as s:
        return s.query(Match).order_by(Match.id).all()


# ----------------------------------------------------------------------------- auth


WRITES = [
    ("post", f"{API}/events", {"name": "X"}), ("patch", f"{API}/events/1", {}),
    ("post", f"{API}/events/1/players", {"name": "Ann"}), ("post", f"{API}/events/1/rounds", {}),
    ("put", f"{API}/events/1/rounds/1/pairings/7", {"player_a": "A", "player_b": "B"}),
    ("delete", f"{API}/events/1/rounds/1/pairings/7", None), ("post", f"{API}/events/1/rounds/1/pairings.csv", None),
    ("post", f"{API}/events/1/boards", {"number": 9}), ("post", f"{API}/boards/7/token", None),
]
READS = [f"{API}/events", f"{API}/events/1", f"{API}/events/1/rounds/1"]


@pytest.mark.parametrize("method,path,body", WRITES)
def test_setup_changes_need_a_director_login_and_csrf(dora, method, path, body):
    new_round(dora)
    kw = {"json": body} if body is not None else {}
    assert getattr(anon(dora), method)(path, **kw).status_code == 401
    staff, h = as_user(dora, "ann")
    assert getattr(staff, method)(path, headers=h, **kw).status_code == 403  # staff: not a director
    boss, _h = as_user(dora, "dora")
    r = getattr(boss, method)(path, **kw)  # a director, but no CSRF token
    assert r.status_code == 403 and "CSRF" in r.text


@pytest.mark.parametrize("path", READS)
def test_setup_reads_need_a_login(dora, path):
    new_round(dora)
    assert anon(dora).get(path).status_code == 401
    staff, _h = as_user(dora, "ann")
    assert staff.get(path).status_code == 200


@pytest.mark.parametrize("path", ["/events", "/events/1", "/events/1/rounds/1"])
def test_setup_pages_redirect_to_login(dora, path):
    new_round(dora)
    r = anon(dora).get(path, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/login?next=")


# ----------------------------------------------------------------------------- events


def test_event_with_rules_profile_length_and_retention(dora):
    r = dora.post(f"{API}/events", headers=dora.h, json={
        "name": "Amberg Open", "rules_profile": "amberg", "match_length": 9, "retention_policy": "match_end",
        "purge_unapproved": True})
    assert r.status_code == 201, r.text
    ev = r.json()
    assert (ev["rules_profile"], ev["match_length"], ev["retention_policy"], ev["purge_unapproved"]) == \
        ("amberg", 9, "match_end", True)
    money = dora.post(f"{API}/events", headers=dora.h, json={"name": "Money", "rules_profile": "money",
                                                              "match_length": 5}).json()
    assert money["match_length"] == 0  # money play has no length
    r = dora.patch(f"{API}/events/{ev['id']}", headers=dora.h, json={"match_length": 11})
    assert r.json()["match_length"] == 11 and r.json()["rules_profile"] == "amberg"
    with dora.app_state.db.session() as s:
        assert {a.action for a in s.query(AuditLog)} >= {"create_event", "update_event"}


@pytest.mark.parametrize("body,message", [
    ({"name": "A", "rules_profile": "chouette"}, "unknown rules profile"),
    ({"name": "A", "match_length": 0}, "match length must be 1 to 25"),
    ({"name": "A", "retention_policy": "forever"}, "unknown retention policy"),
    ({"name": "A", "retention_policy": "after_approval", "retention_days": None}, "retention_days"),
    ({"name": "EPC Leg 3"}, "exists already"),
    ({"name": "  "}, "1 to 200 characters"),
])
def test_bad_event_is_refused_with_a_reason(dora, body, message):
    r = dora.post(f"{API}/events", headers=dora.h, json=body)
    assert r.status_code == 422 and message in r.json()["detail"]


# ----------------------------------------------------------------------------- rounds and pairings


def test_players_are_listed_in_the_same_order_on_every_database(dora):
    for name in ("ben", "Ann", "Émile", "al", "Cy"):
        assert dora.post(f"{API}/events/{dora.event_id}/players", json={"name": name}, headers=dora.h).status_code \
            in (200, 201)
    # Code point order (SQLite's), not a collation's: a PostgreSQL server with a language's collation would say
    # al, Ann, ben, Cy, Émile.
    assert dora.get(f"{API}/events/{dora.event_id}").json()["players"] == ["Ann", "Cy", "al", "ben", "Émile"]


def test_pairing_creates_and_updates_the_boards_match(dora):
    new_round(dora, 1, "2026-11-29T10:00:00")
    r = dora.put(f"{API}/events/{dora.event_id}/rounds/1/pairings/7", headers=dora.h,
                 json={"player_a": "Ann Ames", "player_b": "Ben  Berg"})
    assert r.status_code == 200, r.text
    mid = r.json()["match_id"]
    (m,) = matches(dora)
    assert (m.id, m.player1, m.player2, m.round_id is not None, m.ended_at) == (mid, "Ann Ames", "Ben Berg", True,
                                                                                None)
    assert m.started_at.isoformat() == "2026-11-29T10:00:00"
    # Entered again with other names: the same match, updated.
    r = dora.put(f"{API}/events/{dora.event_id}/rounds/1/pairings/7", headers=dora.h,
                 json={"player_a": "Ann Ames", "player_b": "Cy Cole"})
    assert r.json()["match_id"] == mid and matches(dora)[0].player2 == "Cy Cole"
    ev = dora.get(f"{API}/events/{dora.event_id}").json()
    assert ev["players"] == ["Ann Ames", "Ben Berg", "Cy Cole"]
    assert ev["rounds"][0]["pairings"] == [{"board": 7, "player_a": "Ann Ames", "player_b": "Cy Cole",
                                            "match_id": mid}]
    # Round 2 on the same board: the round-1 match ends where round 2 starts (segments link by time).
    new_round(dora, 2, "2026-11-29T12:00:00")
    r = dora.put(f"{API}/events/{dora.event_id}/rounds/2/pairings/7", headers=dora.h,
                 json={"player_a": "Ben Berg", "player_b": "Cy Cole"})
    first, second = matches(dora)
    assert first.ended_at.isoformat() == "2026-11-29T12:00:00" and second.ended_at is None
    assert second.started_at.isoformat() == "2026-11-29T12:00:00"


@pytest.mark.parametrize("board,a,b,message", [
    (9, "A", "B", "board 9 is not registered for this event"),
    (8, "Ann", "Ann", "cannot play against themself"),
    (8, "Ann", "Zed", "Ann already plays on board 7 in round 1"),
    (8, "", "Zed", "1 to 200 characters"),
])
def test_bad_pairing_is_refused(dora, board, a, b, message):
    new_round(dora)
    assert dora.put(f"{API}/events/{dora.event_id}/rounds/1/pairings/7", headers=dora.h,
                    json={"player_a": "Ann", "player_b": "Ben"}).status_code == 200
    r = dora.put(f"{API}/events/{dora.event_id}/rounds/1/pairings/{board}", headers=dora.h,
                 json={"player_a": a, "player_b": b})
    assert r.status_code == 422 and message in r.json()["detail"]
    assert len(matches(dora)) == 1


def test_round_numbers_and_unknown_round(dora):
    assert new_round(dora, 1)["number"] == 1
    r = dora.post(f"{API}/events/{dora.event_id}/rounds", json={}, headers=dora.h)
    assert r.json()["number"] == 2  # the next one
    r = dora.post(f"{API}/events/{dora.event_id}/rounds", json={"number": 2}, headers=dora.h)
    assert r.status_code == 422 and "exists already" in r.json()["detail"]
    assert dora.get(f"{API}/events/{dora.event_id}/rounds/5").status_code == 404
    assert dora.put(f"{API}/events/{dora.event_id}/rounds/5/pairings/7", headers=dora.h,
                    json={"player_a": "A", "player_b": "B"}).status_code == 404


def test_remove_pairing(dora):
    new_round(dora)
    dora.put(f"{API}/events/{dora.event_id}/rounds/1/pairings/7", headers=dora.h,
             json={"player_a": "A", "player_b": "B"})
    assert dora.delete(f"{API}/events/{dora.event_id}/rounds/1/pairings/7", headers=dora.h).status_code == 200
    assert matches(dora) == []
    r = dora.delete(f"{API}/events/{dora.event_id}/rounds/1/pairings/7", headers=dora.h)
    assert r.status_code == 422 and "no pairing on board 7" in r.json()["detail"]


# ----------------------------------------------------------------------------- CSV


def post_csv(c, text: str, round_number: int = 1):
    return c.post(f"{API}/events/{c.event_id}/rounds/{round_number}/pairings.csv", headers=c.h,
                  files={"file": ("round.csv", text.encode(), "text/csv")})


def test_csv_import(dora):
    new_round(dora)
    r = post_csv(dora, "\ufeffBoard;Player A;Player B\n7;Ann Ames;Ben Berg\n\n8;Cy Cole;Di Dunn\n")
    assert r.status_code == 200, r.text
    assert r.json()["imported"] == 2
    assert [(m.board_id, m.player1, m.player2) for m in matches(dora)] == \
        [(1, "Ann Ames", "Ben Berg"), (2, "Cy Cole", "Di Dunn")]
    # Re-imported with the players swapping boards: the same two matches, updated.
    r = dora.post(f"{API}/events/{dora.event_id}/rounds/1/pairings.csv", headers={**dora.h, "Content-Type": "text/csv"},
                  content=b"board,player_a,player_b,round\n7,Cy Cole,Di Dunn,1\n8,Ann Ames,Ben Berg,1\n")
    assert r.status_code == 200, r.text
    assert [(m.board_id, m.player1) for m in matches(dora)] == [(1, "Cy Cole"), (2, "Ann Ames")]


@pytest.mark.parametrize("text,errors", [
    ("board,player_a,player_b\n7,Ann,Ben\n9,Cy,Di\n", [(3, "unknown board 9 (this event's boards: 7, 8)")]),
    ("board,player_a,player_b\n7,Ann,Ben\n7,Cy,Di\n", [(3, "board 7 appears twice in round 1 (also on line 2)")]),
    ("board,player_a\n7,Ann\n", [(1, "missing column player_b")]),
    ("table,white,black\nx,Ann,Ben\n8,,Di\n8,Cy,Di,extra\n", [(2, "board 'x' is not a number"),
                                                              (3, "empty player_a")]),
    ("board,player_a,player_b\n7,Ann,Ben\n8,Ann,Cy\n", [(3, "Ann is paired twice in round 1 (also on line 2)")]),
    ("board,player_a,player_b,round\n7,Ann,Ben,2\n", [(2, "round '2', but this is the import for round 1")]),
    ("board,player_a,player_b\n", [(2, "no pairings below the header")]),
    ("", [(1, "the file is empty (expected a header: board,player_a,player_b)")]),
])
def test_bad_csv_lists_every_error_by_line_and_imports_nothing(dora, text, errors):
    new_round(dora)
    r = post_csv(dora, text)
    assert r.status_code == 422, r.text
    got = [(e["line"], e["message"]) for e in r.json()["detail"]["errors"]]
    assert [(line, msg[:len(want)]) for (line, msg), (_l, want) in zip(got, errors, strict=True)] == errors
    assert "nothing was imported" in r.json()["detail"]["message"]
    assert matches(dora) == []


def test_csv_page_shows_errors_by_line(dora):
    new_round(dora)
    r = dora.post(f"/events/{dora.event_id}/rounds/1/pairings.csv", data={"csrf_token": dora.h["X-CSRF-Token"]},
                  files={"file": ("r1.csv", b"board,player_a,player_b\n7,Ann,Ben\n7,Cy,Di\n12,Ed,Flo\n", "text/csv")})
    assert r.status_code == 422
    assert "r1.csv: 2 problems, nothing imported" in r.text
    assert "line 3: board 7 appears twice" in r.text and "line 4: unknown board 12" in r.text
    r = dora.post(f"/events/{dora.event_id}/rounds/1/pairings.csv", data={"csrf_token": dora.h["X-CSRF-Token"]},
                  files={"file": ("r1.csv", b"board,player_a,player_b\n7,Ann,Ben\n", "text/csv")},
                  follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].endswith("?imported=1")
    assert "1 pairings imported" in dora.get(r.headers["location"]).text
    # Without the CSRF token the form is refused.
    r = dora.post(f"/events/{dora.event_id}/rounds/1/pairings.csv",
                  files={"file": ("r1.csv", b"board,player_a,player_b\n8,Cy,Di\n", "text/csv")})
    assert r.status_code == 403 and len(matches(dora)) == 1


# ----------------------------------------------------------------------------- boards and tokens


def test_board_token_is_shown_once_stored_hashed_and_rotates(dora):
    r = dora.post(f"{API}/events/{dora.event_id}/boards", headers=dora.h, json={"number": 12})
    assert r.status_code == 201 and r.headers["cache-control"] == "no-store"
    token = r.json()["token"]
    hb = {"state": "recording"}
    assert dora.post("/api/v1/ingest/boards/12/heartbeat", json=hb, headers=auth(token)).status_code == 200
    with dora.app_state.db.session() as s:
        b = s.query(Board).filter_by(number=12).one()
        assert token not in b.token_hash and b.token_set_at is not None and b.event_id == dora.event_id
    assert token not in dora.get(f"{API}/events/{dora.event_id}").text
    r = dora.post(f"{API}/events/{dora.event_id}/boards", headers=dora.h, json={"number": 12})
    assert r.status_code == 422 and "rotate its token instead" in r.json()["detail"]
    new = dora.post(f"{API}/boards/12/token", headers=dora.h).json()["token"]
    assert new != token
    assert dora.post("/api/v1/ingest/boards/12/heartbeat", json=hb, headers=auth(token)).status_code == 401
    assert dora.post("/api/v1/ingest/boards/12/heartbeat", json=hb, headers=auth(new)).status_code == 200
    assert dora.post(f"{API}/boards/99/token", headers=dora.h).status_code == 404


# ----------------------------------------------------------------------------- pages


def test_setup_pages_forms(dora):
    csrf = {"csrf_token": dora.h["X-CSRF-Token"]}
    r = dora.get("/events")
    assert r.status_code == 200 and "EPC Leg 3" in r.text and 'id="new-event"' in r.text
    r = dora.post("/events", data={**csrf, "name": "Leg 4", "rules_profile": "bmab", "match_length": "7",
                                   "retention_policy": "match_end", "retention_days": ""}, follow_redirects=False)
    assert r.status_code == 303
    ev_url = r.headers["location"]
    r = dora.post("/events", data={**csrf, "name": "Leg 5", "match_length": "x"})
    assert r.status_code == 422 and "match length must be a number" in r.text
    r = dora.post(f"{ev_url}/boards", data={**csrf, "number": "21"})
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    token = r.text.split('id="new-token"')[1].split("<code>")[1].split("</code>")[0]
    assert dora.post("/api/v1/ingest/boards/21/heartbeat", json={}, headers=auth(token)).status_code == 200
    r = dora.post(f"{ev_url}/boards/21/token", data=csrf)
    assert r.status_code == 200 and token not in r.text and 'id="new-token"' in r.text
    r = dora.post(f"{ev_url}/players", data={**csrf, "name": "Ann Ames"}, follow_redirects=False)
    assert r.status_code == 303
    r = dora.post(f"{ev_url}/rounds", data={**csrf, "number": "", "starts_at": "2026-11-30T14:00"},
                  follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"{ev_url}/rounds/1"
    r = dora.post(f"{ev_url}/rounds/1/pairings", data={**csrf, "board": "21", "player_a": "Ann Ames",
                                                       "player_b": "Ben Berg"}, follow_redirects=False)
    assert r.status_code == 303
    page = dora.get(f"{ev_url}/rounds/1").text
    assert "Ann Ames" in page and "Ben Berg" in page
    r = dora.post(f"{ev_url}/rounds/1/pairings", data={**csrf, "board": "7", "player_a": "X", "player_b": "Y"})
    assert r.status_code == 422 and "board 7 is not registered for this event" in r.text
    r = dora.post(f"{ev_url}/settings", data={**csrf, "rules_profile": "amberg", "match_length": "9",
                                              "retention_policy": "keep", "retention_days": ""},
                  follow_redirects=False)
    assert r.status_code == 303
    assert "amberg rules, 9-point matches" in dora.get(ev_url).text
    # Staff see the pages without the forms, and cannot post them.
    staff, h = as_user(dora, "ann")
    page = staff.get(ev_url).text
    assert "Rounds" in page and 'id="new-board"' not in page
    assert staff.post(f"{ev_url}/players", data={"csrf_token": h["X-CSRF-Token"], "name": "Z"}).status_code == 403
    # Forms without the CSRF token are refused.
    assert dora.post(f"{ev_url}/players", data={"name": "Z"}).status_code == 403
