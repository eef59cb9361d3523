"""The tournament desk on the real server (real SQLite, migrations): format, draws through the pairing engine,
the draw held back until the previous round's results are in, swaps and re-draws (audited), results by hand
and from an approved transcript (a contradicting one refused), official PRs replacing gnubg's, pages, CSV."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from review_ui import desk
from review_ui.models import Event, Match
from review_ui.review_models import AuditLog
from review_ui.services import register_board

from .review_helpers import add_users, login, report_of

API = "/api/v1/desk"
SETUP = "/api/v1/setup"


def director_event(client, players: int):
    """dora (director) logged in; the event (boards 7 and 8, plus 9-12) with players P1..P`players`."""
    add_users(client.app_state)
    client.h = login(client, "dora")
    client.event_id = client.get(f"{SETUP}/events").json()[0]["id"]
    with client.app_state.db.session() as s:
        ev = s.get(Event, client.event_id)
        for n in (9, 10, 11, 12):
            register_board(s, n, f"board-{n}-token-secret-x", ev)
        s.commit()
    for i in range(1, players + 1):
        assert client.post(f"{SETUP}/events/{client.event_id}/players", json={"name": f"P{i}"},
                           headers=client.h).status_code == 201
    return client


@pytest.fixture
def dora(client):
    """The director's event with 8 players, format swiss 3 rounds."""
    director_event(client, 8)
    r = client.put(f"{API}/events/{client.event_id}/format", json={"format": "swiss", "rounds": 3}, headers=client.h)
    assert r.status_code == 200, r.text
    return client


def draw(c, status=201):
    r = c.post(f"{API}/events/{c.event_id}/draw", json={}, headers=c.h)
    assert r.status_code == status, r.text
    return r.json()


def result(c, match_id, winner, status=200):
    r = c.put(f"{API}/matches/{match_id}/result", json={"winner": winner}, headers=c.h)
    assert r.status_code == status, r.text
    return r.json()


def test_changes_need_a_director(dora):
    c = TestClient(dora.app)
    h = login(c, "ann")  # staff
    assert c.post(f"{API}/events/{dora.event_id}/draw", json={}, headers=h).status_code == 403
    assert c.get(f"{API}/events/{dora.event_id}").status_code == 200  # staff read
    assert TestClient(dora.app).get(f"{API}/events/{dora.event_id}").status_code == 401
    assert dora.post(f"{API}/events/{dora.event_id}/draw", json={}).status_code == 403  # no CSRF token


def test_a_whole_swiss_event_through_the_api(dora):
    seen = set()
    for number in (1, 2, 3):
        rnd = draw(dora)
        assert rnd["number"] == number and len(rnd["pairings"]) == 4 and not rnd["byes"]
        assert [p["board"] for p in rnd["pairings"]] == [7, 8, 9, 10]  # fixed tables, top pairing first
        if number < 3:  # the next round waits for every result
            r = dora.post(f"{API}/events/{dora.event_id}/draw", json={}, headers=dora.h)
            assert r.status_code == 422 and "without a result" in r.json()["detail"]
        for p in rnd["pairings"]:
            pair = frozenset((p["a"], p["b"]))
            assert pair not in seen  # no repeat pairing
            seen.add(pair)
            result(dora, p["match_id"], min(p["a"], p["b"]))
    d = dora.get(f"{API}/events/{dora.event_id}").json()
    assert d["next_round"] is None
    wins = {st["player"]: st["match_wins"] for st in d["standings"]}
    assert sum(wins.values()) == 12 and d["standings"][0]["match_wins"] == 3
    assert d["provisional"] is True  # no PR at all yet
    assert d["prizes"]["pool"] == 800.0 and sum(d["prizes"]["places"].values()) == 800.0
    r = dora.post(f"{API}/events/{dora.event_id}/draw", json={}, headers=dora.h)
    assert r.status_code == 422 and "all 3 rounds" in r.json()["detail"]
    csv = dora.get(f"{API}/events/{dora.event_id}/rounds/1/pairings.csv").text.splitlines()
    assert csv[0] == "round,board,player_a,player_b,stage" and len(csv) == 5
    page = dora.get(f"/events/{dora.event_id}/desk")
    assert page.status_code == 200 and 'id="standings"' in page.text
    printed = dora.get(f"/events/{dora.event_id}/rounds/1/print")
    assert printed.status_code == 200 and "round 1" in printed.text
    with dora.app_state.db.session() as s:
        actions = [a.action for a in s.query(AuditLog).all()]
    assert actions.count("draw_round") == 3 and actions.count("enter_result") == 12


