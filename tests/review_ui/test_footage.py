"""Camera frames and clips in the review page: real fragmented-MP4 segments recorded by capture's recorder,
uploaded through the ingest API, decoded with PyAV; range requests; purged and missing footage."""

from __future__ import annotations

from datetime import UTC, datetime

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from review_ui.models import Segment

from .conftest import STAFF, TOKEN
from .footage_helpers import level, upload_segment
from .review_helpers import MISREAD, add_match, add_users, login, upload

START = datetime(2026, 11, 29, 10, 0, 0)  # the match (10:00-11:00 on board 7) and its first segment
LATER = datetime(2026, 11, 29, 10, 16, 20)  # a second segment, 980 s into the footage (6 s each, 10 fps)


@pytest.fixture
def footage(client, tmp_path):
    """ann logged in; the fixture transcript on a board-7 match with two real 6-second segments."""
    add_users(client.app_state)
    client.match_id = add_match(client.app_state)
    client.h = login(client, "ann")
    assert upload(client, client.match_id, client.h).status_code == 201
    upload_segment(client, 7, START, tmp_path / "seg0", TOKEN, seg=0)
    upload_segment(client, 7, LATER, tmp_path / "seg1", TOKEN, seg=1)
    with client.app_state.db.session() as s:
        client.rows = [x.id for x in s.query(Segment).order_by(Segment.start)]
    return client


def grey(jpeg: bytes) -> float:
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert img is not None and img.shape[:2] == (240, 320)
    return float(img.mean())


def mp(c, tail: str) -> str:
    return f"/api/v1/matches/{c.match_id}{tail}"


def test_frame_at_an_action_time_is_decoded_from_the_stored_segment(footage):
    r = footage.get(mp(footage, "/footage"), params={"t": 2.35})
    assert r.json() == {"t": 2.35, "available": True, "segment": "b07-20261129T100000000Z",
                        "segment_row_id": footage.rows[0], "offset": 2.35,
                        "frame_url": mp(footage, "/frame.jpg?t=2.35"),
                        "clip_url": mp(footage, f"/segments/{footage.rows[0]}.mp4")}
    r = footage.get(mp(footage, "/frame.jpg"), params={"t": 2.35})
    assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"
    assert abs(grey(r.content) - level(0, 23)) < 4  # frame 23 (2.3 s) is on screen at 2.35 s
    # The misread action of the fixture, 982.6 s into the footage: 2.6 s into the second segment.
    t = footage.get(f"/api/v1/matches/{footage.match_id}/transcript").json()["games"][MISREAD[0] - 1]["actions"][
        MISREAD[1] - 1]["time"]
    assert t == 982.6
    r = footage.get(mp(footage, "/frame.jpg"), params={"t": t})
    assert abs(grey(r.content) - level(1, 26)) < 4
    # Decoded once, then served from the disk cache under the data dir.
    cache = footage.app_state.settings.data_dir / "frame-cache" / str(footage.rows[1])
    (cached,) = cache.glob("*.jpg")
    assert cached.read_bytes() == r.content
    assert footage.get(mp(footage, "/frame.jpg"), params={"t": t}).content == r.content


@pytest.mark.parametrize("t,reason", [
    (100.0, "no footage at 1:40.0 into the match (2026-11-29 10:01:40 UTC): a gap in the recording"),
    (2000.0, "33:20.0 is after the end of the uploaded footage (2026-11-29 10:16:26 UTC)"),
])
def test_no_frame_where_there_is_no_footage_says_why(footage, t, reason):
    r = footage.get(mp(footage, "/frame.jpg"), params={"t": t})
    assert r.status_code == 404 and r.json()["detail"] == reason
    assert footage.get(mp(footage, "/footage"), params={"t": t}).json() == {"t": t, "available": False,
                                                                              "reason": reason}


