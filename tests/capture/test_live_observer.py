"""The agent's live observer, end to end: `bgscribe capture --live-fps 5` replays a rendered game as the board's
camera into a real server (`bgscribe serve`, SQLite, on 127.0.0.1), at twice real pace (the frames keep the footage's
stamps); while it records and uploads its segments it observes the frames itself and posts them, and the server's
live state of the board follows the game."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta

import httpx
import numpy as np
import pytest

from capture.live_observer import LiveObserver
from transcriber.generate import GenOptions, random_match
from vision.live_frames import WINDOW_S
from vision.synth.truth import read_truth
from vision.synth.video import render_match

from .helpers import Server, agent, wait_for

TOKEN = "board-5-secret-token"
SECONDS = 30.0


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    d = tmp_path_factory.mktemp("live-game")
    rec = random_match(6, players=("Ann", "Bob"), opts=GenOptions(length=3, double_rate=0.0, resign_rate=0.0))
    render_match(rec, d / "v.mp4", d / "truth.jsonl", profile="clean", seed=4, fps=10, size=(640, 360),
                 progress=False, games=1, until_s=SECONDS)
    plays = [e for e in map(json.loads, (d / "truth.jsonl").read_text().splitlines())
             if e.get("type") == "event" and e.get("kind") == "play" and e["t"] < SECONDS - 4]
    return d / "v.mp4", plays, next(read_truth(d / "truth.jsonl"))


@pytest.mark.parametrize("where", ["agent", "server"])
def test_the_agent_observes_as_it_records_and_the_server_follows(tmp_path, game, where):
    """`where`: the agent observes its frames itself, or sends them for the server to observe."""
    video, plays, header = game
    server = Server(tmp_path / "server", boards={5: TOKEN}).start()
    try:
        # the board's match, started just now; its viewing made public (the director's switch)
        with sqlite3.connect(server.data / "bgscribe.db") as db:
            db.execute("update events set live_public = 1")
        started = (datetime.now(UTC) - timedelta(seconds=2)).replace(tzinfo=None).isoformat()
        event_id = server.staff("GET", "/api/v1/events").json()[0]["id"]
        server.staff("POST", "/api/v1/matches", json={"event_id": event_id, "board": 5, "player1": "Ann",
                                                      "player2": "Bob", "started_at": started})
        a = agent(5, str(video), tmp_path, "--server", server.url, "--spool", str(tmp_path / "spool"),
                  "--segment-seconds", "15", "--heartbeat", "1", "--live-fps", "5", "--replay-speed", "2",
                  "--camera-check", "0", "--live-where", where, env={"BGSCRIBE_TOKEN": TOKEN})
        seen = []

        def shown() -> bool:
            st = httpx.get(f"{server.url}/api/v1/live/boards/5/state", timeout=5).json()
            seen.append(st)
            return sum(x["kind"] == "move" for x in st["actions"]) >= len(plays) - 1

        wait_for(shown, SECONDS / 2 + 40, "the live state to show the game's plays", every=0.5)
        assert a.wait(SECONDS + 30) == 0, a.text()[-3000:]
        st = seen[-1]
        assert st["live"] and st["match"]["players"] == ["Ann", "Bob"]
        light_first = header["rig"]["seating"]["p0_light"]
        # (the decoder numbers the light player 0; the rendered record may have dark first)
        truth = [((p["player"] if light_first else 1 - p["player"]), p["play"]) for p in plays]
        got = [(x["player"], x["play"]) for x in st["actions"] if x["kind"] == "move"]
        assert got[:len(truth) - 1] == truth[:len(got)][:len(truth) - 1]
        # it moved before the game's end: on a loaded machine the observer falls behind and posts in bursts, so
        # the state may jump over several plays at once, but it never shows only the finished game
        assert len({s["position"]["xgid"] for s in seen if s["position"]}) >= 2
        # the record is untouched: every segment arrived as usual
        rows = server.segments()
        assert len(rows) >= 2 and sum(r["frames"] for r in rows) >= int(SECONDS * 10) - 20
        assert "live observer" not in a.text() or "not posted" not in a.text()
    finally:
        server.stop()


def test_auto_hands_observing_to_the_server_when_this_machine_falls_behind():
    frame = np.zeros((36, 64, 3), np.uint8)
    slow = LiveObserver(None, fps=5, where="auto")  # (not started: it observes nothing, so most frames are dropped)
    for k in range(40):
        slow.offer(k / 5, frame)
    assert slow.dropped == 40 - slow.frames.maxsize
    slow._judge_keeping_up()
    assert slow.where == "agent"  # (not before its window of 20 s has passed)
    slow.pace.window = (slow.pace.window[0] - WINDOW_S, 0, 0)
    slow._judge_keeping_up()
    assert slow.where == "server" and slow.report()["where"] == "server"
    # told to observe here, it never hands over; keeping up, it does not either
    for where, taken in (("agent", False), ("auto", True)):
        lo = LiveObserver(None, fps=5, where=where)
        for k in range(40):
            lo.offer(k / 5, frame)
            if taken:
                lo.frames.get_nowait()
        lo.pace.window = (lo.pace.window[0] - WINDOW_S, 0, 0)
        lo._judge_keeping_up()
        assert lo.where == "agent", where
    with pytest.raises(ValueError, match="where must be one of"):
        LiveObserver(None, where="cloud")


def test_the_agent_takes_the_dice_size_the_record_learnt(tmp_path):
    """While its observer still learns the board's dice, the agent asks the server again (every
    `vision.observe.ADOPT_EVERY_S`, from its posting thread) for what the record learnt, and the observer takes the
    dice size (`Observer.adopt`): learning them afresh reads every die at every rung of the size ladder, twice the
    cost of a frame for most of a game."""
    from capture.uploader import Client
    from review_ui.pipeline import board_state_path
    from vision.dicesize import LADDER, SETTLED_DICE
    from vision.observe import ADOPT_EVERY_S

    server = Server(tmp_path / "server", boards={5: TOKEN}).start()
    try:
        lo = LiveObserver(Client(server.url, TOKEN, 5), fps=5)
        frame = np.zeros((360, 640, 3), np.uint8)
        lo._observe(0, 0.0, frame)  # (nothing learnt on the server yet)
        assert lo._observer.dice_size.learning and lo._observer.dice_size.seen == 0
        # the record's observe job of a segment wrote what it learnt: dice at 0.64 of the default's crop, settled
        learnt = {"sums": {str(k): (0.9 if k == 0.64 else 0.5) * SETTLED_DICE for k in LADDER}, "seen": SETTLED_DICE}
        path = board_state_path(server.data, 5)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"dice_size": learnt}))
        lo._ask()  # (the posting thread's) asked a moment ago: not again yet
        lo._observe(1, 0.2, frame)
        assert lo._observer.dice_size.seen == 0
        lo._asked -= ADOPT_EVERY_S
        lo._ask()
        lo._observe(2, 0.4, frame)
        assert lo._observer.dice_size.scale == 0.64 and not lo._observer.dice_size.learning
    finally:
        server.stop()


def test_a_server_that_does_not_answer_never_holds_observing_up():
    """Posts wait up to the client's timeout on a server that takes the connection and never answers (a real
    socket); they go from a thread of their own, so the observer keeps taking the camera's frames meanwhile (the
    24-board live bench's agents observed well under a frame a second while their posts timed out, 2026-12-05)."""
    import socket
    import time

    from capture.uploader import Client

    mute = socket.socket()
    mute.bind(("127.0.0.1", 0))
    mute.listen(16)
    try:
        lo = LiveObserver(Client(f"http://127.0.0.1:{mute.getsockname()[1]}", TOKEN, 5, timeout=1.0), fps=10)
        lo.start()
        frame = np.zeros((36, 64, 3), np.uint8)  # (a black frame: observed at once, as no board)
        t0 = time.monotonic()
        for k in range(40):
            lo.offer(k / 10, frame)
            time.sleep(max(0.0, t0 + (k + 1) / 10 - time.monotonic()))
        time.sleep(0.3)
        lo.stop()
        # the first frame waits for the board's set-up (1 s); after it, every frame is observed
        assert lo.observed >= 40 - 12 and lo.dropped <= 10, lo.report()
        assert lo.posted == 0 and lo.last_error.startswith("not posted")
    finally:
        mute.close()