def test_swap_and_redraw_are_audited_and_refused_once_a_match_began(dora):
    rnd = draw(dora)
    p0, p1 = rnd["pairings"][0], rnd["pairings"][1]
    r = dora.post(f"{API}/events/{dora.event_id}/rounds/1/swap", json={"player_x": p0["a"], "player_y": p1["a"]},
                  headers=dora.h)
    assert r.status_code == 200, r.text
    after = r.json()["pairings"]
    assert {after[0]["a"], after[0]["b"]} == {p1["a"], p0["b"]}
    r = dora.post(f"{API}/events/{dora.event_id}/rounds/1/swap", json={"player_x": "P1", "player_y": "Nobody"},
                  headers=dora.h)
    assert r.status_code == 422 and "Nobody is not in round 1" in r.json()["detail"]
    r = dora.post(f"{API}/events/{dora.event_id}/rounds/1/redraw", headers=dora.h)
    assert r.status_code == 200
    again = r.json()["pairings"]
    result(dora, again[0]["match_id"], again[0]["a"])
    r = dora.post(f"{API}/events/{dora.event_id}/rounds/1/redraw", headers=dora.h)
    assert r.status_code == 422 and "has a result" in r.json()["detail"]
    r = dora.post(f"{API}/events/{dora.event_id}/rounds/1/swap",
                  json={"player_x": again[0]["a"], "player_y": again[1]["a"]}, headers=dora.h)
    assert r.status_code == 422 and "has begun" in r.json()["detail"]
    with dora.app_state.db.session() as s:
        actions = [a.action for a in s.query(AuditLog).all()]
    assert "swap_players" in actions and "redraw_round" in actions


def approved_transcript(c, match_id: int, a: str, b: str, seed: int = 3) -> str:
    """An approved transcript of a generated match between a and b on the match; returns its winner."""
    from review_ui.review_models import Transcript
    from review_ui.services import utcnow
    from review_ui.transcripts import doc_from_report
    from tournament.results import match_winner
    from transcriber.generate import GenOptions, random_match

    rec = random_match(seed, (a, b), GenOptions(length=7))
    doc = doc_from_report(report_of(rec))  # the document the review API keeps for an upload
    with c.app_state.db.session() as s:
        now = utcnow()
        s.add(Transcript(match_id=match_id, version=1, doc_json=json.dumps(doc), report_json="{}", status="approved",
                         approved_by="ann", approved_at=now, updated_by="ann", created_at=now, updated_at=now))
        s.commit()
    return match_winner(rec)[0]


def test_an_approved_transcript_sets_the_result_and_a_contradicting_one_is_refused(dora):
    rnd = draw(dora)
    p = rnd["pairings"][0]
    winner = approved_transcript(dora, p["match_id"], p["a"], p["b"])
    row = dora.get(f"{API}/events/{dora.event_id}").json()["rounds"][0]["pairings"][0]
    assert row["winner"] == winner and row["result_source"] == "transcript"
    loser = p["b"] if winner == p["a"] else p["a"]
    r = dora.put(f"{API}/matches/{p['match_id']}/result", json={"winner": loser}, headers=dora.h)
    assert r.status_code == 422
    assert r.json()["detail"].startswith(f"refused: the transcript has {winner} winning 7-")
    result(dora, p["match_id"], winner)  # agreeing with it is fine
    r = dora.put(f"{API}/matches/{p['match_id']}/result", json={"winner": "P99"}, headers=dora.h)
    assert r.status_code == 422 and "the winner must be" in r.json()["detail"]


