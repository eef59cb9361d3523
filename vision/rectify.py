"""From camera frames to the canonical top-down board, and crops of each physical slot.

The rectified board is the board's outer rectangle seen straight from above at
`SCALE` pixels per millimetre, its top-left corner at (0, 0): the same picture
whatever camera, pose or bump produced the frame. Slot crops cut it into the
pieces the readers look at: each of the 24 points as an upright strip with its
base at the bottom (checkers stack upwards in the crop), the bar, and the trays.
"""

from __future__ import annotations

import cv2
import numpy as np

from .geometry import BAR_SLOT, END_MM, TRAY_BOTTOM, TRAY_TOP, BoardGeometry

SCALE = 1.5  # px per mm of the rectified board
POINT_CROP = (48, 192)  # width, height of a point crop (px): 54 x 230 mm of board
POINT_MARGIN = 6.0  # mm beside the triangle's base on each side
POINT_DEPTH = 230.0  # mm from the base inwards: five checkers and a stack's lean towards the camera
BAR_CROP = (40, 320)
BAR_CROP_CHECKERS = 1.25  # the bar's crop is at least this many checkers wide, centred on the bar: real bars are
# narrower than a checker (a folding board's hinge, 17 mm; tournament boards' 30 mm) and a checker on one overhangs
# the points beside it; cut at the bar's own width, it showed the model a strip of it, stretched 2-3 times
TRAY_CROP = (40, 160)


def rect_size(geom: BoardGeometry) -> tuple[int, int]:
    return int(round(geom.width * SCALE)), int(round(geom.height * SCALE))


def board_to_rect(xy: np.ndarray, geom: BoardGeometry) -> np.ndarray:
    """Board millimetres (origin at the centre) -> rectified pixels."""
    xy = np.asarray(xy, np.float64)
    return (xy + [geom.width / 2, geom.height / 2]) * SCALE


def homography(corners: np.ndarray, geom: BoardGeometry) -> np.ndarray:
    """Image -> rectified board, from the board's outer corners in the image (TL, TR, BR, BL)."""
    dst = board_to_rect(geom.corners(), geom).astype(np.float32)
    return cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)


def rectify(frame: np.ndarray, H: np.ndarray, geom: BoardGeometry) -> np.ndarray:
    return cv2.warpPerspective(frame, H, rect_size(geom), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def ends_size(geom: BoardGeometry) -> tuple[int, int]:
    """The two end strips side by side (`rectify_ends`): width, height (px)."""
    return int(round(2 * END_MM * SCALE)), int(round(geom.height * SCALE))


def end_to_px(xy: np.ndarray, geom: BoardGeometry) -> np.ndarray:
    """Board millimetres in an end strip -> pixels of `rectify_ends`' picture (the left strip, then the right)."""
    xy = np.asarray(xy, np.float64)
    fx0, _, fx1, _ = geom.field()
    right = xy[..., 0] >= (fx0 + fx1) / 2
    x = np.where(right, xy[..., 0] - fx1 + END_MM, xy[..., 0] - fx0 + END_MM)
    return np.stack([x, xy[..., 1] + geom.height / 2], -1) * SCALE


def rectify_ends(frame: np.ndarray, H: np.ndarray, geom: BoardGeometry) -> np.ndarray:
    """The strips beyond both ends of the playing field (`BoardGeometry.end_rect`) seen from above at `SCALE`, side
    by side: where a real board's cube rests off the bar (its trays and frame at either end). ``H``: image ->
    rectified board (`homography`); the strips lie partly outside the rectified board, so they are warped apart."""
    w, h = ends_size(geom)
    out = []
    for right in (False, True):
        x0, y0, _, _ = geom.end_rect(right)
        shift = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
        shift[:2, 2] = -board_to_rect(np.array([x0, y0]), geom)
        out.append(cv2.warpPerspective(frame, shift @ H, (w // 2, h), flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_REPLICATE))
    return np.hstack(out)


def slot_rect(slot: int, geom: BoardGeometry) -> tuple[float, float, float, float]:
    """The board region (mm: x0, y0, x1, y1) a slot's crop covers."""
    if slot < 24:
        x = geom.point_base_x(slot)
        half = geom.point_w / 2 + POINT_MARGIN
        if slot < 12:
            return x - half, geom.inner_h / 2 - POINT_DEPTH, x + half, geom.inner_h / 2
        return x - half, -geom.inner_h / 2, x + half, -geom.inner_h / 2 + POINT_DEPTH
    if slot == BAR_SLOT:
        x0, y0, x1, y1 = geom.bar_rect()
        pad = max(BAR_CROP_CHECKERS * geom.checker_d - (x1 - x0), 0.0) / 2
        return x0 - pad, y0, x1 + pad, y1
    return geom.tray_rect(slot == TRAY_TOP)


def slot_crop(rect: np.ndarray, slot: int, geom: BoardGeometry) -> np.ndarray:
    """The crop of one slot from a rectified board, resized to the reader's input size.
    Top-row points are turned half round so that every point's base is at the bottom."""
    x0, y0, x1, y1 = slot_rect(slot, geom)
    (a, b), (c, d) = board_to_rect([[x0, y0], [x1, y1]], geom)
    a, b = max(int(a), 0), max(int(b), 0)
    c, d = min(int(np.ceil(c)), rect.shape[1]), min(int(np.ceil(d)), rect.shape[0])
    crop = rect[b:d, a:c]
    size = POINT_CROP if slot < 24 else BAR_CROP if slot == BAR_SLOT else TRAY_CROP
    crop = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
    if 12 <= slot < 24 or slot == TRAY_TOP:
        crop = crop[::-1, ::-1]
    return np.ascontiguousarray(crop)


def all_slot_crops(rect: np.ndarray, geom: BoardGeometry) -> list[np.ndarray]:
    return [slot_crop(rect, s, geom) for s in range(TRAY_BOTTOM + 1)]
