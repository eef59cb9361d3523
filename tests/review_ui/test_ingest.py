"""The ingest API: token per board, resumable checksum-verified uploads, idempotency, heartbeats."""

from __future__ import annotations

import base64
import hashlib
import os

import pytest

from review_ui.models import Heartbeat, Segment
from review_ui.storage import MARKER

from .conftest import STAFF, auth

BASE = "/api/v1/ingest/boards"


def make_segment(n: int = 300_000, seed: int = 1, board: int = 7, start: str = "2026-11-29T17:00:00.000Z"):
    # An MP4's first box (the server refuses anything else), then bytes that differ by seed.
    data = b"\x00\x00\x00\x18ftypisom" + hashlib.sha256(str(seed).encode()).digest() * (n // 32 + 1)
    data = data[:n]
    sid = f"b{board:02d}-{start[:4]}{start[5:7]}{start[8:10]}T{start[11:13]}{start[14:16]}{start[17:19]}" \
          f"{start[20:23]}Z"
    m = {"board": board, "segment_id": sid, "start": start, "end": start[:17] + "59.999Z", "frames": 900,
         "dropped_frames": 0, "gaps": [], "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    return m, data


def upload(c, m, data, token=None, chunk=100_000):
    h = auth(token) if token else auth()
    r = c.post(f"{BASE}/{m['board']}/segments", json=m, headers=h)
    assert r.status_code == 200, r.text
    if r.json()["status"] == "stored":
        return r
    off = r.json()["received"]
    while off < len(data):
        r = c.put(f"{BASE}/{m['board']}/segments/{m['segment_id']}/data", params={"offset": off},
                  content=data[off:off + chunk], headers=h)
        assert r.status_code == 200, r.text
        off = r.json()["received"]
    return c.post(f"{BASE}/{m['board']}/segments/{m['segment_id']}/complete", headers=h)


def stored_files(c):
    return sorted(p for p in c.app_state.settings.footage_path.rglob("*") if p.is_file() and p.name != MARKER)


def staged_files(c):
    return sorted(p for p in c.app_state.settings.staging_path.rglob("*") if p.is_file())


def segment_rows(c):
    with c.app_state.db.session() as s:
        return s.query(Segment).all()


@pytest.mark.parametrize("headers", [{}, auth("wrong"), auth("board-8-token-secret"), {"Authorization": "Basic x"}])
def test_wrong_or_missing_token_is_401_and_nothing_is_stored(client, headers):
    m, data = make_segment()
    r = client.post(f"{BASE}/7/segments", json=m, headers=headers)
    assert r.status_code == 401
    r = client.put(f"{BASE}/7/segments/{m['segment_id']}/data", params={"offset": 0}, content=data, headers=headers)
    assert r.status_code == 401
    assert client.post(f"{BASE}/7/segments/{m['segment_id']}/complete", headers=headers).status_code == 401
    assert client.post(f"{BASE}/7/heartbeat", json={"state": "x"}, headers=headers).status_code == 401
    assert client.post(f"{BASE}/99/segments", json=m, headers=auth()).status_code == 401  # unknown board
    assert staged_files(client) == [] and stored_files(client) == [] and segment_rows(client) == []
    with client.app_state.db.session() as s:
        assert s.query(Heartbeat).count() == 0


def test_upload_is_stored_verified_and_idempotent(client):
    m, data = make_segment()
    r = upload(client, m, data)
    assert r.status_code == 200 and r.json()["sha256"] == m["sha256"]
    (f,) = stored_files(client)
    assert f.read_bytes() == data and f.name == m["segment_id"] + ".mp4"
    assert staged_files(client) == []
    # The same segment again (the agent never saw the answer): confirmed, nothing sent or stored twice.
    r = client.post(f"{BASE}/7/segments", json=m, headers=auth())
    assert r.json() == {"status": "stored", "sha256": m["sha256"]}
    assert client.post(f"{BASE}/7/segments/{m['segment_id']}/complete", headers=auth()).json()["status"] == "stored"
    assert len(segment_rows(client)) == 1 and len(stored_files(client)) == 1
    # Same id, different content: refused, the stored evidence is untouched.
    m2 = dict(m, sha256="0" * 64)
    assert client.post(f"{BASE}/7/segments", json=m2, headers=auth()).status_code == 409
    assert f.read_bytes() == data


def test_interrupted_upload_resumes_where_it_stopped(client):
    m, data = make_segment(n=250_000)
    assert client.post(f"{BASE}/7/segments", json=m, headers=auth()).json() == {"status": "partial", "received": 0}
    r = client.put(f"{BASE}/7/segments/{m['segment_id']}/data", params={"offset": 0}, content=data[:100_000],
                   headers=auth())
    assert r.json() == {"received": 100_000}
    # The connection dropped; the agent asks again and continues from 100000.
    assert client.post(f"{BASE}/7/segments", json=m, headers=auth()).json()["received"] == 100_000
    # A chunk at the wrong offset is refused with the right one.
    r = client.put(f"{BASE}/7/segments/{m['segment_id']}/data", params={"offset": 0}, content=data[:10],
                   headers=auth())
    assert r.status_code == 409 and r.json()["received"] == 100_000
    # Completing early is refused: not all bytes are there.
    assert client.post(f"{BASE}/7/segments/{m['segment_id']}/complete", headers=auth()).status_code == 422
    r = upload(client, m, data)
    assert r.status_code == 200
    assert stored_files(client)[0].read_bytes() == data


def test_corrupt_upload_is_refused_and_nothing_is_stored(client):
    m, data = make_segment()
    bad = bytearray(data)
    bad[1234] ^= 0xFF
    r = upload(client, m, bytes(bad))
    assert r.status_code == 422 and "checksum mismatch" in r.json()["detail"]
    assert stored_files(client) == [] and segment_rows(client) == []
    assert not [p for p in staged_files(client) if p.suffix == ".part"]  # the bad bytes are discarded
    # The agent sends it again, correctly this time.
    assert upload(client, m, data).status_code == 200
    assert stored_files(client)[0].read_bytes() == data


@pytest.mark.parametrize("change,status", [
    ({"segment_id": "../../etc/passwd"}, 422), ({"sha256": "xyz"}, 422), ({"board": 8}, 422),
    ({"bytes": 0}, 422), ({"frames": -1}, 422),
])
def test_bad_manifest_is_refused(client, change, status):
    m, _ = make_segment()
    r = client.post(f"{BASE}/7/segments", json={**m, **change}, headers=auth())
    assert r.status_code == status, r.text
    assert staged_files(client) == []


def test_too_many_bytes_are_refused(client):
    m, data = make_segment(n=1000)
    client.post(f"{BASE}/7/segments", json=m, headers=auth())
    r = client.put(f"{BASE}/7/segments/{m['segment_id']}/data", params={"offset": 0}, content=data + b"x",
                   headers=auth())
    assert r.status_code == 422


def test_heartbeat_and_preview(client):
    jpeg = b"\xff\xd8\xff\xe0" + os.urandom(100)
    hb = {"state": "recording", "fps": 14.9, "frames": 1000, "dropped_frames": 2, "spool_segments": 3,
          "spool_bytes": 3 << 30, "free_disk_bytes": 5 * 10**11, "last_segment": "b07-20261129T170000000Z",
          "preview_jpeg": base64.b64encode(jpeg).decode()}
    assert client.post(f"{BASE}/7/heartbeat", json=hb, headers=auth()).status_code == 200
    boards = {b["number"]: b for b in client.get("/api/v1/boards", headers=STAFF).json()}
    assert boards[7]["heartbeat"]["fps"] == 14.9 and boards[7]["heartbeat"]["spool_segments"] == 3
    # Byte counts past 2**31 (a 32-bit INTEGER on PostgreSQL would refuse them)
    assert (boards[7]["heartbeat"]["spool_bytes"], boards[7]["heartbeat"]["free_disk_bytes"]) == (3 << 30, 5 * 10**11)
    assert boards[8]["heartbeat"] is None
    assert client.get("/api/v1/boards/7/preview.jpg", headers=STAFF).content == jpeg
    assert client.get("/api/v1/boards/7/preview.jpg").status_code == 401  # footage stills are staff-only
    bad = {**hb, "preview_jpeg": base64.b64encode(b"GIF89a").decode()}
    assert client.post(f"{BASE}/7/heartbeat", json=bad, headers=auth()).status_code == 422


def test_segments_are_linked_to_the_match_on_that_board_at_that_time(client):
    ev = client.get("/api/v1/events", headers=STAFF).json()[0]
    r = client.post("/api/v1/matches", headers=STAFF, json={
        "event_id": ev["id"], "board": 7, "player1": "A", "player2": "B",
        "started_at": "2026-11-29T17:00:30Z", "ended_at": "2026-11-29T17:02:10Z"})
    match = r.json()
    for i, start in enumerate(["2026-11-29T16:59:00.000Z", "2026-11-29T17:00:00.000Z", "2026-11-29T17:01:00.000Z",
                               "2026-11-29T17:02:00.000Z", "2026-11-29T17:03:00.000Z"]):
        m, data = make_segment(n=1000, seed=i, start=start)
        assert upload(client, m, data).status_code == 200
    m, data = make_segment(n=1000, seed=9, board=8, start="2026-11-29T17:01:00.000Z")  # another board
    assert upload(client, m, data, token="board-8-token-secret").status_code == 200
    got = client.get(f"/api/v1/matches/{match['id']}", headers=STAFF).json()
    assert got["segments"] == ["b07-20261129T170000000Z", "b07-20261129T170100000Z", "b07-20261129T170200000Z"]
    # A match entered after its footage arrived gets linked too.
    r = client.post("/api/v1/matches", headers=STAFF, json={
        "event_id": ev["id"], "board": 7, "started_at": "2026-11-29T17:02:30Z"})
    assert r.json()["segments"] == ["b07-20261129T170200000Z", "b07-20261129T170300000Z"]


def test_staff_api_needs_the_staff_token(client):
    assert client.get("/api/v1/events").status_code == 401
    assert client.get("/api/v1/events", headers=auth()).status_code == 401  # a board token is not enough
    assert client.post("/api/v1/purge", headers={"Authorization": "Bearer nope"}).status_code == 401


def test_footage_of_a_time_the_board_already_holds_is_stitched_into_no_match(client):
    """A second recording over time the board has footage of (the demo run again: its replay stamped from "now",
    an agent's clock set wrong): neither copy can be told to belong to a match, so neither is linked; the
    footage before and after the clash still is, and the upload says why."""
    ev = client.get("/api/v1/events", headers=STAFF).json()[0]
    for i, start in enumerate(["2026-11-29T17:00:00.000Z", "2026-11-29T17:01:00.000Z", "2026-11-29T17:02:00.000Z"]):
        m, data = make_segment(n=1000, seed=i, start=start)  # the first recording, a minute each
        assert "warning" not in upload(client, m, data).json()
    r = client.post("/api/v1/matches", headers=STAFF, json={
        "event_id": ev["id"], "board": 7, "started_at": "2026-11-29T17:01:30Z"})
    match = r.json()
    m, data = make_segment(n=1000, seed=10, start="2026-11-29T17:01:30.000Z")  # a second recording from 17:01:30
    m["end"] = "2026-11-29T17:02:30.000Z"
    r = upload(client, m, data)
    assert r.status_code == 200 and r.json()["matches"] == []
    assert "already holds footage of this time (b07-20261129T170100000Z, b07-20261129T170200000Z)" \
        in r.json()["warning"]
    m, data = make_segment(n=1000, seed=11, start="2026-11-29T17:03:00.000Z")  # after the clash: linked
    assert upload(client, m, data).json()["matches"] == [match["id"]]
    # the dashboard's card says so too (the staff look there, not at upload answers)
    from .review_helpers import add_users, login

    add_users(client.app_state)
    login(client, "ann")
    live = {b["number"]: b for b in client.get("/api/v1/live/boards").json()}
    assert live[7]["clashing"] == 3 and live[8]["clashing"] == 0
    assert "3 segments claim the same time" in client.get("/dashboard/live").text
    got = client.get(f"/api/v1/matches/{match['id']}", headers=STAFF).json()
    assert got["segments"] == ["b07-20261129T170300000Z"]
    # a match entered afterwards is linked by the same rule
    r = client.post("/api/v1/matches", headers=STAFF, json={
        "event_id": ev["id"], "board": 7, "started_at": "2026-11-29T16:59:00Z", "ended_at": "2026-11-29T17:01:10Z"})
    assert r.json()["segments"] == ["b07-20261129T170000000Z"]
    # two segments that touch (a frame's overlap at the boundary) do not clash
    from datetime import datetime, timedelta

    from review_ui.services import clashing

    class Seg:
        def __init__(self, i, start, end):
            self.id, self.start, self.end = i, start, end
    t = datetime(2026, 11, 29, 17)
    assert clashing([Seg(1, t, t + timedelta(seconds=60.05)), Seg(2, t + timedelta(seconds=60), t +
                     timedelta(seconds=120))]) == set()