def test_bad_frame_requests(footage):
    for t in ("-1", "1e20", "inf", "-inf", "nan", "NaN", "soon"):  # a clear 400, never a 500
        r = footage.get(mp(footage, "/frame.jpg"), params={"t": t})
        assert r.status_code == 400 and "t must be a number of seconds" in r.json()["detail"], (t, r.text)
        assert footage.get(mp(footage, "/footage"), params={"t": t}).status_code == 400
    assert footage.get(mp(footage, "/frame.jpg")).status_code == 422
    assert footage.get("/api/v1/matches/999/frame.jpg", params={"t": 1}).status_code == 404
    other = add_match(footage.app_state, board=8)  # no footage uploaded on board 8
    r = footage.get(f"/api/v1/matches/{other}/frame.jpg", params={"t": 1})
    assert r.status_code == 404 and r.json()["detail"] == "no footage was uploaded for this match"


def test_footage_routes_need_a_login(footage):
    anon = TestClient(footage.app)
    for path in (mp(footage, "/frame.jpg?t=1"), mp(footage, "/footage?t=1"),
                 mp(footage, f"/segments/{footage.rows[0]}.mp4")):
        assert anon.get(path).status_code == 401, path
    assert anon.get(mp(footage, f"/segments/{footage.rows[0]}.mp4"), headers=STAFF).status_code == 401


def test_segment_download_with_range_requests(footage):
    path = mp(footage, f"/segments/{footage.rows[0]}.mp4")
    whole = footage.get(path)
    assert whole.status_code == 200 and whole.headers["accept-ranges"] == "bytes"
    assert whole.headers["content-type"] == "video/mp4"
    with footage.app_state.db.session() as s:
        seg = s.get(Segment, footage.rows[0])
        size, key = seg.bytes, seg.storage_key
    assert whole.content == (footage.app_state.settings.footage_path / key).read_bytes()
    assert int(whole.headers["content-length"]) == size
    for rng, first, last in [("bytes=0-99", 0, 99), ("bytes=100-", 100, size - 1), ("bytes=-50", size - 50, size - 1),
                             (f"bytes=10-{size + 999}", 10, size - 1)]:
        r = footage.get(path, headers={"Range": rng})
        assert r.status_code == 206, rng
        assert r.headers["content-range"] == f"bytes {first}-{last}/{size}"
        assert r.content == whole.content[first:last + 1] and int(r.headers["content-length"]) == last - first + 1
    for rng in (f"bytes={size}-", "bytes=abc", "bytes=5-2", "bytes=-0", "bytes=-"):
        r = footage.get(path, headers={"Range": rng})
        assert r.status_code == 416, rng
        assert r.headers["content-range"] == f"bytes */{size}"
    # Several ranges or another unit: the whole file (a server may ignore Range).
    assert footage.get(path, headers={"Range": "bytes=0-1,5-6"}).status_code == 200
    assert footage.get(path, headers={"Range": "items=0-1"}).status_code == 200
    # A segment that is not this match's footage.
    other = add_match(footage.app_state, board=8)
    assert footage.get(f"/api/v1/matches/{other}/segments/{footage.rows[0]}.mp4").status_code == 404
    assert footage.get(mp(footage, "/segments/9999.mp4")).status_code == 404


def test_review_page_shows_the_frame_and_clip_beside_the_boards(footage):
    g, a = MISREAD
    page = footage.get(f"/matches/{footage.match_id}?g={g}&a={a}").text
    assert f'<img id="frame" src="/api/v1/matches/{footage.match_id}/frame.jpg?t=982.6"' in page
    assert f'src="/api/v1/matches/{footage.match_id}/segments/{footage.rows[1]}.mp4#t=0.0"' in page
    assert page.index('id="camera"') < page.index("<figcaption>Before</figcaption>")
    # An action whose time has no footage: a placeholder that says why, not an error.
    r = footage.get(f"/matches/{footage.match_id}?g=1&a=5")
    assert r.status_code == 200
    assert 'id="frame-missing" role="note">No camera frame: no footage at 0:41.6 into the match' in r.text
    assert '<img id="frame"' not in r.text and "<video" not in r.text


