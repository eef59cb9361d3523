"""The board readers, as shipped (models/*.onnx through onnxruntime), on boards rendered with the
held-out colour scheme and rig seeds never used in training."""

from __future__ import annotations

import json

import numpy as np
import pytest

from transcriber.position import Position
from vision.geometry import BAR_SLOT, TRAY_BOTTOM, TRAY_TOP, BoardGeometry
from vision.observation import CUBE_PLACES, CUBE_VALUES, MAX_COUNT
from vision.readers import MODELS, NAMES, BoardColours, Readers, _softmax, nchw, slot_crops
from vision.rectify import BAR_CROP_CHECKERS, slot_crop, slot_rect
from vision.synth.rig import Rig
from vision.synth.scene import Die, Scene, slot_counts
from vision.train.readers_data import EVAL_SEED0, HELD_OUT_SCHEMES, SIZE, render
from vision.train.readers_eval import evaluate

pytestmark = pytest.mark.skipif(not all((MODELS / f"{n}.onnx").exists() for n in NAMES),
                                reason="reader weights not in models/ (bgscribe train readers)")


@pytest.fixture(scope="module")
def readers() -> Readers:
    return Readers()


def _rigs(profile: str) -> dict[bool, Rig]:
    """Held-out rigs, one with the trays on the right and one with them on the left."""
    out: dict[bool, Rig] = {}
    seed = EVAL_SEED0 + 900
    while len(out) < 2:
        rig = Rig.build(profile, seed, SIZE, schemes=HELD_OUT_SCHEMES)
        out.setdefault(rig.geom.trays_right, rig)
        seed += 1
    return out


def _scene(rig: Rig, variant: int) -> Scene:
    """Every count 1..15 of one colour and 1..9 of the other on the points, both colours on the bar,
    both trays, two dice on free board between the rows, the cube at the top or in the centre."""
    counts = np.zeros((27, 2), np.int16)
    a, b = (0, 1) if variant == 0 else (1, 0)
    for s in range(15):
        counts[s, a] = s + 1
    for s in range(15, 24):
        counts[s, b] = s - 14 if variant == 0 else s - 8
    counts[BAR_SLOT] = (2, 1) if variant == 0 else (0, 3)
    counts[TRAY_TOP, b] = 15 if variant == 0 else 6
    counts[TRAY_BOTTOM, a] = 4 if variant == 0 else 11
    x0, _, x1, _ = rig.geom.right_half(True)
    values = (3, 5) if variant == 0 else (6, 1)
    dice = (Die(values[0], x0 + 40, -8.0, 17.0), Die(values[1], x1 - 60, 6.0, 61.0, owner=1))
    cube = ("top", 8) if variant == 0 else ("centre", 1)
    return Scene(counts=counts, dice=dice, cube_value=cube[1], cube_place=cube[0])


def _read_held_out(readers, profile):
    rng = np.random.default_rng(7)
    for trays_right, rig in _rigs(profile).items():
        for variant in (0, 1):
            scene = _scene(rig, variant)
            f = render(rig, scene, rng, corner_noise=2.0, jpeg=60 if profile == "standard" else 40)
            yield f"{profile}, trays_right={trays_right}, variant {variant}", scene, readers.read_board(f.rect, f.geom)


def _wrong(scene, slots, kinds):
    got = [r.best() for r in slots]
    want = [(int(c[0]), int(c[1])) for c in scene.counts]
    return [(s, g, w) for s, (g, w) in enumerate(zip(got, want)) if g != w and s in kinds]


@pytest.mark.parametrize("profile", ["standard", "hard"])
def test_reads_every_point_count_dice_and_cube_on_held_out_boards(readers, profile):
    """96 point reads per profile (every count 1..15 of both colours): at most one wrong (two on hard; before the
    colours were clustered with their hue weighed up against lightness, tall stacks there took the wrong colour)."""
    wrong = []
    for where, scene, (slots, dice, cube) in _read_held_out(readers, profile):
        wrong += [(where, *w) for w in _wrong(scene, slots, range(24))]
        assert sorted(d.value for d in dice) == sorted(d.value for d in scene.dice), where
        for d in dice:
            assert d.cocked < 0.5 and d.half == "right", where
        assert cube is not None and cube.value == scene.cube_value and cube.where == scene.cube_place, where
    assert len(wrong) <= (1 if profile == "standard" else 2), f"board, slot, read, truth: {wrong}"


