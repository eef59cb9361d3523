"""The simulator: its truth replays to the match, it is deterministic, and it draws what it says."""

from __future__ import annotations

import json
from dataclasses import replace

import av
import cv2
import numpy as np
import pytest

from transcriber.compare import diff_matches
from transcriber.generate import GenOptions, random_match
from transcriber.ids import parse_xgid
from transcriber.mat import read_mat
from transcriber.position import Position
from vision.geometry import BAR_SLOT, BoardGeometry, Seating
from vision.synth.draw import BoardPainter, Canvas
from vision.synth.rig import Rig
from vision.synth.scene import DARK, LIGHT, Die, Scene, slot_counts
from vision.synth.stills import CLASSES, write_stills
from vision.synth.style import (
    SCHEMES,
    BusyBar,
    CheckerMark,
    CubeLook,
    DiceCups,
    DiceLook,
    EndCards,
    MakersPrint,
    random_style,
)
from vision.synth.truth import match_from_truth, read_truth
from vision.synth.video import render_match

from ..conftest import SAMPLES

SMALL = (320, 180)


def frames_in(path) -> int:
    with av.open(str(path)) as c:
        return sum(1 for _ in c.decode(c.streams.video[0]))


@pytest.mark.parametrize("index", [0, 1, 2])
def test_rendered_real_match_truth_replays_to_the_match(index, tmp_path):
    record = read_mat(SAMPLES[index])
    video, truth = tmp_path / "m.mp4", tmp_path / "m.jsonl"
    # (a frame every 2 s: the whole match's events all the same, at half the drawing of 1 fps)
    stats = render_match(record, video, truth, profile="clean", seed=index, fps=0.5, size=SMALL, progress=False)
    assert diff_matches(record, match_from_truth(truth)) == []
    assert frames_in(video) == stats.frames
    # every frame's counts: 15 checkers per colour, less the one a hand may be carrying
    for item in read_truth(truth):
        if item["type"] == "frame":
            totals = np.array(item["slots"]).sum(0)
            assert totals.min() >= 13 and totals.max() == 15 or item["hands"], item["i"]


def test_generated_match_with_cube_and_rerolls(tmp_path):
    record = random_match(11, opts=GenOptions(double_rate=0.1, drop_rate=0.4))
    truth = tmp_path / "t.jsonl"
    render_match(record, tmp_path / "t.mp4", truth, profile="hard", seed=4, fps=2, size=SMALL, rules="amberg",
                 progress=False)
    assert diff_matches(record, match_from_truth(truth)) == []
    kinds = {e["kind"] for e in read_truth(truth) if e["type"] == "event"}
    assert {"game_start", "roll", "play", "clock", "double", "game_end"} <= kinds


def test_same_seed_same_truth_different_seed_different_footage(tmp_path):
    record = read_mat(SAMPLES[0])
    outs = []
    for name, seed in (("a", 5), ("b", 5), ("c", 6)):
        render_match(record, tmp_path / f"{name}.mp4", tmp_path / f"{name}.jsonl", profile="standard", seed=seed,
                     fps=2, size=SMALL, games=1, progress=False)
        outs.append((tmp_path / f"{name}.jsonl").read_bytes())
    assert outs[0] == outs[1]
    assert outs[0] != outs[2]

    def frame(name, k=20):
        with av.open(str(tmp_path / f"{name}.mp4")) as c:
            for i, f in enumerate(c.decode(c.streams.video[0])):
                if i == k:
                    return f.to_ndarray(format="bgr24").astype(np.int16)

    assert np.abs(frame("a") - frame("c")).mean() > 10  # another board, camera and light


