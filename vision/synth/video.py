"""Render a whole match as H.264 footage with a JSON Lines truth file.

Truth schema (one JSON object per line, keys sorted; times in seconds from the
start of the video; image coordinates in pixels of the video frame):

- ``{"type": "header", "schema": 1, "fps", "size": [w, h], "seed", "rig": {...},
  "players": [p0, p1], "length", "meta": {...}, "seating": {...}}`` — first line.
- ``{"type": "event", "t", "kind", "game", "move", "player"?, ...}`` — kinds:
  ``game_start``, ``opening_tie``, ``roll`` (``dice``, ``placed``, ``opening``?),
  ``reroll`` (``reason``: cocked / on_checker), ``play`` (``play`` notation, ``steps``,
  ``t_start``), ``double`` / ``take`` (``cube``, ``place``), ``drop``, ``resign``
  (``value``), ``timeout``, ``clock``, ``bump`` (``shift``), ``game_end`` (``points``,
  ``ending``, ``score``). Events precede the frame at or after their time.
- ``{"type": "frame", "i", "t", "game", "move", "slots", "position", "dice", "cube",
  "hands", "corners"}`` — ``slots``: 27 [light, dark] counts per physical slot
  (24 points, bar, top tray, bottom tray; see vision.geometry); ``position``: the
  settled position as the 26 characters of an XGID (record player 0 upper case);
  ``dice``: value, cocked, on_checker, moving, ``uv`` image centre, ``xy`` board mm; ``cube``: value,
  place (centre/top/bottom/off), ``uv``; ``hands``: whether any hand or arm is over
  the picture; ``corners``: the board's outer corners (TL, TR, BR, BL) in the image.
"""

from __future__ import annotations

import contextlib
import json
import math
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import cv2
import numpy as np

from transcriber.ids import XgState, xgid
from transcriber.record import PROFILES as RULES
from transcriber.record import MatchRecord

from .profiles import pacing_for
from .rig import Rig
from .scene import Scene, end_cube_place
from .timeline import Director, Pacing


@dataclass
class RenderStats:
    frames: int
    seconds: float  # of footage
    rendered: int  # frames that needed a new picture (the rest reused one and re-exposed it)
    events: int


def plan(record: MatchRecord, rig: Rig, seed: int, rules: str = "bmab", games: int | None = None,
         pacing: Pacing | None = None, cube_ends: bool = False) -> Director:
    rng = np.random.default_rng([seed, 1])
    rules_profile = RULES[rules]
    if pacing is None:
        pacing = pacing_for(rig.profile)
        pacing.own_dice = bool(rng.random() < 0.7)  # most events: each player has a pair
    director = Director(record, rig.seating, rig.geom, rng, rules_profile, rig.look, pacing, games=games,
                        clock_x=rig.clock_x, cube_ends=cube_ends)
    director.run()
    return director


def render_match(record: MatchRecord, out: str | Path | None, truth: str | Path | None = None, *,
                 profile: str = "standard",
                 seed: int = 0, fps: float = 15.0, size: tuple[int, int] = (1280, 720), games: int | None = None,
                 rules: str = "bmab", progress: bool = True, schemes: list[str] | None = None,
                 until_s: float | None = None, cube_ends: bool = False) -> RenderStats:
    """Film ``record`` played on a simulated board; ``schemes``: the board's look is drawn from these
    (default: every named scheme; see `vision.synth.style`); ``until_s``: only the first seconds of it;
    ``cube_ends``: the players keep the cube in the tray end's middle, not on the bar (`Director`). ``out``
    None: the truth alone, the same as with the video (nothing drawn or encoded: the decoder's tests and tools
    read only the truth, and drawing is most of the cost)."""
    rig = Rig.build(profile, seed, size, schemes=schemes)
    director = plan(record, rig, seed, rules, games, cube_ends=cube_ends)
    duration = director.t if until_s is None else min(director.t, until_s)
    n = int(math.ceil(duration * fps))
    with contextlib.ExitStack() as stack:
        container = stream = None
        if out is not None:
            out = Path(out)
            out.parent.mkdir(parents=True, exist_ok=True)
            container = av.open(str(out), mode="w")
            stack.callback(container.close)
            stream = container.add_stream("libx264", rate=Fraction(fps).limit_denominator(1001))
            stream.width, stream.height = size
            stream.pix_fmt = "yuv420p"
            # a keyframe a second, as capture agents record (capture/recorder.py)
            stream.options = {"preset": "ultrafast", "crf": str(rig.profile.crf), "g": str(max(1, round(fps)))}
        truth_f = stack.enter_context(open(truth, "w", encoding="utf-8")) if truth else None
        if truth_f:
            header = {"type": "header", "schema": 1, "fps": fps, "size": list(size), "seed": seed,
                      "rig": rig.describe(), "players": list(record.players), "length": record.length,
                      "meta": record.meta, "rules": rules, "duration": round(duration, 3), "frames": n}
            truth_f.write(json.dumps(header, sort_keys=True) + "\n")
        rendered = _loop(director, rig, container, stream, truth_f, n, fps, progress)
        if stream is not None:
            for packet in stream.encode():
                container.mux(packet)
    return RenderStats(n, duration, rendered, len(director.events))


