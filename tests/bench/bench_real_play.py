"""Real play, end to end (JSON): settled frames of real games made into footage, observed and transcribed.

    python tests/bench/bench_real_play.py [--real ../shared/data/real] [--only seq_F] [--hold 2.0]
                                          [--keep DIR] [--no-adapt]

``../shared/data/real/sequences-wood-board`` holds frames of real play on one pine board (two cameras),
kept when the board had settled, in time order. Our labels of them, by eye and each counted twice
(`tests/data/real_play_labels.json`), give every frame's checkers and dice, and the plays made between them.
Per sequence:

* frames: every labelled frame read as a still with the labelled field (`bgscribe read --field`): points
  with the right count and colour (the two colours up to a swap), counts alone, whole boards, dice; as
  shipped and with the board learnt from the sequence's first frame, the opening (`bgscribe adapt`).
* play: the frames in order made into a video (each held ``--hold`` s, a short cross-fade between: the change
  reads as motion, as a hand's does), observed with the labelled field as a person confirms it
  (`observe --field`, and ``--adapter`` unless --no-adapt), decoded (`bgscribe transcribe`), and the
  transcript's plays aligned with the labelled ones: right, flagged (the transcript asks a person),
  silently wrong (a wrong play not flagged: the figure that matters), missed, extra.
* play after the other game: the same, the observer starting from the board state the other sequence's play
  left (the sequences are games on one board; a match's later games start from what its first taught:
  checker colours, tray end, how big the dice look).

Where frames between two plays were not kept, the labels say the plays were made unseen: the transcript is
expected to flag or miss those (its dice were never on the board); they are counted apart.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import av  # noqa: E402
import cv2  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.bench_real import _counts as _cells  # noqa: E402
from tests.bench.bench_real import read_sequence  # noqa: E402
from transcriber.observation import FrameObservation  # noqa: E402
from transcriber.position import Position  # noqa: E402
from transcriber.transcribe import decode_match  # noqa: E402
from vision.adapt import adapt_to_picture  # noqa: E402
from vision.observe import ObserveOptions, field_on_picture, observe_video  # noqa: E402
from vision.still import read_picture  # noqa: E402

LABELS = Path(os.environ.get("BGSCRIBE_REAL_PLAY_LABELS", ROOT / "tests" / "data" / "real_play_labels.json"))
DEFAULT_REAL = ROOT.parent / "shared" / "data" / "real"
FPS = 10


def labelled_position(frame: dict) -> Position:
    """A labelled frame's position, light as player 0. The pine board's two home boards are on the left:
    light's point p is bottom slot p (1 = leftmost) for p <= 12 and top slot 25 - p above; dark's point q is
    top slot q, and bottom slot 25 - q."""
    light: dict[int, int] = {}
    dark: dict[int, int] = {}
    for row, light_point, dark_point in (("bottom", lambda k: k, lambda k: 25 - k),
                                         ("top", lambda k: 25 - k, lambda k: k)):
        for k, (c, n) in enumerate(_cells(frame[row]), 1):
            if c:
                side, point = (light, light_point(k)) if c == "L" else (dark, dark_point(k))
                side[point] = n
    bar = frame.get("bar") or {}
    for side, c in ((light, "L"), (dark, "D")):
        if bar.get(c):
            side[25] = bar[c]
    return Position.from_points(light, dark)


def frame_figures(read: dict, frame: dict) -> dict:
    """A still's reading against a labelled frame: points right with colour (the reader's two colours up to
    one swap for the board), counts right, the dice's values right (as a multiset)."""
    truth = _cells(frame["top"]) + _cells(frame["bottom"])
    got = _cells(read.get("top") or [""] * 12) + _cells(read.get("bottom") or [""] * 12)
    swapped = [({"L": "D", "D": "L"}.get(c, c), n) for c, n in got]
    colour = max(sum(t == g or (t[1] == g[1] == 0) for t, g in zip(truth, gg)) for gg in (got, swapped))
    counts = sum(t[1] == g[1] for t, g in zip(truth, got))
    dice = sorted(d["value"] for d in read.get("dice", []) if isinstance(d, dict) and d.get("value"))
    return {"points_right": colour, "counts_right": counts, "board_right": colour == 24,
            "dice_right": dice == sorted(frame.get("dice") or [])}