def test_official_pr_replaces_the_provisional_one(dora):
    rnd = draw(dora)
    p = rnd["pairings"][0]
    result(dora, p["match_id"], p["a"])
    with dora.app_state.db.session() as s:
        m = s.get(Match, p["match_id"])

        class A:  # the shape of tournament.pr.Analysis that store_analysis reads
            ply, decisions = 0, []

            @staticmethod
            def by_name(n):
                from tournament.pr import PlayerPR
                return PlayerPR(n, 9.0 if n == p["a"] else 5.0, 18.0, 100, 90, 10, 0.9, 0.1)

        desk.store_analysis(s, m, A())
        s.commit()
    d = dora.get(f"{API}/events/{dora.event_id}").json()
    row = d["rounds"][0]["pairings"][0]
    assert row["pr_a"] == {"pr": 9.0, "source": "gnubg", "provisional": True, "error": "", "ply": 0}
    for who, pr in ((p["a"], 4.0), (p["b"], 6.0)):
        r = dora.put(f"{API}/matches/{p['match_id']}/official-pr", json={"player": who, "pr": pr}, headers=dora.h)
        assert r.status_code == 200, r.text
    d = dora.get(f"{API}/events/{dora.event_id}").json()
    row = d["rounds"][0]["pairings"][0]
    assert row["pr_a"]["pr"] == 4.0 and row["pr_a"]["source"] == "bmab" and not row["pr_a"]["provisional"]
    assert d["cup_points"][p["a"]]["pr"] == 1 and d["cup_points"][p["b"]]["pr"] == 0
    r = dora.put(f"{API}/matches/{p['match_id']}/official-pr", json={"player": "Nobody", "pr": 3}, headers=dora.h)
    assert r.status_code == 422


def _pipeline(c):
    from review_ui.pipeline import Pipeline

    st = c.app_state
    return Pipeline(st.db, st.store, st.settings.data_dir, pr_ply=0)


@pytest.mark.gnubg
def test_the_pipeline_analyses_an_approved_match_with_gnubg(dora):
    from tournament.pr import find_gnubg

    if find_gnubg() is None:
        pytest.skip("GNU Backgammon (gnubg) is not installed: apt-get install gnubg")
    rnd = draw(dora)
    p = rnd["pairings"][0]
    approved_transcript(dora, p["match_id"], p["a"], p["b"])
    pipe = _pipeline(dora)
    while pipe.run_once():
        pass
    row = dora.get(f"{API}/events/{dora.event_id}").json()["rounds"][0]["pairings"][0]
    assert row["pr_a"]["source"] == "gnubg" and row["pr_a"]["provisional"] and row["pr_a"]["ply"] == 0
    assert row["pr_a"]["pr"] > 0 and row["pr_b"]["pr"] > 0
    detail = dora.get(f"{API}/matches/{p['match_id']}/pr").json()["prs"]
    moves = [d for d in detail[0]["analysis"] if d["kind"] == "move" and not d["forced"]]
    assert moves and all(d["best"] and d["error"] is not None for d in moves)
    assert not pipe.run_once()  # analysed once, not again
    worst = max(moves, key=lambda d: d["error"])  # the review page shows gnubg's view of the action
    page = dora.get(f"/matches/{p['match_id']}?g={worst['game']}&a={worst['move']}").text
    assert 'id="gnubg-view"' in page and f"best {worst['best']}, this loses {worst['error']:.3f} equity" in page


def test_a_missing_gnubg_leaves_the_match_without_pr_and_says_so(dora, monkeypatch):
    monkeypatch.setenv("BGSCRIBE_GNUBG", "/nonexistent/gnubg")
    rnd = draw(dora)
    p = rnd["pairings"][0]
    approved_transcript(dora, p["match_id"], p["a"], p["b"])
    pipe = _pipeline(dora)
    while pipe.run_once():
        pass
    row = dora.get(f"{API}/events/{dora.event_id}").json()["rounds"][0]["pairings"][0]
    assert row["pr_a"]["pr"] is None and "not installed" in row["pr_a"]["error"]
    page = dora.get(f"/events/{dora.event_id}/desk").text
    assert "no PR: GNU Backgammon is not installed" in page


