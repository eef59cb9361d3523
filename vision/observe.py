"""`bgscribe observe`: a video (or live frames) in, one `FrameObservation` per analysed frame out.

Per frame: motion and quiet detection; calibration kept by a `Tracker`; on quiet
frames (at the start of each quiet spell, then every `read_every_s`) the board is
rectified and read in full. Black and undecodable frames give an observation that
says so, and the stream goes on.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from transcriber.fileio import write_text_atomic
from transcriber.position import CHECKERS

from .calibrate import BoardLocator, Calibration, Tracker
from .decoding import decoded_ahead, frame_count, video_fps, video_frames
from .dicesize import DiceSize
from .follow import Anchor, same_corners
from .frames import as_frame
from .geometry import BoardGeometry, profile_of
from .motion import MotionMeter, QuietDetector
from .observation import FrameObservation, SlotReading
from .read_memo import SURE_READ, ReadMemo
from .readers import BoardColours, default_readers
from .rectify import board_to_rect, homography, rectify, rectify_ends

log = logging.getLogger("bgscribe.observe")

TRAY_SURE = 10.0  # checker evidence (three clear reads) after which the tray end is re-checked only now and then
TRAY_CHECK_EVERY = 30  # reads (a board turned round between matches is caught within a minute or so)
COUNT_TOL = 3.0  # checkers: a read this close to 15 of each colour is a full set
SAME_CORNERS_PX = 0.5  # a refit of the corners this close rectifies the same picture


@dataclass
class ObserveOptions:
    quiet_hold_s: float = 0.4  # still this long before a frame counts as quiet
    read_every_s: float = 1.0  # re-read a long quiet spell this often
    every: int = 1  # analyse every n-th frame
    skip_still: bool = True  # leave still stretches between identical keyframes undecoded (vision/decoding.py)
    field: tuple | None = None  # the playing field's corners given by hand (TL, TR, BR, BL, bar up and down)
    profile: tuple | None = None  # that field's shape: (the bar's share of its width, a point's of its height)
    adapter: object = None  # the board's own points head (vision.adapt.PointAdapter: `bgscribe adapt`)
    threads: int = 2  # the readers' threads (onnxruntime's): 1 where other work wants the other cores


def field_of_state(state: dict) -> tuple[np.ndarray | None, np.ndarray | None, tuple | None]:
    """What a board state (`Observer.board_state`) holds of the board's field: its corners as given, as now
    (followed through bumps) and its profile, each None where it holds none; ValueError with what is wrong."""
    field = state.get("field")
    if field is None:
        return None, None, None
    corners = np.asarray(field, np.float64)
    now = np.asarray(state.get("field_now") or field, np.float64)
    if corners.shape != (4, 2) or now.shape != (4, 2):
        raise ValueError("the board's field must be four corners x, y")
    return corners, now, profile_of(state.get("profile"))


def field_on_picture(bgr: np.ndarray, corners) -> tuple[tuple, tuple]:
    """A field's corners given by hand (any order round it) placed on a picture of the board: in the order the
    observer takes them (TL, TR, BR, BL with the bar running top to bottom), which way round judged by the points'
    edges, and the field's shape measured there (the bar's share of its width, a point's of its height, and its
    height's share of its width as the readers read the board surest: `vision.profilefit`)."""
    from .fieldfind import given_field, turned_corners
    from .profilefit import fit_height

    fit = fit_height(bgr, given_field(bgr, np.asarray(corners, np.float64)), default_readers())
    return tuple(map(tuple, turned_corners(fit).tolist())), fit.geometry().field_shape()


def _profile_geometry(profile) -> BoardGeometry | None:
    """(bar share, point share[, height share]) of a board's field -> its geometry; None without one (a profile of
    two, kept before the height was, reads the board at the default's height)."""
    if profile is None:
        return None
    return BoardGeometry().with_field_shape(*(float(v) for v in profile))


