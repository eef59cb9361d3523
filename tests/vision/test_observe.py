"""The observer's economies: a still board is not read twice, and decoding runs ahead in its own thread;
neither may cost a change on the board or a frame of the footage."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from transcriber.observation import DieReading, SlotReading
from vision.calibrate import BoardLocator
from vision.decoding import decoded_ahead
from vision.observe import Observer
from vision.synth.rig import Rig
from vision.synth.stills import random_positions, random_scene
from vision.train.corners import EVAL_SEED0, HELD_OUT_SCHEMES

FPS = 15.0


@pytest.fixture(scope="module")
def still_then_die():
    """A board filmed still (fresh sensor noise in every frame), then the same with a die-sized patch that
    appears between two frames: too small to count as motion, so the board stays quiet throughout."""
    rng = np.random.default_rng(4)
    rig = Rig.build("standard", EVAL_SEED0 + 900, (1280, 720), schemes=HELD_OUT_SCHEMES)
    scene = random_scene(rng, rig, random_positions(rng, 1)[0]).with_(hands=(), dice=())
    lit, _ = rig.camera_image(scene)
    still = [rig.sensor.expose(lit, 1.0, k) for k in range(6)]
    cx, cy = np.mean(rig.corners(scene.shift), axis=0).astype(int)
    changed = []
    for f in still:
        f = f.copy()
        f[cy - 14:cy + 14, cx - 14:cx + 14] = 245
        f[cy - 3:cy + 3, cx - 3:cx + 3] = 20
        changed.append(f)
    return still, changed


def _observe(frames: list, seconds: float, t0: float, obs: Observer) -> list:
    n = int(seconds * FPS)
    return [obs.observe(int(t0 * FPS) + k, t0 + k / FPS, frames[k % len(frames)]) for k in range(n)]


def test_a_still_board_is_read_once_until_something_on_it_changes(still_then_die):
    still, changed = still_then_die
    calls = []

    def reader(rect, geom, **kw):
        calls.append(rect.copy())
        return [SlotReading.certain(len(calls), 0)] * 27, [], None  # the counts say which read they came from

    obs = Observer(FPS, locator=BoardLocator(), reader=reader)
    first = _observe(still, 4.0, 0.0, obs)
    second = _observe(changed, 4.0, 4.0, obs)
    assert all(o.status in ("ok", "quiet", "moving") for o in first[1:] + second)
    assert not any(o.status == "moving" for o in second[1:]), "the patch must not read as motion"
    reads = [(round(o.t, 2), o.slots[0].best()[0]) for o in first + second if o.slots is not None]
    # read as soon as quiet, then again every second: every read of the still board is the first read ...
    assert len(reads) >= 6
    assert {r for t, r in reads if t < 4.0} == {1}
    # ... until the die appears: the next read looks again, and that one stands for the rest
    assert {r for t, r in reads if t >= 4.0} == {2}
    assert len(calls) == 2
    assert np.abs(calls[1].astype(int) - calls[0].astype(int)).max() > 100  # the die is in the second picture


def _counting_reader(n: list, die: float = 1.0):
    """Reads every slot empty and one die, a 5 as surely as `die`; counts its calls in `n`."""
    def reader(rect, geom, **kw):
        n.append(1)
        values = np.full(6, (1.0 - die) / 5)
        values[4] = die
        return [SlotReading.certain(0, 0)] * 27, [DieReading(values, (100.0, 0.0))], None
    return reader


def test_an_unsure_read_is_read_again(still_then_die):
    """A die read 5 at 90 %: each second brings a second opinion (fresh sensor noise), as before."""
    still, _ = still_then_die
    n = []
    obs = Observer(FPS, locator=BoardLocator(), reader=_counting_reader(n, die=0.9))
    got = _observe(still, 4.0, 0.0, obs)
    assert len(n) == sum(o.slots is not None for o in got) >= 3


def test_a_new_calibration_is_read_afresh(still_then_die):
    still, _ = still_then_die
    n = []
    obs = Observer(FPS, locator=BoardLocator(), reader=_counting_reader(n))
    _observe(still, 2.0, 0.0, obs)
    assert len(n) == 1
    obs.tracker.recheck_every = 10**6  # (no refit of its own to put them back)
    obs.tracker.current = type(obs.tracker.current)(obs.tracker.current.corners + 1.0, 1.0)  # refitted
    _observe(still, 2.0, 2.0, obs)
    assert len(n) == 2


def test_decoding_ahead_yields_every_frame_in_order():
    items = [(i, i / FPS, None) for i in range(500)]
    assert list(decoded_ahead(iter(items), depth=4)) == items


def test_a_decoding_error_reaches_the_reader():
    def broken():
        yield 0, 0.0, None
        raise ValueError("cannot open clip.mp4: no video stream in it")

    got = []
    with pytest.raises(ValueError, match="no video stream"):
        for item in decoded_ahead(broken()):
            got.append(item)
    assert got == [(0, 0.0, None)]


def test_a_reader_that_stops_early_stops_the_decoder():
    made = []

    def endless():
        i = 0
        while True:
            made.append(i)
            yield i, i / FPS, None
            i += 1

    before = threading.active_count()
    frames = decoded_ahead(endless(), depth=4)
    assert [next(frames)[0] for _ in range(3)] == [0, 1, 2]
    frames.close()
    assert threading.active_count() == before
    n = len(made)
    assert n <= 3 + 4 + 2  # no further than the queue's depth ahead, and it made no more after
    assert len(made) == n
