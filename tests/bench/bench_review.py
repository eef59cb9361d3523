"""Review page server time (JSON figures, not pass/fail).

    python tests/bench/bench_review.py [--repeat 30]

Loads a whole generated 7-point match (every game, `transcriber.generate.random_match`) as a transcript with
a flag on every 8th move, and a real footage segment (60 s of 1280x720 at 15 fps, H.264 in fragmented MP4 written
by capture's own recorder: a still textured board with a moving "hand", uploaded through the ingest API; the
match's action times are spread over it). Then times, in process through the ASGI test client against real
SQLite: the review page (HTML with both SVG boards, the alternatives and the camera frame's placement), the camera
frame at a flag's time decoded from the segment (cold: a time not decoded before; cached: the same again), the
page and its cold frame together (the aim: < 300 ms), a 1 MB range of the clip, the action API, one edit
(compare-and-set, revision, audit row), and the dashboard (24 boards, one match each). Baselines in the same run:
the health endpoint (the framework's own cost per request) and PyAV alone decoding the same frames from the file.
Keys to clear a flag are counted by the browser test (test-artifacts/review_keys.json).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from fastapi.testclient import TestClient  # noqa: E402

from capture.recorder import EncoderSettings, SegmentWriter  # noqa: E402
from review_ui.api.review import load_transcript  # noqa: E402
from review_ui.app import create_app  # noqa: E402
from review_ui.auth import create_user  # noqa: E402
from review_ui.config import Settings  # noqa: E402
from review_ui.footage_frames import _decode  # noqa: E402
from review_ui.services import create_event, create_match, register_board  # noqa: E402
from review_ui.transcripts import doc_from_report  # noqa: E402
from transcriber.generate import random_match  # noqa: E402
from transcriber.record import Move, Resign  # noqa: E402

FOOTAGE_SECONDS = 60
START = datetime(2026, 11, 29, 10)


def report_for(seed: int) -> dict:
    rec = random_match(seed)
    games = []
    n = 0
    total = sum(len(g.actions) for g in rec.games)
    k_all = 0
    for g in rec.games:
        actions = []
        for k, a in enumerate(g.actions, start=1):
            k_all += 1
            d = {"index": k, "player": a.player, "kind": type(a).__name__.lower(), "alternatives": [], "flags": [],
                 "time": round(2.0 + (FOOTAGE_SECONDS - 4.0) * k_all / total, 1)}
            if isinstance(a, Move):
                n += 1
                d.update(dice=list(a.dice), play=a.play or "Cannot Move")
                if n % 8 == 0:
                    d["flags"] = [{"reason": "dice_unclear", "message": "bench flag"}]
                    d["alternatives"] = [f"dice {a.dice[1]}{a.dice[0] % 6 + 1}"]
            if isinstance(a, Resign):
                d["value"] = a.value
            actions.append(d)
        games.append({"number": g.number, "score": list(g.score), "winner": g.winner, "points": g.points,
                      "actions": actions})
    return {"players": list(rec.players), "length": rec.length, "games": games, "flags": []}


def write_footage(folder: Path) -> Path:
    """60 s of a still, textured board with a hand moving over it, recorded by capture's SegmentWriter."""
    import av
    import cv2
    import numpy as np

    rng = np.random.default_rng(0)
    board = cv2.GaussianBlur(rng.integers(60, 200, (720, 1280, 3), dtype=np.uint8), (0, 0), 3)
    for x in range(140, 1140, 80):
        cv2.rectangle(board, (x, 80), (x + 60, 640), (40, 40, 160) if x % 160 else (200, 200, 200), -1)
    t0 = START.replace(tzinfo=UTC).timestamp()
    fps = 15
    w = SegmentWriter(folder, 1, t0, EncoderSettings(fps=fps, keyframe_interval=1.0), 1280, 720, "yuv420p")
    for k in range(FOOTAGE_SECONDS * fps):
        img = board.copy()
        cx = int(640 + 400 * np.sin(k / 20))
        cv2.circle(img, (cx, 360), 90, (150, 180, 220), -1)
        w.add(av.VideoFrame.from_ndarray(img, format="bgr24"), t0 + k / fps)
    m = w.close("length")
    return folder / f"{m.segment_id}.mp4"


BOARD_TOKEN = "bench-board-token-1"  # the server refuses tokens under 16 characters


def upload_footage(c: TestClient, path: Path, token: str) -> None:
    manifest = json.loads(path.with_suffix(".json").read_text())
    h = {"Authorization": f"Bearer {token}"}
    base = "/api/v1/ingest/boards/1/segments"
    assert c.post(base, json=manifest, headers=h).status_code == 200
    assert c.put(f"{base}/{manifest['segment_id']}/data", params={"offset": 0}, content=path.read_bytes(),
                 headers=h).status_code == 200
    r = c.post(f"{base}/{manifest['segment_id']}/complete", headers=h)
    assert r.status_code == 200, r.text


