"""One simulated table: board, style, seating, camera and sensor, all drawn from a seed."""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from ..geometry import BoardGeometry, Seating
from .camera import CameraPose, Sensor, eye_on_board, project, remap_maps, table_points
from .draw import BoardPainter, Canvas
from .profiles import PROFILES, RenderProfile, camera_for, sensor_for
from .scene import Appearance, Scene
from .style import RANDOM, SCHEMES, random_style, randomize


@dataclass
class Rig:
    profile: RenderProfile
    geom: BoardGeometry
    seating: Seating
    pose: CameraPose
    sensor: Sensor
    painter: BoardPainter
    look: Appearance
    scheme: str
    _maps: dict = field(default_factory=dict)
    _table: np.ndarray | None = None

    @classmethod
    def build(cls, profile: str, seed: int, size: tuple[int, int] = (1280, 720),
              schemes: list[str] | None = None, shape: dict | None = None, die_size: float = 16.0) -> Rig:
        """``shape``: the board's own dimensions where they differ from the default board's (BoardGeometry
        fields in mm, e.g. ``{"bar_w": 25.0, "point_len": 170.0}``: real boards' bars and points vary);
        ``die_size``: the dice's side, mm (real dice are 12-16 mm; drawn from no random number)."""
        prof = PROFILES[profile]
        rng = np.random.default_rng(seed)
        names = schemes or sorted(SCHEMES)
        scheme = names[int(rng.integers(len(names)))]
        home_right = bool(rng.random() < 0.5)
        geom = BoardGeometry(trays_right=home_right, checker_d=float(rng.uniform(36, 40)) if prof.tilt else 38.0,
                             die_size=die_size, **(shape or {}))
        seating = Seating(p0_bottom=bool(rng.random() < 0.5), home_right=home_right, p0_light=bool(rng.random() < 0.5))
        style = random_style(rng) if scheme == RANDOM else randomize(SCHEMES[scheme], rng, prof.style_jitter)
        pose = camera_for(prof, geom, size, rng)
        scale = 1.25 * pose.K[0, 0] / pose.cam_h
        canvas = Canvas.around(geom, scale)
        clock_left = bool(rng.random() < 0.5)
        painter = BoardPainter(geom, style, canvas, rng, clock_left=clock_left)
        painter.eye = eye_on_board(pose)
        sensor = sensor_for(prof, rng)
        sensor.prepare(size[0], size[1], rng)
        look = Appearance.random(rng)
        return cls(prof, geom, seating, pose, sensor, painter, look, scheme)

    @property
    def clock_x(self) -> float:
        x0, _, x1, _ = self.painter._clock_rect
        return (x0 + x1) / 2

    def camera_image(self, scene: Scene) -> tuple[np.ndarray, dict]:
        """The lit camera image of a scene (before per-frame exposure and noise)."""
        if scene.shift not in self._maps:
            if self._table is None:
                self._table = table_points(self.pose)
            if len(self._maps) > 4:
                self._maps.clear()
            self._maps[scene.shift] = remap_maps(self._table, self.painter.canvas, scene.shift)
            self.painter.eye = eye_on_board(self.pose, scene.shift)
        canonical, drawn = self.painter.paint(scene, self.look.jitter)
        m1, m2 = self._maps[scene.shift]
        img = cv2.remap(canonical, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return self.sensor.light(img), drawn

    def to_image(self, xy, shift=(0.0, 0.0, 0.0), z: float = 0.0) -> np.ndarray:
        return project(self.pose, np.asarray(xy, np.float64).reshape(-1, 2), shift, z)

    def corners(self, shift=(0.0, 0.0, 0.0)) -> np.ndarray:
        return self.to_image(self.geom.corners(), shift)

    def describe(self) -> dict:
        p = self.pose
        return {"profile": self.profile.name, "scheme": self.scheme,
                "seating": {"p0_bottom": self.seating.p0_bottom, "home_right": self.seating.home_right,
                            "p0_light": self.seating.p0_light},
                "camera": {"width": p.width, "height": p.height, "hfov_deg": round(p.hfov_deg, 2),
                           "height_mm": round(p.cam_h, 1), "tilt": [round(p.tilt_x, 2), round(p.tilt_y, 2),
                                                                    round(p.yaw, 2)], "k1": round(p.k1, 4)},
                "geometry": {"width_mm": round(self.geom.width, 1), "height_mm": round(self.geom.height, 1),
                             "checker_d_mm": round(self.geom.checker_d, 2), "trays_right": self.geom.trays_right}}