def bench_frames(real: Path, seq: dict, adapter) -> dict:
    tot: dict = {}
    for tag, adp in (("shipped", None), ("adapted", adapter)):
        if tag == "adapted" and adp is None:
            continue
        f = {"points_right": 0, "counts_right": 0, "board_right": 0, "dice_right": 0, "frames": 0, "points": 0,
             "frames_with_dice": 0}
        reads, size = read_sequence(real, seq, adp)
        for fr, read in reads:
            got = frame_figures(read, fr)
            f["frames"] += 1
            f["points"] += 24
            for k in ("points_right", "counts_right", "board_right"):
                f[k] += got[k]
            if fr.get("dice"):
                f["frames_with_dice"] += 1
                f["dice_right"] += got["dice_right"]
        tot[tag] = {"frames": f["frames"], "points": f["points"], "dice_scale": size.scale,
                    "points_right": round(f["points_right"] / max(f["points"], 1), 3),
                    "counts_right": round(f["counts_right"] / max(f["points"], 1), 3),
                    "boards_right": f["board_right"], "frames_with_dice": f["frames_with_dice"],
                    "dice_right": f["dice_right"]}
    return tot


def make_video(real: Path, seq: dict, out: Path, hold: float, hand_hold: float = 0.3,
               fade: float = 0.4) -> list[tuple[str, float, float]]:
    """The sequence's frames in order, each held ``hold`` s with a cross-fade into the next, at FPS frames a
    second and a keyframe a second (as the capture agent records). A frame with a hand over the board
    ("partial") is held ``hand_hold`` s, under the observer's quiet hold: in footage a hand moves. Returns
    (file, start, end) of each hold."""
    frames = sorted(seq["frames"], key=lambda f: f["order"])
    imgs = [cv2.imread(str(real / seq["folder"] / fr["file"])) for fr in frames]
    h, w = imgs[0].shape[:2]
    imgs = [im if im.shape[:2] == (h, w) else cv2.resize(im, (w, h)) for im in imgs]
    spans, t = [], 0.0
    with av.open(str(out), mode="w") as c:
        s = c.add_stream("libx264", rate=Fraction(FPS))
        s.width, s.height, s.pix_fmt = w - w % 2, h - h % 2, "yuv420p"
        s.options = {"preset": "ultrafast", "crf": "20", "g": str(FPS)}

        def put(img):
            vf = av.VideoFrame.from_ndarray(np.ascontiguousarray(img[: s.height, : s.width]), format="bgr24")
            for p in s.encode(vf):
                c.mux(p)

        n_fade = max(1, round(fade * FPS))
        for k, (fr, img) in enumerate(zip(frames, imgs)):
            n_hold = max(1, round((hand_hold if fr.get("partial") else hold) * FPS))
            spans.append((fr["file"], t, t + n_hold / FPS))
            for _ in range(n_hold):
                put(img)
            t += n_hold / FPS
            if k + 1 < len(imgs):
                for j in range(1, n_fade + 1):
                    put(cv2.addWeighted(img, 1 - j / (n_fade + 1), imgs[k + 1], j / (n_fade + 1), 0))
                t += n_fade / FPS
        for p in s.encode():
            c.mux(p)
    return spans


def transcript_plays(doc: dict, light_player: int) -> list[dict]:
    """The transcript's plays in order: colour, dice (high first), play, flagged."""
    out = []
    for g in doc["games"]:
        for a in g["actions"]:
            if a["kind"] != "move":
                continue
            out.append({"player": "L" if a["player"] == light_player else "D",
                        "dice": sorted(a["dice"], reverse=True), "play": a["play"],
                        "flagged": bool(a.get("flags")), "time": a.get("time")})
    return out


def score_plays(labelled: list[dict], got: list[dict]) -> dict:
    """Align the transcript's plays with the labelled ones (by colour, dice and play; difflib's longest
    matching blocks), then count: right, right but flagged, wrong and flagged, silently wrong, missed, extra
    (flagged or not). A labelled play not ``sure`` (begun as the footage ends) is not asked for."""
    labelled = [p for p in labelled if p.get("sure", True)]
    key = [(p["player"], tuple(sorted(p["dice"], reverse=True)), p["play"]) for p in labelled]
    gkey = [(p["player"], tuple(p["dice"]), p["play"]) for p in got]
    sm = difflib.SequenceMatcher(a=key, b=gkey, autojunk=False)
    f = {"labelled": len(key), "transcribed": len(gkey), "right": 0, "right_flagged": 0, "wrong_flagged": 0,
         "silent_errors": 0, "missed": 0, "extra": 0, "extra_unflagged": 0, "silent": []}
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            f["right"] += i2 - i1
            f["right_flagged"] += sum(got[j]["flagged"] for j in range(j1, j2))
            continue
        pairs = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for k in range(pairs):
            g = got[j1 + k]
            if g["flagged"]:
                f["wrong_flagged"] += 1
            else:
                f["silent_errors"] += 1
                f["silent"].append({"labelled": labelled[i1 + k], "transcribed": g})
        f["missed"] += (i2 - i1) - pairs
        f["extra"] += (j2 - j1) - pairs
        f["extra_unflagged"] += sum(not got[j]["flagged"] for j in range(j1 + pairs, j2))
    return f