def timed(fn, repeat: int) -> dict:
    fn()  # warm
    xs = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        xs.append((time.perf_counter() - t) * 1000)
    return {"median_ms": round(statistics.median(xs), 2), "max_ms": round(max(xs), 2)}


def flag_time(t: dict, flag: dict) -> float:
    return t["games"][flag["game"] - 1]["actions"][flag["action"] - 1]["time"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp) / "data", purge_interval_seconds=0)
        if "pipeline" in Settings.model_fields:
            settings.pipeline = False  # the background worker would transcribe the bench's footage meanwhile
        app = create_app(settings)
        t = time.perf_counter()
        video = write_footage(Path(tmp) / "agent")
        record_s = time.perf_counter() - t
        with TestClient(app) as c:
            report = report_for(args.seed)
            with app.state.db.session() as s:
                ev = create_event(s, "bench")
                b = register_board(s, 1, BOARD_TOKEN, ev)
                m = create_match(s, ev, b, START, ended_at=datetime(2026, 11, 29, 11))
                for n in range(2, 25):  # the rest of a 24-board room, one match each
                    create_match(s, ev, register_board(s, n, f"{BOARD_TOKEN}-{n}", ev), START, f"A{n}", f"B{n}")
                create_user(s, "bench", "bench-password", "staff")
                load_transcript(s, m, doc_from_report(report), report, None)
                s.commit()
                mid = m.id
            upload_footage(c, video, BOARD_TOKEN)
            r = c.post("/api/v1/login", json={"username": "bench", "password": "bench-password"})
            h = {"X-CSRF-Token": r.json()["csrf_token"]}
            t = c.get(f"/api/v1/matches/{mid}/transcript").json()
            flag = t["open_flags"][0]
            actions = sum(len(g["actions"]) for g in t["games"])
            state = {"v": t["version"]}

            def edit():
                r = c.post(f"/api/v1/matches/{mid}/transcript/edits", headers=h,
                           json={"version": state["v"], "op": "set_players", "players": ["A", f"B{state['v']}"]})
                state["v"] = r.json()["version"]

            page = timed(lambda: c.get(f"/matches/{mid}?g={flag['game']}&a={flag['action']}"), args.repeat)
            assert 'id="frame"' in c.get(f"/matches/{mid}?g={flag['game']}&a={flag['action']}").text
            ft = float(flag_time(t, flag))
            cold_ts = iter([round(0.5 + i * 0.37, 2) % (FOOTAGE_SECONDS - 1) for i in range(1, 10 * args.repeat)])

            def frame_cold():
                r = c.get(f"/api/v1/matches/{mid}/frame.jpg", params={"t": next(cold_ts)})
                assert r.status_code == 200, r.text

            frame_c = timed(frame_cold, args.repeat)
            cold_again = iter([round(0.5 + i * 0.37, 2) % (FOOTAGE_SECONDS - 1) for i in range(1, 10 * args.repeat)])
            pyav = timed(lambda: _decode(str(video), next(cold_again)), args.repeat)
            frame_hot = timed(lambda: c.get(f"/api/v1/matches/{mid}/frame.jpg", params={"t": ft}), args.repeat)
            seg_row = c.get(f"/api/v1/matches/{mid}/footage", params={"t": ft}).json()["segment_row_id"]
            clip = timed(lambda: c.get(f"/api/v1/matches/{mid}/segments/{seg_row}.mp4",
                                       headers={"Range": "bytes=0-1048575"}), args.repeat)
            out = {
                "match": {"length": t["length"], "games": len(t["games"]), "actions": actions,
                          "open_flags": len(t["open_flags"])},
                "baseline_health": timed(lambda: c.get("/api/v1/health"), args.repeat),
                "review_page": page,
                "action_api": timed(lambda: c.get(f"/api/v1/matches/{mid}/transcript/games/{flag['game']}"
                                                  f"/actions/{flag['action']}"), args.repeat),
                "edit": timed(edit, args.repeat),
                "dashboard_24_boards": timed(lambda: c.get("/"), args.repeat),
                "frame_cold": frame_c,
                "frame_cached": frame_hot,
                "baseline_pyav_decode_only": pyav,
                "page_plus_cold_frame_median_ms": round(page["median_ms"] + frame_c["median_ms"], 2),
                "clip_range_1mb": clip,
                "footage": {"seconds": FOOTAGE_SECONDS, "size": "1280x720", "fps": 15,
                            "segment_bytes": video.stat().st_size, "recorded_in_s": round(record_s, 1)},
                "aim_review_page_ms": 300,
                "frames_included": True,
            }
    keys = ROOT / "test-artifacts" / "review_keys.json"
    if keys.exists():
        out["keys_to_clear_a_flag"] = json.loads(keys.read_text())
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
