"""Labelled still frames for training: images, YOLO boxes and per-slot counts.

Positions come from random legal games (so they look like play: stacks, blots,
closed boards, bear-offs) and from random layouts; dice, cube, hands, bumps and
light are randomised per image, the board and camera per batch of images.

Output folder::

    images/000123.jpg          the camera frame (JPEG, quality varies)
    labels/000123.txt          YOLO: class cx cy w h (normalised), one box per visible object
    counts.jsonl               per image: slots [[light, dark] x 27], dice (value, cocked, on_checker,
                               board xy in mm), cube, hands, board corners in the image, trays_right
    dataset.yaml               class names for ultralytics
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

from transcriber.generate import GenOptions, random_match
from transcriber.position import Position
from transcriber.replay import replay_match

from .rig import Rig
from .scene import LIGHT, Die, Hand, Scene, slot_counts, stack_under

CLASSES = ["checker_light", "checker_dark"] + [f"die_{v}" for v in range(1, 7)] + \
    [f"cube_{v}" for v in (1, 2, 4, 8, 16, 32, 64)]
CUBE_VALUES = (1, 2, 4, 8, 16, 32, 64)
PER_RIG = 40  # images drawn with one board and camera before a new one is built


def random_positions(rng: np.random.Generator, n: int) -> list[Position]:
    """Positions from random legal games (most) and scattered layouts."""
    out: list[Position] = []
    seed = int(rng.integers(1 << 30))
    while len(out) < n:
        rec = random_match(seed, opts=GenOptions(length=3, double_rate=0.0, resign_rate=0.0))
        seed += 1
        for g in replay_match(rec).games:
            picks = rng.choice(len(g.positions), size=min(len(g.positions), 6), replace=False)
            out += [g.positions[int(k)] for k in picks]
    return out[:n]


def random_scene(rng: np.random.Generator, rig: Rig, position: Position) -> Scene:
    g = rig.geom
    counts = slot_counts(position, rig.seating)
    dice = []
    n_dice = int(rng.choice([0, 1, 2, 2, 2]))
    bottom = bool(rng.random() < 0.5)
    x0, y0, x1, y1 = g.right_half(bottom)
    for _ in range(n_dice):
        x, y = float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))
        h = stack_under(counts, g, x, y)
        dice.append(Die(int(rng.integers(1, 7)), x, y, float(rng.uniform(0, 360)), cocked=bool(rng.random() < 0.05),
                        on_checker=h is not None, z=h or 0.0))
    place = str(rng.choice(["centre", "centre", "top", "bottom", "off"]))
    value = 1 if place == "centre" else int(rng.choice(CUBE_VALUES[1:]))
    place = g.cube_rests(place)  # after the value is drawn: the same draws on every board
    hands = []
    if rng.random() < 0.2:
        hands.append(Hand(float(rng.uniform(-g.width / 2, g.width / 2)),
                          float(rng.uniform(-g.height / 2, g.height / 2)),
                          bool(rng.random() < 0.5), rig.look.skins[0], rig.look.sleeves[0]))
    shift = (float(rng.normal(0, 4)), float(rng.normal(0, 3)), float(rng.normal(0, 0.8))) if rig.profile.tilt else \
        (0.0, 0.0, 0.0)
    shift = tuple(round(v, 1) for v in shift)
    return Scene(counts=counts, dice=tuple(dice), cube_value=value, cube_place=place, hands=tuple(hands),
                 shift=shift, score=(int(rng.integers(0, 7)), int(rng.integers(0, 7))))


def write_stills(out: str | Path, n: int, *, profile: str = "standard", seed: int = 0,
                 size: tuple[int, int] = (1280, 720), progress: bool = True) -> int:
    out = Path(out)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng([seed, 2])
    positions = random_positions(rng, n)
    (out / "dataset.yaml").write_text(
        f"path: {out.resolve()}\ntrain: images\nval: images\nnames:\n"
        + "".join(f"  {i}: {name}\n" for i, name in enumerate(CLASSES)))
    rig: Rig | None = None
    with open(out / "counts.jsonl", "w", encoding="utf-8") as counts_f:
        for i in range(n):
            if i % PER_RIG == 0:
                rig = Rig.build(profile, seed * 100_003 + i // PER_RIG, size)
            assert rig is not None
            scene = random_scene(rng, rig, positions[i])
            lit, drawn = rig.camera_image(scene)
            img = rig.sensor.expose(lit, float(rng.uniform(0, 300)), i)
            quality = int(rng.integers(70, 96))
            name = f"{i:06d}"
            cv2.imwrite(str(out / "images" / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, quality])
            boxes = labels_for(rig, scene, drawn)
            (out / "labels" / f"{name}.txt").write_text(
                "".join(f"{c} {x:.6f} {y:.6f} {w:.6f} {h:.6f}\n" for c, x, y, w, h in boxes))
            counts_f.write(json.dumps({"image": f"images/{name}.jpg", "slots": scene.counts.tolist(),
                                       "dice": [{"value": d.value, "cocked": d.cocked, "on_checker": d.on_checker,
                                                 "xy": [round(d.x, 1), round(d.y, 1)]} for d in scene.dice],
                                       "trays_right": rig.geom.trays_right, "shift": list(scene.shift),
                                       "cube": {"value": scene.cube_value, "place": scene.cube_place},
                                       "hands": bool(scene.hands),
                                       "corners": np.round(rig.corners(scene.shift), 1).tolist()},
                                      sort_keys=True) + "\n")
            if progress and (i % 50 == 0 or i == n - 1):
                sys.stderr.write(f"\rstills {i + 1}/{n}")
                sys.stderr.flush()
    if progress:
        sys.stderr.write("\n")
    return n


def labels_for(rig: Rig, scene: Scene, drawn: dict) -> list[tuple[int, float, float, float, float]]:
    """YOLO boxes of what was drawn, projected into the camera image; objects whose centre a
    hand covers are left out (a detector cannot be asked to see them)."""
    w, h = rig.pose.width, rig.pose.height
    cv = rig.painter.canvas
    hand_mask = rig.painter.hand_mask(scene)

    def box(px: float, py: float, size: float):
        if hand_mask is not None and hand_mask[int(np.clip(py, 0, cv.height - 1)), int(np.clip(px, 0, cv.width - 1))]:
            return None
        r = size / 2
        pts = [((px + dx) / cv.scale + cv.x0, (py + dy) / cv.scale + cv.y0) for dx, dy in
               ((-r, 0), (r, 0), (0, -r), (0, r), (0, 0))]
        uv = rig.to_image(pts, scene.shift)
        u0, v0 = uv[:, 0].min(), uv[:, 1].min()
        u1, v1 = uv[:, 0].max(), uv[:, 1].max()
        u0, v0, u1, v1 = max(u0, 0), max(v0, 0), min(u1, w - 1), min(v1, h - 1)
        if u1 - u0 < 2 or v1 - v0 < 2:
            return None
        return ((u0 + u1) / 2 / w, (v0 + v1) / 2 / h, (u1 - u0) / w, (v1 - v0) / h)

    out = []
    for _slot, colour, px, py, size in drawn["checkers"]:
        b = box(px, py, size)
        if b:
            out.append((0 if colour == LIGHT else 1, *b))
    for die, px, py, size in drawn["dice"]:
        if die.cocked or die.moving:
            continue
        b = box(px, py, size * 0.75)
        if b:
            out.append((1 + die.value, *b))
    if drawn["cube"] is not None and scene.cube_place != "off":
        value, _, px, py, size = drawn["cube"]
        b = box(px, py, size)
        if b:
            out.append((8 + CUBE_VALUES.index(value), *b))
    return out
