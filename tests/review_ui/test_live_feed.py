"""Live boards through the real server (uvicorn on 127.0.0.1): an agent's live observations in (the board's token),
the board's state out as JSON and as Server-Sent Events, who may look (public, viewer token, staff), bad input,
and the match's end telling the agent to close its segment."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import httpx
import pytest

from review_ui.models import Board, Event
from review_ui.services import create_match, utcnow
from tests.pg_server import sqlite_only
from tournament.play_judge import PlayJudge
from tournament.pr import find_gnubg
from transcriber.decode import decode
from transcriber.generate import GenOptions, random_match
from transcriber.ids import parse_xgid
from transcriber.replay import replay_match
from vision.live_frames import frames_body, jpeg, picture
from vision.synth.observe_sim import observations_from_truth

from ..transcriber.streams import render_clean
from .conftest import TOKEN, auth
from .review_helpers import login

needs_gnubg = pytest.mark.skipif(find_gnubg() is None, reason="GNU Backgammon is not installed (apt-get install gnubg)")


@pytest.fixture(scope="module")
def one_game_truth(tmp_path_factory):
    """A generated game without cube or resignation (it ends by bearing off), rendered clean and small (5 frames a
    second): its truth file, the video `v.mp4` beside it."""
    rec = random_match(4, players=("Ann", "Bob"), opts=GenOptions(length=1, double_rate=0.0, resign_rate=0.0))
    rec.games = rec.games[:1]
    return render_clean(tmp_path_factory, rec, "live", video=True, seed=2)


@pytest.fixture(scope="module")
def one_game(one_game_truth):
    """That game's observations, and the batch decoder's record of them."""
    truth = one_game_truth
    obs = observations_from_truth(truth)
    from vision.synth.truth import read_truth

    light_first = next(read_truth(truth))["rig"]["seating"]["p0_light"]
    players = ("Ann", "Bob") if light_first else ("Bob", "Ann")
    return obs, players, decode(obs, players=players, length=1).record


@pytest.fixture
def server(live):
    """(tests/review_ui/conftest.py's server, by this module's name for it)"""
    return live


def _match(srv, players, length=1, public=True) -> int:
    with srv.state.db.session() as s:
        ev = s.query(Event).first()
        ev.match_length, ev.live_public = length, public
        b = s.query(Board).filter_by(number=7).one()
        m = create_match(s, ev, b, utcnow() - timedelta(seconds=5), *players)
        s.commit()
        return m.id


def _lines(obs, t0: float) -> bytes:
    """Observations as the agent posts them: stamped in seconds since the epoch."""
    out = []
    for o in obs:
        d = json.loads(o.to_json())
        d["t"] = round(t0 + o.t, 3)
        out.append(json.dumps(d))
    return ("\n".join(out) + "\n").encode()


def post(c: httpx.Client, body: bytes, token: str = TOKEN) -> httpx.Response:
    return c.post("/api/v1/ingest/boards/7/live", content=body, headers=auth(token))


@sqlite_only  # (the live path's database work, the match and the event's switches, runs on both below)
def test_the_live_state_follows_the_board_to_the_end_of_the_match(server, one_game):
    obs, players, record = one_game
    match_id = _match(server, players)
    t0 = time.time() - obs[-1].t - 1
    final = replay_match(record).games[0]
    cuts, xgids = 0, set()
    with server.client() as c:
        for k in range(0, len(obs), 10):
            r = post(c, _lines(obs[k:k + 10], t0))
            assert r.status_code == 200, r.text
            assert r.json()["accepted"] == len(obs[k:k + 10])
            cuts += r.json()["cut_segment"]
            st = c.get("/api/v1/live/boards/7/state").json()
            if st["position"]:
                xgids.add(st["position"]["xgid"])
        assert post(c, _lines(obs[-10:], t0)).json()["accepted"] == 0  # a post sent again is taken once
        r = c.get("/api/v1/live/boards/7/state")
    assert r.status_code == 200 and r.headers["cache-control"] == "public, max-age=1"
    st = r.json()
    assert st["match"] == {"id": match_id, "event_id": 1, "round": None, "length": 1, "players": list(players)}
    assert st["phase"] == "game_over" and st["match_over"] and st["live"]
    assert st["position"]["checkers"] == [list(final.final.sides[0]), list(final.final.sides[1])]
    assert parse_xgid(st["position"]["xgid"]).position == final.final
    assert st["pips"] == [final.final.pips(0), final.final.pips(1)]
    plays = [a for a in record.games[0].actions]
    assert [(a["player"], a["play"]) for a in st["actions"]] == [(a.player, a.play or "Cannot Move") for a in plays]
    assert st["last_play"]["play"] == (plays[-1].play or "Cannot Move")
    assert st["svg"].startswith("<svg") and "Ann" not in st["svg"].split(">")[0]
    assert cuts == 1  # the agent is told once to close its segment: the match is over
    assert len(xgids) > len(plays) // 2  # the position changed as the game went on


@sqlite_only
def test_the_feed_sends_each_new_state_as_an_event(server, one_game):
    obs, players, _ = one_game
    _match(server, players)
    t0 = time.time() - obs[-1].t - 1
    with server.client() as c, httpx.Client(base_url=server.url, timeout=20) as viewer, \
            viewer.stream("GET", "/api/v1/live/boards/7/feed") as feed:
        assert feed.headers["content-type"].startswith("text/event-stream")
        events = _events(feed)
        first = next(events)
        assert first["event"] == "state" and json.loads(first["data"])["phase"] == "waiting"
        post(c, _lines(obs[:200], t0))
        got = next(events)
        state = json.loads(got["data"])
        assert int(got["id"]) == state["version"] > json.loads(first["data"])["version"]
        assert state["match"]["players"] == list(players)
        hall = c.get("/api/v1/live/hall").json()
        assert [b["board"] for b in hall["boards"]] == [7]


@sqlite_only
@needs_gnubg
def test_the_last_play_is_judged_by_gnubg_once_it_is_made(server, one_game):
    """gnubg's judgement of the play just made joins the state (a new version), and it is the judgement of exactly
    that play from the position the record has before it."""
    obs, players, record = one_game
    _match(server, players)
    t0 = time.time() - obs[-1].t - 1
    game = replay_match(record).games[0]
    judge = PlayJudge(0)
    checked, seen = 0, set()
    try:
        with server.client() as c:
            for k in range(0, len(obs), 10):
                post(c, _lines(obs[k:k + 10], t0))
                st = c.get("/api/v1/live/boards/7/state").json()
                lp = st["last_play"]
                n = len(st["actions"])  # the game's actions so far, the last play last (no cube in this game)
                if lp is None or lp["play"] == "Cannot Move" or n in seen:
                    continue
                a = game.game.actions[n - 1]
                if (a.player, a.play) != (lp["player"], lp["play"]):  # (weighed, not yet the record's play)
                    continue
                seen.add(n)
                mine = judge.judge(game.positions[n - 1], a.player, a.dice, a.play, length=1)
                if mine is None:  # no choice: nothing is shown
                    assert lp["analysis"] is None
                    continue
                deadline = time.time() + 10
                while not st["last_play"]["analysis"] and time.time() < deadline:
                    time.sleep(0.05)
                    st = c.get("/api/v1/live/boards/7/state").json()
                assert len(st["actions"]) == n, "the test posts no more while it waits"
                got = st["last_play"]["analysis"]
                assert got == mine.to_json(), (n, a.play)
                checked += 1
                if checked == 3:
                    break
    finally:
        judge.close()
    assert checked == 3


def _frames(video, n: int) -> list[tuple[float, bytes]]:
    """The first `n` frames of a video as an agent sends them: (seconds into it, JPEG)."""
    import av

    out = []
    with av.open(str(video)) as c:
        for f in c.decode(video=0):
            out.append((float(f.time), jpeg(f.to_ndarray(format="bgr24"))))
            if len(out) == n:
                break
    return out


def post_frames(c: httpx.Client, body: bytes, token: str = TOKEN) -> httpx.Response:
    return c.post("/api/v1/ingest/boards/7/live/frames", content=body, headers=auth(token))


@pytest.fixture(scope="module")
def camera_game(tmp_path_factory):
    """70 s of a generated game rendered clean at 640x360, 5 frames a second (the camera stage's smallest
    working size, not the decoder tests' 320x180): its video, the plays made in it and whether the light player
    is the record's first."""
    from vision.synth.video import render_match

    d = tmp_path_factory.mktemp("camera-game")
    rec = random_match(6, players=("Ann", "Bob"), opts=GenOptions(length=3, double_rate=0.0, resign_rate=0.0))
    render_match(rec, d / "v.mp4", d / "truth.jsonl", profile="clean", seed=4, fps=5, size=(640, 360),
                 progress=False, games=1, until_s=70)
    from vision.synth.truth import read_truth

    events = list(read_truth(d / "truth.jsonl"))
    plays = [e for e in events if e.get("type") == "event" and e.get("kind") == "play" and e["t"] < 66]
    return d / "v.mp4", plays, events[0]["rig"]["seating"]["p0_light"]


@sqlite_only
def test_frames_an_agent_sends_are_observed_by_the_server(server, camera_game):
    """An agent too small to observe sends its frames; the server runs the camera stage on them and the live state
    follows the game as it does from the agent's own observations."""
    video, plays, light_first = camera_game
    _match(server, ("Ann", "Bob"), length=3)
    frames = _frames(video, 5 * 70)
    # (the decoder numbers the light player 0; the rendered record may have dark first)
    want = [((p["player"] if light_first else 1 - p["player"]), p["play"]) for p in plays][:-1]
    cams = server.state.live_cameras
    t0 = time.time() - frames[-1][0] - 1
    with server.client() as c:
        for k in range(0, len(frames), 5):
            r = post_frames(c, frames_body([(t0 + t, j) for t, j in frames[k:k + 5]]))
            assert r.status_code == 200, r.text
            assert r.json()["accepted"] == len(frames[k:k + 5]) and r.json()["dropped"] == 0
            deadline = time.time() + 30  # (the test sends as fast as the server observes: nothing waits to go)
            while (cams.cameras[7].frames or cams.cameras[7].busy) and time.time() < deadline:
                time.sleep(0.01)
        st = c.get("/api/v1/live/boards/7/state").json()
    assert st["live"] and st["match"]["players"] == ["Ann", "Bob"]
    assert len(want) >= 3 and [(a["player"], a["play"]) for a in st["actions"]][:len(want)] == want
    assert cams.cameras[7].observed == len(frames) and cams.cameras[7].unreadable == 0


@sqlite_only
def test_a_server_that_cannot_keep_up_hands_the_board_back_to_its_agent(server, camera_game, monkeypatch):
    """A board whose frames the server drops more than a third of (its cores taken by other boards or by the
    record's jobs) is handed back: the agent is told `take_back`, and a real agent then observes itself."""
    from capture.live_observer import LiveObserver
    from capture.uploader import Client

    monkeypatch.setattr("vision.live_frames.WINDOW_S", 0.3)
    _match(server, ("Ann", "Bob"), length=3)
    frames = _frames(camera_game[0], 60)
    t0 = time.time()
    with server.client() as c:
        r = post_frames(c, frames_body([(t0 + t, j) for t, j in frames[:30]]))  # 30 at once: the newest 10 wait
        assert r.json()["dropped"] == 20 and not r.json()["take_back"]
        time.sleep(0.4)
        r = post_frames(c, frames_body([(t0 + t, j) for t, j in frames[30:60]]))
        assert r.json()["take_back"]
    agent = LiveObserver(Client(server.url, TOKEN, 7), fps=5, where="server")
    agent.start()
    try:
        deadline = time.time() + 10
        k = 0
        while agent.where == "server" and time.time() < deadline:
            agent.offer(time.time() + k, picture(frames[0][1]))
            k += 1
            time.sleep(0.2)
        assert agent.where == "agent" and agent.sent >= 1 and agent.last_error == ""
    finally:
        agent.stop()
        agent.join(5)


def test_bad_frames_are_refused_and_change_nothing(server, one_game_truth):
    _match(server, ("Ann", "Bob"))
    good = _frames(one_game_truth.parent / "v.mp4", 2)
    t = time.time()
    with server.client() as c:
        before = c.get("/api/v1/live/boards/7/state").json()["version"]
        for body, why in [(b"not frames", "frame 1: no header line"),
                          (b'{"t": 1}\n' + good[0][1], "the header is not"),
                          (frames_body([(t, good[0][1])])[:-10], "frame 1: "),
                          (frames_body([(t, b"GIF89a" + good[0][1])]), "frame 1: not a JPEG"),
                          (frames_body([(t, good[0][1]), (t - 1, good[1][1])]), "frame 2: its time is not after")]:
            r = post_frames(c, body)
            assert r.status_code == 422 and why in r.json()["detail"], (why, r.text)
        assert post_frames(c, frames_body([(t, good[0][1])]), token="not-the-board-token-at-all").status_code == 401
        assert c.get("/api/v1/live/boards/7/state").json()["version"] == before
        assert 7 not in server.state.live_cameras.cameras


def _events(resp):
    ev: dict = {}
    for line in resp.iter_lines():
        if line.startswith(":"):
            continue
        if not line:
            if ev:
                yield ev
            ev = {}
            continue
        key, _, value = line.partition(": ")
        ev[key] = value


def test_who_may_look(server, one_game):
    obs, players, _ = one_game
    event_id = 1
    _match(server, players, public=False)
    with server.client() as c:
        assert c.get("/api/v1/live/boards/7/state").status_code == 404  # off by default
        assert c.get("/api/v1/live/boards/7/state?token=guess").status_code == 404
        assert c.get("/live/boards/7/overlay").status_code == 404
        assert c.get("/api/v1/live/hall").json() == {"boards": []}
        assert c.get("/api/v1/live/boards/99/state").status_code == 404
        with server.client() as ann:  # staff may switch nothing, but may look
            h = login(ann, "ann")
            assert ann.put(f"/api/v1/events/{event_id}/live", json={"public": True}, headers=h).status_code == 403
            r = ann.get("/api/v1/live/boards/7/state")
            assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
        with server.client() as dora:
            h = login(dora, "dora")
            token = dora.post(f"/api/v1/events/{event_id}/live/token", headers=h).json()["token"]
            assert c.get(f"/api/v1/live/boards/7/state?token={token}").status_code == 200
            page = c.get(f"/live/boards/7/overlay?token={token}")
            assert page.status_code == 200 and f"feed?token={token}" in page.text
            assert c.get(f"/live/hall?token={token}").status_code == 200
            dora.post(f"/api/v1/events/{event_id}/live/token", headers=h)  # rotated: the old one stops working
            assert c.get(f"/api/v1/live/boards/7/state?token={token}").status_code == 404
            assert dora.put(f"/api/v1/events/{event_id}/live", json={"public": True}, headers=h).json()["public"]
            assert c.get("/api/v1/live/boards/7/state").status_code == 200


def test_bad_observations_are_refused_and_change_nothing(server, one_game):
    obs, players, _ = one_game
    _match(server, players)
    t0 = time.time() - obs[-1].t - 1
    with server.client() as c:
        assert post(c, _lines(obs[:5], t0), token="wrong").status_code == 401
        r = post(c, _lines(obs[:5], t0) + b'{"i": 1, "t": "soon"\n')
        assert r.status_code == 422 and "line 6" in r.json()["detail"]
        assert post(c, b"\xff\xfe").status_code == 422
        before = c.get("/api/v1/live/boards/7/state").json()
        assert before["phase"] == "waiting" and before["match"] is None  # nothing was taken
        assert post(c, _lines(obs[:5], t0)).json()["accepted"] == 5


def test_many_viewers_hold_no_database_connection(server, one_game):
    """A feed lasts as long as its viewer watches: more viewers than the database pool has connections (15) must
    leave the server answering everything else."""
    import contextlib

    obs, players, _ = one_game
    _match(server, players)
    with contextlib.ExitStack() as stack:
        for _ in range(24):
            c = stack.enter_context(httpx.Client(base_url=server.url, timeout=20))
            r = stack.enter_context(c.stream("GET", "/api/v1/live/boards/7/feed"))
            assert r.status_code == 200
            next(r.iter_lines())  # (its first state is on its way)
        with server.client() as c:
            t = time.time()
            assert c.get("/api/v1/live/boards/7/state").status_code == 200
            assert post(c, _lines(obs[:20], time.time() - obs[-1].t)).status_code == 200
            assert time.time() - t < 5


def test_agents_posts_hold_no_database_connection_while_they_are_decoded(server, one_game, monkeypatch):
    """24 boards post their observations twice a second, and on a loaded server each post's decoding takes seconds:
    more posts in flight than the database pool has connections (15) must leave staff answered at once."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    obs, players, _ = one_game
    _match(server, players)
    release, started = threading.Event(), threading.Semaphore(0)

    def slow_observe(board, observations, board_id):
        started.release()
        release.wait(60)
        return {"accepted": len(observations), "version": 0, "cut_segment": False}

    monkeypatch.setattr("review_ui.live_feed.LiveBoard.observe", slow_observe)
    body = _lines(obs[:5], time.time() - obs[-1].t)
    with ThreadPoolExecutor(20) as pool, httpx.Client(base_url=server.url, timeout=60) as c:
        try:
            posts = [pool.submit(post, c, body) for _ in range(20)]
            for _ in range(20):  # every post is being decoded
                assert started.acquire(timeout=30)
            t = time.time()
            with server.client() as staff:
                login(staff, "ann")
                assert staff.get("/api/v1/live/boards").status_code == 200  # (the dashboard)
            assert c.get("/api/v1/live/boards/7/state").status_code == 200
            assert time.time() - t < 5
        finally:
            release.set()
        assert all(p.result().status_code == 200 for p in posts)


@sqlite_only
def test_a_silent_agent_is_shown_not_live(server, one_game, monkeypatch):
    obs, players, _ = one_game
    _match(server, players)
    with server.client() as c:
        post(c, _lines(obs[:50], time.time() - 3600))  # (stamped an hour ago: the agent's clock is not the server's)
        assert c.get("/api/v1/live/boards/7/state").json()["live"]
        monkeypatch.setattr("review_ui.live_feed.LIVE_S", 0.5)
        time.sleep(1.0)
        st = c.get("/api/v1/live/boards/7/state").json()
        assert not st["live"] and st["match"] is not None
        post(c, _lines(obs[50:60], time.time() - 3600))
        assert c.get("/api/v1/live/boards/7/state").json()["live"]


@sqlite_only
def test_the_state_says_where_the_transcript_differs(server, one_game, monkeypatch):
    """Once the match has its transcript, each state compares itself with it: the feed is never silently other than
    the record."""
    from review_ui.api.review import load_transcript
    from review_ui.models import Match
    from review_ui.transcripts import doc_from_report
    from transcriber.transcribe import decode_match

    monkeypatch.setattr("review_ui.live_feed.MATCH_CHECK_S", 0.0)  # (the match and its record looked up each post)
    obs, players, _ = one_game
    match_id = _match(server, players)
    _, report = decode_match(obs, players, 1, "bmab")
    t0 = time.time() - obs[-1].t - 1
    with server.client() as c:
        for k in range(0, len(obs), 500):
            assert post(c, _lines(obs[k:k + 500], t0)).status_code == 200
        assert c.get("/api/v1/live/boards/7/state").json()["record"] is None  # no transcript yet
        with server.state.db.session() as s:
            load_transcript(s, s.get(Match, match_id), doc_from_report(report), report, None)
            s.commit()
        assert post(c, _lines(obs[-1:], t0 + 1)).status_code == 200
        st = c.get("/api/v1/live/boards/7/state").json()
        assert st["record"] == {"version": 1, "status": "needs_review", "agrees": True, "differs_at": None}
        # staff change the third play in review: the live view now differs from the record there
        with server.state.db.session() as s:
            from review_ui.review_models import Transcript

            t = s.query(Transcript).one()
            doc = json.loads(t.doc_json)
            [a for a in doc["games"][0]["actions"] if a["kind"] == "move"][2]["play"] = "24/1"  # (only compared)
            t.doc_json, t.version = json.dumps(doc), 2
            s.commit()
        assert post(c, _lines(obs[-1:], t0 + 2)).status_code == 200
        st = c.get("/api/v1/live/boards/7/state").json()
        assert st["record"]["agrees"] is False and st["record"]["differs_at"] == {"game": 1, "move": 3}


def test_the_director_switches_live_viewing_on_the_event_page(server, one_game):
    import re

    obs, players, _ = one_game
    _match(server, players, public=False)
    with server.client() as dora, server.client() as stranger:
        csrf = {"csrf_token": login(dora, "dora")["X-CSRF-Token"]}
        page = dora.get("/events/1")
        assert "staff only (off)" in page.text and 'id="live-public"' in page.text
        r = dora.post("/events/1/live/token", data=csrf)
        assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
        link = re.search(r"<code>(http://[^<]+/live/hall\?token=[^<]+)</code>", r.text).group(1)
        token = link.split("token=")[1]
        assert stranger.get(f"/api/v1/live/boards/7/state?token={token}").status_code == 200
        assert "to holders of the viewer link" in dora.get("/events/1").text
        assert dora.post("/events/1/live/token", data={**csrf, "revoke": "1"}).status_code == 303
        assert stranger.get(f"/api/v1/live/boards/7/state?token={token}").status_code == 404
        assert dora.post("/events/1/live", data={**csrf, "public": "1"}).status_code == 303
        assert stranger.get("/api/v1/live/boards/7/state").status_code == 200
        assert dora.post("/events/1/live", data={"public": "1"}).status_code == 403  # (no CSRF token)
        with server.client() as ann:
            login(ann, "ann")
            assert 'id="live-public"' not in ann.get("/events/1").text  # staff see, directors switch


def test_the_viewer_token_is_kept_out_of_the_access_log(server):
    import logging

    record = logging.LogRecord("uvicorn.access", logging.INFO, "", 0, '%s - "%s %s HTTP/%s" %d',
                               ("127.0.0.1:5", "GET", "/live/boards/7/overlay?token=s3cret&x=1", "1.1", 200), None)
    for f in logging.getLogger("uvicorn.access").filters:  # (the server installed its filter)
        f.filter(record)
    assert "s3cret" not in record.getMessage() and "token=REDACTED&x=1" in record.getMessage()


@sqlite_only
def test_observations_the_decoder_cannot_use_do_not_stop_the_board(server, one_game, caplog):
    """Well-formed lines that break the live decoder (a read of 3 slots, not 27): the post is still taken (refused,
    the agent would send it again for ever), the decoder starts afresh, and the board goes on being followed."""
    obs, players, _ = one_game
    _match(server, players)
    t0 = time.time() - obs[-1].t - 1
    with server.client() as c:
        assert post(c, _lines(obs[:100], t0)).status_code == 200
        odd = json.loads(next(o for o in obs[100:] if o.slots is not None).to_json())
        odd["t"], odd["slots"] = round(t0 + odd["t"], 3), odd["slots"][:3]
        r = post(c, (json.dumps(odd) + "\n").encode())
        assert r.status_code == 200, r.text
        assert "live decoding failed; starting it afresh" in caplog.text
        for k in range(100, len(obs), 50):
            assert post(c, _lines(obs[k:k + 50], t0)).status_code == 200
        st = c.get("/api/v1/live/boards/7/state").json()
    assert st["phase"] == "game_over" and len(st["actions"]) > 5
