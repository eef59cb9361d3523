"""The live dashboard: boards (agent online, preview still, current round's match) and match statuses."""

from __future__ import annotations

import base64
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient

from review_ui.models import Board
from review_ui.review_models import Transcript
from review_ui.services import utcnow

from .conftest import TOKEN, auth
from .review_helpers import add_users, login, upload
from .test_ingest import make_segment
from .test_ingest import upload as ingest_upload

JPEG = b"\xff\xd8\xff\xe0" + b"preview" * 20
SETUP = "/api/v1/setup/events/1"


@pytest.fixture
def dash(client):
    add_users(client.app_state)
    client.h = login(client, "dora")
    return client


def boards(c) -> dict[int, dict]:
    r = c.get("/api/v1/live/boards")
    assert r.status_code == 200, r.text
    return {b["number"]: b for b in r.json()}


def heartbeat(c, board: int = 7, token: str = TOKEN, **kw):
    body = {"state": "recording", "fps": 15.0, **kw}
    assert c.post(f"/api/v1/ingest/boards/{board}/heartbeat", json=body, headers=auth(token)).status_code == 200


def test_dashboard_needs_a_login(dash):
    anon = TestClient(dash.app)
    for path in ("/", "/dashboard/live"):
        r = anon.get(path, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"].startswith("/login"), path
    assert anon.get("/api/v1/live/boards").status_code == 401
    heartbeat(dash, preview_jpeg=base64.b64encode(JPEG).decode())
    assert anon.get("/api/v1/live/boards/7/preview.jpg").status_code == 401


def test_agent_online_and_preview_still(dash):
    heartbeat(dash, preview_jpeg=base64.b64encode(JPEG).decode(), spool_segments=2)
    b = boards(dash)
    assert b[7]["online"] and b[7]["preview"] and b[7]["agent"]["fps"] == 15.0 and b[7]["agent"]["spool_segments"] == 2
    assert not b[8]["online"] and not b[8]["preview"] and b[8]["agent"] is None
    r = dash.get("/api/v1/live/boards/7/preview.jpg")
    assert r.status_code == 200 and r.content == JPEG and r.headers["content-type"] == "image/jpeg"
    r = dash.get("/api/v1/live/boards/8/preview.jpg")
    assert r.status_code == 404 and "no preview yet" in r.json()["detail"]
    assert dash.get("/api/v1/live/boards/99/preview.jpg").status_code == 404
    page = dash.get("/").text
    assert 'src="/api/v1/live/boards/7/preview.jpg?v=' in page and "no preview yet" in page
    # No heartbeat for more than 30 s: offline.
    with dash.app_state.db.session() as s:
        s.query(Board).filter_by(number=7).one().last_seen_at = utcnow() - timedelta(seconds=45)
        s.commit()
    assert not boards(dash)[7]["online"]


def test_match_status_from_recording_to_approved(dash):
    start = (utcnow() - timedelta(minutes=10)).replace(microsecond=0)
    r = dash.post(f"{SETUP}/rounds", headers=dash.h, json={"number": 1, "starts_at": start.isoformat()})
    assert r.status_code == 201
    for board, a, b in ((7, "Ann Ames", "Ben Berg"), (8, "Cy Cole", "Di Dunn")):
        r = dash.put(f"{SETUP}/rounds/1/pairings/{board}", headers=dash.h, json={"player_a": a, "player_b": b})
        assert r.status_code == 200
    b = boards(dash)
    assert b[7]["match"]["status"] == "waiting" and b[7]["match"]["player1"] == "Ann Ames"
    assert b[7]["match"]["round"] == 1 and b[8]["match"]["player2"] == "Di Dunn"
    # Footage arrives on board 7 while the match is on: recording.
    seg_start = (start + timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    m, data = make_segment(n=2000, start=seg_start)
    assert ingest_upload(dash, m, data).status_code == 200
    mid = b[7]["match"]["id"]
    assert boards(dash)[7]["match"]["status"] == "recording"
    # The match is over: transcribing (until the pipeline delivers a transcript).
    with dash.app_state.db.session() as s:
        from review_ui.models import Match

        s.get(Match, mid).ended_at = utcnow() - timedelta(seconds=5)
        s.commit()
    assert boards(dash)[7]["match"]["status"] == "transcribing"
    # The transcript is there: needs review, with its flags left and the score.
    assert upload(dash, mid, dash.h).status_code == 201
    got = boards(dash)[7]["match"]
    assert (got["status"], got["open_flags"], got["findings"]) == ("needs_review", 32, 0)
    assert got["score"] == [4, 0] and got["player1"] == "Alice"  # the transcript's names and score
    rows = {r["id"]: r for r in dash.get("/api/v1/review/matches").json()}
    assert rows[mid]["status"] == "needs_review" and rows[mid]["round"] == 1
    assert rows[b[8]["match"]["id"]]["status"] == "waiting"
    with dash.app_state.db.session() as s:
        s.query(Transcript).filter_by(match_id=mid).one().status = "approved"
        s.commit()
    assert boards(dash)[7]["match"]["status"] == "approved"
    page = dash.get("/").text
    assert "Alice – Bob" in page and "Cy Cole – Di Dunn" in page and '<span class="badge approved"' in page
    assert '4–0 <small>/ 7</small>' in page
    assert '<span class="badge waiting"' in page


def test_board_shows_the_current_rounds_match(dash):
    now = utcnow().replace(microsecond=0)
    for n, when, a in ((1, now - timedelta(hours=2), "Ann"), (2, now - timedelta(minutes=5), "Cy"),
                       (3, now + timedelta(hours=2), "Ed")):
        dash.post(f"{SETUP}/rounds", headers=dash.h, json={"number": n, "starts_at": when.isoformat()})
        dash.put(f"{SETUP}/rounds/{n}/pairings/7", headers=dash.h, json={"player_a": a, "player_b": a + " B"})
    m = boards(dash)[7]["match"]
    assert (m["round"], m["player1"]) == (2, "Cy")  # round 3 has not started yet
    assert boards(dash)[8]["match"] is None


def test_live_fragment_for_the_refresh(dash):
    heartbeat(dash)
    r = dash.get("/dashboard/live")
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    assert "<html" not in r.text and 'data-board="7"' in r.text and "online" in r.text
    page = dash.get("/").text
    assert '<div id="live" data-refresh="5">' in page and "/static/dashboard.js" in page


def test_camera_grade_from_the_agent_on_the_board_card(dash):
    grade = {"passed": False, "failed": ["glare"], "size": [1280, 720],
             "checks": [{"name": "board", "status": "pass", "message": "whole board in view"},
                        {"name": "sharpness", "status": "warn", "message": "edges 2.8 mm wide"},
                        {"name": "glare", "status": "fail", "message": "glare on the right half: move the lamp"}]}
    heartbeat(dash, camera_check=grade)
    b = boards(dash)
    assert b[7]["camera"]["failed"] == ["glare"] and b[7]["camera"]["warned"] == ["sharpness"]
    assert b[8]["camera"] is None  # never graded
    page = dash.get("/dashboard/live").text
    assert "fix glare" in page and "glare on the right half: move the lamp" in page
    # A later heartbeat without a grade keeps the last one; a passing grade replaces it.
    heartbeat(dash)
    assert boards(dash)[7]["camera"]["failed"] == ["glare"]
    heartbeat(dash, camera_check={**grade, "passed": True, "failed": [], "checks": grade["checks"][:1]})
    assert boards(dash)[7]["camera"]["passed"]
    # Not a grade: refused, nothing stored.
    r = dash.post("/api/v1/ingest/boards/7/heartbeat", json={"camera_check": {"passed": True}}, headers=auth(TOKEN))
    assert r.status_code == 422 and "camera_check" in r.text
    assert boards(dash)[7]["camera"]["passed"]


def test_an_offline_board_does_not_say_recording(dash):
    heartbeat(dash)
    assert "recording · 15.0 fps" in dash.get("/dashboard/live").text
    with dash.app_state.db.session() as s:
        s.query(Board).filter_by(number=7).one().last_seen_at = utcnow() - timedelta(seconds=120)
        s.commit()
    page = dash.get("/dashboard/live").text
    card = page[page.index('data-board="7"'):page.index('data-board="8"')]
    assert "offline" in card and "recording · 15.0 fps" not in card
    assert "no heartbeat for 120 s (it last said: recording)" in card


def test_camera_check_names_read_as_words(dash):
    grade = {"passed": False, "failed": ["frame_rate"], "size": [1280, 720],
             "checks": [{"name": "board", "status": "warn", "message": "close to the left edge"},
                        {"name": "frame_rate", "status": "fail", "message": "8 fps, need 10"}]}
    heartbeat(dash, camera_check=grade)
    assert boards(dash)[7]["camera"]["failed"] == ["frame_rate"]  # the API keeps the names
    page = dash.get("/dashboard/live").text
    assert "fix frame rate" in page and "frame rate: 8 fps, need 10" in page and "frame_rate" not in page


def test_the_desk_events_current_round_and_top_standings(dash, monkeypatch):
    from review_ui import dashboard

    desk = "/api/v1/desk/events/1"
    for p in ("Ann", "Ben", "Cem", "Dan"):
        assert dash.post(f"{SETUP}/players", json={"name": p}, headers=dash.h).status_code == 201
    assert dash.get("/api/v1/live/events").json() == []  # no format chosen: not the desk's event
    assert dash.put(f"{desk}/format", json={"format": "swiss", "rounds": 2}, headers=dash.h).status_code == 200
    (e,) = dash.get("/api/v1/live/events").json()
    assert (e["round"], e["rounds_total"], e["finished"]) == (None, 2, False)
    rnd = dash.post(f"{desk}/draw", json={}, headers=dash.h).json()
    first, second = rnd["pairings"]
    assert dash.put(f"/api/v1/desk/matches/{first['match_id']}/result", json={"winner": first["b"]},
                    headers=dash.h).status_code == 200
    (e,) = dash.get("/api/v1/live/events").json()
    assert (e["round"], e["matches"], e["results_in"], e["provisional"]) == (1, 2, 1, True)
    assert e["standings"][0]["player"] == first["b"] and e["standings"][0]["match_wins"] == 1
    live = dash.get("/dashboard/live").text
    assert 'id="event-1-standings"' in live and "round 1 of 2: 1 of 2 results in" in live
    assert "<strong>Provisional</strong>" in live and f"<td>{first['b']}</td><td>1</td>" in live
    monkeypatch.setattr(dashboard, "TOP", 2)
    assert "Top 2 of 4" in dash.get("/").text
    # BMAB's official PRs for every match played: nothing provisional any more
    assert dash.put(f"/api/v1/desk/matches/{second['match_id']}/result", json={"winner": second["a"]},
                    headers=dash.h).status_code == 200
    for p in (first, second):
        for who, pr in ((p["a"], 4.5), (p["b"], 6.25)):
            assert dash.put(f"/api/v1/desk/matches/{p['match_id']}/official-pr", json={"player": who, "pr": pr},
                            headers=dash.h).status_code == 200
    (e,) = dash.get("/api/v1/live/events").json()
    assert e["provisional"] is False and e["results_in"] == 2 and e["standings"][0]["avg_pr"] in (4.5, 6.25)
    live = dash.get("/dashboard/live").text
    assert "<strong>Provisional</strong>" not in live and "*</td>" not in live
