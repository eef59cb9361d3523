"""Agent to server over HTTP on 127.0.0.1 with a real uvicorn server: outages, heartbeats, a full disk."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time

import pytest

from capture.fmp4 import probe
from capture.manifest import sha256_file

from .helpers import Server, agent, free_port, manifests, mjpeg_server, needs_ffmpeg, wait_for

TOKEN = "board-11-secret-token"
SLOW = os.environ.get("BGSCRIBE_SLOW_TESTS") == "1"
DOWN = 180.0 if SLOW else 40.0  # "a few minutes" with BGSCRIBE_SLOW_TESTS=1; 8 segments' time in the normal run


def closed_segments(log: str) -> list[str]:
    return re.findall(r"segment (b\d+-\w+) closed", log)


def check_server_has_exactly(server: Server, seg_ids: list[str], spool_manifests: dict[str, dict]) -> None:
    rows = server.segments()
    assert sorted(r["segment_id"] for r in rows) == sorted(seg_ids)  # each exactly once (no duplicates)
    footage = server.data / "footage"
    files = sorted(footage.rglob("*.mp4"))
    assert len(files) == len(rows)
    for r in rows:
        f = footage / r["storage_key"]
        sent = json.loads(r["manifest_json"])  # the agent's manifest, checksum computed at the agent
        assert sha256_file(f) == r["sha256"] == sent["sha256"]
        assert probe(f).frames == r["frames"] == sent["frames"]
    for seg_id, m in spool_manifests.items():  # the manifests we saw in the spool while it was down
        assert seg_id in {r["segment_id"] for r in rows}
        assert m["sha256"] == next(r["sha256"] for r in rows if r["segment_id"] == seg_id)
    assert not [p for p in (server.data / "staging").rglob("*") if p.is_file()]


@needs_ffmpeg
def test_server_down_for_a_while_everything_arrives_exactly_once(tmp_path):
    server = Server(tmp_path / "server", boards={11: TOKEN}).start()
    port = free_port()
    cam = mjpeg_server(port, tmp_path / "cam.log", size="640x360")
    spool = tmp_path / "spool"
    # Keep a copy of every manifest the agent writes, to compare with what the server ends up holding.
    a = agent(11, f"http://127.0.0.1:{port}/cam.mjpg", tmp_path, "--server", server.url,
              "--spool", str(spool), "--segment-seconds", "5", "--heartbeat", "1", "--upload-retry-max", "3",
              "--drain", "60", env={"BGSCRIBE_TOKEN": TOKEN})
    seen: dict[str, dict] = {}

    def watch():
        for m in manifests(spool):
            seen.setdefault(m["segment_id"], m)

    try:
        wait_for(lambda: (watch(), len(server.segments()) >= 2)[1], 90, "two segments on the server")
        server.stop(signal.SIGKILL)  # the server crashes, maybe in the middle of an upload ...
        down_at = time.monotonic()
        while time.monotonic() - down_at < DOWN:
            watch()
            time.sleep(0.2)
        assert "segments stay in the spool" in a.text()
        queued = len(manifests(spool))
        assert queued >= DOWN / 5 - 2  # everything recorded meanwhile waits in the spool
        server.start()  # ... and comes back
        wait_for(lambda: (watch(), not manifests(spool))[1], 120, "the spool to drain")
        assert "server reachable again" in a.text()
        time.sleep(2)
    finally:
        rc = a.stop()
        cam.stop()
    watch()
    assert rc == 0, a.text()[-3000:]
    ids = closed_segments(a.text())
    assert len(ids) == len(set(ids)) >= DOWN / 5 + 2
    assert set(seen) <= set(ids) and len(seen) >= DOWN / 5 - 2
    assert not manifests(spool) and not list(spool.glob("*.mp4*"))
    check_server_has_exactly(server, ids, seen)

    # Heartbeats reached the staff API, with a preview still.
    boards = server.staff("GET", "/api/v1/boards").json()
    (b,) = boards
    assert b["number"] == 11 and b["has_preview"] and b["heartbeat"]["free_disk_bytes"] > 0
    jpeg = server.staff("GET", "/api/v1/boards/11/preview.jpg").content
    assert jpeg[:2] == b"\xff\xd8"
    server.stop()


def _mount_tmpfs(path, size: str) -> None:
    path.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {r.stderr.decode().strip()}")


@needs_ffmpeg
def test_full_disk_keeps_every_unconfirmed_segment_intact(tmp_path):
    spool = tmp_path / "small"
    _mount_tmpfs(spool, "20m")
    server = Server(tmp_path / "server", boards={11: TOKEN})  # not started yet: nothing is confirmed
    port = free_port()
    cam = mjpeg_server(port, tmp_path / "cam.log")
    a = agent(11, f"http://127.0.0.1:{port}/cam.mjpg", tmp_path, "--server", server.url,
              "--spool", str(spool), "--segment-seconds", "4", "--min-free-mb", "5", "--warn-free-mb", "10",
              "--upload-retry-max", "2", "--drain", "60", env={"BGSCRIBE_TOKEN": TOKEN})
    try:
        wait_for(lambda: "disk nearly full" in a.text(), 120, "the agent to report the full disk")
        assert "disk filling up" in a.text()  # warned first
        time.sleep(3)
        # Nothing was deleted and every file in the spool is a complete, playable segment.
        ids = closed_segments(a.text())
        ms = {m["segment_id"]: m for m in manifests(spool)}
        assert sorted(ms) == sorted(ids) and len(ids) >= 2
        assert not list(spool.glob("*.part*"))
        for m in ms.values():
            video = spool / f"{m['segment_id']}.mp4"
            assert sha256_file(video) == m["sha256"]
            assert probe(video, decode=True).frames == m["frames"] > 0
        assert ms[ids[-1]]["closed"] == "disk_low"
        assert a.alive()
        # The server comes up: the spool drains and recording resumes, with the pause recorded as a gap.
        server.start()
        wait_for(lambda: "recording resumes" in a.text(), 120, "recording to resume")
        wait_for(lambda: len(closed_segments(a.text())) > len(ids) + 1, 60, "new segments")
    finally:
        rc = a.stop()
        cam.stop()
        subprocess.run(["umount", str(spool)], check=False)
    assert rc == 0, a.text()[-3000:]
    all_ids = closed_segments(a.text())
    rows = {r["segment_id"]: r for r in server.segments()}
    assert sorted(rows) == sorted(all_ids)
    resumed = json.loads(rows[all_ids[len(ids)]]["manifest_json"])
    assert [g["reason"] for g in resumed["gaps"]] == ["disk_low"]
    server.stop()
