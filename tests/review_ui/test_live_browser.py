"""The live pages in a real browser: Debian's chromium (Playwright) watching board 7's stream overlay and the hall
while the board's live observations arrive at the real server (uvicorn on 127.0.0.1), posted as its agent posts
them. The positions must change on both pages as the game goes on, and end where the game ends. Screenshots go to
test-artifacts/ (or $BGSCRIBE_ARTIFACTS)."""

from __future__ import annotations

import threading
import time

import httpx

from tests.pg_server import sqlite_only
from tournament.pr import find_gnubg
from transcriber.ids import parse_xgid
from transcriber.replay import replay_match

from .test_live_feed import _lines, _match, one_game, one_game_truth, post, server  # noqa: F401 - fixtures
from .test_review_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, playwright_api, pytestmark  # noqa: F401


def _feed_slowly(srv, obs, stop: threading.Event, seconds: float) -> None:
    """Post the game's observations in order over about `seconds`, as an agent would (every half second)."""
    t0 = time.time() - obs[-1].t - 1
    chunk = max(1, len(obs) // int(seconds / 0.25))
    with httpx.Client(base_url=srv.url, timeout=20) as c:
        for k in range(0, len(obs), chunk):
            if stop.is_set():
                return
            post(c, _lines(obs[k:k + chunk], t0))
            time.sleep(0.25)


@sqlite_only
def test_overlay_and_hall_follow_the_board(server, one_game):  # noqa: F811
    obs, players, record = one_game
    _match(server, players, public=False)
    with server.client() as c:  # the director hands out the viewer link
        from .review_helpers import login

        h = login(c, "dora")
        token = c.post("/api/v1/events/1/live/token", headers=h).json()["token"]
    final = replay_match(record).games[0].final
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    stop = threading.Event()
    feeder = threading.Thread(target=_feed_slowly, args=(server, obs, stop, 20.0), daemon=True)
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            errors: list[str] = []
            overlay = browser.new_page(viewport={"width": 1920, "height": 1080})
            overlay.on("pageerror", lambda e: errors.append(str(e)))
            overlay.goto(f"{server.url}/live/boards/7/overlay?token={token}")
            hall = browser.new_page(viewport={"width": 1400, "height": 900})
            hall.on("pageerror", lambda e: errors.append(str(e)))
            hall.goto(f"{server.url}/live/hall?token={token}")
            overlay.wait_for_function("document.getElementById('board').dataset.version !== undefined",
                                      timeout=15_000)
            assert hall.locator(".empty").is_visible()  # nothing in progress until the board is heard from
            feeder.start()
            seen_overlay, seen_hall, judged = set(), set(), set()
            deadline = time.time() + 90
            while time.time() < deadline:
                x = overlay.evaluate("document.getElementById('board').dataset.xgid || ''")
                y = hall.evaluate("(document.querySelector('.card[data-board=\"7\"]') || {dataset: {}}).dataset.xgid"
                                  " || ''")
                seen_overlay.add(x)
                seen_hall.add(y)
                judged.add(overlay.evaluate("(document.querySelector('#board .analysis:not([hidden])') || {})"
                                            ".textContent || ''"))
                if not feeder.is_alive() and x and parse_xgid(x).position == final and y == x:
                    break
                if len(seen_overlay) == 6:
                    overlay.screenshot(path=str(ARTIFACTS / "live-overlay.png"))
                    hall.screenshot(path=str(ARTIFACTS / "live-hall.png"))
                time.sleep(0.2)
            assert parse_xgid(x).position == final and y == x  # both pages end on the game's last position
            assert len(seen_overlay - {""}) >= 5 and len(seen_hall - {""}) >= 5  # and moved as it was played
            if find_gnubg() is not None:  # the plays just made, judged by gnubg on the overlay
                assert any(t.endswith("gnubg 0-ply") and "equity" in t for t in judged), judged
            names = overlay.locator(".scoreline .name").all_inner_texts()
            assert names == list(players)
            assert overlay.evaluate("getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"
            assert overlay.locator(".svg svg").count() == 1 and hall.locator(".card .svg svg").count() == 1
            assert "game over" in overlay.locator(".phase").inner_text() or \
                "match over" in overlay.locator(".phase").inner_text()
            assert errors == [], f"JavaScript errors: {errors}"
        finally:
            stop.set()
            browser.close()
