"""The simulated overhead camera: pose, lens, and what the sensor does to the picture.

World frame: board millimetres, x right, y towards the bottom player, z *into*
the table (right-handed), so the camera hangs at z = -height. The canonical
top-down image is turned into the camera image by one `cv2.remap` whose maps
fold together the board's pose (including a bump), the camera's pose and the
lens distortion; the maps are rebuilt only when the pose changes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from .draw import Canvas


@dataclass(frozen=True)
class CameraPose:
    width: int = 1280
    height: int = 720
    hfov_deg: float = 62.0
    cam_x: float = 0.0  # camera position above the table, mm (board centre = 0, 0)
    cam_y: float = 0.0
    cam_h: float = 950.0
    tilt_x: float = 0.0  # degrees: rotation about the camera's x (pitch), y (roll), z (yaw)
    tilt_y: float = 0.0
    yaw: float = 0.0
    k1: float = 0.0  # radial distortion
    k2: float = 0.0

    @property
    def K(self) -> np.ndarray:
        f = self.width / 2 / np.tan(np.radians(self.hfov_deg) / 2)
        return np.array([[f, 0, self.width / 2], [0, f, self.height / 2], [0, 0, 1]], np.float64)

    @property
    def dist(self) -> np.ndarray:
        return np.array([self.k1, self.k2, 0, 0, 0], np.float64)

    @property
    def R(self) -> np.ndarray:
        rx, ry, rz = (np.radians(a) for a in (self.tilt_x, self.tilt_y, self.yaw))
        Rx = np.array([[1, 0, 0], [0, np.cos(rx), -np.sin(rx)], [0, np.sin(rx), np.cos(rx)]])
        Ry = np.array([[np.cos(ry), 0, np.sin(ry)], [0, 1, 0], [-np.sin(ry), 0, np.cos(ry)]])
        Rz = np.array([[np.cos(rz), -np.sin(rz), 0], [np.sin(rz), np.cos(rz), 0], [0, 0, 1]])
        return Rz @ Ry @ Rx

    @property
    def centre(self) -> np.ndarray:
        return np.array([self.cam_x, self.cam_y, -self.cam_h], np.float64)

    def with_(self, **kw) -> CameraPose:
        return replace(self, **kw)


def board_to_world(xy: np.ndarray, shift: tuple[float, float, float]) -> np.ndarray:
    """Board coordinates -> table coordinates for a board bumped by (dx, dy, degrees)."""
    dx, dy, deg = shift
    t = np.radians(deg)
    c, s = np.cos(t), np.sin(t)
    xy = np.asarray(xy, np.float64)
    return np.stack([c * xy[..., 0] - s * xy[..., 1] + dx, s * xy[..., 0] + c * xy[..., 1] + dy], -1)


def world_to_board(xy: np.ndarray, shift: tuple[float, float, float]) -> np.ndarray:
    dx, dy, deg = shift
    t = np.radians(-deg)
    c, s = np.cos(t), np.sin(t)
    x, y = xy[..., 0] - dx, xy[..., 1] - dy
    return np.stack([c * x - s * y, s * x + c * y], -1)


def project(pose: CameraPose, xy_board: np.ndarray, shift=(0.0, 0.0, 0.0), z: float = 0.0) -> np.ndarray:
    """Image pixels of board points (on the table, or ``z`` mm above it)."""
    w = board_to_world(np.asarray(xy_board, np.float64).reshape(-1, 2), shift)
    pts = np.concatenate([w, np.full((len(w), 1), -z)], 1)
    R = pose.R
    rvec, _ = cv2.Rodrigues(R)
    tvec = -R @ pose.centre
    img, _ = cv2.projectPoints(pts, rvec, tvec, pose.K, pose.dist)
    return img.reshape(-1, 2)


def table_points(pose: CameraPose) -> np.ndarray:
    """For every camera pixel, the table point (mm) it sees: (h, w, 2). Slow (undistortion);
    computed once per camera pose."""
    w, h = pose.width, pose.height
    uv = np.stack(np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32)), -1).reshape(-1, 1, 2)
    norm = cv2.undistortPoints(uv, pose.K, pose.dist).reshape(-1, 2)
    rays = np.concatenate([norm, np.ones((len(norm), 1))], 1) @ pose.R  # camera -> world directions (R^T d)
    c = pose.centre
    lam = -c[2] / np.where(np.abs(rays[:, 2]) < 1e-9, 1e-9, rays[:, 2])
    return (c[:2] + rays[:, :2] * lam[:, None]).reshape(h, w, 2)


def remap_maps(table: np.ndarray, canvas: Canvas, shift=(0.0, 0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """Where each camera pixel samples the canonical image, for a board bumped by ``shift``
    (fixed-point maps: cv2.remap runs about twice as fast on them)."""
    board = world_to_board(table, shift)
    mx = ((board[..., 0] - canvas.x0) * canvas.scale).astype(np.float32)
    my = ((board[..., 1] - canvas.y0) * canvas.scale).astype(np.float32)
    return cv2.convertMaps(mx, my, cv2.CV_16SC2)


def eye_on_board(pose: CameraPose, shift=(0.0, 0.0, 0.0)) -> tuple[float, float, float]:
    """The camera centre in board coordinates (x, y) and its height: for parallax."""
    b = world_to_board(pose.centre[None, :2], shift)[0]
    return float(b[0]), float(b[1]), float(pose.cam_h)


@dataclass
class Sensor:
    """Light and sensor effects applied to each camera frame."""

    noise_sigma: float = 0.0
    blur_sigma: float = 0.0
    vignette: float = 0.0
    light_field: float = 0.0  # strength of uneven light
    glare: float = 0.0
    exposure_drift: float = 0.0  # relative amplitude of slow gain changes
    wb_drift: float = 0.0

    def prepare(self, width: int, height: int, rng: np.random.Generator) -> None:
        self.rng = rng
        yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
        nx, ny = (xx - width / 2) / (width / 2), (yy - height / 2) / (height / 2)
        gain = 1.0 - self.vignette * (nx**2 + ny**2) / 2
        if self.light_field:
            low = rng.normal(0, 1, (3, 4)).astype(np.float32)
            gain *= 1.0 + self.light_field * cv2.resize(low, (width, height), interpolation=cv2.INTER_CUBIC)
        add = np.zeros((height, width), np.float32)
        if self.glare:
            gx, gy = rng.uniform(0.2, 0.8) * width, rng.uniform(0.2, 0.8) * height
            r = rng.uniform(0.05, 0.15) * width
            add += 255 * self.glare * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * r * r))
        # 8-bit fixed point (gain x 128): cv2.multiply on uint8 is several times faster than float maths
        self.gain = np.repeat(np.clip(gain * 128, 0, 255).astype(np.uint8)[..., None], 3, 2)
        self.add = np.repeat(np.clip(add, 0, 255).astype(np.uint8)[..., None], 3, 2) if self.glare else None
        self.noise = [rng.normal(0, self.noise_sigma, (height, width, 3)).astype(np.int16) for _ in range(6)] \
            if self.noise_sigma > 0 else []
        self.phase = rng.uniform(0, 2 * np.pi, 4)

    def light(self, img: np.ndarray) -> np.ndarray:
        """Static light: uneven illumination, vignette, glare (applied when the picture changes)."""
        out = cv2.multiply(img, self.gain, scale=1 / 128)
        if self.add is not None:
            cv2.add(out, self.add, dst=out)
        if self.blur_sigma > 0.2:
            out = cv2.GaussianBlur(out, (0, 0), self.blur_sigma)
        return out

    def expose(self, img: np.ndarray, t: float, i: int) -> np.ndarray:
        """Per frame: slow exposure and white-balance drift, then sensor noise. The drifted
        picture is reused while the drift stays within half a percent and the picture is the same."""
        if self.exposure_drift or self.wb_drift:
            g = 1.0 + self.exposure_drift * np.sin(t / 37.0 + self.phase[0])
            wb = [1.0 + self.wb_drift * np.sin(t / (23.0 + 7 * k) + self.phase[1 + k]) for k in range(3)]
            q = tuple(int(round(200 * g * w)) for w in wb)
            cached = getattr(self, "_exposed", None)
            if cached is None or cached[0] is not img or cached[1] != q:
                gains = np.array(q, np.float32) / 200
                lut = np.clip(np.arange(256, dtype=np.float32)[:, None] * gains, 0, 255)
                self._exposed = (img, q, cv2.LUT(img, lut.astype(np.uint8).reshape(256, 1, 3)))
            img = self._exposed[2]
        if self.noise:
            img = cv2.add(img, self.noise[i % len(self.noise)], dtype=cv2.CV_8U)
        return img
