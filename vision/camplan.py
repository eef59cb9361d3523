"""Planning a board camera: how high to mount it, and whether it sees enough to read a die.

A camera straight above the board's centre, the board's long side along the image's width. The
frame must hold the board plus ``margin`` of its width (and height) on every side: room for a
knock of the board, the players' hands at its edge, and for the clock beside it. From the lens
(horizontal field of view) and the resolution follow the mount height and the pixels per
millimetre on the board, hence pixels per die, per pip and per checker.

The thresholds are measured, not guessed: `tests/bench/bench_camera_thresholds.py` renders boards
with the simulator at falling resolution and reads them with the shipped models; see `THRESHOLDS`
for the figures and the command.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from .geometry import BoardGeometry

PIP_FRACTION = 0.18  # pip diameter / die edge (a standard 16 mm die's ~3 mm pips; the simulator draws 0.18)

# Measured by `python tests/bench/bench_camera_thresholds.py` (its output: hardware/camera-thresholds.json;
# 100 boards x 9 resolutions, 400 dice a resolution, standard profile). Dice values were 100 % right at
# 15.0 px per die and up, 99.73 % at 13.4, 99.74 % at 11.7 (99.18 % there in an earlier run on other
# boards: the edge), 98.2 % at 9.9, 93.9 % at 8.4. Checker counts stayed >= 99.5 % per point down to
# 8.4 px per die (20 px per checker) and fell to 99.4 % at 16.8 px per checker.
MIN_PX_PER_DIE = 13.0  # the lowest level that held 99.5 % with a margin (11.7 held once, missed once)
DICE_FAIL_PX_PER_DIE = 9.85  # dice values 98.2 % right: clearly below the target
MIN_PX_PER_CHECKER = 20.0  # checker counts >= 99.5 % per point down to 20.2 px per checker
# Comfortable: at 19 px per die dice stayed >= 99.5 % with the picture blurred to 2.9 mm edges (sigma 1.25 px);
# at 15 px they failed at 3.6 mm. Room for a camera a little high, tilted or soft.
GOOD_PX_PER_DIE = 18.0
THRESHOLDS = {
    "bench": "python tests/bench/bench_camera_thresholds.py",
    "figures": "hardware/camera-thresholds.json",
    "min_px_per_die": MIN_PX_PER_DIE,
    "min_px_per_checker": MIN_PX_PER_CHECKER,
    "dice_fail_px_per_die": DICE_FAIL_PX_PER_DIE,
    "good_px_per_die": GOOD_PX_PER_DIE,
}
DEFAULT_MARGIN = 0.12  # of the board's width / height on each side
MIN_MOUNT_MM = 650.0  # lower than this and the camera is in the players' way (a seated player's eyes: ~45 cm up)
MAX_TILT_DEG = 5.0  # off vertical: what the readers were trained on (standard <= 3, hard <= 7) with room


@dataclass(frozen=True)
class CameraPlan:
    width_px: int
    height_px: int
    hfov_deg: float
    vfov_deg: float
    board_w_mm: float
    board_h_mm: float
    margin: float
    mount_height_mm: float  # lens above the table
    limited_by: str  # "width" or "height": which side of the frame the board plus margin fills
    px_per_mm: float
    px_per_die: float
    px_per_pip: float
    px_per_checker: float
    max_height_for_dice_mm: float  # the highest mount at which a die still gets MIN_PX_PER_DIE
    verdict: str  # "pass", "marginal" or "fail"
    advice: list[str]

    def as_dict(self) -> dict:
        d = asdict(self)
        for k, v in d.items():
            if isinstance(v, float):
                d[k] = round(v, 2)
        d["thresholds"] = THRESHOLDS
        return d


def focal_px(width_px: int, hfov_deg: float) -> float:
    return width_px / 2 / math.tan(math.radians(hfov_deg) / 2)


def plan(width_px: int = 1280, height_px: int = 720, hfov_deg: float = 62.0, geom: BoardGeometry | None = None,
         board_w_mm: float | None = None, board_h_mm: float | None = None, margin: float = DEFAULT_MARGIN,
         ) -> CameraPlan:
    """The mount height at which the board plus ``margin`` fills the frame, and what the camera then sees."""
    if width_px <= 0 or height_px <= 0:
        raise ValueError("the resolution must be positive")
    if not 10.0 <= hfov_deg < 170.0:
        raise ValueError(f"a horizontal field of view of {hfov_deg} degrees is not a camera lens (10-170)")
    if not 0.0 <= margin < 1.0:
        raise ValueError("the margin is a fraction of the board's size, 0 to 1")
    geom = geom or BoardGeometry()
    bw = board_w_mm or geom.width
    bh = board_h_mm or (geom.height * bw / geom.width if board_w_mm else geom.height)
    if bw <= 0 or bh <= 0:
        raise ValueError("the board size must be positive")
    f = focal_px(width_px, hfov_deg)
    vfov = math.degrees(2 * math.atan(height_px / 2 / f))
    span_w, span_h = bw * (1 + 2 * margin), bh * (1 + 2 * margin)
    h_w = span_w / width_px * f  # height at which span_w fills the width exactly
    h_h = span_h / height_px * f
    mount = max(h_w, h_h)
    limited = "width" if h_w >= h_h else "height"
    ppmm = f / mount
    # a checker / die scales with the board: a bigger board has bigger checkers (defaults: 38 mm, 16 mm)
    k = bw / geom.width
    die_mm, checker_mm = geom.die_size * k, geom.checker_d * k
    ppd = ppmm * die_mm
    max_h = f * die_mm / MIN_PX_PER_DIE
    advice: list[str] = []
    if ppd >= GOOD_PX_PER_DIE:
        verdict = "pass"
    elif ppd >= MIN_PX_PER_DIE:
        verdict = "marginal"
        advice.append(f"a die gets {ppd:.1f} px, above the {MIN_PX_PER_DIE:g} px the readers need but with little "
                      f"room: mount no higher than {max_h / 10:.0f} cm, keep the margin small, or use a higher "
                      "resolution")
    else:
        verdict = "fail"
        need_w = math.ceil(width_px * MIN_PX_PER_DIE / ppd / 16) * 16
        advice.append(f"a die gets only {ppd:.1f} px; the readers need {MIN_PX_PER_DIE:g} (dice values were 98 % "
                      f"right at {DICE_FAIL_PX_PER_DIE:.0f} px): use at least {need_w} px across, "
                      "or a narrower lens mounted higher")
    if ppmm * checker_mm < MIN_PX_PER_CHECKER:
        advice.append(f"a checker gets {ppmm * checker_mm:.0f} px across, under the {MIN_PX_PER_CHECKER:g} px "
                      "the checker counts need")
        verdict = "fail"
    if mount > max_h and verdict != "fail":
        advice.append(f"at {mount / 10:.0f} cm the mount is above the {max_h / 10:.0f} cm where dice stop "
                      "reading reliably")
    if mount < MIN_MOUNT_MM:
        advice.append(f"at {mount / 10:.0f} cm the camera hangs where the players' heads and hands are: use a "
                      f"narrower lens (about {_hfov_for(width_px, height_px, span_w, span_h, MIN_MOUNT_MM):.0f} deg "
                      f"across puts it at {MIN_MOUNT_MM / 10:.0f} cm)")
        if verdict == "pass":
            verdict = "marginal"
    return CameraPlan(width_px, height_px, hfov_deg, vfov, bw, bh, margin, mount, limited, ppmm, ppd,
                      ppd * PIP_FRACTION, ppmm * checker_mm, max_h, verdict, advice)


def _hfov_for(width_px: int, height_px: int, span_w: float, span_h: float, mount: float) -> float:
    """The horizontal field of view that frames span_w x span_h from ``mount`` mm."""
    t = max(span_w / 2 / mount, span_h / 2 / mount * width_px / height_px)
    return math.degrees(2 * math.atan(t))


def format_plan(p: CameraPlan) -> str:
    lines = [
        f"camera        {p.width_px}x{p.height_px}, {p.hfov_deg:.0f} deg across x {p.vfov_deg:.0f} deg down",
        f"board         {p.board_w_mm:.0f} x {p.board_h_mm:.0f} mm, framed with {p.margin * 100:.0f} % margin "
        f"on each side",
        f"mount height  {p.mount_height_mm / 10:.0f} cm from the table to the lens, straight above the board's "
        f"centre (at most {MAX_TILT_DEG:g} deg off vertical); the board's {p.limited_by} fills the frame",
        f"resolution    {p.px_per_mm:.2f} px/mm: a die {p.px_per_die:.1f} px (need {MIN_PX_PER_DIE:g}, "
        f"comfortable {GOOD_PX_PER_DIE:g}), a pip {p.px_per_pip:.1f} px, a checker {p.px_per_checker:.0f} px "
        f"(need {MIN_PX_PER_CHECKER:g})",
        f"range         lower cuts into the margin; higher up to {p.max_height_for_dice_mm / 10:.0f} cm still gives a "
        f"die {MIN_PX_PER_DIE:g} px" if p.max_height_for_dice_mm >= p.mount_height_mm else
        f"range         none: the board needs {p.mount_height_mm / 10:.0f} cm to fit, a die {MIN_PX_PER_DIE:g} px "
        f"needs {p.max_height_for_dice_mm / 10:.0f} cm or lower",
        f"verdict       {p.verdict.upper()}",
    ]
    lines += [f"  - {a}" for a in p.advice]
    return "\n".join(lines)