def bench_play(real: Path, seq: dict, adapter, hold: float, work: Path, keep: bool,
               state_from: Path | None = None) -> tuple[dict, Path]:
    """The sequence as footage in ``work``, observed and transcribed: its figures, and the board state the observer
    left (``state_from``: a board state to start from, what an earlier game on this board taught); ``keep``: the
    report and the frames' spans written beside them."""
    work.mkdir(parents=True, exist_ok=True)
    video, obs, state = work / "play.mp4", work / "play.jsonl", work / "board-state.json"
    state.unlink(missing_ok=True)
    if state_from is not None:
        shutil.copyfile(state_from, state)
    spans = make_video(real, seq, video, hold)
    first = cv2.imread(str(real / seq["folder"] / sorted(seq["frames"], key=lambda f: f["order"])[0]["file"]))
    field, profile = field_on_picture(first, np.array(seq["field"], np.float64))
    t0 = time.perf_counter()
    stats = observe_video(video, obs, ObserveOptions(field=field, profile=profile, adapter=adapter), progress=False,
                          board_state=state)
    observations = [FrameObservation.from_json(x) for x in obs.read_text().splitlines()]
    try:
        _, doc = decode_match(observations, ("Light", "Dark"), 0, "bmab", True, str(video))
    except ValueError as e:  # nothing quiet was read
        return {"error": str(e), "frames": len(spans)}, state
    wall = time.perf_counter() - t0
    got = transcript_plays(doc, light_player=0)
    f = score_plays(seq["plays"], got)
    unseen = [p for p in seq["plays"] if not p.get("dice_seen", True)]
    out = {"frames": len(spans), "footage_s": round(spans[-1][2], 1), "seconds": round(wall, 1),
           "reads": stats["reads"], "flags": len(doc["flags"]),
           "flag_reasons": sorted({fl["reason"] for fl in doc["flags"]}), "plays_unseen_dice": len(unseen)}
    out.update(f)
    if keep:
        (work / "report.json").write_text(json.dumps(doc, indent=1))
        (work / "spans.json").write_text(json.dumps(spans))
    return out, state


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--real", type=Path, default=DEFAULT_REAL, help="the real pictures (default: %(default)s)")
    ap.add_argument("--only", help="one sequence (a key of the labels' sequences: seq_F, seq_G)")
    ap.add_argument("--hold", type=float, default=2.0, help="seconds each settled frame is held (default: "
                    "%(default)s)")
    ap.add_argument("--keep", type=Path, help="keep each sequence's video, observations and report here")
    ap.add_argument("--no-adapt", action="store_true", help="observe with the shipped readers only")
    args = ap.parse_args()
    if not (args.real / "sequences-wood-board").is_dir():
        print(json.dumps({"benchmark": "real_play", "skipped": f"no real sequences at {args.real}"}))
        return
    with tempfile.TemporaryDirectory(prefix="bgscribe-realplay-") as tmp:  # 15 MB of footage a run: not left behind
        print(json.dumps(run(args, args.keep or Path(tmp)), indent=1))


def run(args, base: Path) -> dict:
    """The figures, each sequence's footage, observations and board state made under ``base``."""
    seqs = json.loads(LABELS.read_text())["sequences"]
    out: dict = {"benchmark": "real_play", "hold_s": args.hold}
    names = [n for n in seqs if not args.only or n == args.only]
    adapters, states = {}, {}
    for name in names:
        seq = seqs[name]
        opening = sorted(seq["frames"], key=lambda f: f["order"])[0]
        img = cv2.imread(str(args.real / seq["folder"] / opening["file"]))
        r = read_picture(img, np.array(seq["field"], np.float64))
        adapters[name] = adapt_to_picture(img, r.corners, r.fit.geometry(), opening["top"], opening["bottom"])
        res = {"frames": bench_frames(args.real, seq, adapters[name])}
        for tag, adp in (("shipped", None),) + (() if args.no_adapt else (("adapted", adapters[name]),)):
            res[f"play_{tag}"], states[name, tag] = bench_play(
                args.real, seq, adp, args.hold, base / f"{name}-{tag}", bool(args.keep))
        out[name] = res
    # The sequences are games on one board: each again, starting from what the other game taught the observer
    # (its board state: checker colours, tray end, how big the dice look), as a match's later games start.
    tag = "shipped" if args.no_adapt else "adapted"
    for name in names:
        other = next((o for o in names if o != name), None)
        if other is not None:
            out[name][f"play_{tag}_after_{other}"], _ = bench_play(
                args.real, seqs[name], adapters[name] if tag == "adapted" else None, args.hold,
                base / f"{name}-{tag}-after-{other}", bool(args.keep), state_from=states[other, tag])
    return out


if __name__ == "__main__":
    main()
