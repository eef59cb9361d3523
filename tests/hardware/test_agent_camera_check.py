"""The camera grade on the dashboard: a capture agent grades its own full-resolution frames and sends the
grade with its heartbeat; the server keeps the latest per board and the dashboard shows it."""

from __future__ import annotations

import pytest

from ..capture.helpers import Server, agent, wait_for
from ..clips import write_clip
from .scenes import board_frames, glared


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    d = tmp_path_factory.mktemp("camclips")
    rig, frames = board_frames(n=6)
    return {"good": write_clip(d / "good.mp4", frames, 8), "glare": write_clip(d / "glare.mp4", glared(frames, rig), 8)}


def _board(server, n: int) -> dict:
    return next(b for b in server.staff("GET", "/api/v1/boards").json() if b["number"] == n)


@pytest.mark.parametrize("case", ["good", "glare"])
def test_agent_sends_its_camera_grade_and_the_server_keeps_it(tmp_path, clips, case):
    server = Server(tmp_path / "data", boards={3: "board-3-token-secret"}).start()
    try:
        a = agent(3, str(clips[case]), tmp_path, "--server", server.url,
                  "--spool", str(tmp_path / "spool"), "--heartbeat", "1", "--camera-check", "2", "--loop",
                  env={"BGSCRIBE_TOKEN": "board-3-token-secret"})
        wait_for(lambda: _board(server, 3)["camera_check"] is not None, 90, "a camera grade on board 3", every=1)
        a.stop()
        grade = _board(server, 3)["camera_check"]
        names = {c["name"]: c for c in grade["checks"]}
        assert {"board", "sharpness", "exposure", "glare"} <= names.keys()
        if case == "good":
            assert grade["passed"], grade
        else:
            assert not grade["passed"] and "glare" in grade["failed"], grade
            assert "right half" in names["glare"]["message"]
    finally:
        server.stop()