@pytest.mark.parametrize("profile", ["standard", "hard"])
def test_reads_the_bar_on_held_out_boards(readers, profile):
    for where, scene, (slots, _, _) in _read_held_out(readers, profile):
        wrong = _wrong(scene, slots, (BAR_SLOT,))
        assert not wrong, f"{where}: slot, read, truth: {wrong}"


HARD_TRAYS = pytest.mark.xfail(strict=True, reason="known shortfall: on the hard profile the tray reader misreads "
                                "rows of the held-out scheme's checkers (85 % of trays right; see models/tray.md)")


@pytest.mark.parametrize("profile", ["standard", pytest.param("hard", marks=HARD_TRAYS)])
def test_reads_the_trays_on_held_out_boards(readers, profile):
    for where, scene, (slots, _, _) in _read_held_out(readers, profile):
        wrong = _wrong(scene, slots, (TRAY_TOP, TRAY_BOTTOM))
        assert not wrong, f"{where}: slot, read, truth: {wrong}"


def test_colours_learnt_at_the_opening_tell_a_one_colour_board(readers):
    """With one colour left on the points, nothing in the frame says which colour it is (yellow and blue
    checkers here, never trained on); the colours learnt from this board's opening position do."""
    right = 0
    for k in range(6):
        rig = Rig.build("standard", EVAL_SEED0 + 3000 + k, SIZE, schemes=HELD_OUT_SCHEMES)
        rng = np.random.default_rng(k)
        colours = BoardColours()
        opening = render(rig, Scene(counts=slot_counts(Position.opening(), rig.seating)), rng, corner_noise=1.0,
                         jpeg=70)
        readers.read_slots(opening.rect, opening.geom, colours)
        assert colours.learnt == 1 and colours.light[0] > colours.dark[0] + 40
        for colour in (0, 1):
            counts = np.zeros((27, 2), np.int16)
            for n, point in enumerate(rng.choice(24, 3, replace=False), start=1):
                counts[point, colour] = n
            counts[TRAY_TOP, colour] = 9
            f = render(rig, Scene(counts=counts), rng, corner_noise=1.0, jpeg=70)
            assert not colours.learn(*_points_and_probs(readers, f))  # not an opening: nothing learnt
            slots = readers.read_slots(f.rect, f.geom, colours)
            right += all(slots[s].best() == tuple(counts[s]) for s in range(24))
    assert right == 12


def _points_and_probs(readers, f):
    """The point crops and their probabilities, as `Readers.read_slots` makes them."""
    points, _, _ = slot_crops(f.rect, f.geom)
    m = readers._m["points"]
    return points, _softmax(m.run(nchw(points))[0], m.temperature[0])


def test_probabilities_are_distributions(readers):
    rig = _rigs("standard")[True]
    f = render(rig, _scene(rig, 0), np.random.default_rng(1), corner_noise=1.0, jpeg=80)
    slots, dice, cube = readers.read_board(f.rect, f.geom)
    assert len(slots) == 27
    for r in slots:
        assert r.light.shape == r.dark.shape == (MAX_COUNT + 1,)
        assert np.all(r.light >= 0) and np.all(r.dark >= 0)
        assert abs(r.light.sum() - 1) < 1e-5 and abs(r.dark.sum() - 1) < 1e-5
    assert dice
    for d in dice:
        assert d.values.shape == (6,) and abs(d.values.sum() - 1) < 1e-5
        assert 0 <= d.cocked <= 1 and 0 <= d.on_checker <= 1
    assert cube.values.shape == (len(CUBE_VALUES),) and abs(cube.values.sum() - 1) < 1e-5
    assert set(cube.place) == set(CUBE_PLACES) and abs(sum(cube.place.values()) - 1) < 1e-5


