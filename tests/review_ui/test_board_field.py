"""A board's playing field confirmed by the staff: the staff API, the board's field page, the dashboard card,
and the pipeline observing the board's footage through the corners (real app, real SQLite, real H.264)."""

from __future__ import annotations

import base64
import json
import re

import cv2
import numpy as np
import pytest

from review_ui.models import Board
from review_ui.pipeline import Pipeline, board_state_path
from review_ui.review_models import AuditLog
from tests.vision.test_fieldfind import rendered
from transcriber.observation import FrameObservation

from ..capture.helpers import needs_ffmpeg
from .conftest import STAFF, auth
from .review_helpers import add_users, login
from .test_pipeline import START, _upload

FIELD = "/api/v1/boards/7/field"


@pytest.fixture(scope="module")
def board_picture():
    """A rendered board (held-out looks) as a 1280x720 camera frame, and its field's corners as shares."""
    frame, truth, _, _ = rendered(1)
    h, w = frame.shape[:2]
    return frame, truth / [w, h]


def _csrf(html: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


def test_staff_api_sets_checks_and_clears_a_field(client):
    square = [[0.2, 0.2], [0.8, 0.2], [0.8, 0.8], [0.2, 0.8]]
    assert client.put(FIELD, json={"corners": square}).status_code == 401
    assert client.get(FIELD, headers=STAFF).json()["field"] is None
    bad = {"three corners": square[:3], "off the picture": [[0.2, 0.2], [1.3, 0.2], [0.8, 0.8], [0.2, 0.8]],
           "crossed": [square[0], square[2], square[1], square[3]],
           "too small": [[0.5, 0.5], [0.55, 0.5], [0.55, 0.55], [0.5, 0.55]]}
    for what, corners in bad.items():
        r = client.put(FIELD, json={"corners": corners}, headers=STAFF)
        assert r.status_code == 422, what
        assert "Traceback" not in r.text and r.json()["detail"], what
    assert client.get(FIELD, headers=STAFF).json()["field"] is None  # nothing kept from the bad tries
    r = client.put(FIELD, json={"corners": square}, headers=STAFF)
    assert r.status_code == 200 and r.json()["field"]["corners"] == square
    assert client.get(FIELD, headers=STAFF).json()["field"]["by"] == "staff token"
    assert client.put("/api/v1/boards/99/field", json={"corners": square}, headers=STAFF).status_code == 404
    assert client.delete(FIELD, headers=STAFF).json()["field"] is None
    with client.app_state.db.session() as s:
        actions = [a.action for a in s.query(AuditLog).order_by(AuditLog.id)]
    assert actions == ["set_board_field", "clear_board_field"]


def test_field_page_shows_the_found_outline_and_keeps_clicked_corners(client, board_picture):
    frame, truth = board_picture
    add_users(client.app_state)
    login(client, "ann")
    still = cv2.resize(frame, (640, 360), interpolation=cv2.INTER_AREA)  # a preview still (no footage yet)
    jpeg = base64.b64encode(cv2.imencode(".jpg", still)[1].tobytes()).decode()
    r = client.post("/api/v1/ingest/boards/7/heartbeat", json={"state": "recording", "preview_jpeg": jpeg},
                    headers=auth())
    assert r.status_code == 200, r.text
    page = client.get("/boards/7/field")
    assert page.status_code == 200 and "No corners confirmed" in page.text
    assert "latest preview still" in page.text
    assert client.get("/boards/7/field/picture.jpg").headers["content-type"] == "image/jpeg"
    # the camera stage's outline is offered for confirmation
    found = json.loads(re.search(r'data-found="([^"]*)"', page.text).group(1).replace("&#34;", '"'))
    assert found is not None and "Confirm the found outline" in page.text
    assert np.abs(np.array(found) - truth).max() < 0.05
    # no clicks: said so, nothing kept; clicked corners: kept, audited with the person's name, on the card
    r = client.post("/boards/7/field", data={"csrf_token": _csrf(page.text), "corners": ""})
    assert r.status_code == 422 and "click the four corners" in r.text
    r = client.post("/boards/7/field", data={"csrf_token": _csrf(page.text), "corners": json.dumps(truth.tolist())},
                    follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/boards/7/field?saved=set"
    page = client.get("/boards/7/field?saved=set")
    assert "Corners saved" in page.text and "Corners confirmed by ann" in page.text
    card = client.get("/dashboard/live").text
    assert "corners confirmed by ann" in card and "<polygon points=" in card
    boards = {b["number"]: b for b in client.get("/api/v1/live/boards").json()}
    assert np.allclose(boards[7]["field"]["corners"], truth, atol=1e-4) and boards[8]["field"] is None
    # without the CSRF token the change is refused
    assert client.post("/boards/7/field", data={"action": "clear"}).status_code == 403
    r = client.post("/boards/7/field", data={"csrf_token": _csrf(page.text), "action": "clear"})
    assert r.status_code == 200 and "Corners cleared" in r.text
    with client.app_state.db.session() as s:
        assert s.query(Board).filter_by(number=7).one().field_json is None
        who = [(a.action, a.username) for a in s.query(AuditLog).filter(AuditLog.action.like("%board_field"))]
    assert who == [("set_board_field", "ann"), ("clear_board_field", "ann")]


def test_field_page_without_a_picture_says_so(client):
    add_users(client.app_state)
    login(client, "ann")
    page = client.get("/boards/8/field")
    assert page.status_code == 200 and "has sent no picture yet" in page.text
    assert client.get("/boards/8/field/picture.jpg").status_code == 404
    assert client.get("/boards/99/field").status_code == 404


@needs_ffmpeg
def test_pipeline_observes_the_board_through_the_confirmed_corners(client, board_picture, tmp_path):
    """Corners set on the server (shares of the picture) reach `bgscribe observe` in the segment's pixels:
    every frame is calibrated through them and the board state keeps them; cleared, the state forgets them."""
    from tests.clips import write_clip

    frame, truth = board_picture
    video = write_clip(tmp_path / "board.mp4", [frame], seconds=2.0, fps=5)
    _upload(client, video.read_bytes(), START, 2, 10)
    assert client.put(FIELD, json={"corners": truth[::-1].tolist()}, headers=STAFF).status_code == 200
    st = client.app_state
    p = Pipeline(st.db, st.store, st.settings.data_dir)
    assert p.run_once()
    state_file = board_state_path(st.settings.data_dir, 7)
    kept = np.array(json.loads(state_file.read_text())["field"])
    h, w = frame.shape[:2]
    assert {tuple(np.round(c, 0)) for c in kept} == {tuple(np.round(c, 0)) for c in truth * [w, h]}
    obs_file = next((st.settings.data_dir / "observations" / "board07").glob("*.jsonl"))
    obs = [FrameObservation.from_json(line) for line in obs_file.read_text().splitlines()]
    assert obs and all(o.calibrated for o in obs)
    assert client.delete(FIELD, headers=STAFF).status_code == 200
    assert "field" not in json.loads(state_file.read_text())


def test_learn_this_board_from_its_opening_and_the_pipeline_reads_with_it(client, tmp_path):
    """The field page's "Learn this board": on the board's picture of the set-up opening (a rendered board in
    held-out looks), the camera stage learns the board and the pipeline observes its footage with what it
    learnt (`observe --adapter`); a picture that is no opening is refused with why, nothing learnt."""
    from review_ui.pipeline import adapter_path
    from tests.vision.test_fieldfind import EVAL_SEED0, HELD_OUT_SCHEMES
    from transcriber.position import Position
    from vision.synth.rig import Rig
    from vision.synth.stills import random_positions, random_scene

    rig = Rig.build("standard", EVAL_SEED0 + 931, (1280, 720), schemes=HELD_OUT_SCHEMES)
    x0, y0, x1, y1 = rig.geom.field()
    rng = np.random.default_rng(1)

    def picture(position):
        scene = random_scene(rng, rig, position).with_(hands=(), dice=(), shift=(0.0, 0.0, 0.0))  # camera put
        frame = rig.sensor.expose(rig.camera_image(scene)[0], 1.0, 0)
        return frame, rig.to_image([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], scene.shift) / [1280, 720]

    add_users(client.app_state)
    login(client, "ann")
    midgame, field = picture(random_positions(rng, 8)[7])
    opening, _ = picture(Position.opening())

    def show(frame):
        jpeg = base64.b64encode(cv2.imencode(".jpg", cv2.resize(frame, (640, 360)))[1].tobytes()).decode()
        r = client.post("/api/v1/ingest/boards/7/heartbeat", json={"state": "recording", "preview_jpeg": jpeg},
                        headers=auth())
        assert r.status_code == 200, r.text

    show(midgame)
    assert client.put(FIELD, json={"corners": field.tolist()}, headers=STAFF).status_code == 200
    page = client.get("/boards/7/field")
    assert "Learn this board" in page.text
    r = client.post("/boards/7/field", data={"csrf_token": _csrf(page.text), "action": "learn"})
    assert r.status_code == 422 and "does not look like the opening position" in r.text
    learnt = adapter_path(client.app_state.settings.data_dir, 7)
    assert not learnt.exists()
    show(opening)
    r = client.post("/boards/7/field", data={"csrf_token": _csrf(page.text), "action": "learn"})
    assert r.status_code == 200 and "Board learnt from this picture of the opening" in r.text, \
        re.search(r"role=.alert.><p>(.*?)</p>", r.text, re.S).group(1)
    assert learnt.is_file()
    with client.app_state.db.session() as s:
        assert [a.username for a in s.query(AuditLog).filter_by(action="learn_board")] == ["ann"]
    # the pipeline gives it to observe: a damaged one fails the job, saying why
    from tests.clips import write_clip

    _upload(client, write_clip(tmp_path / "b.mp4", [opening], seconds=1.0, fps=5).read_bytes(), START, 1, 5)
    learnt.write_text("{}")
    st = client.app_state
    assert Pipeline(st.db, st.store, st.settings.data_dir).run_once()
    with st.db.session() as s:
        from review_ui.pipeline_models import PipelineJob

        job = s.query(PipelineJob).filter_by(kind="observe").one()
        assert "not what bgscribe adapt writes" in job.error