def test_bgscribe_event_pair_standings_prizes_over_the_servers_data(dora, capsys):
    from bgscribe.cli import main

    data = str(dora.app_state.settings.data_dir)
    assert main(["event", "pair", "--data", data, "--event", "EPC Leg 3", "--by", "dora", "--json"]) == 0
    rnd = json.loads(capsys.readouterr().out)
    assert rnd["number"] == 1 and len(rnd["pairings"]) == 4
    assert main(["event", "pair", "--data", data, "--event", "EPC Leg 3"]) == 1  # results missing
    assert "round 1 still has 4 matches without a result" in capsys.readouterr().err
    for p in rnd["pairings"]:
        result(dora, p["match_id"], p["a"])
    assert main(["event", "standings", "--data", data, "--event", str(dora.event_id), "--json"]) == 0
    st = json.loads(capsys.readouterr().out)
    assert sorted(s["match_wins"] for s in st["standings"]) == [0, 0, 0, 0, 1, 1, 1, 1]
    assert main(["event", "prizes", "--data", data, "--event", "EPC Leg 3"]) == 0
    assert "pool EUR 800.00 (provisional)" in capsys.readouterr().out
    assert main(["event", "standings", "--data", data, "--event", "Nope"]) == 2
    assert "no event 'Nope' (events: EPC Leg 3)" in capsys.readouterr().err
    with dora.app_state.db.session() as s:
        assert any(a.username == "dora" and a.action == "draw_round" for a in s.query(AuditLog).all())


def test_swiss_top4_on_the_server_plays_the_knockout_and_ranks_by_it(dora):
    r = dora.put(f"{API}/events/{dora.event_id}/format", json={"format": "swiss-top4", "rounds": 3}, headers=dora.h)
    assert r.status_code == 200
    for _ in range(3):
        for p in draw(dora)["pairings"]:
            result(dora, p["match_id"], min(p["a"], p["b"]))
    semis = draw(dora)
    assert [p["stage"] for p in semis["pairings"]] == ["semi-final", "semi-final"]
    r = dora.post(f"{API}/events/{dora.event_id}/rounds/4/swap",
                  json={"player_x": semis["pairings"][0]["a"], "player_y": semis["pairings"][1]["a"]}, headers=dora.h)
    assert r.status_code == 422 and "knockout pairings follow the bracket" in r.json()["detail"]
    for p in semis["pairings"]:
        result(dora, p["match_id"], p["b"])
    last = draw(dora)
    final = next(p for p in last["pairings"] if p["stage"] == "final")
    third = next(p for p in last["pairings"] if p["stage"] == "third-place")
    assert {final["a"], final["b"]} == {p["b"] for p in semis["pairings"]}
    result(dora, final["match_id"], final["a"])
    result(dora, third["match_id"], third["b"])
    d = dora.get(f"{API}/events/{dora.event_id}").json()
    assert [s["player"] for s in d["standings"][:4]] == [final["a"], final["b"], third["b"], third["a"]]
    assert d["ranking_points"][final["a"]] == 7 + 7 * sum(
        1 for r in d["rounds"] for p in r["pairings"] if p["winner"] == final["a"])
    assert 'id="ranking-points"' in dora.get(f"/events/{dora.event_id}/desk").text


def test_desk_pages_draw_and_enter_results_by_form(dora):
    csrf = dora.h["X-CSRF-Token"]
    r = dora.post(f"/events/{dora.event_id}/desk/draw", data={"csrf_token": csrf}, follow_redirects=False)
    assert r.status_code == 303
    again = dora.post(f"/events/{dora.event_id}/desk/draw", data={"csrf_token": csrf})
    assert again.status_code == 422 and "without a result" in again.text
    d = dora.get(f"{API}/events/{dora.event_id}").json()
    p = d["rounds"][0]["pairings"][0]
    winner = approved_transcript(dora, p["match_id"], p["a"], p["b"])
    loser = p["b"] if winner == p["a"] else p["a"]
    r = dora.post(f"/events/{dora.event_id}/desk/matches/{p['match_id']}/result",
                  data={"csrf_token": csrf, "winner": loser})
    assert r.status_code == 422 and f"Refused: the transcript has {winner} winning" in r.text
    staff = TestClient(dora.app)
    h = login(staff, "ann")
    assert staff.post(f"/events/{dora.event_id}/desk/draw", data={"csrf_token": h["X-CSRF-Token"]}).status_code == 403
    for section, marker in (("standings", 'id="standings"'), ("cup-points", 'id="cup-points"'),
                            ("ranking-points", 'id="ranking-points"'), ("prizes", "Pool EUR")):
        page = staff.get(f"/events/{dora.event_id}/desk/{section}")
        assert page.status_code == 200 and marker in page.text and 'id="draw"' not in page.text
    assert staff.get(f"/events/{dora.event_id}/desk/nothing").status_code == 404
    for section in ("standings", "cup_points", "ranking_points", "prizes"):
        body = staff.get(f"{API}/events/{dora.event_id}/{section}").json()
        assert section in body and body["provisional"] is True