@pytest.mark.parametrize("fill", ["black", "grey", "noise"])
def test_blank_boards_read_empty_or_unsure(readers, fill):
    g = BoardGeometry()
    h, w = 720, 1026
    rect = {"black": np.zeros((h, w, 3), np.uint8), "grey": np.full((h, w, 3), 128, np.uint8),
            "noise": np.random.default_rng(0).integers(0, 256, (h, w, 3), dtype=np.uint8)}[fill]
    slots, dice, cube = readers.read_board(rect, g)
    assert len(slots) == 27
    for r in slots:
        assert r.best() == (0, 0) or r.confidence() < 0.9, r.best()
    assert len(dice) == 0 or all(d.values.max() < 0.9 for d in dice)
    assert cube is not None and abs(cube.values.sum() - 1) < 1e-5


def test_grayscale_and_float_input_do_not_crash(readers):
    g = BoardGeometry(trays_right=False)
    slots, _, _ = readers.read_board(np.full((720, 1026), 40.0), g)
    assert len(slots) == 27


def test_crops_are_the_rectify_contract():
    """One remap per batch cuts the same regions, sizes and orientations as `rectify.slot_crop`."""
    rig = Rig.build("clean", EVAL_SEED0 + 950, SIZE, schemes=HELD_OUT_SCHEMES)
    f = render(rig, _scene(rig, 0), np.random.default_rng(2), corner_noise=0.0, jpeg=None)
    points, bar, trays = slot_crops(f.rect, f.geom)
    pairs = [(points[s], s) for s in range(24)] + [(bar, BAR_SLOT), (trays[0], TRAY_TOP), (trays[1], TRAY_BOTTOM)]
    for crop, slot in pairs:
        ref = slot_crop(f.rect, slot, f.geom)
        assert crop.shape == ref.shape
        assert np.abs(crop.astype(int) - ref.astype(int)).mean() < 8, slot


def test_a_narrow_bars_crop_holds_the_checkers_on_it():
    """A checker on a bar narrower than itself (a folding board's hinge, a tournament board's 30 mm bar) overhangs the
    points beside it: the bar's crop is centred on the bar and at least `BAR_CROP_CHECKERS` checkers wide, and a
    bar wider than that is cut at its own width."""
    for bar in (0.0, 0.033, 0.06):  # measured on real boards: a printed board, a folding board's hinge, a stream's
        g = BoardGeometry().with_field_shape(bar, 0.4)
        x0, y0, x1, y1 = slot_rect(BAR_SLOT, g)
        bx0, by0, bx1, by1 = g.bar_rect()
        assert x1 - x0 == pytest.approx(BAR_CROP_CHECKERS * g.checker_d) and x1 - x0 > g.checker_d
        assert (x0 + x1) / 2 == pytest.approx((bx0 + bx1) / 2) and (y0, y1) == (by0, by1)
    wide = BoardGeometry().with_field_shape(0.12, 0.4)
    assert slot_rect(BAR_SLOT, wide) == wide.bar_rect()


def test_missing_weights_say_how_to_get_them(tmp_path):
    with pytest.raises(FileNotFoundError, match="bgscribe train readers"):
        Readers(tmp_path)


def test_training_some_readers_into_a_new_folder_measures_them_with_the_shipped_rest(tmp_path, monkeypatch):
    """`bgscribe train readers --only points --out NEW`: the set is measured whole after training, so the readers
    not trained are taken from the shipped set first (once, a 57-minute training failed at its last step
    for want of them); with nowhere to take them from it is refused before any training."""
    import vision.readers as readers_module
    from vision.train.readers import _complete_set

    others = [n for n in NAMES if n != "points"]
    _complete_set(tmp_path / "new", others, lambda msg: None)
    assert all((tmp_path / "new" / f"{n}.onnx").read_bytes() == (MODELS / f"{n}.onnx").read_bytes() for n in others)
    assert not (tmp_path / "new" / "points.onnx").exists()
    monkeypatch.setattr(readers_module, "MODELS", tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="drop --only"):
        _complete_set(tmp_path / "other", others, lambda msg: None)


