"""The board's field page in a real browser (Debian's chromium, Playwright, `bgscribe serve` on 127.0.0.1):
a person clicks the four corners of the playing field on the camera's picture and saves them; the
dashboard's card then draws them. Screenshots go to test-artifacts/ (see test_review_browser.py)."""

from __future__ import annotations

import numpy as np

from .review_helpers import PASSWORD
from .test_review_browser import ARTIFACTS, _image_loaded, page, pytestmark, server  # noqa: F401 (fixtures, skips)

CORNERS = [(0.15, 0.2), (0.85, 0.18), (0.88, 0.82), (0.12, 0.8)]


def test_click_the_four_corners_and_save(server, page):  # noqa: F811 - the fixtures
    base, _ = server
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.goto(f"{base}/boards/7/field")
    page.fill("input[name=username]", "ann")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("#field-pic")
    _image_loaded(page, "img#field-picture")
    assert page.is_disabled("#field-save")
    box = page.locator("img#field-picture").bounding_box()
    for k, (x, y) in enumerate(CORNERS):
        page.mouse.click(box["x"] + x * box["width"], box["y"] + y * box["height"])
        assert page.inner_text("#field-clicks") == f"{k + 1} of 4 corners clicked."
    assert page.locator("#field-overlay polygon.clicked").count() == 1
    page.screenshot(path=str(ARTIFACTS / "field-clicked.png"), full_page=True)
    with page.expect_navigation():
        page.click("#field-save")
    assert "Corners saved" in page.inner_text("main") and "Corners confirmed by ann" in page.inner_text("main")
    _image_loaded(page, "img#field-picture")
    page.wait_for_selector("#field-overlay polygon.confirmed", state="attached")
    pts = page.get_attribute("#field-overlay polygon.confirmed", "points")
    w, h = page.evaluate("() => [document.getElementById('field-picture').naturalWidth,"
                         " document.getElementById('field-picture').naturalHeight]")
    got = np.array([[float(v) for v in p.split(",")] for p in pts.split()]) / [w, h]
    assert np.abs(got - np.array(CORNERS)).max() < 0.01, got
    page.screenshot(path=str(ARTIFACTS / "field-saved.png"), full_page=True)
    page.goto(f"{base}/")
    card = page.locator('article.board-card[data-board="7"]')
    assert "corners confirmed by ann" in card.inner_text()
    assert card.locator("svg polygon").count() == 1
