"""`bgscribe eval vision`: compare observations with the simulator's truth.

Figures (all on frames the observer read in full, where the truth has no hand over
the board and no die in flight, unless said otherwise):

- ``slot_accuracy``: per-slot count reads (light and dark) that are right;
- ``exact_position``: reads with all 27 slots right;
- ``dice_accuracy``: settled, uncocked dice whose value is read right (matched by position);
- ``cocked_detected``: cocked dice reported as cocked (probability > 0.5);
- ``flat_read_cocked``: the false alarms: flat dice (found) reported as cocked (the decoder then weighs
  the throw as possibly void);
- ``cube_value_accuracy`` / ``cube_place_accuracy``;
- ``calibration_rate``: frames (all of them) with the board's corners found within
  ``corner_tol_px`` of the truth;
- ``overconfident_error_rate``: among slot reads with probability >= 0.99, the share
  that are wrong (a well-calibrated reader keeps this near 1%).
"""

from __future__ import annotations

import numpy as np

from .observation import FrameObservation
from .synth.truth import read_truth

DIE_MATCH_MM = 15.0


def eval_vision(truth_path, obs_path, corner_tol_px: float = 8.0) -> dict:
    frames: dict[int, dict] = {}
    for item in read_truth(truth_path):
        if item.get("type") == "frame":
            frames[item["i"]] = item
    n_frames = cal_ok = 0
    corner_errs: list[float] = []
    slots_total = slots_right = reads = exact = 0
    confident = confident_wrong = 0
    dice_total = dice_right = cocked_total = cocked_hit = flat_found = flat_cocked = 0
    cube_total = cube_value_right = cube_place_right = 0
    statuses: dict[str, int] = {}
    with open(obs_path, encoding="utf-8") as f:
        for line in f:
            obs = FrameObservation.from_json(line)
            statuses[obs.status] = statuses.get(obs.status, 0) + 1
            truth = frames.get(obs.i)
            if truth is None:
                continue
            n_frames += 1
            if obs.corners is not None:
                err = float(np.linalg.norm(np.array(obs.corners) - np.array(truth["corners"]), axis=1).max())
                corner_errs.append(err)
                cal_ok += err <= corner_tol_px
            if obs.slots is None or truth["hands"] or any(d["moving"] for d in truth["dice"]):
                continue
            reads += 1
            all_right = True
            for s, reading in enumerate(obs.slots):
                want = truth["slots"][s]
                got = reading.best()
                for k in (0, 1):
                    p = reading.light if k == 0 else reading.dark
                    right = got[k] == want[k]
                    slots_total += 1
                    slots_right += right
                    all_right &= right
                    if p.max() >= 0.99:
                        confident += 1
                        confident_wrong += not right
            exact += all_right
            for d in truth["dice"]:
                near = [r for r in obs.dice if np.hypot(r.xy[0] - d["xy"][0], r.xy[1] - d["xy"][1]) < DIE_MATCH_MM]
                if d["cocked"]:
                    cocked_total += 1
                    cocked_hit += bool(near) and near[0].cocked > 0.5
                else:
                    dice_total += 1
                    dice_right += bool(near) and near[0].value == d["value"]
                    if near:
                        flat_found += 1
                        flat_cocked += near[0].cocked > 0.5
            if obs.cube is not None and truth["cube"]["place"] != "off":
                cube_total += 1
                cube_value_right += obs.cube.value == truth["cube"]["value"]
                cube_place_right += obs.cube.where == truth["cube"]["place"]

    def rate(a: int, b: int) -> float | None:
        return round(a / b, 5) if b else None

    return {
        "frames": n_frames,
        "statuses": statuses,
        "reads": reads,
        "slot_accuracy": rate(slots_right, slots_total),
        "exact_position": rate(exact, reads),
        "dice": dice_total,
        "dice_accuracy": rate(dice_right, dice_total),
        "cocked": cocked_total,
        "cocked_detected": rate(cocked_hit, cocked_total),
        "flat_read_cocked": rate(flat_cocked, flat_found),
        "cube_value_accuracy": rate(cube_value_right, cube_total),
        "cube_place_accuracy": rate(cube_place_right, cube_total),
        "calibration_rate": rate(cal_ok, n_frames),
        "corner_error_px_median": round(float(np.median(corner_errs)), 2) if corner_errs else None,
        "corner_error_px_p99": round(float(np.percentile(corner_errs, 99)), 2) if corner_errs else None,
        "confident_reads": confident,
        "overconfident_error_rate": rate(confident_wrong, confident),
    }