def tray_side_margin(rect: np.ndarray) -> float:
    """Which end the bear-off trays are at, from where the bar is: the bar is a strip with no point
    edges, so its horizontal gradient energy is lower than the field's where the other hypothesis
    would put it. (The rectified board is the same for both hypotheses.) > 0: trays on the right;
    -1..1, so that no one frame (hands over the board) outweighs many."""

    def energy(geom: BoardGeometry) -> float:
        x0, y0, x1, y1 = geom.bar_rect()
        (a, b), (c, d) = board_to_rect([[x0 + 8, y0 + 10], [x1 - 8, y1 - 10]], geom)
        gray = cv2.cvtColor(rect[int(b):int(d), int(a):int(c)], cv2.COLOR_BGR2GRAY).astype(np.float32)
        return float(np.abs(np.diff(gray, axis=1)).mean()) if gray.size else 1e9

    right, left = energy(BoardGeometry(trays_right=True)), energy(BoardGeometry(trays_right=False))
    return (left - right) / max(left + right, 1e-6)


def trays_on_right(rect: np.ndarray) -> bool:
    return tray_side_margin(rect) >= 0


def count_error(slots: list[SlotReading]) -> float:
    """How far a read is from 15 checkers of each colour (expected counts, over points, bar and trays)."""
    light = sum(float(r.light @ np.arange(len(r.light))) for r in slots)
    dark = sum(float(r.dark @ np.arange(len(r.dark))) for r in slots)
    return abs(light - CHECKERS) + abs(dark - CHECKERS)


def read_is_sure(slots: list[SlotReading] | None, dice: list, cube) -> bool:
    """Every count, die (value, cocked, on a checker) and the cube (value, place) read with at least
    `SURE_READ` probability."""
    def sure(p) -> bool:
        return float(np.max(p)) >= SURE_READ

    def clear(p: float) -> bool:
        return p >= SURE_READ or p <= 1.0 - SURE_READ

    return (slots is not None and all(sure(s.light) and sure(s.dark) for s in slots)
            and all(sure(d.values) and clear(d.cocked) and clear(d.on_checker) for d in dice)
            and (cube is None or (sure(cube.values) and sure(list(cube.place.values())))))