def test_a_training_record_its_card_cannot_be_rewritten_from_is_refused_before_the_training(tmp_path):
    """Training any reader ends by rewriting every model card from its `<name>.train.json` (`refresh_cards`): a
    record without a field it reads (the tray's of 2026-11-30 had no data version) failed a 30-minute bar training at
    its last step. Every shipped record has them all, and one without is refused before anything is trained."""
    from vision.train.readers import CARD_FIELDS, _complete_set

    for name in NAMES:
        rec = json.loads((MODELS / f"{name}.train.json").read_text())
        assert not set(CARD_FIELDS) - set(rec), name
    out = tmp_path / "new"
    out.mkdir()
    rec = json.loads((MODELS / "tray.train.json").read_text())
    del rec["data_version"]
    (out / "tray.train.json").write_text(json.dumps(rec))
    with pytest.raises(ValueError, match="tray.train.json: no data_version"):
        _complete_set(out, ["tray"], lambda msg: None)


@pytest.fixture(scope="module")
def sample_figures(readers) -> dict:
    """A small sample of the benchmark: 24 held-out standard boards, the bar's checkers clear of its middle (as the
    renderer put them before data version 11; `test_bar_read_with_checkers_in_its_middle` reads them anywhere)."""
    return evaluate(readers, "standard", 24, noise=2.0, seed=3, bar_middle=0.0)


def test_bar_read_with_checkers_in_its_middle(readers):
    """Real players put a hit checker anywhere on the bar, its middle too: the bar reader of 2026-12-04, which never
    saw one there, read 81.5 % of the held-out bars right (standard), none of the real bars holding checkers."""
    m = evaluate(readers, "standard", 24, noise=2.0, seed=3)
    assert m["bar_acc"] >= 0.95, m


def test_held_out_figures_meet_the_floor(sample_figures):
    m = sample_figures
    assert m["point_acc"] >= 0.995 and m["bar_acc"] >= 0.95, m
    assert m["dice_value_acc"] >= 0.95, m
    assert m["cube_place_acc"] >= 0.95 and m["cube_value_acc"] >= 0.95, m
    assert m["p99_wrong_rate"] <= 0.02, m


def test_boards_of_their_own_shape_read_nearly_every_point(readers):
    """Boards of every shape a real board has (bar 8-75 mm, points 0.36-0.5 of the field, lines of 6-7
    checkers), rectified as the observer rectifies a real board onto the default's field: a points reader
    trained on the default shape alone read three points in four right on these; trained on shapes, nearly all."""
    m = evaluate(readers, "standard", 24, noise=2.0, seed=3, shaped=1.0)
    assert m["point_acc"] >= 0.99, m


def test_held_out_dice_recall(sample_figures):
    assert sample_figures["dice_recall"] >= 0.95, sample_figures


@pytest.mark.xfail(strict=True, reason="known shortfall: the tray reader misreads about one tray in twenty of the "
                                       "benchmark's free layouts on the held-out scheme (real games' trays read right)")
def test_held_out_trays(sample_figures):
    assert sample_figures["tray_acc"] >= 0.99, sample_figures


def test_two_colours_of_one_brightness_are_told_apart():
    """Red and blue checkers as bright as each other (a real board: the split by lightness alone started
    from one outlier and called every checker one colour) fall into their two clusters by hue; one colour
    under uneven light stays one colour."""
    from vision.readers import _two_colours

    rng = np.random.default_rng(4)
    red = np.array([140, 185, 158]) + rng.normal(0, 6, (8, 3))
    blue = np.array([132, 138, 76]) + rng.normal(0, 6, (6, 3))
    dim_red = np.array([[90, 165, 147]])  # one in shadow
    lab = np.vstack([red, blue, dim_red])
    split = _two_colours(lab)
    assert split is not None
    is_light, _, _ = split
    assert len(set(is_light[:8])) == 1 and len(set(is_light[8:14])) == 1 and is_light[0] != is_light[8]
    white = np.array([225, 128, 130]) + rng.normal(0, 4, (12, 3))
    white[:4, 0] -= 25  # the far end of the board in shade
    assert _two_colours(white) is None


