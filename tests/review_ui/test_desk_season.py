"""Amberg's season table on the real server (real SQLite): events put in a season by name, ranking points summed
over them, ties broken by more tournament wins, then fewer tournaments played; a page and JSON."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from review_ui.review_models import AuditLog

from .review_helpers import add_users, login
from .test_desk import draw, result

API = "/api/v1/desk"
SETUP = "/api/v1/setup"
SEASON = "Amberg 2026"


@pytest.fixture
def dora(client):
    add_users(client.app_state)
    client.h = login(client, "dora")
    client.boards = iter(range(20, 40))
    return client


def one_match_event(c, name, winner, loser, length=7, season=SEASON):
    """A two-player, one-round Swiss (a single match, so its draw is certain), played to `winner`."""
    r = c.post(f"{SETUP}/events", json={"name": name, "match_length": length}, headers=c.h)
    assert r.status_code == 201, r.text
    c.event_id = r.json()["id"]
    assert c.post(f"{SETUP}/events/{c.event_id}/boards", json={"number": next(c.boards)},
                  headers=c.h).status_code == 201
    for p in (winner, loser):
        assert c.post(f"{SETUP}/events/{c.event_id}/players", json={"name": p}, headers=c.h).status_code == 201
    assert c.put(f"{API}/events/{c.event_id}/format", json={"format": "swiss", "rounds": 1},
                 headers=c.h).status_code == 200
    assert c.put(f"{API}/events/{c.event_id}/season", json={"season": season}, headers=c.h).json() == {
        "event_id": c.event_id, "season": season}
    (p,) = draw(c)["pairings"]
    result(c, p["match_id"], winner)
    return c.event_id


def test_the_season_table_ranks_by_points_then_wins_then_fewer_tournaments(dora):
    c = dora
    one_match_event(c, "Amberg 1", "A", "B")   # A 14, B 7
    one_match_event(c, "Amberg 2", "A", "C")   # A 28
    one_match_event(c, "Amberg 3", "B", "C")   # B 21 (1 win, 2 played)
    one_match_event(c, "Amberg 4", "D", "C")   # C 21 (no win, 3 played); D 14
    one_match_event(c, "Amberg 5", "E", "F", length=14)  # E 21 (1 win, 1 played)
    one_match_event(c, "Frankfurt 1", "B", "A", season="Frankfurt 2026")  # another season: not counted
    t = c.get(f"{API}/seasons/{quote(SEASON)}").json()
    rows = [(e["place"], e["player"], e["points"], e["tournament_wins"], e["tournaments"]) for e in t["table"]]
    assert rows == [(1, "A", 28, 2, 2), (2, "E", 21, 1, 1), (3, "B", 21, 1, 2), (4, "C", 21, 0, 3),
                    (5, "D", 14, 1, 1), (6, "F", 7, 0, 1)]
    assert t["in_progress"] is False and [e["winners"] for e in t["events"]] == [["A"], ["A"], ["B"], ["D"], ["E"]]
    assert [x["season"] for x in c.get(f"{API}/seasons").json()["seasons"]] == [SEASON, "Frankfurt 2026"]
    page = c.get(f"/seasons/{quote(SEASON)}")
    assert page.status_code == 200 and 'id="season"' in page.text and "<td>E</td><td>21</td>" in page.text
    assert "Amberg 2026" in c.get("/seasons").text
    assert f'href="/seasons/{quote(SEASON)}"' in c.get(f"/events/{t['events'][0]['event_id']}/desk").text


def test_a_running_event_counts_its_points_so_far_and_no_win(dora):
    c = dora
    one_match_event(c, "Amberg 1", "A", "B")
    r = c.post(f"{SETUP}/events", json={"name": "Amberg 2"}, headers=c.h)
    ev2 = r.json()["id"]
    for p in ("A", "B", "C"):
        c.post(f"{SETUP}/events/{ev2}/players", json={"name": p}, headers=c.h)
    c.put(f"{API}/events/{ev2}/season", json={"season": f"  {SEASON} "}, headers=c.h)  # stripped
    t = c.get(f"{API}/seasons/{quote(SEASON)}").json()
    assert t["in_progress"] is True and t["events"][1]["finished"] is False
    assert {e["player"]: (e["points"], e["tournament_wins"], e["tournaments"]) for e in t["table"]} == {
        "A": (21, 1, 2), "B": (14, 0, 2), "C": (7, 0, 1)}
    assert 'id="in-progress"' in c.get(f"/seasons/{quote(SEASON)}").text


def test_season_input_is_checked_and_audited(dora):
    c = dora
    ev = one_match_event(c, "Amberg 1", "A", "B")
    r = c.put(f"{API}/events/{ev}/season", json={"season": "x" * 101}, headers=c.h)
    assert r.status_code == 422 and "a season's name is 0 to 100 characters" in r.json()["detail"]
    r = c.put(f"{API}/events/{ev}/season", json={"season": "a\nb"}, headers=c.h)
    assert r.status_code == 422 and "control characters" in r.json()["detail"]
    assert c.put(f"{API}/events/{ev}/season", json={"season": ""}, headers=c.h).json()["season"] is None
    r = c.get(f"{API}/seasons/{quote(SEASON)}")
    assert r.status_code == 404 and "no event is in season 'Amberg 2026' (seasons: none yet)" in r.json()["detail"]
    assert c.get(f"/seasons/{quote(SEASON)}").status_code == 404
    form = {"csrf_token": c.h["X-CSRF-Token"], "season": "Hessen Cup 2026"}
    assert c.post(f"/events/{ev}/desk/season", data=form, follow_redirects=False).status_code == 303
    with c.app_state.db.session() as s:
        log = [(a.before, a.after) for a in s.query(AuditLog).filter(AuditLog.action == "set_season")]
    assert log == [("", SEASON), (SEASON, ""), ("", "Hessen Cup 2026")]