class Observer:
    def __init__(self, fps: float, options: ObserveOptions | None = None, locator: BoardLocator | None = None,
                 reader=None, slot_reader=None):
        """``reader`` (rect, geom, colours) -> (slots, dice, cube); ``slot_reader`` (rect, geom) -> slots, to
        tell the tray end by the checkers (None with a ``reader`` of one's own: the picture alone decides)."""
        self.opts = options or ObserveOptions()
        self.fps = fps
        self.tracker = Tracker(locator or BoardLocator())
        if self.opts.field is not None:
            self.tracker.confirm(self.opts.field, geom=self._board_geometry(None))
        self.motion = MotionMeter()
        self.quiet = QuietDetector(self.opts.quiet_hold_s)
        if reader is None:
            readers = default_readers(self.opts.threads)
            reader, slot_reader = readers.read_board, readers.read_slots
        self.reader = reader
        self.slot_reader = slot_reader
        self.colours = BoardColours()  # this board's checker colours, learnt at each opening position
        self.adapter = self.opts.adapter  # this board's own points head (vision.adapt, `bgscribe adapt`)
        self.dice_size = DiceSize()  # how big this board's dice look, learnt from them (vision.dicesize)
        self.memo = ReadMemo()  # its last read: what has not changed since is not read again (vision.read_memo)
        self.geom: BoardGeometry | None = None
        self._tray_vote = 0.0  # the picture's evidence for trays on the right, over the reads so far (decaying)
        self._tray_counts = 0.0  # the checkers' evidence for it (decaying)
        self._reads = 0
        self.last_read_t = -1e9
        self.was_quiet = False
        self._last_read: tuple | None = None  # (corners, slots, dice, cube, bar_x) of the last read, if sure

    def board_state(self) -> dict:
        """What was learnt about this board that outlives one video: its checker colours, how big its dice
        look, which end its trays are at, and the field's corners where a person gave them. The server keeps
        it per board, so a 60 s segment that never shows an opening position still knows the colours."""
        state = {"colours": self.colours.to_json(), "tray_vote": round(self._tray_vote, 4),
                 "tray_counts": round(self._tray_counts, 4), "dice_size": self.dice_size.to_json()}
        cal, anchor = self.tracker.current, self.tracker.anchor
        if cal is not None and cal.confirmed and cal.field is not None:  # corners a person gave: kept per board
            # as given, with the picture they were given on (bumps since are followed from it), and as now
            given = anchor.field if anchor is not None else cal.field
            state["field"] = [[round(float(x), 2), round(float(y), 2)] for x, y in given]
            state["field_now"] = [[round(float(x), 2), round(float(y), 2)] for x, y in cal.field]
            if anchor is not None:
                state["anchor"] = anchor.to_json()
            if cal.geom is not None:  # the board's profile: its bar, points and height (shares of the field)
                state["profile"] = [round(v, 4) for v in cal.geom.field_shape()]
        return state

    def restore(self, state: dict) -> None:
        self.colours = BoardColours.from_json(state.get("colours") or {})
        self._tray_vote = float(state.get("tray_vote", 0.0))
        self._tray_counts = float(state.get("tray_counts", 0.0))
        self.dice_size = DiceSize.from_json(state.get("dice_size"))
        corners, now, profile = field_of_state(state)
        if corners is None:
            return
        anchor = Anchor.from_json(state["anchor"]) if state.get("anchor") else None
        if self.opts.field is None:  # given for this board before: kept, and followed from where it was given
            self.tracker.confirm(now if anchor is not None else corners, anchor, self._board_geometry(profile))
        elif anchor is not None and same_corners(anchor.field, self.opts.field):
            # given again as before: its anchor still holds, and so does a bump, and the board's profile as kept (one
            # board, one geometry across segments: a height measured afresh on each could differ, and a board's
            # learnt reader and colours were learnt in the one kept)
            self.tracker.confirm(now, anchor, self._board_geometry(profile))

    def _board_geometry(self, kept) -> BoardGeometry | None:
        """The board's geometry: the profile its own points head was learnt in (`vision.adapt`), else the one its
        state keeps (``kept``), else the one measured on the picture the field was given on."""
        adapter_profile = getattr(self.opts.adapter, "profile", None)
        return _profile_geometry(adapter_profile or kept or self.opts.profile)

    def adopt(self, state: dict | None) -> bool:
        """Take what the record's observer of this board has learnt since this one began (the server keeps its
        `board_state` after each segment), where it knows more: how big the dice look, while this one still
        learns it. A live observer started afresh reads every die at every rung of the size ladder until it has
        seen `dicesize.SETTLED_DICE` dice, most of a game (a rendered board's frames cost it 18 ms on average
        against 9 once learnt, 2026-12-05). Returns whether it took anything."""
        if not state or not self.dice_size.learning:
            return False
        try:
            theirs = DiceSize.from_json(state.get("dice_size"))
        except ValueError:  # (damaged: learn on alone)
            return False
        if theirs.seen <= self.dice_size.seen:
            return False
        self.dice_size = theirs
        return True

    def due_to_ask(self, asked: float) -> bool:
        """Whether its keeper, who last asked at ``asked`` (`time.monotonic`), is to ask again for what the record
        learnt of the board (`adopt`): every `ADOPT_EVERY_S` while this observer still learns."""
        return self.dice_size.learning and time.monotonic() - asked >= ADOPT_EVERY_S

    def _rectify(self, frame: np.ndarray, cal: Calibration) -> tuple[np.ndarray, BoardGeometry, np.ndarray]:
        """The board seen from above, and its geometry: which end the trays are at. Two witnesses, each
        voted over many reads (a frame with hands over the board, or the board being set up, once flipped
        it and every slot was read in the mirror): the picture (the bar has no point edges), and the
        checkers: read with the trays at the wrong end, the slots do not hold 15 of each colour. The
        picture is fooled by a bar as busy as the field (a loud wood grain); the count is not, and once
        sure it decides, re-checked every `TRAY_CHECK_EVERY` reads (a board turned round between matches). Also
        the homography (image -> rectified board)."""
        if cal.field is not None:
            return self._rectify_field(frame, cal)
        # the outer rectangle (and so the rectified picture) is the same with the trays at either end
        g = BoardGeometry()
        H = homography(cal.corners, g)
        rect = rectify(frame, H, g)
        self._tray_vote = 0.95 * self._tray_vote + tray_side_margin(rect)
        if self.slot_reader is not None and (abs(self._tray_counts) < TRAY_SURE
                                             or self._reads % TRAY_CHECK_EVERY == 0):
            err = {r: count_error(self.slot_reader(rect, BoardGeometry(trays_right=r))) for r in (True, False)}
            if min(err.values()) < COUNT_TOL:  # (evidence only where one end gives a full set: not under hands)
                self._tray_counts = 0.9 * self._tray_counts + float(np.clip(err[False] - err[True], -5.0, 5.0))
        self._reads += 1
        right = self._tray_counts > 0 if abs(self._tray_counts) >= 2.0 else self._tray_vote >= 0
        if self.geom is None or self.geom.trays_right != right:
            self.geom = BoardGeometry(trays_right=right)
        return rect, self.geom, H

    def _rectify_field(self, frame: np.ndarray, cal: Calibration) -> tuple[np.ndarray, BoardGeometry, np.ndarray]:
        """The same for a board found or given by its playing field, with its own profile: the outline says
        nothing of the trays, which lie beside the field at one end or the other (or not at all: checkers
        borne off onto the table), so the outer rectangle differs by the end. Only the checkers witness it
        (15 of each colour once some are borne off); until they do, the trays are taken to be at the right."""
        base = cal.geom or BoardGeometry()

        def at(right: bool) -> tuple[np.ndarray, BoardGeometry, np.ndarray]:
            g = replace(base, trays_right=right)
            H = homography(Calibration.from_field(cal.field, cal.quality, g).corners, g)
            return rectify(frame, H, g), g, H

        right = self._tray_counts >= -2.0
        rect, g, H = at(right)
        if self.slot_reader is not None and (abs(self._tray_counts) < TRAY_SURE
                                             or self._reads % TRAY_CHECK_EVERY == 0):
            other = at(not right)
            err = {right: count_error(self.slot_reader(rect, g)), not right: count_error(self.slot_reader(*other[:2]))}
            if min(err.values()) < COUNT_TOL:
                self._tray_counts = 0.9 * self._tray_counts + float(np.clip(err[False] - err[True], -5.0, 5.0))
            if (self._tray_counts >= -2.0) != right:
                rect, g, H = other
        self._reads += 1
        self.geom = g
        return rect, g, H

    def observe(self, i: int, t: float, frame: np.ndarray | None) -> FrameObservation:
        if frame is None:
            return FrameObservation(i, t, status="corrupt")
        frame = as_frame(frame)
        if frame.mean_luma() < 8.0:
            return FrameObservation(i, t, status="black")
        cal = self.tracker.current
        motion, changed = self.motion.update(*frame.small, cal.corners if cal else None)
        quiet = self.quiet.update(motion, t)
        cal = self.tracker.update(frame, quiet)
        obs = FrameObservation(i, t, status="moving", motion=motion, occluded=changed)
        if cal is None or not cal.ok:
            obs.status = "no_board"
            return obs
        obs.calibrated, obs.calib_quality, obs.corners = True, cal.quality, cal.corners.tolist()
        if not quiet:
            self.was_quiet = False
            return obs
        obs.status = "ok"
        if self.was_quiet and t - self.last_read_t < self.opts.read_every_s:
            obs.status = "quiet"  # quiet, but read a moment ago: nothing can have changed
            return obs
        again = self.was_quiet
        self.was_quiet = True
        self.last_read_t = t
        if again and self._last_read is not None and self.motion.unchanged_since_quiet() \
                and np.abs(self._last_read[0] - cal.corners).max() < SAME_CORNERS_PX:
            # The same picture as at the last read, through the same calibration, and that read was sure of
            # everything: reading it again would give the same (a board is still for most of a match: this
            # is half the reads). An unsure read is repeated: fresh sensor noise is a second opinion.
            obs.slots, obs.dice, obs.cube, obs.bar_x = self._last_read[1:]
            return obs
        self.motion.mark_quiet()
        rect, geom, H = self._rectify(frame.bgr, cal)
        mine = {"adapter": self.adapter} if self.adapter is not None else {}  # the board's own points head
        obs.slots, obs.dice, obs.cube = self.reader(rect, geom, colours=self.colours, dice_size=self.dice_size,
                                                    memo=self.memo, ends=rectify_ends(frame.bgr, H, geom), **mine)
        x0, _, x1, _ = geom.bar_rect()
        obs.bar_x = (x0 + x1) / 2
        for d in obs.dice:
            d.bar_x = obs.bar_x
        self._last_read = (cal.corners, obs.slots, obs.dice, obs.cube, obs.bar_x) \
            if read_is_sure(obs.slots, obs.dice, obs.cube) else None
        return obs


