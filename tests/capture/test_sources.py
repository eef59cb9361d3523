"""Live network cameras on 127.0.0.1: HTTP MJPEG, UDP MPEG-TS and RTSP; a 20-second cut is bridged."""

from __future__ import annotations

import time

import pytest

from capture.fmp4 import probe
from capture.manifest import parse_iso
from capture.sources import source_kind

from .helpers import (
    RtspCamera,
    agent,
    free_port,
    free_udp_port,
    manifests,
    mjpeg_server,
    needs_ffmpeg,
    needs_rtsp,
    udp_ts_stream,
    wait_for,
)

CUT = 20.0


def test_source_kinds():
    assert source_kind("/dev/video0") == "v4l2"
    assert source_kind("rtsp://10.0.0.5/stream1") == "rtsp"
    assert source_kind("http://cam.local/mjpg") == "http"
    assert source_kind("udp://0.0.0.0:5000") == "udp"
    assert source_kind("match.mp4") == "file"


def _camera(kind: str, port: int, tmp, n: int):
    if kind == "http":
        return mjpeg_server(port, tmp / f"cam{n}.log"), f"http://127.0.0.1:{port}/cam.mjpg"
    return udp_ts_stream(port, tmp / f"cam{n}.log"), f"udp://127.0.0.1:{port}"


@needs_ffmpeg
@pytest.mark.parametrize("kind", ["http", "udp"])
def test_stream_cut_for_20s_is_recorded_as_a_gap_and_recording_resumes(tmp_path, kind):
    port = free_port() if kind == "http" else free_udp_port()
    cam, url = _camera(kind, port, tmp_path, 1)
    store = tmp_path / "store"
    a = agent(5, url, tmp_path, "--store", str(store), "--segment-seconds", "30", "--stall-timeout", "2",
              "--reconnect-max", "2")
    try:
        wait_for(lambda: "receiving frames" in a.text(), 60, f"frames from {url}\n{a.text()}")
        time.sleep(6)
        cam.stop()  # the cable is pulled
        cut_at = time.time()
        wait_for(lambda: "closing segment" in a.text(), 30, "the agent to notice the camera is gone")
        time.sleep(max(0.0, CUT - (time.time() - cut_at)))
        cam, _ = _camera(kind, port, tmp_path, 2)  # plugged back in
        restored_at = time.time()
        wait_for(lambda: "gap" in a.text(), 60, "recording to resume")
        time.sleep(5)
    finally:
        rc = a.stop()
        cam.stop()
    assert rc == 0, a.text()[-3000:]
    ms = manifests(store)
    assert len(ms) == 2, a.text()[-3000:]
    before, after = ms
    assert before["closed"] == "source_lost" and before["frames"] > 0
    assert after["closed"] == "stop" and after["frames"] > 0
    (gap,) = after["gaps"]
    assert gap["reason"] == "source_lost"
    # The gap runs from the last frame before the cut to the first frame after it.
    assert abs(parse_iso(gap["start"]) - parse_iso(before["end"])) < 0.5
    assert abs(parse_iso(gap["end"]) - parse_iso(after["start"])) < 0.01
    # (Stamps are taken at arrival; MPEG-TS over UDP arrives up to ~1.5 s after it was sent.)
    assert parse_iso(gap["start"]) <= cut_at + 3.0 and parse_iso(gap["end"]) >= restored_at - 0.5
    assert gap["seconds"] >= CUT - 1.0
    for m in ms:
        assert probe(next(store.rglob(m["segment_id"] + ".mp4")), decode=True).frames == m["frames"]


@needs_ffmpeg
@needs_rtsp
def test_rtsp_camera(tmp_path):
    cam = RtspCamera(tmp_path)
    store = tmp_path / "store"
    a = agent(9, cam.url, tmp_path, "--store", str(store), "--segment-seconds", "4", "--size", "640x360")
    try:
        wait_for(lambda: len(manifests(store)) >= 2, 90, f"two segments from {cam.url}\n{a.text()}")
    finally:
        rc = a.stop()
        cam.stop()
    assert rc == 0, a.text()[-3000:]
    ms = manifests(store)
    assert len(ms) >= 2 and all(m["frames"] > 0 for m in ms)
    for m in ms:
        p = probe(next(store.rglob(m["segment_id"] + ".mp4")), decode=True)
        assert (p.width, p.height) == (640, 360) and p.frames == m["frames"]
