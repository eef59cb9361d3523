"""`bgscribe check-camera` on real loopback streams of rendered boards (ffmpeg serving HTTP MJPEG or sending
UDP MPEG-TS on 127.0.0.1, as a network camera would): a good set-up passes, each fault fails for its reason."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from tests.bench.bench_real import DEFAULT_REAL
from tests.capture.helpers import FFMPEG, ROOT, Proc, free_port, free_udp_port, needs_ffmpeg

from ..clips import write_clip
from .scenes import GOOD_SEED, blurred, board_frames, dark, glared

FPS = 15


def serve(clip: Path, kind: str, tmp: Path) -> tuple[Proc, str]:
    """ffmpeg replaying the clip forever at real-time pace as a network camera."""
    src = [FFMPEG, "-hide_banner", "-loglevel", "error", "-re", "-stream_loop", "-1", "-i", str(clip)]
    if kind == "http":
        port = free_port()
        url = f"http://127.0.0.1:{port}/cam.mjpg"
        return Proc(src + ["-c:v", "mjpeg", "-q:v", "3", "-f", "mpjpeg", "-listen", "1", url],
                    tmp / f"{clip.stem}-http.log"), url
    port = free_udp_port()
    return Proc(src + ["-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-crf", "18", "-g", str(FPS),
                       "-f", "mpegts", f"udp://127.0.0.1:{port}?pkt_size=1316"],
                tmp / f"{clip.stem}-udp.log"), f"udp://127.0.0.1:{port}"


def check_camera(url: str, *extra: str, timeout: float = 90) -> tuple[int, dict]:
    r = subprocess.run([sys.executable, "-m", "bgscribe.cli", "check-camera", url, "--seconds", "3", "--json",
                        *extra], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert r.returncode in (0, 1), f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r.returncode, json.loads(r.stdout)


@pytest.fixture(scope="module")
def good():
    return board_frames(GOOD_SEED)


def _run(frames, kind, tmp_path, name):
    clip = write_clip(tmp_path / f"{name}.mp4", frames, 2.0, FPS, crf=16)
    cam, url = serve(clip, kind, tmp_path)
    try:
        return check_camera(url, "--board", "7")
    finally:
        cam.stop()


@needs_ffmpeg
@pytest.mark.parametrize("kind", ["http", "udp"])
def test_good_setup_passes(good, tmp_path, kind):
    _, frames = good
    rc, doc = _run(frames, kind, tmp_path, "good")
    assert rc == 0, json.dumps(doc, indent=1)
    assert doc["passed"] and doc["failed"] == [] and doc["board"] == 7
    checks = {c["name"]: c for c in doc["checks"]}
    # 15 frames/s sent: ffmpeg -re catches up after a stall on a loaded machine (19.6 once while the suite shared
    # the cores with a benchmark), where a camera would drop frames
    assert checks["frame_rate"]["status"] == "pass" and 12 <= checks["frame_rate"]["values"]["fps"] <= 21
    assert checks["resolution"]["values"]["px_per_die"] > 15
    assert doc["size"] == [1280, 720]


@needs_ffmpeg
def test_blurred_fails_on_sharpness(good, tmp_path):
    _, frames = good
    rc, doc = _run(blurred(frames, 2.5), "http", tmp_path, "blurred")
    assert rc == 1 and doc["failed"] == ["sharpness"], json.dumps(doc, indent=1)


@needs_ffmpeg
def test_dark_fails_on_exposure(good, tmp_path):
    _, frames = good
    rc, doc = _run(dark(frames), "udp", tmp_path, "dark")
    assert rc == 1 and "exposure" in doc["failed"], json.dumps(doc, indent=1)
    assert "too dark" in next(c for c in doc["checks"] if c["name"] == "exposure")["message"]


@needs_ffmpeg
def test_glare_fails_and_names_the_half(good, tmp_path):
    rig, frames = good
    rc, doc = _run(glared(frames, rig, (170.0, 60.0)), "http", tmp_path, "glare")
    assert rc == 1 and doc["failed"] == ["glare"], json.dumps(doc, indent=1)
    assert "glare on the right half" in next(c for c in doc["checks"] if c["name"] == "glare")["message"]


@needs_ffmpeg
def test_cropped_fails_on_the_board(tmp_path):
    _, frames = board_frames(GOOD_SEED, cam_x=250.0)
    rc, doc = _run(frames, "http", tmp_path, "cropped")
    assert rc == 1 and "board" in doc["failed"], json.dumps(doc, indent=1)
    assert "left edge" in next(c for c in doc["checks"] if c["name"] == "board")["message"]


def test_unreachable_camera_exits_2(tmp_path):
    r = subprocess.run([sys.executable, "-m", "bgscribe.cli", "check-camera", f"http://127.0.0.1:{free_port()}/x",
                        "--seconds", "1", "--open-timeout", "2"], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and "cannot read the camera" in r.stderr


def test_video_file_and_saved_still(good, tmp_path):
    """A recorded clip grades too (frame rate from its timestamps), and the graded still can be saved."""
    _, frames = good
    clip = write_clip(tmp_path / "clip.mp4", frames, 2.0, FPS, crf=16)
    still = tmp_path / "still.jpg"
    rc, doc = check_camera(str(clip), "--save-still", str(still))
    assert rc == 0, json.dumps(doc, indent=1)
    assert cv2.imread(str(still)).shape == (720, 1280, 3)


def test_source_from_the_agent_settings_file(good, tmp_path):
    _, frames = good
    clip = write_clip(tmp_path / "clip.mp4", frames, 2.0, FPS, crf=16)
    env = tmp_path / "capture-7.env"
    env.write_text(f"# board 7\nSOURCE={clip}\nSERVER=http://127.0.0.1:9\n")
    r = subprocess.run([sys.executable, "-m", "bgscribe.cli", "check-camera", "--board", "7", "--env-file", str(env),
                        "--seconds", "1"], cwd=ROOT, capture_output=True, text=True, timeout=90)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("board 7: camera check of ") and "PASS" in r.stdout


def _field_truth(rig):
    x0, y0, x1, y1 = rig.geom.field()
    return rig.to_image([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])


@needs_ffmpeg
def test_found_field_shown_and_confirmed_on_the_server(good, tmp_path):
    """check-camera finds the playing field, draws it on the saved still, and on the person's "y" keeps it on
    the server as the board's field (real server on 127.0.0.1); "n" keeps nothing; given corners are used. The still
    drawn for the question, where none is asked to be saved, is removed once it is answered."""
    import os

    import numpy as np

    from tests.capture.helpers import Server

    rig, frames = good
    truth = _field_truth(rig)
    clip = write_clip(tmp_path / "clip.mp4", frames, 2.0, FPS, crf=16)
    server = Server(tmp_path / "data", boards={7: "board-7-token-secret"}).start()
    try:
        env = {**os.environ, "BGSCRIBE_ADMIN_TOKEN": Server.ADMIN}
        run = lambda answer, *extra: subprocess.run(  # noqa: E731
            [sys.executable, "-m", "bgscribe.cli", "check-camera", str(clip), "--board", "7", "--seconds", "1",
             "--server", server.url, "--json", *extra], cwd=ROOT, env=env, input=answer, capture_output=True,
            text=True, timeout=120)
        still = tmp_path / "still.jpg"
        r = run("n\n", "--confirm", "--save-still", str(still))
        assert r.returncode == 1 and "nothing kept" in r.stderr, r.stderr
        doc = json.loads(r.stdout)
        assert doc["field"]["found"] and not doc["field"]["given"]
        err = np.abs(np.array(doc["field"]["corners"]) - truth).max() / np.linalg.norm(truth[2] - truth[0])
        assert err < 0.03, doc["field"]
        # its profile measured there, and the 24 points where it puts them (drawn thin on the still)
        prof, pts = doc["field"]["profile"], np.array(doc["field"]["points"])
        assert prof["bar"] == "up-down" and 0.5 <= prof["height"] <= 1.2 and pts.shape == (24, 3, 2), prof
        assert cv2.imread(str(still)).shape == (720, 1280, 3)
        assert server.staff("GET", "/api/v1/boards/7/field").json()["field"] is None
        env["TMPDIR"] = str(tmp_path / "tmp")  # where the still to look at is written without --save-still
        (tmp_path / "tmp").mkdir()
        r = run("y\n", "--confirm")
        assert r.returncode == 0 and "field confirmed" in r.stderr, r.stderr
        assert str(tmp_path / "tmp" / "bgscribe-board7-field-") in r.stderr  # shown to the person, then removed
        assert not list((tmp_path / "tmp").glob("bgscribe-board7-field-*"))
        kept = np.array(server.staff("GET", "/api/v1/boards/7/field").json()["field"]["corners"]) * [1280, 720]
        assert np.abs(kept - np.array(doc["field"]["corners"])).max() < 0.5
        given = " ".join(f"{x:.0f},{y:.0f}" for x, y in truth[::-1])
        r = run("", "--field", given)
        assert r.returncode == 0 and json.loads(r.stdout)["field"]["given"]
        r = run("", "--field", "1,2 3,4")
        assert r.returncode == 2 and "four corners" in r.stderr
        bad = {**env, "BGSCRIBE_ADMIN_TOKEN": ""}
        r = subprocess.run([sys.executable, "-m", "bgscribe.cli", "check-camera", str(clip), "--board", "7",
                            "--confirm", "--server", server.url], cwd=ROOT, env=bad, capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 2 and "BGSCRIBE_ADMIN_TOKEN" in r.stderr
    finally:
        server.stop()


def test_an_outline_not_sure_is_shown_and_may_be_confirmed(tmp_path, monkeypatch, capsys):
    """An outline the points' edges rate as a field but the points' own fit puts a point or more away (a tray
    taken in, say) is not sure: check-camera says so, draws it amber and asks the person, who may confirm it
    (or not: nothing kept); a picture with no outline at all is refused without a question."""
    import argparse
    import io

    import numpy as np

    from bgscribe.hardware_cli import confirm_field, draw_field, field_line

    still = np.zeros((360, 640, 3), np.uint8)
    corners = [[100.0, 60.0], [540.0, 60.0], [540.0, 300.0], [100.0, 300.0]]
    unsure = {"found": False, "given": False, "quality": 0.2, "outline": True, "points_off": 1.3,
              "corners": corners, "size": [640, 360]}
    assert "not sure" in field_line(unsure, 7) and "1.3 point widths" in field_line(unsure, 7)
    shaped = {**unsure, "profile": {"bar_frac": 0.05, "point_len": 0.4, "height": 0.69, "bar": "up-down"}}
    assert "the bar 5.0% of the field's width" in field_line(shaped, 7) and "0.69 as high" in field_line(shaped, 7)
    assert tuple(draw_field(still, unsure)[60, 300]) == (0, 170, 255)  # amber
    args = argparse.Namespace(save_still=str(tmp_path / "still.jpg"), board=7)
    monkeypatch.setattr(sys, "stdin", io.StringIO("n\n"))
    assert not confirm_field(unsure, args, "http://127.0.0.1:9", "token", still)
    err = capsys.readouterr().err
    assert "not sure" in err and "amber outline" in err and "nothing kept" in err
    none = {**unsure, "outline": False, "quality": 0.0}
    assert "not found" in field_line(none, 7)
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))
    assert not confirm_field(none, args, "http://127.0.0.1:9", "token", still)
    assert "no outline to confirm" in capsys.readouterr().err


# test10 until 2026-12-04 (now found 2.2 % off), test11 until 2026-12-05 (now found by the points' tips, 1.9 % off),
# test12 until 2026-12-05 (its outline took a tray in, 5.6 % off; now found 1.1 % off: a point in the bar is judged)
NEAR_MISS = DEFAULT_REAL / "streams" / "hough_test5.png"


@pytest.mark.skipif(not NEAR_MISS.exists(), reason=f"the real pictures are not here ({NEAR_MISS})")
def test_a_real_near_miss_is_an_outline_not_sure():
    """A stream frame whose outline the points' own fit puts a point away (2.1 % off when written): not found,
    but an outline for a person to look at (`camera_field`)."""
    from bgscribe.hardware_cli import camera_field

    field = camera_field(cv2.imread(str(NEAR_MISS)))
    assert not field["found"] and field["outline"] and field["points_off"] >= 1.0, field