def test_quiet_frames_show_the_settled_position(tmp_path):
    """Where no hand is over the board, the drawn checkers are exactly the settled position."""
    record = read_mat(SAMPLES[2])
    truth = tmp_path / "q.jsonl"
    render_match(record, tmp_path / "q.mp4", truth, profile="clean", seed=3, fps=2, size=SMALL, games=2,
                 progress=False)
    items = list(read_truth(truth))
    seat = items[0]["rig"]["seating"]
    seating = Seating(seat["p0_bottom"], seat["home_right"], seat["p0_light"])
    checked = 0
    for item in items:
        if item["type"] != "frame" or item["hands"]:
            continue
        pos = parse_xgid("XGID=" + item["position"] + ":0:0:1:00:0:0:0:0:10").position
        expected = slot_counts(pos, seating)
        if (np.array(item["slots"]) == expected).all():
            checked += 1
    quiet = sum(1 for i in items if i["type"] == "frame" and not i["hands"])
    assert checked >= 0.97 * quiet  # the rest: a tray or bar checker settling within the frame of a play


# ------------------------------------------------------------------ what is drawn


def _clean_rig(seed=1, size=(1920, 1080), scheme="tournament_green") -> Rig:
    return Rig.build("clean", seed, size, schemes=[scheme])


@pytest.mark.parametrize("scheme", ["tournament_green", "tan_cream", "navy", "burgundy", "grey_modern", "random"])
def test_pixel_under_each_checker_has_its_colour(scheme):
    rig = _clean_rig(2, (1280, 720), scheme)
    pos = Position.from_points({6: 5, 8: 3, 13: 4, 24: 2, 25: 1}, {6: 4, 8: 3, 13: 5, 24: 2})
    scene = Scene(counts=slot_counts(pos, rig.seating))
    img, drawn = rig.camera_image(scene)
    st = rig.painter.style
    palette = {"light": st.light, "dark": st.dark, "field": st.field, "a": st.point_a, "b": st.point_b,
               "bar": st.bar, "frame": st.frame}
    cv = rig.painter.canvas
    assert len(drawn["checkers"]) == 29
    for slot, colour, px, py, _ in drawn["checkers"]:
        (u, v), = rig.to_image([(px / cv.scale + cv.x0, py / cv.scale + cv.y0)])
        pix = img[int(round(v)), int(round(u))].astype(float)
        nearest = min(palette, key=lambda k: np.linalg.norm(pix - np.array(palette[k], float)))
        assert nearest == ("light" if colour == LIGHT else "dark"), (scheme, slot, pix, nearest)


