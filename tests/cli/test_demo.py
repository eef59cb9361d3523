"""`bgscribe demo` as the README runs it: simulator -> capture agent -> server -> pipeline -> review page.

Smaller and slower-paced than the default (640x360 at 5 fps) so it fits a test run; the default run is
timed by hand and in the issue notes.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time

import httpx

from transcriber.mat import parse_mat
from transcriber.replay import replay_match


def _demo_once(out) -> tuple[str, list]:
    """One `bgscribe demo --exit-when-ready` run in ``out``: its log and the transcript's actions."""
    r = subprocess.run([sys.executable, "-m", "bgscribe", "demo", "--out", str(out), "--port", "0",
                        "--size", "640x360", "--fps", "5", "--exit-when-ready"],
                       capture_output=True, text=True, timeout=900)
    log = r.stdout + r.stderr
    assert r.returncode == 0, log[-3000:]
    return log, _actions(out)


def _actions(out) -> list:
    """The transcript's games in ``out``'s server database: winner, and each action's kind, player, dice, play
    and flags."""
    import json
    import sqlite3

    with sqlite3.connect(out / "data" / "bgscribe.db") as db:
        [(doc,)] = db.execute("select doc_json from transcripts").fetchall()
    games = json.loads(doc)["games"]
    return [(g["winner"], [(a["kind"], a["player"], a.get("dice"), a.get("play"), [f["reason"] for f in
                                                                               a.get("flags", [])])
                           for a in g["actions"]]) for g in games]


def test_demo_run_twice_in_one_folder_serves_the_same_match_with_flags_to_review(tmp_path):
    """The README's demo, run twice in one folder: the second run serves the match for review (and stops on
    Ctrl-C). The second run used to find the first one's segments in its match's time (its footage stamped from
    "now") and stitch them in: 58 actions, 126 flags, the winner reversed. Now each run starts from an empty
    server, and the video the first run rendered is reused."""
    out = tmp_path / "demo"
    log1, first = _demo_once(out)
    assert re.search(r"holds \d+ MB .*rm -r", log1)
    # (Ctrl-C as at a terminal: a test run started in the background, `nohup pytest &`, ignores SIGINT,
    # and its children would inherit that)
    proc = subprocess.Popen([sys.executable, "-m", "bgscribe", "demo", "--out", str(out), "--port", "0",
                             "--size", "640x360", "--fps", "5"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines: list[str] = []
    try:
        deadline = time.time() + 600
        url = None
        while time.time() < deadline and url is None:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            m = re.search(r"Review the match at (http://\S+)", line)
            url = m.group(1) if m else None
        assert url, "".join(lines)[-3000:]
        log = "".join(lines)
        assert "reusing the video" in log and "removing the last run's server data" in log
        assert "Log in as demo / bgscribe-demo" in proc.stdout.readline() + proc.stdout.readline()
        assert _actions(out) == first
        flags = int(re.search(r"(\d+) flags to review", log).group(1))
        assert flags >= 1, log  # something to show in the review page

        base, match_path = url.split("/matches/")
        with httpx.Client(base_url=base, timeout=30) as c:
            assert c.get(f"/matches/{match_path}", follow_redirects=False).status_code in (302, 303, 401)
            r = c.post("/api/v1/login", json={"username": "demo", "password": "bgscribe-demo"})
            assert r.status_code == 200, r.text
            page = c.get(f"/matches/{match_path}")
            assert page.status_code == 200 and "adrien75116" in page.text
            doc = c.get(f"/api/v1/matches/{match_path}/transcript").json()
            mat = c.get(f"/api/v1/matches/{match_path}/transcript.mat")
            assert mat.status_code == 200
        record = parse_mat(mat.text)
        assert replay_match(record).problems == []
        assert len(record.games) == 1 and len(record.games[0].actions) >= 40
        assert doc["version"] == 1 and len(doc["open_flags"]) == flags
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
    assert proc.returncode == 0, "".join(lines)[-2000:]


def test_demo_clears_only_its_own_files(tmp_path):
    """The last run's server data always goes, its video with --fresh; nothing else in --out is touched."""
    from bgscribe.demo import clear

    for name in ("data/bgscribe.db", "spool/x.mp4", "capture-agent.log", "board01.mp4", "truth.jsonl",
                 "render.json", "notes.txt", "mine/keep.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    clear(tmp_path, fresh=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board01.mp4", "mine", "notes.txt", "render.json",
                                                          "truth.jsonl"]
    clear(tmp_path, fresh=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "notes.txt"]