def test_gold_against_white_is_told_by_hue_where_shine_and_shade_cross_their_lightness():
    """A stream board's gold checkers shine as light as its white ones in shade (three single gold checkers on
    one frame were called white): shine and shade move lightness, not hue, so the hue weighs more."""
    from vision.readers import _two_colours

    rng = np.random.default_rng(7)
    white = np.array([[243, 129, 131], [211, 129, 131], [183, 129, 131], [225, 129, 131], [165, 128, 132]])
    gold = np.array([[138, 140, 177], [167, 138, 181], [196, 132, 181], [116, 137, 172], [177, 140, 181]])
    lab = np.vstack([white, gold]) + rng.normal(0, 2, (10, 3))
    is_light, light, dark = _two_colours(lab)
    assert is_light[:5].all() and not is_light[5:].any(), is_light
    assert light[0] > dark[0]  # the white cluster is the light one, as a whole


def test_a_third_colour_read_as_unsure_single_checkers_does_not_split_the_board():
    """A stream board's black points read as one unsure checker each (two of them on a field given 3 px off) made a
    third colour; weighed as much as a stack each, they split the board into black against gold and white together,
    and seven points came out wrong. Each point's colour weighs as its checkers, as surely as they are read."""
    from vision.readers import _two_colours

    white = np.array([[195, 129, 132], [188, 129, 129], [202, 128, 130], [181, 127, 131]])
    gold = np.array([[135, 135, 170], [128, 135, 168], [127, 134, 168], [130, 135, 168], [123, 136, 167],
                     [170, 130, 175]])
    black = np.array([[18, 141, 125], [16, 130, 125]])
    lab = np.vstack([white, gold, black]).astype(np.float64)
    weight = np.array([3, 2, 3, 3] + [2, 3, 3, 3, 3, 1] + [0.6, 0.55])  # checkers sampled x P(a checker is there)
    is_light, light, dark = _two_colours(lab, weight)
    assert is_light[:4].all() and not is_light[4:10].any(), is_light
    assert light[0] > 150 and dark[2] > 150  # the centres are white's and gold's, not pulled towards black
    unweighted, _, _ = _two_colours(lab)
    assert not (unweighted[:4].all() and not unweighted[4:10].any())  # what happened before


def test_glossy_red_checkers_whose_middles_mirror_the_lamp_stay_dark():
    """A phone photo's glossy red checkers showed the lamp in their middles, as white as the white checkers
    beside them (four red stacks were called light): the colour is taken from the more colourful half of
    the stack's discs, where the rim and the shaded side keep the red."""
    import cv2

    from vision.readers import MAX_COUNT, point_colours

    rng = np.random.default_rng(3)
    points = np.full((24, 192, 48, 3), (60, 110, 70), np.uint8)  # green felt
    p = np.zeros((24, 1 + 2 * MAX_COUNT))
    p[:, 0] = 1.0
    red, white = {1: 5, 4: 1, 6: 3, 9: 2}, {0: 2, 12: 5, 15: 3, 18: 5, 20: 1}
    for k, n in list(red.items()) + list(white.items()):
        for j in range(min(n, 5)):
            cy = int(192 - (21 + 37.24 * j) * 192 / 230)
            colour = (40, 40, 170) if k in red else (235, 238, 240)
            cv2.ellipse(points[k], (24, cy), (17, 16), 0, 0, 360, colour, -1)
            if k in red:  # the lamp in the middle: most of the disc inside the rim
                cv2.ellipse(points[k], (24 + int(rng.integers(-2, 3)), cy), (7, 6), 0, 0, 360, (238, 240, 244), -1)
        p[k, 0], p[k, n] = 0.0, 1.0
    light_p, _, _ = point_colours(points, p)
    assert all(light_p[k] < 0.5 for k in red), light_p
    assert all(light_p[k] > 0.5 for k in white), light_p


