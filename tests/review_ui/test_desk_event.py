"""A whole event through the server's API, as the desk runs one: each round drawn by the engine, every match a
generated legal match uploaded as its transcript and approved in the review API, the pipeline worker's gnubg
job giving each player's provisional PR, then the standings, Cup points and prizes; an official PR replaces a
provisional one; the live dashboard shows the last round and the top of the standings. 16 players and 4 rounds
by default; BGSCRIBE_SLOW_TESTS=1 runs the issue's 48 players and 6 rounds (about 2 minutes on one core at 0-ply)."""

from __future__ import annotations

import json
import os
import random

import pytest

from review_ui.models import Event
from review_ui.pipeline import Pipeline
from review_ui.services import register_board
from tournament.pr import find_gnubg
from tournament.results import match_winner
from transcriber.generate import GenOptions, random_match

from .review_helpers import add_users, login, report_of

SLOW = os.environ.get("BGSCRIBE_SLOW_TESTS") == "1"
PLAYERS, ROUNDS = (48, 6) if SLOW else (16, 4)


@pytest.mark.gnubg
@pytest.mark.skipif(find_gnubg() is None, reason="GNU Backgammon is not installed (apt-get install gnubg)")
def test_a_whole_event_through_the_api_with_gnubg_prs(client):
    add_users(client.app_state)
    h = login(client, "dora")
    ev_id = client.get("/api/v1/setup/events").json()[0]["id"]
    with client.app_state.db.session() as s:
        ev = s.get(Event, ev_id)
        for n in range(9, 7 + PLAYERS // 2):  # boards 7 and 8 exist; one board a pairing
            register_board(s, n, f"board-{n}-token-secret-x", ev)
        s.commit()
    players = [f"Player {i:02d}" for i in range(1, PLAYERS + 1)]
    for p in players:
        assert client.post(f"/api/v1/setup/events/{ev_id}/players", json={"name": p}, headers=h).status_code == 201
    r = client.put(f"/api/v1/desk/events/{ev_id}/format", json={"format": "swiss", "rounds": ROUNDS}, headers=h)
    assert r.status_code == 200, r.text
    st = client.app_state
    worker = Pipeline(st.db, st.store, st.settings.data_dir, pr_ply=0)
    rng = random.Random(17)
    met, wins = set(), dict.fromkeys(players, 0)
    for number in range(1, ROUNDS + 1):
        rnd = client.post(f"/api/v1/desk/events/{ev_id}/draw", json={}, headers=h)
        assert rnd.status_code == 201, rnd.text
        rnd = rnd.json()
        assert rnd["number"] == number and len(rnd["pairings"]) == PLAYERS // 2 and not rnd["forced"]
        for p in rnd["pairings"]:
            pair = frozenset((p["a"], p["b"]))
            assert pair not in met  # no repeat pairing
            met.add(pair)
            record = random_match(rng.randrange(1 << 30), (p["a"], p["b"]), GenOptions(length=7))
            # the report alone: a .mat has no notation for a resignation, so its action count can differ
            files = {"report": ("report.json", json.dumps(report_of(record)), "application/json")}
            up = client.post(f"/api/v1/matches/{p['match_id']}/transcript", files=files, headers=h)
            assert up.status_code == 201, up.text
            ok = client.post(f"/api/v1/matches/{p['match_id']}/transcript/approve",
                             json={"version": up.json()["version"]}, headers=h)
            assert ok.status_code == 200, ok.text
            wins[match_winner(record)[0]] += 1
        while worker.run_once():  # the pipeline's gnubg jobs, one per approved match
            pass
    d = client.get(f"/api/v1/desk/events/{ev_id}").json()
    assert d["next_round"] is None and len(d["rounds"]) == ROUNDS
    for rnd in d["rounds"]:
        for p in rnd["pairings"]:
            assert p["result_source"] == "transcript" and p["winner"] in (p["a"], p["b"])
            for side in ("pr_a", "pr_b"):
                assert p[side]["source"] == "gnubg" and p[side]["ply"] == 0 and p[side]["pr"] > 0
    assert {s_["player"]: s_["match_wins"] for s_ in d["standings"]} == wins
    assert d["provisional"] is True and all(s_["provisional"] for s_ in d["standings"])
    top = d["standings"][0]
    assert top["match_wins"] == max(wins.values()) and top["place"] == 1
    cups = d["cup_points"]
    assert sum(c["win"] for c in cups.values()) == PLAYERS // 2 * ROUNDS
    assert sum(c["pr"] for c in cups.values()) <= PLAYERS // 2 * ROUNDS
    assert d["prizes"]["pool"] == PLAYERS * 100 and sum(d["prizes"]["places"].values()) == pytest.approx(PLAYERS * 100)
    assert sum(d["prizes"]["best_pr"].values()) == pytest.approx(100)
    # BMAB's official PRs replace gnubg's: every match of the event, so nothing is provisional any more
    for rnd in d["rounds"]:
        for p in rnd["pairings"]:
            for who, side in ((p["a"], "pr_a"), (p["b"], "pr_b")):
                r = client.put(f"/api/v1/desk/matches/{p['match_id']}/official-pr",
                               json={"player": who, "pr": round(p[side]["pr"] / 8, 2)}, headers=h)
                assert r.status_code == 200
    d2 = client.get(f"/api/v1/desk/events/{ev_id}").json()
    assert d2["provisional"] is False and d2["prizes"]["provisional"] is False
    assert {s_["player"]: s_["match_wins"] for s_ in d2["standings"]} == wins
    page = client.get(f"/events/{ev_id}/desk")
    assert page.status_code == 200 and "Provisional" not in page.text
    # the live dashboard: the last round, every result in, the top of the same standings
    (live,) = client.get("/api/v1/live/events").json()
    assert (live["round"], live["results_in"], live["finished"], live["provisional"]) == (ROUNDS, PLAYERS // 2,
                                                                                         True, False)
    assert live["standings"] == d2["standings"][:8]
