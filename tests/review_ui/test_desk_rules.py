"""The desk's per-event rules on the real server (real SQLite, migrations): what a bye is worth, set with the
format (API and page form, audited, the format's defaults from its rule texts)."""

from __future__ import annotations

import pytest

from review_ui.review_models import AuditLog

from .review_helpers import login
from .test_desk import director_event, draw, result

API = "/api/v1/desk"
SETUP = "/api/v1/setup"


@pytest.fixture
def desk9(client):
    """The director's event with 9 players, so every round a bye."""
    return director_event(client, 9)


def put_format(c, status=200, **body):
    r = c.put(f"{API}/events/{c.event_id}/format", json=body, headers=c.h)
    assert r.status_code == status, r.text
    return r.json()


def audit(c, action):
    with c.app_state.db.session() as s:
        return [(a.before, a.after) for a in s.query(AuditLog).filter(AuditLog.action == action).order_by(AuditLog.id)]


def test_bye_scoring_defaults_per_format_and_is_set_with_it(desk9):
    c = desk9
    assert put_format(c, format="swiss-top4", rounds=3)["bye_scoring"] == {  # Amberg: byes 0 ranking points
        "bye_wins": 1, "bye_cup_points": 0, "bye_ranking_points": 0}
    out = put_format(c, format="swiss-top4", rounds=3, bye_cup_points=1, bye_ranking_points=3)
    assert out["bye_scoring"] == {"bye_wins": 1, "bye_cup_points": 1, "bye_ranking_points": 3}
    assert put_format(c, format="swiss-top4", rounds=3)["bye_scoring"]["bye_cup_points"] == 1  # kept when not given
    assert audit(c, "set_format")[-2][1].endswith("bye: 1 win, 1 Cup, 3 ranking points")
    rnd = draw(c)
    (bye,) = rnd["byes"]
    for p in rnd["pairings"]:
        result(c, p["match_id"], p["a"])
    d = c.get(f"{API}/events/{c.event_id}").json()
    assert d["bye_scoring"]["bye_ranking_points"] == 3
    assert next(s for s in d["standings"] if s["player"] == bye)["match_wins"] == 1
    assert d["cup_points"][bye]["win"] == 1 and d["ranking_points"][bye] == 7 + 3
    # the draws so far rest on it: fixed once a bye is given (the same figures are no change)
    r = c.put(f"{API}/events/{c.event_id}/format", json={"format": "swiss-top4", "bye_wins": 0}, headers=c.h)
    assert r.status_code == 422 and "a bye has been given already" in r.json()["detail"]
    assert "bye_wins 1 -> 0" in r.json()["detail"]
    put_format(c, format="swiss-top4", rounds=3, bye_wins=1, bye_cup_points=1)


@pytest.mark.parametrize("body, msg", [({"bye_wins": 2}, "a bye counts 0 or 1 match wins, not 2"),
                                       ({"bye_cup_points": -1}, "a bye gives 0 to 2 Cup points, not -1"),
                                       ({"bye_ranking_points": 9}, "0 to 7 ranking points")])
def test_impossible_bye_scoring_is_refused(desk9, body, msg):
    r = desk9.put(f"{API}/events/{desk9.event_id}/format", json={"format": "swiss", **body}, headers=desk9.h)
    assert r.status_code == 422 and msg in r.json()["detail"]
    assert audit(desk9, "set_format") == []


def test_bye_scoring_by_the_page_form(desk9):
    c = desk9
    page = c.get(f"/events/{c.event_id}/desk")
    assert 'name="bye_cup_points"' in page.text
    form = {"csrf_token": c.h["X-CSRF-Token"], "format": "swiss", "rounds": "3", "entry_fee": "50",
            "bye_wins": "0", "bye_cup_points": "2", "bye_ranking_points": "0"}
    assert c.post(f"/events/{c.event_id}/desk/format", data=form, follow_redirects=False).status_code == 303
    d = c.get(f"{API}/events/{c.event_id}").json()
    assert d["bye_scoring"] == {"bye_wins": 0, "bye_cup_points": 2, "bye_ranking_points": 0}
    rnd = draw(c)
    for p in rnd["pairings"]:
        result(c, p["match_id"], p["a"])
    d = c.get(f"{API}/events/{c.event_id}").json()
    (bye,) = rnd["byes"]
    assert next(s for s in d["standings"] if s["player"] == bye)["match_wins"] == 0
    assert d["cup_points"][bye]["total"] == 2
    bad = c.post(f"/events/{c.event_id}/desk/format", data=form | {"bye_wins": "1"})
    assert bad.status_code == 422 and "A bye has been given already" in bad.text


