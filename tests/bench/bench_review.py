"""Review page server time (JSON figures, not pass/fail).

    python tests/bench/bench_review.py [--repeat 30]

Loads a whole generated 7-point match (every game, `transcriber.generate.random_match`) as a transcript with
a flag on every 8th move, then times, in process through the ASGI test client against real SQLite:
the review page (HTML with both SVG boards and the alternatives), the action API, one edit (compare-and-set,
revision, audit row), and the dashboard. Baseline in the same run: the health endpoint (the framework's
own cost per request). Camera frames are not part of the page yet, so not part of the figure.
Keys to clear a flag are counted by the browser test (test-artifacts/review_keys.json).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from fastapi.testclient import TestClient  # noqa: E402

from review_ui.api.review import load_transcript  # noqa: E402
from review_ui.app import create_app  # noqa: E402
from review_ui.auth import create_user  # noqa: E402
from review_ui.config import Settings  # noqa: E402
from review_ui.services import create_event, create_match, register_board  # noqa: E402
from review_ui.transcripts import doc_from_report  # noqa: E402
from transcriber.generate import random_match  # noqa: E402
from transcriber.record import Move, Resign  # noqa: E402


def report_for(seed: int) -> dict:
    rec = random_match(seed)
    games = []
    n = 0
    for g in rec.games:
        actions = []
        for k, a in enumerate(g.actions, start=1):
            d = {"index": k, "player": a.player, "kind": type(a).__name__.lower(), "alternatives": [], "flags": []}
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


def timed(fn, repeat: int) -> dict:
    fn()  # warm
    xs = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        xs.append((time.perf_counter() - t) * 1000)
    return {"median_ms": round(statistics.median(xs), 2), "max_ms": round(max(xs), 2)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(Settings(data_dir=Path(tmp), purge_interval_seconds=0))
        with TestClient(app) as c:
            report = report_for(args.seed)
            with app.state.db.session() as s:
                ev = create_event(s, "bench")
                b = register_board(s, 1, "t", ev)
                m = create_match(s, ev, b, datetime(2026, 11, 29, 10), ended_at=datetime(2026, 11, 29, 11))
                create_user(s, "bench", "bench-password", "staff")
                load_transcript(s, m, doc_from_report(report), report, None)
                mid = m.id
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
            out = {
                "match": {"length": t["length"], "games": len(t["games"]), "actions": actions,
                          "open_flags": len(t["open_flags"])},
                "baseline_health": timed(lambda: c.get("/api/v1/health"), args.repeat),
                "review_page": page,
                "action_api": timed(lambda: c.get(f"/api/v1/matches/{mid}/transcript/games/{flag['game']}"
                                                  f"/actions/{flag['action']}"), args.repeat),
                "edit": timed(edit, args.repeat),
                "dashboard": timed(lambda: c.get("/"), args.repeat),
                "aim_review_page_ms": 300,
                "frames_included": False,
            }
    keys = ROOT / "test-artifacts" / "review_keys.json"
    if keys.exists():
        out["keys_to_clear_a_flag"] = json.loads(keys.read_text())
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