def test_official_prs_import_from_a_csv_all_or_nothing(dora):
    rnd = draw(dora)
    a, b = rnd["pairings"][0]["a"], rnd["pairings"][0]["b"]
    url = f"{API}/events/{dora.event_id}/official-prs.csv"
    bad = f"round,player,pr\n1,{a},4.5\n1,Nobody,3\n2,{b},3\n1,{b},x\n"
    r = dora.post(url, content=bad, headers={**dora.h, "Content-Type": "text/csv"})
    assert r.status_code == 422
    errors = r.json()["detail"]["errors"]
    assert [e["line"] for e in errors] == [3, 4, 5] and "'Nobody' has no match in round 1" in errors[0]["message"]
    assert dora.get(f"{API}/matches/{rnd['pairings'][0]['match_id']}/pr").json()["prs"] == []  # nothing entered
    csv = f"round;player;pr\n1;{a};4,5\n1;{b};7.25\n"  # a spreadsheet's semicolons and decimal comma
    r = dora.post(url, content=csv, headers={**dora.h, "Content-Type": "text/csv"})
    assert r.status_code == 200 and r.json() == {"imported": 2}
    row = dora.get(f"{API}/events/{dora.event_id}").json()["rounds"][0]["pairings"][0]
    assert row["pr_a"]["pr"] == 4.5 and row["pr_b"]["pr"] == 7.25 and row["pr_a"]["source"] == "bmab"


def test_page_forms_need_the_csrf_token(dora):
    r = dora.post(f"/events/{dora.event_id}/desk/draw", data={})
    assert r.status_code == 403
    with dora.app_state.db.session() as s:
        assert not desk.event_state(s, s.get(Event, dora.event_id)).draws


def test_a_cup_on_the_server_with_its_consolation_bracket(dora):
    assert dora.put(f"{API}/events/{dora.event_id}/format", json={"format": "cup"}, headers=dora.h).status_code == 200
    stages = []
    while True:
        r = dora.post(f"{API}/events/{dora.event_id}/draw", json={}, headers=dora.h)
        if r.status_code == 422:
            assert "all 3 rounds are drawn" in r.json()["detail"]
            break
        rnd = r.json()
        stages.append(sorted({p["stage"] for p in rnd["pairings"]}))
        assert len({p["board"] for p in rnd["pairings"]}) == len(rnd["pairings"])
        for p in rnd["pairings"]:
            result(dora, p["match_id"], min(p["a"], p["b"]))
    assert stages == [["cup"], ["consolation", "cup"], ["consolation", "cup"]]
    d = dora.get(f"{API}/events/{dora.event_id}").json()
    assert d["standings"][0]["player"] == "P1" and d["standings"][1]["place"] == 2
    assert [s["place"] for s in d["standings"]][2:4] == [3, 3]  # the semi-final losers share 3rd


def test_a_name_that_looks_like_a_formula_is_quoted_in_the_csv(dora):
    r = dora.post(f"{SETUP}/events/{dora.event_id}/players", json={"name": "=cmd"}, headers=dora.h)
    assert r.status_code == 201
    r = dora.put(f"{API}/events/{dora.event_id}/format", json={"format": "swiss", "rounds": 1}, headers=dora.h)
    assert r.status_code == 200
    draw(dora)
    text = dora.get(f"{API}/events/{dora.event_id}/rounds/1/pairings.csv").text
    assert "'=cmd" in text and ",=cmd" not in text