def test_purged_footage_leaves_no_frames_and_a_clear_placeholder(footage):
    g, a = MISREAD
    assert footage.get(mp(footage, "/frame.jpg"), params={"t": 982.6}).status_code == 200
    cache = footage.app_state.settings.data_dir / "frame-cache" / str(footage.rows[1])
    assert any(cache.iterdir())
    ev = footage.get("/api/v1/events", headers=STAFF).json()[0]
    footage.patch(f"/api/v1/events/{ev['id']}", headers=STAFF,
                  json={"retention_policy": "match_end", "purge_unapproved": True})
    assert footage.post("/api/v1/purge", headers=STAFF).json()["deleted"] == 2
    assert not cache.exists()  # the cached frames went with the footage
    r = footage.get(mp(footage, "/frame.jpg"), params={"t": 982.6})
    assert r.status_code == 404 and r.json()["detail"].startswith("footage purged on ")
    r = footage.get(mp(footage, f"/segments/{footage.rows[1]}.mp4"))
    assert r.status_code == 410 and "purged" in r.json()["detail"]
    r = footage.get(f"/matches/{footage.match_id}?g={g}&a={a}")
    assert r.status_code == 200 and "No camera frame: footage purged on " in r.text


def test_footage_file_missing_from_the_store(footage):
    with footage.app_state.db.session() as s:
        key = s.get(Segment, footage.rows[0]).storage_key
    (footage.app_state.settings.footage_path / key).unlink()
    r = footage.get(mp(footage, "/frame.jpg"), params={"t": 1})
    assert r.status_code == 404 and "missing from the store" in r.json()["detail"]
    assert footage.get(mp(footage, f"/segments/{footage.rows[0]}.mp4")).status_code == 404


def test_a_gap_recorded_inside_a_segment_shows_no_stale_frame(client, tmp_path):
    """The camera sent nothing for 3 s inside one segment (the agent noted the gap in its manifest): a time in
    it is a gap, not the last frame before it."""
    import av

    from capture.manifest import Gap, iso
    from capture.recorder import EncoderSettings, SegmentWriter

    from .test_ingest import upload as ingest_upload

    add_users(client.app_state)
    match_id = add_match(client.app_state)
    h = login(client, "ann")
    assert upload(client, match_id, h).status_code == 201
    t0 = START.replace(tzinfo=UTC).timestamp()
    wr = SegmentWriter(tmp_path, 7, t0, EncoderSettings(fps=10, keyframe_interval=1.0), 320, 240, "yuv420p")
    times = [k / 10 for k in range(30)] + [6 + k / 10 for k in range(30)]  # nothing from 3.0 to 6.0 s
    for k, t in enumerate(times):
        if k == 30:
            wr.note_gap(Gap(iso(t0 + 3.0), iso(t0 + 6.0), 3.0, "late_frames"))
        wr.add(av.VideoFrame.from_ndarray(np.full((240, 320, 3), level(0, k), np.uint8), format="rgb24"), t0 + t)
    m = wr.close("length")
    r = ingest_upload(client, m.to_dict(), (tmp_path / f"{m.segment_id}.mp4").read_bytes(), token=TOKEN)
    assert r.status_code == 200, r.text
    url = f"/api/v1/matches/{match_id}"
    reason = ("no footage at 0:04.5 into the match (2026-11-29 10:00:04 UTC): a gap in the recording "
              "(3.0 s, the camera sent no frames)")
    assert client.get(url + "/footage", params={"t": 4.5}).json() == {"t": 4.5, "available": False,
                                                                       "reason": reason}
    r = client.get(url + "/frame.jpg", params={"t": 4.5})
    assert r.status_code == 404 and r.json()["detail"] == reason
    for t in (2.0, 6.5):  # either side of it: frames
        assert client.get(url + "/footage", params={"t": t}).json()["available"] is True
        assert client.get(url + "/frame.jpg", params={"t": t}).status_code == 200
