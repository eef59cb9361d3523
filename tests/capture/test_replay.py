"""A replayed file recorded into segments: frames and timestamps add up, every segment plays."""

from __future__ import annotations

import os

import av
import pytest

from capture.fmp4 import probe
from capture.manifest import parse_iso, sha256_file

from .helpers import agent, frame_numbers, manifests, needs_ffmpeg

SLOW = os.environ.get("BGSCRIBE_SLOW_TESTS") == "1"

# The normal run replays 48 s in 12-second segments; BGSCRIBE_SLOW_TESTS=1 adds the full
# 10-minute replay in the default 60-second segments.
CASES = [pytest.param(48, 12, id="48s-12s-segments")]
CASES.append(pytest.param(600, 60, id="10min-60s-segments",
                          marks=pytest.mark.skipif(not SLOW, reason="10-minute replay: set BGSCRIBE_SLOW_TESTS=1")))


@needs_ffmpeg
@pytest.mark.parametrize("seconds,segment", CASES)
def test_replay_is_recorded_into_segments_that_add_up(tmp_path, clips, seconds, segment):
    fps = 15
    clip = clips(seconds)
    store = tmp_path / "store"
    a = agent(7, str(clip), tmp_path, "--store", str(store), "--segment-seconds", str(segment), "--fps", str(fps))
    assert a.wait(timeout=seconds + 120) == 0, a.text()[-3000:]
    ms = manifests(store)
    assert len(ms) == seconds // segment, [m["segment_id"] for m in ms]

    # Every frame of the file is in exactly one segment, in order, none dropped: the frame numbers
    # the test pattern carries read back as 0, 1, 2, ... across all segments.
    with av.open(str(clip)) as c:
        clip_frames = c.streams.video[0].frames
    assert sum(m["frames"] for m in ms) == clip_frames == seconds * fps
    assert all(m["dropped_frames"] == 0 and m["gaps"] == [] for m in ms)
    numbers = [n for m in ms for n in frame_numbers(next(store.rglob(m["segment_id"] + ".mp4")))]
    assert numbers == list(range(clip_frames))

    # Wall-clock timestamps: segments follow each other without holes or overlaps and span the replay.
    for prev, nxt in zip(ms, ms[1:], strict=False):
        assert abs(parse_iso(nxt["start"]) - parse_iso(prev["end"])) < 0.5, (prev, nxt)
    span = parse_iso(ms[-1]["end"]) - parse_iso(ms[0]["start"])
    assert abs(span - seconds) < 2.0, span

    for m in ms:
        video = next(store.rglob(m["segment_id"] + ".mp4"))
        assert sha256_file(video) == m["sha256"] and video.stat().st_size == m["bytes"]
        p = probe(video, decode=True)  # decodes every frame: the segment plays
        assert p.frames == m["frames"]
        assert (p.width, p.height, p.codec) == (1280, 720, "h264")
        assert abs(p.duration - (parse_iso(m["end"]) - parse_iso(m["start"]))) < 0.25
        assert m["keyframe_interval"] == fps and m["closed"] in ("length", "stop")
        # A keyframe every second: what a crash can lose is bounded by that.
        assert probe(video).keyframes >= m["frames"] // fps
    assert "stopped after" in a.text()


@needs_ffmpeg
def test_fast_replay_keeps_every_frame_and_the_footage_times(tmp_path, clips):
    """--replay-speed 0 (the demo's way in): as fast as the encoder goes, yet nothing is dropped and the
    segments are stamped with footage time, so they span the clip's length, not the replay's."""
    fps, seconds = 15, 24
    clip = clips(seconds)
    store = tmp_path / "store"
    a = agent(7, str(clip), tmp_path, "--store", str(store), "--segment-seconds", "8", "--fps", str(fps),
              "--replay-speed", "0")
    assert a.wait(timeout=120) == 0, a.text()[-3000:]
    ms = manifests(store)
    assert sum(m["frames"] for m in ms) == seconds * fps and all(m["dropped_frames"] == 0 for m in ms)
    numbers = [n for m in ms for n in frame_numbers(next(store.rglob(m["segment_id"] + ".mp4")))]
    assert numbers == list(range(seconds * fps))
    assert len(ms) == 3
    span = parse_iso(ms[-1]["end"]) - parse_iso(ms[0]["start"])
    assert abs(span - seconds) < 0.5, span


@needs_ffmpeg
def test_a_hole_in_a_replayed_file_is_the_camera_lost(tmp_path, clips):
    """The demo's pulled cable (a replayed file with 6 s of packets cut out, timestamps keeping the hole) is
    recorded as a live camera lost is: the segment closes and the next one's manifest records a `source_lost`
    gap (it was a `late_frames` note inside one segment)."""
    from bgscribe.demo import unplug

    fps = 15
    cut = tmp_path / "cut.mp4"
    a0, b0 = unplug(clips(24, size="640x360"), cut, 8.0, 6.0)
    assert 5.9 < b0 - a0 < 7.1
    store = tmp_path / "store"
    a = agent(7, str(cut), tmp_path, "--store", str(store), "--segment-seconds", "60", "--fps", str(fps),
              "--replay-speed", "0")
    assert a.wait(timeout=120) == 0, a.text()[-3000:]
    ms = manifests(store)
    assert len(ms) == 2 and ms[0]["closed"] == "source_lost", [(m["segment_id"], m["closed"]) for m in ms]
    gaps = [g for m in ms for g in m["gaps"]]
    assert [g["reason"] for g in gaps] == ["source_lost"], gaps
    assert abs(gaps[0]["seconds"] - (b0 - a0 - 1 / fps)) < 0.2
    assert abs(parse_iso(ms[1]["start"]) - parse_iso(ms[0]["end"]) - gaps[0]["seconds"]) < 0.2