def test_a_board_reads_at_most_fifteen_checkers_a_colour():
    """A picture's reading obeys the checkers a board has: where the slots' own best counts give a colour more
    than 15 (two dice cups on points read as stacks of 12), the counts that cost least to give up go; under the
    limit the best counts stand, and fewer than 15 is allowed (a hand may hide some). A tray's reading counts for less
    than a point's: the board's trays may not be where the profile puts them."""
    from transcriber.observation import SlotReading
    from vision.still import within_the_checkers

    def point(colour: str, n: int, p: float, empty: float) -> SlotReading:
        light, dark = np.zeros(MAX_COUNT + 1), np.zeros(MAX_COUNT + 1)
        (light if colour == "L" else dark)[n] = p
        (light if colour == "L" else dark)[max(n - 1, 1)] += 1.0 - p - empty
        light[0], dark[0] = 1.0 - light[1:].sum(), 1.0 - dark[1:].sum()
        return SlotReading(light, dark)

    empty = SlotReading.certain(0, 0)
    slots = [empty] * 27
    for k, n in ((0, 5), (5, 2), (11, 3), (16, 5)):  # dark's 15, read surely
        slots[k] = point("D", n, 0.98, 0.001)
    slots[8] = point("L", 4, 0.95, 0.01)
    assert within_the_checkers(slots) == [s.best() for s in slots]
    cups = list(slots)
    cups[19], cups[20] = point("D", 12, 0.9, 0.05), point("D", 13, 0.9, 0.05)  # something dark and tall
    got = within_the_checkers(cups)
    assert got[19] == got[20] == (0, 0)
    assert [got[k] for k in (0, 5, 11, 16, 8)] == [(0, 5), (0, 2), (0, 3), (0, 5), (4, 0)]
    hidden = list(slots)
    hidden[16] = empty  # five under a hand: 10 dark read, as they are
    assert within_the_checkers(hidden)[0] == (0, 5) and sum(d for _, d in within_the_checkers(hidden)) == 10

    # a stream board's compartments where the default profile puts the trays held name cards, read as 1 and 2 dark
    # checkers, unsure; the limit then cost a point's stack of 3 read 0.8 sure. The trays' readings count for less.
    carded = list(slots)
    carded[0], carded[5] = point("D", 3, 0.98, 0.001), point("D", 4, 0.98, 0.001)  # dark's 15 with 3 on point 11
    carded[11] = point("D", 3, 0.8, 0.08)
    for k, n, p in ((TRAY_TOP, 1, 0.37), (TRAY_BOTTOM, 2, 0.52)):
        dark = np.zeros(MAX_COUNT + 1)
        dark[n], dark[0], dark[n + 1] = p, 0.12 if n == 1 else 0.07, 1.0 - p - (0.12 if n == 1 else 0.07)
        carded[k] = SlotReading(np.eye(MAX_COUNT + 1)[0], dark)
    got = within_the_checkers(carded)
    assert got[11] == (0, 3) and got[TRAY_TOP] == got[TRAY_BOTTOM] == (0, 0), got

def test_a_die_off_the_playing_field_is_no_roll(readers):
    """Rule 4.2: a roll's dice rest flat on the playing surface, right of the bar. A die lying in a tray is read as
    no die (nor is a tray's label, a screw, or the cube resting there: on a stock photo the cube's 64 was read as a
    5); the same die on the field is read."""
    rng = np.random.default_rng(3)
    rig = _rigs("standard")[True]
    tx0, ty0, tx1, ty1 = rig.geom.tray_rect(False)
    hx0, _, _, _ = rig.geom.right_half(True)
    for on_field in (False, True):
        x, y = ((tx0 + tx1) / 2, (ty0 + ty1) / 2) if not on_field else (hx0 + 60, 10.0)
        scene = Scene(counts=np.zeros((27, 2), np.int16), dice=(Die(4, x, y, 20.0), Die(2, hx0 + 30, -30.0, 35.0)),
                      cube_value=1, cube_place="centre")
        f = render(rig, scene, rng, corner_noise=0.0, jpeg=90)
        _, dice, _ = readers.read_board(f.rect, f.geom)
        fours = [d for d in dice if d.value == 4]
        assert len(fours) == on_field, (on_field, [(d.value, d.xy) for d in dice])
