"""The review page in a real browser: Debian's chromium driven by Playwright against a real server
(`bgscribe serve` on 127.0.0.1, real SQLite). Logs in, opens a match with flags, fixes the misread one by
picking an alternative with the keyboard, clears the rest, approves, downloads the .mat, checks that it
validates and that GNU Backgammon imports it. Real footage is uploaded through the ingest API (segments
recorded by capture's own recorder) with a heartbeat and preview still: the dashboard shows the board live and
the review page the camera frame beside the boards. Screenshots go to test-artifacts/ (or $BGSCRIBE_ARTIFACTS;
CI keeps them)."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from review_ui.api.review import load_transcript
from review_ui.auth import create_user
from review_ui.db import Database
from review_ui.services import create_event, create_match, register_board
from review_ui.transcripts import doc_from_report
from transcriber.gnubg import find_gnubg, gnubg_reimport
from transcriber.mat import parse_mat
from transcriber.replay import replay_match

from .footage_helpers import write_segment
from .review_helpers import MAT, MISREAD, PASSWORD, REPORT
from .test_ingest import upload as ingest_upload

CHROMIUM = os.environ.get("BGSCRIBE_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(os.environ.get("BGSCRIBE_ARTIFACTS") or Path(__file__).resolve().parents[2] / "test-artifacts")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

playwright_api = pytest.importorskip("playwright.sync_api",
                                     reason="playwright is not installed (pip install -e '.[dev]')")
pytestmark = [
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason=f"chromium not found at {CHROMIUM} (apt-get install chromium)"),
    pytest.mark.skipif(find_gnubg() is None, reason="GNU Backgammon is not installed (apt-get install gnubg)"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    data = tmp_path / "data"
    db = Database(f"sqlite:///{(data / 'bgscribe.db').resolve()}")
    with db.session() as s:
        ev = create_event(s, "EPC Leg 3")
        board = register_board(s, 7, "board-7-token-secret", ev)
        m = create_match(s, ev, board, datetime(2026, 11, 29, 10), ended_at=datetime(2026, 11, 29, 11))
        create_user(s, "ann", PASSWORD, "staff")
        report = json.loads(REPORT.read_text())
        load_transcript(s, m, doc_from_report(report, MAT.read_text()), report, None)
        s.commit()
        match_id = m.id
    db.dispose()
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "bgscribe", "serve", "--data", str(data), "--port", str(port),
                             "--purge-interval", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                if httpx.get(base + "/api/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None:
                pytest.fail(f"the server exited: {proc.stdout.read()}")
            time.sleep(0.1)
        else:
            pytest.fail("the server did not start within 20 s")
        _footage(base, tmp_path)
        yield base, match_id
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _footage(base: str, tmp_path: Path) -> None:
    """Board 7's agent, as far as the server can tell: two real segments (the match's first seconds, and the
    seconds around the misread action at 982.6 s), then a heartbeat with a preview still."""
    import base64

    import cv2
    import numpy as np

    with httpx.Client(base_url=base, timeout=30) as c:
        for k, start in enumerate((datetime(2026, 11, 29, 10), datetime(2026, 11, 29, 10, 16, 20))):
            manifest, path = write_segment(tmp_path / f"seg{k}", 7, start, seg=k, size=(640, 360))
            r = ingest_upload(c, manifest, path.read_bytes(), token="board-7-token-secret")
            assert r.status_code == 200, r.text
        still = np.zeros((180, 320, 3), np.uint8)
        still[:, :, 1] = 120
        cv2.putText(still, "board 7", (60, 100), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (255, 255, 255), 3)
        jpeg = cv2.imencode(".jpg", still)[1].tobytes()
        r = c.post("/api/v1/ingest/boards/7/heartbeat", headers={"Authorization": "Bearer board-7-token-secret"},
                   json={"state": "recording", "fps": 10, "preview_jpeg": base64.b64encode(jpeg).decode()})
        assert r.status_code == 200, r.text


def _image_loaded(page, selector: str) -> None:
    page.wait_for_function("s => { const i = document.querySelector(s); return i && i.complete && i.naturalWidth > 0 }",
                           arg=selector, timeout=20_000)


@pytest.fixture
def page():
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        pg = context.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        yield pg
        browser.close()
        assert errors == [], f"JavaScript errors: {errors}"


def test_review_fix_approve_download(server, page, tmp_path):
    base, match_id = server
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.goto(f"{base}/")
    assert "/login" in page.url  # not logged in: the login form
    page.fill("input[name=username]", "ann")
    page.fill("input[name=password]", "wrong password")
    page.click("button[type=submit]")
    assert page.get_by_role("alert").inner_text().startswith("Wrong username or password")
    page.fill("input[name=username]", "ann")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("table.matches")
    assert "needs review" in page.inner_text("table.matches")
    card = page.locator('article.board-card[data-board="7"]')
    assert "online" in card.inner_text() and "32 flags" in card.inner_text()
    _image_loaded(page, 'article.board-card[data-board="7"] img.preview')
    page.screenshot(path=str(ARTIFACTS / "dashboard.png"), full_page=True)
    with page.expect_response(lambda r: r.url.endswith("/dashboard/live")):  # the auto-refresh
        pass
    assert page.locator("article.board-card").count() == 1

    page.click("a.review-link")
    page.wait_for_selector("#review")
    assert page.inner_text("#flags-left") == "32"
    g, a = MISREAD
    page.click(f'nav.moves a[href="?g={g}&a={a}"]')
    page.wait_for_url(re.compile(rf"g={g}&a={a}$"))
    page.wait_for_selector("svg.board")
    assert page.locator("svg.board").count() == 2
    assert page.inner_text("ol.alts li:first-child button").endswith("12: 2/off 1/off")
    _image_loaded(page, "img#frame")  # the camera frame at 982.6 s, decoded from the stored segment
    assert page.locator("#frame").get_attribute("src").endswith("/frame.jpg?t=982.6")
    assert page.locator("video#clip").count() == 1
    page.screenshot(path=str(ARTIFACTS / "review.png"), full_page=True)
    page.click("button.step[data-step='1']")  # a second later
    page.wait_for_function("() => document.getElementById('frame').src.endsWith('t=983.6')")
    _image_loaded(page, "img#frame")

    # The keys: n and p move between flags, 1 picks an alternative, u undoes it.
    here = page.url
    with page.expect_navigation():
        page.keyboard.press("n")
    assert page.url != here
    with page.expect_navigation():
        page.keyboard.press("p")
    assert page.url == here
    with page.expect_navigation():
        page.keyboard.press("1")
    assert int(page.inner_text("#flags-left")) == 31
    with page.expect_navigation():
        page.keyboard.press("u")
    assert int(page.inner_text("#flags-left")) == 32
    with page.expect_navigation():
        page.keyboard.press("p")  # back to the misread action, open again
    assert page.url.endswith(f"g={g}&a={a}")
    # An action with no footage at its time: the placeholder says why.
    page.goto(f"{base}/matches/{match_id}?g=1&a=5")
    assert "No camera frame: no footage at 0:41.6 into the match" in page.inner_text("#frame-missing")
    page.screenshot(path=str(ARTIFACTS / "review-no-footage.png"), full_page=True)
    page.goto(f"{base}/matches/{match_id}?g={g}&a={a}")

    with page.expect_navigation():
        page.keyboard.press("1")  # one key: pick the first alternative, and on to the next open flag
    row = page.locator("nav.moves tr", has=page.locator(f'a[href="?g={g}&a={a}"]'))
    assert "12: 2/off 1/off" in row.inner_text()
    left = int(page.inner_text("#flags-left"))
    assert left < 32
    keys, actions = 1, 1
    while left:  # the rest were read right: accept each (one key per flagged action)
        with page.expect_navigation():
            page.keyboard.press("a")
        keys += 1
        actions += 1
        now = int(page.inner_text("#flags-left"))
        assert now < left
        left = now
        if left == 1:
            assert "1 flag left" in page.inner_text("section.summary")
    (ARTIFACTS / "review_keys.json").write_text(json.dumps(
        {"flags": 32, "flagged_actions": actions, "keys": keys, "keys_per_flagged_action": keys / actions,
         "clicks": 0}) + "\n")
    page.screenshot(path=str(ARTIFACTS / "review-cleared.png"), full_page=True)
    with page.expect_navigation():
        page.click("#approve")
    assert page.inner_text("#status") == "approved"
    assert page.locator("#reopen").count() == 0  # a director's button; ann is staff
    assert page.locator("#submitted").is_visible()

    with page.expect_download() as dl:
        page.click("#download")
    path = tmp_path / "approved.mat"
    dl.value.save_as(path)
    rec = parse_mat(path.read_text())
    assert replay_match(rec).problems == []
    assert rec.games[g - 1].actions[a - 1].dice == (1, 2)
    back = gnubg_reimport(path)
    assert [len(x.actions) for x in back.games] == [len(x.actions) for x in rec.games]
    assert back.games[g - 1].actions[a - 1].dice == (1, 2)
    shutil.copyfile(path, ARTIFACTS / "approved.mat")
    with page.expect_navigation():
        page.click("#submitted")  # sent to BMAB: the page says so
    assert page.inner_text("#status") == "submitted" and "submitted" in page.inner_text("#submitted-at")


def _login(page, base: str) -> None:
    page.goto(f"{base}/login")
    page.fill("input[name=username]", "ann")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("table.matches")


def test_a_guessed_roll_is_accepted_as_a_guess(server, page):
    """Dice the camera could not tell (dice_unclear): the page says the roll is a guess, offers the other rolls
    that leave the board as it was seen, and "a" records the action as taken on trust."""
    base, match_id = server
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    _login(page, base)
    page.goto(f"{base}/matches/{match_id}?g=2&a=40")  # read 42: bar/21, the dice unclear (perhaps 32)
    assert "(a guess: the dice could not be read for sure)" in page.inner_text("section.action h2")
    assert page.inner_text("#accept") == "a Accept the guess (dice unclear)"
    labels = page.locator("ol.alts li").all_inner_texts()
    assert any("54: bar/21" in x and "another roll that leaves this board" in x for x in labels), labels
    assert not any(x.strip().endswith("decoder") for x in labels)  # no unexplained word
    page.screenshot(path=str(ARTIFACTS / "review-guess.png"), full_page=True)
    with page.expect_navigation():
        page.keyboard.press("a")
    row = page.locator("nav.moves tr", has=page.locator('a[href="?g=2&a=40"]'))
    assert "on trust" in row.inner_text()
    page.goto(f"{base}/matches/{match_id}?g=2&a=40")
    assert page.inner_text("#basis") == "Taken on trust (dice unclear)."
    page.screenshot(path=str(ARTIFACTS / "review-guess-trusted.png"), full_page=True)


def test_the_desk_answers_with_pages_and_names_things(server, page):
    """A wrong address gets a page, every page has an icon (no failed request), the event page lists the
    players of its matches and links the matches."""
    base, match_id = server
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    failed: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    _login(page, base)
    assert page.evaluate("fetch('/favicon.ico').then(r => r.status)") == 200
    r = page.goto(f"{base}/no/such/page")
    assert r.status == 404 and r.headers["content-type"].startswith("text/html")
    assert page.inner_text("#error h1") == "Not found"
    assert "There is no page at /no/such/page." in page.inner_text("#error")
    page.screenshot(path=str(ARTIFACTS / "not-found.png"), full_page=True)
    failed.remove(f"404 {base}/no/such/page")
    page.goto(f"{base}/events/1")
    assert page.inner_text("#players h2") == "Players (2)" and "Alice, Bob" in page.inner_text("#players")
    link = page.locator(f'#matches a[href="/matches/{match_id}"]')
    assert link.count() == 1
    page.screenshot(path=str(ARTIFACTS / "event.png"), full_page=True)
    with page.expect_navigation():
        link.click()
    page.wait_for_selector("#review")
    assert failed == [], failed  # the favicon included
