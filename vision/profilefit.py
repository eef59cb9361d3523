"""A board's field height as the readers read it best: the third number of a board's profile.

The rectifier maps a field onto the default board's (its bar and points as the picture measures them), so a board
whose field is wider or narrower for its height than the default's has its checkers stretched or squashed along the
points, and the points reader counts a row by how far it reaches: a printed board's field, half as wide again as it
is high, read its rows of 4 discs as 7 and 8. The picture's own shape of the field says what the height is where the
camera looks straight down; from an angle, or on a picture stretched to a square, it is off. So the readers judge:
the field is read at the default's height, at the picture's own and half way between, and the height whose read of
the 24 points is clearly surest is the board's (on the labelled real pictures with their field given, 895 -> 1018 of
1080 points right, where the picture's own height alone read about 968: it lost the stream frames and stock photos
that read right at the default's, which stay there).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .calibrate import Calibration
from .fieldfind import FieldFit, turned_corners
from .geometry import BoardGeometry
from .readers import Readers
from .rectify import homography, rectify

TRIES = (0.0, 0.5, 1.0)  # heights tried, along the way from the default board's to the picture's own shape of the field
SURER = 0.01  # another height is the board's where it reads the points this much surer (mean probability) than the
# default's, which the readers were trained at (the pine board's two cameras read 0.002 and 0.005 surer half way to
# their pictures' own shape, and an adapter learnt there read the other camera's opening worse: 24 -> 23 and 21)


def picture_height(corners: np.ndarray) -> float:
    """The field's height as a share of its width in the picture (TL, TR, BR, BL, the bar running top to bottom)."""
    q = np.asarray(corners, np.float64)
    width = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    height = (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    return float(height / max(width, 1e-9))


def sureness(picture: np.ndarray, fit: FieldFit, readers: Readers) -> float:
    """How surely the points reader reads the 24 points of this field in this fit's geometry: the mean of each
    point's likeliest class's probability."""
    geom = fit.geometry()
    H = homography(Calibration.from_field(turned_corners(fit), fit.quality, geom).corners, geom)
    return readers.points_sureness(rectify(picture, H, geom), geom)


def fit_height(picture: np.ndarray, fit: FieldFit, readers: Readers) -> FieldFit:
    """``fit`` with the field height (`FieldFit.height`) the readers read its points surest at: the default's (None)
    unless another reads them more surely."""
    default = BoardGeometry().with_field_shape(fit.bar_frac, fit.point_len).field_shape()[2]
    own = picture_height(turned_corners(fit))
    best, best_sure = fit, -1.0
    for t in TRIES:  # the default's first: another height must read clearly surer
        tried = replace(fit, height=default + t * (own - default) if t else None)
        sure = sureness(picture, tried, readers)
        if sure > best_sure + (SURER if t and best.height is None else 0.0):
            best, best_sure = tried, sure
    return best