def _loop(director: Director, rig: Rig, container, stream, truth_f, n: int, fps: float, progress: bool) -> int:
    shots, events = director.shots, director.events
    si = ei = 0
    last_key = None
    lit = None
    drawn = None
    rendered = 0
    corners_cache: dict = {}
    report_every = max(1, n // 50)
    for i in range(n):
        t = i / fps
        while si + 1 < len(shots) and shots[si + 1].t0 <= t:
            si += 1
        shot = shots[si]
        clock, running = director.clock.at(t)
        scene = shot.scene_at(t).with_(clock=clock, clock_running=running)
        key = scene.key()
        if key != last_key:
            if stream is not None:
                lit, drawn = rig.camera_image(scene)
            last_key = key
            rendered += 1
        if stream is not None:
            frame = rig.sensor.expose(lit, t, i)
            vf = av.VideoFrame.from_ndarray(cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420), format="yuv420p")
            for packet in stream.encode(vf):
                container.mux(packet)
        if truth_f:
            while ei < len(events) and events[ei].t <= t:
                truth_f.write(json.dumps(events[ei].as_dict(), sort_keys=True) + "\n")
                ei += 1
            truth_f.write(json.dumps(_frame_truth(i, t, shot, scene, rig, director, corners_cache),
                                     sort_keys=True) + "\n")
        if progress and (i % report_every == 0 or i == n - 1):
            sys.stderr.write(f"\rrendering {i + 1}/{n} frames ({100 * (i + 1) / n:.0f}%)")
            sys.stderr.flush()
    if truth_f:
        for e in events[ei:]:
            truth_f.write(json.dumps(e.as_dict(), sort_keys=True) + "\n")
    if progress:
        sys.stderr.write("\n")
    return rendered


def _frame_truth(i: int, t: float, shot, scene: Scene, rig: Rig, director: Director, corners_cache: dict) -> dict:
    shift = scene.shift
    if shift not in corners_cache:
        corners_cache[shift] = [[round(float(u), 1), round(float(v), 1)] for u, v in rig.corners(shift)]
    dice = []
    for d in scene.dice:
        (u, v), = rig.to_image([(d.x, d.y)], shift, d.z + rig.geom.die_size)
        dice.append({"value": d.value, "cocked": d.cocked, "on_checker": d.on_checker, "moving": d.moving,
                     "uv": [round(float(u), 1), round(float(v), 1)], "xy": [round(d.x, 1), round(d.y, 1)]})
    end = scene.cube_place == "end"
    cx, cy = scene.cube_pose(rig.geom)[:2]
    (cu, cv), = rig.to_image([(cx, cy)], shift, rig.geom.cube_size)
    place = end_cube_place(scene.cube_value, cy) if end else scene.cube_place  # (as the reader places it)
    return {"type": "frame", "i": i, "t": round(t, 3), "game": shot.game, "move": shot.move,
            "slots": scene.counts.tolist(), "position": xgid(XgState(director.position_at(t))).split(":")[0][5:],
            "dice": dice, "cube": {"value": scene.cube_value, "place": place, "frame": end,
                                   "uv": [round(float(cu), 1), round(float(cv), 1)]},
            "hands": bool(scene.hands), "corners": corners_cache[shift]}
