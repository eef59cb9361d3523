"""Render profiles: how good the camera, light and players' manners are.

`clean`: a perfect camera straight overhead (for tests and debugging).
`standard`: what a decent tournament set-up gives. `hard`: a poor camera, bad light,
knocks and spectators. Every quantity is drawn from the profile's range per seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..geometry import BoardGeometry
from .camera import CameraPose, Sensor, project
from .timeline import Pacing


@dataclass(frozen=True)
class RenderProfile:
    name: str
    tilt: float  # max degrees off vertical
    offset: float  # max mm off centre
    k1: tuple[float, float]
    noise: tuple[float, float]
    blur: tuple[float, float]
    vignette: tuple[float, float]
    light_field: tuple[float, float]
    glare: tuple[float, float]
    exposure_drift: float
    wb_drift: float
    style_jitter: float
    crf: int
    cocked_rate: float
    bump_rate: float
    spectator_rate: float


PROFILES: dict[str, RenderProfile] = {
    "clean": RenderProfile("clean", 0.0, 0.0, (0.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0),
                           (0.0, 0.0), 0.0, 0.0, 0.3, 18, 0.0, 0.0, 0.0),
    "standard": RenderProfile("standard", 3.0, 40.0, (-0.12, 0.0), (1.5, 3.5), (0.0, 0.7), (0.1, 0.3),
                              (0.02, 0.08), (0.0, 0.15), 0.04, 0.02, 1.0, 23, 0.02, 0.004, 0.005),
    "hard": RenderProfile("hard", 7.0, 100.0, (-0.25, 0.05), (4.0, 8.0), (0.5, 1.4), (0.3, 0.5),
                          (0.08, 0.18), (0.15, 0.4), 0.10, 0.05, 1.0, 30, 0.05, 0.03, 0.03),
}


def camera_for(profile: RenderProfile, geom: BoardGeometry, size: tuple[int, int], rng: np.random.Generator,
               ) -> CameraPose:
    """A camera that sees the board with the clock and scoreboard beside it, posed per the profile.

    Poses are drawn until the whole board is in the picture: a set-up check (the hardware
    guide's) would reject a camera that cuts the board off."""
    w, h = size
    for attempt in range(60):
        spread = 1.0 if attempt < 30 else 0.5  # be gentler if the profile's extremes keep failing
        pose = _draw_pose(profile, geom, size, rng, spread)
        corners = project(pose, geom.corners())
        if (corners[:, 0].min() > 0.01 * w and corners[:, 0].max() < 0.99 * w and corners[:, 1].min() > 0.01 * h
                and corners[:, 1].max() < 0.99 * h):
            return pose
    return _draw_pose(profile, geom, size, rng, 0.0)


def _draw_pose(profile: RenderProfile, geom: BoardGeometry, size: tuple[int, int], rng: np.random.Generator,
               spread: float) -> CameraPose:
    w, h = size
    hfov = float(rng.uniform(56, 70)) if profile.tilt else 62.0
    half_span = geom.width * 1.5 / 2
    cam_h = half_span / np.tan(np.radians(hfov) / 2) * float(rng.uniform(1.0, 1.12) if profile.tilt else 1.05)

    def u(a: float) -> float:
        return float(rng.uniform(-a, a)) * spread if a else 0.0

    return CameraPose(width=w, height=h, hfov_deg=hfov, cam_x=u(profile.offset), cam_y=u(profile.offset * 0.6),
                      cam_h=float(cam_h), tilt_x=u(profile.tilt), tilt_y=u(profile.tilt), yaw=u(profile.tilt),
                      k1=float(rng.uniform(*profile.k1)), k2=0.0)


def sensor_for(profile: RenderProfile, rng: np.random.Generator) -> Sensor:
    def r(pair: tuple[float, float]) -> float:
        return float(rng.uniform(*pair)) if pair[1] > pair[0] else pair[0]

    return Sensor(noise_sigma=r(profile.noise), blur_sigma=r(profile.blur), vignette=r(profile.vignette),
                  light_field=r(profile.light_field), glare=r(profile.glare),
                  exposure_drift=profile.exposure_drift, wb_drift=profile.wb_drift)


def pacing_for(profile: RenderProfile) -> Pacing:
    return Pacing(cocked_rate=profile.cocked_rate, bump_rate=profile.bump_rate,
                  spectator_rate=profile.spectator_rate)
