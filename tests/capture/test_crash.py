"""SIGKILL in the middle of a segment: the footage so far survives (all but about a second)."""

from __future__ import annotations

import json
import shutil
import signal
import time

from capture.fmp4 import complete_length, probe
from capture.manifest import parse_iso, sha256_file

from .helpers import agent, manifests, needs_ffmpeg, wait_for


@needs_ffmpeg
def test_sigkill_mid_segment_loses_at_most_about_a_second(tmp_path, clips):
    fps = 15
    store = tmp_path / "store"
    spool = store / ".spool" / "board03"
    a = agent(3, str(clips(40)), tmp_path, "--store", str(store), "--segment-seconds", "60", "--fps", str(fps))
    journal = wait_for(lambda: next(spool.glob("*.part.json"), None), 60, "the segment journal")
    start = parse_iso(json.loads(journal.read_text())["start"])
    wait_for(lambda: time.time() - start >= 8.3, 30, "8 seconds of recording")
    killed_at = time.time()
    a.signal(signal.SIGKILL)
    a.wait(10)
    a.stop()
    part = next(spool.glob("*.mp4.part"))

    # The file as the kill left it is readable: every complete fragment plays.
    raw = tmp_path / "as-killed.mp4"
    shutil.copyfile(part, raw)
    got = probe(raw, decode=True)
    expected = (killed_at - start) * fps
    lost = (expected - got.frames) / fps
    assert got.frames > 0 and lost <= 1.5, f"{got.frames} frames kept of about {expected:.0f}: lost {lost:.2f} s"
    assert complete_length(raw) > 0

    # The next start repairs it into a complete segment with a manifest saying so, and stores it.
    b = agent(3, str(clips(3)), tmp_path, "--store", str(store), "--segment-seconds", "60", name="agent2")
    assert b.wait(120) == 0, b.text()[-3000:]
    assert "recovered segment" in b.text()
    ms = manifests(store / "board03")
    rec = [m for m in ms if m["recovered"]]
    assert len(rec) == 1 and rec[0]["closed"] == "recovered"
    assert rec[0]["frames"] == probe(raw).frames == got.frames
    video = next(store.rglob(rec[0]["segment_id"] + ".mp4"))
    assert sha256_file(video) == rec[0]["sha256"]
    assert probe(video, decode=True).frames == rec[0]["frames"]
    assert not list(spool.glob("*.part*"))
    assert len(ms) == 2  # the recovered segment and the new run's


@needs_ffmpeg
def test_sigterm_closes_the_segment_cleanly(tmp_path, clips):
    store = tmp_path / "store"
    a = agent(4, str(clips(40)), tmp_path, "--store", str(store), "--segment-seconds", "60")
    wait_for(lambda: "receiving frames" in a.text(), 60, "frames")
    time.sleep(3)
    assert a.stop(signal.SIGTERM) == 0
    ms = manifests(store)
    assert len(ms) == 1 and ms[0]["closed"] == "stop" and not ms[0]["recovered"]
    video = next(store.rglob("*.mp4"))
    assert probe(video, decode=True).frames == ms[0]["frames"] > 0
    assert "signal SIGTERM" in a.text()