ADOPT_EVERY_S = 60.0  # a live observer still learning its board asks what the record learnt this often (a segment)


def live_observer(bgr: np.ndarray, fps: float, setup: dict) -> Observer:
    """The observer of a board's live frames (the agent's own, or the server's for an agent that sends frames),
    from its set-up as the server keeps it (`GET .../board`: the confirmed field as shares of the picture, and what
    earlier footage taught of the board; either may be missing); `bgr` is a first frame, for the field's size. Its
    keeper asks again while it learns (`Observer.due_to_ask`, `Observer.adopt`)."""
    opts = ObserveOptions()
    if setup.get("field"):
        h, w = bgr.shape[:2]
        opts.field, opts.profile = field_on_picture(bgr, [[x * w, y * h] for x, y in setup["field"]])
    opts.threads = 1  # an agent's recorder, or the server's other boards, want the other cores
    observer = Observer(fps, opts)
    if setup.get("state"):
        try:
            observer.restore(setup["state"])
        except (ValueError, KeyError, TypeError) as e:
            log.warning("ignoring the board's learnt state (%s)", e)
    return observer


def observe_video(path: str | Path, out: str | Path, options: ObserveOptions | None = None,
                  progress: bool = True, frames: Iterable | None = None, board_state: Path | None = None) -> dict:
    """`board_state`: a JSON file of what earlier footage of this board taught (`Observer.board_state`),
    read first if it exists and updated after."""
    opts = options or ObserveOptions()
    fps = video_fps(path)
    observer = Observer(fps, opts)
    if board_state is not None and Path(board_state).is_file():
        try:
            observer.restore(json.loads(Path(board_state).read_text(encoding="utf-8")))
        except (ValueError, KeyError, TypeError) as e:  # our own file, damaged: learn afresh rather than stop
            print(f"bgscribe observe: ignoring the board state {board_state} ({e})", file=sys.stderr)
    total = frame_count(path)
    t0 = time.perf_counter()
    n = reads = 0
    with open(out, "w", encoding="utf-8") as f:
        last = -1
        for i, t, frame in frames or decoded_ahead(video_frames(path, opts.every, opts.skip_still)):
            obs = observer.observe(i, t, frame)
            f.write(obs.to_json() + "\n")
            n += 1
            last = i
            reads += obs.slots is not None
            if progress and (n % 200 == 0):
                done = f"{i + 1}/{total}" if total else f"{i + 1}"
                sys.stderr.write(f"\robserving frame {done} ({n / (time.perf_counter() - t0):.0f} frames/s)")
                sys.stderr.flush()
    if progress:
        sys.stderr.write("\n")
    wall = time.perf_counter() - t0
    if board_state is not None:
        write_text_atomic(Path(board_state), json.dumps(observer.board_state()))
    # frames: of the video (analysed or skipped as still); fps: of the video per second of work
    return {"frames": last + 1, "analysed": n, "reads": reads, "wall_s": wall,
            "fps": (last + 1) / wall if wall else 0.0, "relocations": observer.tracker.relocations}