def test_random_looks_are_plausible_and_varied():
    """Random boards: one checker colour clearly lighter, points that stand out from the field,
    dice pips that stand out from the die; the same seed gives the same look, and looks vary."""

    def lab(c):
        return cv2.cvtColor(np.uint8([[c]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float)

    looks = [random_style(np.random.default_rng(k)) for k in range(200)]
    for st in looks:
        assert lab(st.light)[0] - lab(st.dark)[0] > 70, st
        assert np.linalg.norm(lab(st.point_a) - lab(st.field)) > 35, st
        assert abs(lab(st.die)[0] - lab(st.pip)[0]) > 60, st
    assert random_style(np.random.default_rng(3)) == looks[3]
    fields = np.array([lab(st.field) for st in looks])
    assert fields[:, 0].std() > 25 and np.hypot(fields[:, 1] - 128, fields[:, 2] - 128).max() > 40
    assert len({st.light for st in looks}) > 150


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
def test_die_shows_its_pips(value):
    rig = _clean_rig(3, (1920, 1080))
    x0, y0, x1, y1 = rig.geom.right_half(True)
    die = Die(value, (x0 + x1) / 2, (y0 + y1) / 2, angle=17.0 * value)
    scene = Scene(counts=np.zeros((27, 2), np.int16), dice=(die,), cube_place="off")
    img, _ = rig.camera_image(scene)
    (u, v), = rig.to_image([(die.x, die.y)], z=rig.geom.die_size)
    r = 22
    crop = cv2.cvtColor(img[int(v) - r:int(v) + r, int(u) - r:int(u) + r], cv2.COLOR_BGR2GRAY)
    # The die is white with dark pips: take the bright face under the centre, then count the dark
    # holes inside it (pixels of the face's complement that the crop's border cannot reach).
    n, labels, stats, _ = cv2.connectedComponentsWithStats((crop > 150).astype(np.uint8))
    face = labels == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    assert face.sum() > 100
    outside = (~face).astype(np.uint8)
    reach = outside.copy()
    h, w = reach.shape
    mask = np.zeros((h + 2, w + 2), np.uint8)
    for x, y in [(0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1)]:
        if reach[y, x] == 1:
            cv2.floodFill(reach, mask, (x, y), 2)
    holes = (reach == 1).astype(np.uint8)
    _, _, stats, _ = cv2.connectedComponentsWithStats(holes)
    blobs = [st for st in stats[1:] if st[cv2.CC_STAT_AREA] >= 2]
    assert len(blobs) == value


def test_cube_and_bar_drawn_where_truth_says():
    rig = _clean_rig(4, (1280, 720))
    counts = np.zeros((27, 2), np.int16)
    counts[BAR_SLOT, DARK] = 2
    scene = Scene(counts=counts, cube_value=8, cube_place="top")
    _, drawn = rig.camera_image(scene)
    value, place, *_ = drawn["cube"]
    assert (value, place) == (8, "top")
    assert sum(1 for c in drawn["checkers"] if c[0] == BAR_SLOT and c[1] == DARK) == 2


def test_stills_have_labels_and_counts(tmp_path):
    write_stills(tmp_path, 12, profile="standard", seed=9, size=(640, 360), progress=False)
    lines = (tmp_path / "counts.jsonl").read_text().splitlines()
    assert len(lines) == 12
    for line in lines:
        item = json.loads(line)
        name = item["image"].split("/")[-1].replace(".jpg", ".txt")
        boxes = [row.split() for row in (tmp_path / "labels" / name).read_text().splitlines()]
        checkers = sum(1 for b in boxes if int(b[0]) < 2)
        on_points = int(np.array(item["slots"])[:25].sum())  # trays hold checkers on edge: not labelled
        assert checkers <= on_points
        if not item["hands"]:
            assert checkers == on_points
        for b in boxes:
            assert 0 <= int(b[0]) < len(CLASSES) and all(0 <= float(x) <= 1 for x in b[1:])
    assert (tmp_path / "dataset.yaml").read_text().count("checker_") == 2


@pytest.mark.parametrize("line", [5, 6, 7])
def test_players_line_up_a_point_before_stacking(line):
    """Real players line up six or seven checkers on a point before a second layer: the first `line`
    checkers lie in one line from the base, ending near the field's middle at most, the next on top."""
    g = BoardGeometry(line=line)
    spots = [g.checker_spot(3, k) for k in range(15)]  # a bottom-row point: the line runs up from y = inner_h / 2
    first = spots[:line]
    assert all(h == g.checker_h for _, _, h in first) and spots[line][2] == 2 * g.checker_h
    ys = [y for _, y, _ in first]
    assert all(a > b for a, b in zip(ys, ys[1:]))  # one after the other towards the middle
    assert ys[-1] - g.checker_d / 2 >= -0.02 * g.inner_h - 2.5  # the line's end: near the middle at most
    assert g.inner_h / 2 - ys[0] == pytest.approx(g.checker_d / 2 + 2.0)
    if line == 5:  # the default board as before: 5 + 4 + 3 + 2 + 1, a checker's width apart
        assert BoardGeometry().checker_spot(0, 5)[2] == 2 * g.checker_h
        assert ys[0] - ys[1] == pytest.approx(0.98 * g.checker_d)


def test_wooden_looks_show_the_grain_through_the_points():
    """Stained points show the field's grain (the pine board of the real pictures); painted points are flat.
    Random looks draw both, and wooden checkers."""
    looks = [random_style(np.random.default_rng(k)) for k in range(200)]
    assert 0.3 < np.mean([st.point_grain > 0 for st in looks]) < 0.7
    assert 0.3 < np.mean([st.checker_grain > 0 for st in looks]) < 0.7
    g = BoardGeometry()
    base = replace(SCHEMES["tan_cream"], texture=0.2, grain=20.0)
    spread = {}
    for grain in (0.0, 1.0):
        painter = BoardPainter(g, replace(base, point_grain=grain), Canvas.around(g, 2.0), np.random.default_rng(1))
        tri = g.triangle(4)
        x, y = tri[:2, 0].mean(), (tri[0, 1] + tri[2, 1]) / 2  # the middle of the point
        u, v = painter.canvas.px(x, y)
        patch = painter.static[int(v) - 30:int(v) + 30, int(u) - 4:int(u) + 4].astype(float)
        spread[grain] = float(patch.std(axis=(0, 1)).mean())
    assert spread[1.0] > 3 * spread[0.0] + 1, spread


def test_a_makers_print_lies_on_the_field_between_the_rows():
    """A third of random looks carry a maker's print mid-half (the stream board's logo): a block with lettering
    between the point tips, under the points; the points' bases are untouched by it."""
    looks = [random_style(np.random.default_rng(k)) for k in range(300)]
    assert 0.2 < np.mean([st.maker_print is not None for st in looks]) < 0.45
    g = BoardGeometry()
    base = replace(SCHEMES["tournament_green"], texture=0.0)
    ink = replace(base, maker_print=MakersPrint(0.15, (200, 60, 60), (250, 250, 250), 2))
    plain = BoardPainter(g, base, Canvas.around(g, 2.0), np.random.default_rng(1)).static.astype(float)
    shown = BoardPainter(g, ink, Canvas.around(g, 2.0), np.random.default_rng(1)).static.astype(float)
    cv = Canvas.around(g, 2.0)
    fx0 = g.field()[0]
    for x0 in (fx0, fx0 + g.half_w + g.bar_w):
        u, v = cv.px(x0 + g.half_w / 2, 0.0)
        mid = np.abs(shown - plain)[int(v) - 20:int(v) + 20, int(u) - 30:int(u) + 30]
        assert mid.mean() > 40  # the block (and its letters) mid-half
        colours = shown[int(v) - 20:int(v) + 20, int(u) - 30:int(u) + 30].reshape(-1, 3)
        assert (colours.max(1) > 240).mean() > 0.02  # lettering in its ink
    for slot in (0, 5, 17):  # each point's base, a checker's width in from the frame, as it was
        tri = g.triangle(slot)
        u, v = cv.px(tri[:2, 0].mean(), tri[0, 1] + (20 if slot >= 12 else -20))
        assert np.abs(shown - plain)[int(v) - 5:int(v) + 5, int(u) - 5:int(u) + 5].max() < 1


def test_random_looks_have_busy_bars_and_dice_cups_where_they_are_drawn():
    """A quarter of the random looks have a bar as busy as the field (grain, stripes, hinges: the bar reader read
    checkers in a striped bar) and dice cups left on the field (a stream's cups on its points were read as stacks
    of 12); each is drawn where it says and nowhere else, the cups without a random number of their own."""
    rng = np.random.default_rng(3)
    looks = [random_style(rng) for _ in range(300)]
    assert 0.15 < np.mean([st.busy_bar is not None for st in looks]) < 0.35
    assert 0.15 < np.mean([st.cups is not None for st in looks]) < 0.35
    g = BoardGeometry()
    cv = Canvas.around(g, 2.0)
    base = replace(SCHEMES["tournament_green"], texture=0.0)
    plain = BoardPainter(g, base, cv, np.random.default_rng(1)).static.astype(float)
    busy = BoardPainter(g, replace(base, busy_bar=BusyBar(0.5, 0.2, (240, 240, 240), 2)), cv,
                        np.random.default_rng(1)).static.astype(float)
    bx0, by0, bx1, by1 = g.bar_rect()
    (a, b), (c, d) = cv.px(bx0, by0), cv.px(bx1, by1)
    bar = busy[int(b):int(d), int(a) + 1:int(c) - 1]
    assert (bar.max(2) > 230).mean() > 0.2  # the stripes' ink
    def across(img):  # how busy the bar is across its width
        return float(np.abs(np.diff(img[int(b):int(d), int(a) + 1:int(c) - 1].mean(2), axis=1)).mean())

    assert across(busy) > 10 * max(across(plain), 0.5)
    fx0, fy0, fx1, fy1 = g.field()
    cup = DiceCups(((0.25, 0.2, 0.0, True), (0.75, 0.8, 0.0, False)), (30, 40, 60), (10, 14, 20))
    rng_after = np.random.default_rng(1)
    cupped = BoardPainter(g, replace(base, cups=cup), cv, rng_after).static.astype(float)
    rng_plain = np.random.default_rng(1)
    BoardPainter(g, base, cv, rng_plain)
    assert rng_after.random() == rng_plain.random()  # the cups drew no random number
    diff = np.abs(cupped - plain).max(2) > 1
    for u, v, _, _ in cup.places:
        x, y = cv.px(fx0 + u * (fx1 - fx0), fy0 + v * (fy1 - fy0))
        assert diff[int(y) - 20:int(y) + 20, int(x) - 20:int(x) + 20].mean() > 0.9
    assert diff.mean() < 0.05  # nothing else moved
    assert np.abs(cupped - plain)[:, : int(cv.px(fx0, 0)[0]) - 5].max() < 1  # left of the field: untouched


def test_random_looks_mark_their_checkers_with_dots_rings_and_logos():
    """Two fifths of the random looks mark their checkers (the stream board's printed logos and turned rings, which
    the dice reader took for 1s): drawn on every checker of both colours, within the checker, a dot at its centre
    like a die's one pip."""
    rng = np.random.default_rng(3)
    looks = [random_style(rng) for _ in range(300)]
    assert 0.3 < np.mean([st.mark is not None for st in looks]) < 0.5
    assert {st.mark.kind for st in looks if st.mark is not None} == {"dot", "ring", "ring_dot", "logo"}
    g = BoardGeometry()
    cv = Canvas.around(g, 2.0)
    base = replace(SCHEMES["tournament_green"], texture=0.0)
    counts = np.array(slot_counts(Position.opening(), Seating(True, True, True)))
    shown = {}
    for kind in ("none", "dot", "ring", "logo"):
        mark = None if kind == "none" else CheckerMark(kind, 0.45, 0.12, 0.6, seed=7)
        painter = BoardPainter(g, replace(base, mark=mark), cv, np.random.default_rng(1))
        shown[kind] = painter.paint(Scene(counts=counts))[0].astype(float)
    diff = {k: np.abs(shown[k] - shown["none"]).max(2) > 10 for k in ("dot", "ring", "logo")}
    _, drawn = BoardPainter(g, base, cv, np.random.default_rng(1)).paint(Scene(counts=counts))
    inside = np.zeros(diff["dot"].shape, bool)
    for _, _, px, py, d in drawn["checkers"]:
        cv2.circle(inside.view(np.uint8), (int(px), int(py)), int(d / 2) + 1, 1, -1)
    for kind, changed in diff.items():
        assert changed.any() and not (changed & ~inside).any(), kind  # on the checkers, nowhere else
        for _, _, px, py, d in drawn["checkers"]:  # every checker carries it
            assert changed[int(py - d / 2):int(py + d / 2), int(px - d / 2):int(px + d / 2)].any(), kind
    for _, _, px, py, _ in drawn["checkers"][:3]:  # the dot: dark at the very centre
        assert shown["dot"][int(py), int(px)].mean() < 0.6 * shown["none"][int(py), int(px)].mean()


def test_random_looks_draw_dice_as_cubes_some_translucent():
    """Three fifths of the random looks draw their dice as cubes (`DiceLook`): a camera off a die's nadir sees the
    side faces turned towards it, wider the further off, with their pips; translucent dice show the table through
    their bodies. Straight under the eye a cube looks as the flat sprite did."""
    rng = np.random.default_rng(5)
    looks = [random_style(rng) for _ in range(300)]
    solid = [st.dice for st in looks if st.dice is not None]
    assert 0.5 < len(solid) / len(looks) < 0.7
    assert 0.35 < np.mean([d.opacity < 1 for d in solid]) < 0.65
    g = BoardGeometry()
    cv = Canvas.around(g, 4.0)
    base = replace(SCHEMES["tournament_green"], texture=0.0)
    x0, y0, x1, y1 = g.right_half(True)
    die = Die(5, (x0 + x1) / 2, (y0 + y1) / 2, angle=0.0)
    scene = Scene(counts=np.zeros((27, 2), np.int16), dice=(die,), cube_place="off")

    def paint(look, eye):
        painter = BoardPainter(g, replace(base, dice=look), cv, np.random.default_rng(1))
        painter.eye = eye
        return painter.paint(scene)[0].astype(float)

    above = (die.x, die.y, 1000.0)
    assert np.abs(paint(DiceLook(1.0, 0.7), above) - paint(None, above)).max() < 1  # nothing else to see
    left = (die.x - 600.0, die.y, 1000.0)  # the eye far to the die's left: its left face shows
    flat, cube = paint(None, left), paint(DiceLook(1.0, 0.7), left)
    changed = np.abs(cube - flat).max(2) > 10
    px, py = cv.px(die.x, die.y)  # the die's foot
    half = g.die_size / 2 * cv.scale
    painter = BoardPainter(g, base, cv, np.random.default_rng(1))
    painter.eye = left
    tx = cv.px(*painter.lift(die.x, die.y, g.die_size)[:2])[0]  # its top face, lifted away from the eye
    ys, xs = np.nonzero(changed)
    assert tx - px > 0.3 * half and len(xs) > 0.5 * (tx - px) * 2 * half
    # between the foot's left edge and the top's: the left face, nothing else
    assert xs.min() >= px - half - 2 and xs.max() <= tx - half * 0.8 and np.abs(ys - py).max() < 1.3 * half
    band = cube[int(py - half / 2):int(py + half / 2), int(px - half + 2):int(tx - half - 2)]
    assert 0.5 * 245 < np.median(band) < 0.9 * 245  # the die's white, shaded
    assert (band.mean(2) < 80).any()  # a pip of the face
    clear = paint(DiceLook(0.6, 0.7), left)
    top = clear[int(py - 2):int(py + 3), int(px + half * 0.35):int(px + half * 0.5)].mean((0, 1))
    assert np.all(top < 0.9 * np.array(base.die)) and top[1] > top[0]  # white, the green field through it


def test_a_named_schemes_board_draws_what_it_drew_before_random_looks_grew():
    """A new kind of random look must not move the named schemes' boards: the held-out frames that the readers',
    the calibration's and the camera check's tests judge by are drawn from these seeds (a print's two colours,
    once jittered with the scheme's, shifted every draw after them and failed seven such tests)."""
    grey = Rig.build("standard", 10_500, (1280, 720), schemes=["grey_modern"])
    navy = Rig.build("standard", 10_500, (1280, 720), schemes=["navy"])
    assert grey.painter.style.field == (142, 140, 137) and navy.painter.style.cube_ink == (87, 44, 38)
    assert navy.painter.style.maker_print is None and not navy.geom.trays_right
    assert float(navy.look.jitter.sum()) == pytest.approx(10.815443, abs=1e-5)


def test_the_truth_alone_is_the_videos_truth(tmp_path):
    """Rendered without a video (``out`` None: nothing drawn or encoded), a match's truth is the same, byte for byte,
    as the one written beside its footage: the decoder's tests read only the truth."""
    record = random_match(11, opts=GenOptions(double_rate=0.1, drop_rate=0.4))
    kw = dict(profile="hard", seed=4, fps=2, size=SMALL, games=1, rules="amberg", progress=False)
    with_video = render_match(record, tmp_path / "v.mp4", tmp_path / "v.jsonl", **kw)
    alone = render_match(record, None, tmp_path / "t.jsonl", **kw)
    assert (tmp_path / "t.jsonl").read_bytes() == (tmp_path / "v.jsonl").read_bytes()
    assert alone == with_video
    assert not (tmp_path / "t.mp4").exists()


def test_players_who_keep_the_cube_off_the_bar(tmp_path):
    """`render_match(cube_ends=True)`: the cube lies in the tray end's middle all match, centred showing 64 at each
    game's start, turned on its owner's side after a take; the truth places it as the reader does (centre / top /
    bottom) and says it is off the bar."""
    record = read_mat(SAMPLES[0])
    truth = tmp_path / "t.jsonl"
    render_match(record, None, truth, seed=3, games=1, progress=False, cube_ends=True)
    rows = [json.loads(line) for line in truth.read_text().splitlines()]
    cubes = [r["cube"] for r in rows if r["type"] == "frame"]
    assert all(c["frame"] for c in cubes)
    assert cubes[0]["value"] == 1 and cubes[0]["place"] == "centre"
    turned = [c for c in cubes if c["value"] > 1]
    assert turned and all(c["place"] in ("top", "bottom") for c in turned)
    takes = [r for r in rows if r["type"] == "event" and r.get("kind") == "take"]
    assert takes
    for take in takes:  # once the taker has put it down (a cube move lasts under 2 s)
        after = next(r["cube"] for r in rows if r["type"] == "frame" and r["t"] >= take["t"] + 2.0)
        assert (after["value"], after["place"]) == (take["cube"], take["place"])


def test_random_looks_make_cubes_of_their_own_and_put_score_cards_at_the_ends():
    """Real cubes are black, white, red, their numbers on a disc or not, in any typeface; score flip cards lie
    against the board's ends, where the cube is looked for. A share of the random looks draws each (`CubeLook`,
    `EndCards`); the named schemes neither (the rendered footage stays as it was)."""
    rng = np.random.default_rng(6)
    looks = [random_style(rng) for _ in range(300)]
    assert 0.6 < np.mean([st.cube_look is not None for st in looks]) < 0.8
    assert 0.3 < np.mean([st.end_cards is not None for st in looks]) < 0.5
    cubes = [st.cube_look for st in looks if st.cube_look is not None]
    assert 0.25 < np.mean([c.disc is not None for c in cubes]) < 0.55 and len({c.font for c in cubes}) >= 4
    assert all(st.cube_look is None and st.end_cards is None for st in SCHEMES.values())
    g = BoardGeometry()
    cv = Canvas.around(g, 2.0)
    base = replace(SCHEMES["tournament_green"], texture=0.0)
    cards = EndCards(((False, 0.5, 20.0),), ("1", "5"))
    plain = BoardPainter(g, base, cv, np.random.default_rng(1)).static.astype(float)
    carded = BoardPainter(g, replace(base, end_cards=cards), cv, np.random.default_rng(1)).static.astype(float)
    changed = np.abs(carded - plain).max(2) > 10
    ys, xs = np.nonzero(changed)
    (left, _), (right, _) = cv.px(-g.width / 2 + 20 - 70, 0), cv.px(-g.width / 2 + 20, 0)
    assert changed.any() and xs.min() >= left - 1 and xs.max() <= right + 1  # the card, over the frame by 20 mm
    scene = Scene(counts=np.zeros((27, 2), np.int16), cube_value=2, cube_place="end",
                  cube_at=(g.field()[0] - 50, 0.0, 32.0, 30.0))
    look = CubeLook((20, 20, 20), (20, 20, 20), (235, 235, 235), 2, 1.0)  # black, its 2 in black on a pale disc
    img = BoardPainter(g, replace(base, cube_look=look), cv, np.random.default_rng(1)).paint(scene)[0]
    px, py = cv.px(g.field()[0] - 50, 0.0)
    centre = img[int(py) - 3:int(py) + 4, int(px) - 30:int(px) + 31].mean(2)
    assert centre.max() > 200 and centre.min() < 60  # the pale disc and the number on it