def withdraw(c, player, status=201, **kw):
    r = c.post(f"{API}/events/{c.event_id}/withdrawals", json={"player": player, **kw}, headers=c.h)
    assert r.status_code == status, r.text
    return r.json()


def test_a_withdrawn_player_is_not_drawn_again_and_the_standings_mark_them(desk9, capsys):
    c = desk9
    put_format(c, format="swiss", rounds=3)
    r1 = draw(c)
    gone = r1["pairings"][0]["a"]
    for p in r1["pairings"]:
        result(c, p["match_id"], p["a"])
    assert withdraw(c, gone)["withdrawn_after"] == 1
    r2 = draw(c)
    players2 = {x for p in r2["pairings"] for x in (p["a"], p["b"])} | set(r2["byes"])
    assert gone not in players2 and len(players2) == 8 and not r2["byes"]  # eight left: no bye
    # too late to undo: round 2 was drawn without them
    r = c.delete(f"{API}/events/{c.event_id}/withdrawals/{gone}", headers=c.h)
    assert r.status_code == 422 and "round 2 has been drawn without" in r.json()["detail"]
    d = c.get(f"{API}/events/{c.event_id}").json()
    row = next(s for s in d["standings"] if s["player"] == gone)
    assert row["withdrawn"] is True and row["match_wins"] == 1 and d["withdrawn"] == {gone: 1}
    assert d["rounds"][0]["pairings"][0]["winner"] == gone  # the played result stays
    page = c.get(f"/events/{c.event_id}/desk/standings").text
    assert f'{gone} <small class="withdrawn">(withdrawn)</small>' in page
    assert audit(c, "withdraw_player") == [("in the event", "withdrawn after round 1")]
    from bgscribe.cli import main

    assert main(["event", "standings", "--data", str(c.app_state.settings.data_dir), "--event",
                 str(c.event_id)]) == 0
    assert f"{gone}: 1 win (withdrawn)" in capsys.readouterr().out


def test_withdrawals_refused_with_the_reason_and_undone_before_the_next_draw(desk9):
    c = desk9
    r = c.post(f"{API}/events/{c.event_id}/withdrawals", json={"player": "P1"}, headers=c.h)
    assert r.status_code == 422 and "has no format yet" in r.json()["detail"]
    put_format(c, format="swiss-top4", rounds=1)
    assert withdraw(c, "Nobody", 422)["detail"] == "'Nobody' is not a player of event 'EPC Leg 3'"
    assert "a player's name" in withdraw(c, "x" * 300, 422)["detail"]
    withdraw(c, "P9", forfeit_attendance=True)
    assert "has withdrawn already (before round 1)" in withdraw(c, "P9", 422)["detail"]
    r = c.delete(f"{API}/events/{c.event_id}/withdrawals/P9", headers=c.h)
    assert r.status_code == 200 and audit(c, "reinstate_player")[0][0] == "withdrawn after round 0"
    withdraw(c, "P9", forfeit_attendance=True)
    rnd = draw(c)
    assert "P9" not in {x for p in rnd["pairings"] for x in (p["a"], p["b"])} | set(rnd["byes"])
    d = c.get(f"{API}/events/{c.event_id}").json()
    assert d["ranking_points"]["P9"] == 0  # Amberg: attendance points taken for leaving early
    for p in rnd["pairings"]:
        result(c, p["match_id"], p["a"])
    semis = draw(c)
    assert "plays the knockout" in withdraw(c, semis["pairings"][0]["a"], 422)["detail"]
    assert c.post(f"{API}/events/{c.event_id}/withdrawals", json={"player": "P1"}).status_code == 403  # no CSRF
    staff = type(c)(c.app)  # staff read the desk; only directors change it
    h = login(staff, "ann")
    assert staff.post(f"{API}/events/{c.event_id}/withdrawals", json={"player": "P1"}, headers=h).status_code == 403


def test_withdraw_by_the_page_form(desk9):
    c = desk9
    put_format(c, format="swiss", rounds=2)
    assert 'id="withdraw"' in c.get(f"/events/{c.event_id}/desk").text
    form = {"csrf_token": c.h["X-CSRF-Token"], "player": "P4", "forfeit_attendance": "true"}
    assert c.post(f"/events/{c.event_id}/desk/withdraw", data=form, follow_redirects=False).status_code == 303
    bad = c.post(f"/events/{c.event_id}/desk/withdraw", data=form)
    assert bad.status_code == 422 and "P4 has withdrawn already" in bad.text
    assert audit(c, "withdraw_player")[0][1] == "withdrawn after round 0, attendance points forfeited"
