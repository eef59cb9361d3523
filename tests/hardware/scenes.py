"""Rendered boards under a simulated camera, and the faults a bad set-up adds (for the camera-check tests)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.synth.camera import eye_on_board
from vision.synth.rig import Rig
from vision.train.readers_data import sample_scene

SIZE = (1280, 720)
GOOD_SEED = 60_009  # a standard-profile rig whose board sits well inside the picture


def board_frames(seed: int = GOOD_SEED, n: int = 8, size: tuple[int, int] = SIZE, **pose) -> tuple[Rig, list]:
    """``n`` frames (BGR) of one quiet board, sensor noise varying per frame; ``pose`` changes the camera
    (e.g. ``cam_x=+250`` moves it 25 cm to the right, ``cam_h=...``)."""
    rig = Rig.build("standard", seed, size)
    if pose:
        rig.pose = rig.pose.with_(**{k: getattr(rig.pose, k) + v if k in ("cam_x", "cam_y") else v
                                     for k, v in pose.items()})
        rig.painter.eye = eye_on_board(rig.pose)
    rng = np.random.default_rng(seed)
    scene = sample_scene(rng, rig, max_dice=2, cocked_rate=0.0).with_(shift=(0.0, 0.0, 0.0))
    lit, _ = rig.camera_image(scene)
    return rig, [rig.sensor.expose(lit, i / 15, i) for i in range(n)]


def blurred(frames: list, sigma: float = 2.5) -> list:
    return [cv2.GaussianBlur(f, (0, 0), sigma) for f in frames]


def dark(frames: list, gain: float = 0.25) -> list:
    return [cv2.convertScaleAbs(f, alpha=gain) for f in frames]


def glared(frames: list, rig: Rig, board_xy=(170.0, 0.0), sigma_px: float = 60.0, peak: float = 420.0) -> list:
    """A lamp's reflection: a bright blob over board point ``board_xy`` (mm; +x is the right half)."""
    u, v = rig.to_image([board_xy])[0]
    h, w = frames[0].shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    blob = peak * np.exp(-((xx - u) ** 2 + (yy - v) ** 2) / (2 * sigma_px**2))
    return [np.clip(f.astype(np.float32) + blob[..., None], 0, 255).astype(np.uint8) for f in frames]
