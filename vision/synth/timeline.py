"""Direct a match as it is played at a real table: a timeline of shots and truth events.

Each `Shot` lasts a few seconds and knows the scene at any instant inside it:
a list of state switches (checkers picked up or put down, dice landing, the cube
turned) and hand tracks (keyframed fingertip paths). The director walks the
match record through the rules engine and strings shots together with real
timing: roll, think, move checker by checker, press the clock, the opponent
picks up the dice; cube offered and taken or dropped; the game's end, the reset
and the next game's opening roll (one die each). Truth events (roll, play,
double, take, drop, game end, ...) are stamped with the time they happen.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field, replace

import numpy as np

from transcriber.position import Position
from transcriber.record import Double, Drop, MatchRecord, Move, Resign, RulesProfile, Take, Timeout
from transcriber.replay import replay_match

from ..geometry import BAR_SLOT, TRAY_BOTTOM, TRAY_TOP, BoardGeometry, Seating
from .scene import DARK, LIGHT, Appearance, Die, Hand, Scene, slot_counts, stack_under


@dataclass
class Pacing:
    """How people play: seconds, and how often odd things happen."""

    think_mean: float = 4.0
    think_max: float = 25.0
    step: float = 0.9  # one checker picked up and put down
    roll: float = 1.3
    pickup: float = 0.9
    clock_press: float = 0.6
    reset: float = 16.0
    cocked_rate: float = 0.02
    tie_rate: float = 0.12  # opening roll: both dice equal, roll again
    bump_rate: float = 0.0  # per turn: the board is knocked and moves in the frame
    spectator_rate: float = 0.0  # per turn: an arm crosses the board
    own_dice: bool = True  # each player rolls their own pair (else one shared pair)


@dataclass
class Key:
    u: float
    x: float
    y: float
    holding: int | None = None
    cup: bool = False


@dataclass
class Track:
    from_bottom: bool
    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int]
    keys: list[Key]

    def at(self, u: float) -> Hand | None:
        ks = self.keys
        if u < ks[0].u or u > ks[-1].u:
            return None
        for a, b in zip(ks, ks[1:]):
            if a.u <= u <= b.u:
                f = 0.0 if b.u == a.u else (u - a.u) / (b.u - a.u)
                f = f * f * (3 - 2 * f)  # ease in and out
                x, y = a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f
                return Hand(round(x, 1), round(y, 1), self.from_bottom, self.skin, self.sleeve, a.holding, a.cup)
        k = ks[-1]
        return Hand(k.x, k.y, self.from_bottom, self.skin, self.sleeve, k.holding, k.cup)


@dataclass
class Shot:
    t0: float
    dur: float
    states: list[tuple[float, Scene]]  # (u, scene) from u = 0
    tracks: list[Track] = field(default_factory=list)
    game: int = 0
    move: int = 0

    def scene_at(self, t: float) -> Scene:
        u = (t - self.t0) / self.dur if self.dur > 0 else 1.0
        scene = self.states[0][1]
        for su, s in self.states:
            if su <= u:
                scene = s
            else:
                break
        hands = tuple(h for h in (tr.at(u) for tr in self.tracks) if h is not None)
        return scene.with_(hands=hands) if hands else scene


@dataclass
class TruthEvent:
    t: float
    kind: str  # game_start, opening_roll, roll, reroll, play, double, take, drop, resign, timeout, game_end, clock
    game: int
    move: int
    player: int | None = None
    data: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        d = {"type": "event", "t": round(self.t, 3), "kind": self.kind, "game": self.game, "move": self.move}
        if self.player is not None:
            d["player"] = self.player
        d.update(self.data)
        return d


class Director:
    """Turns a match record into shots and truth events."""

    def __init__(self, record: MatchRecord, seating: Seating, geom: BoardGeometry, rng: np.random.Generator,
                 rules: RulesProfile, appearance: Appearance, pacing: Pacing, games: int | None = None,
                 clock_x: float = -466.0, cube_ends: bool = False):
        """``cube_ends``: the players keep the cube off the bar, in the tray end's middle (between the two
        trays, clear of borne-off checkers: centred in the middle, turned on its owner's side), as at tournaments."""
        self.record, self.seating, self.geom, self.rng = record, seating, geom, rng
        self.cube_ends = cube_ends
        self.rules, self.look, self.pace = rules, appearance, pacing
        self.shots: list[Shot] = []
        self.events: list[TruthEvent] = []
        self.t = 0.0
        self.game = 0
        self.move = 0
        self.clock = ClockModel(rules.clock_reserve_s, rules.clock_delay_s)
        opening = Position.opening()
        self.scene = Scene(counts=slot_counts(opening, seating), length=record.length, **self._cube_at("centre"))
        self.settled: list[tuple[float, Position]] = [(0.0, opening)]  # settled positions over time, for truth
        self.max_games = games
        self.clock_x = clock_x

    # ------------------------------------------------------------------ helpers

    def bottom(self, player: int) -> bool:
        return self.seating.bottom(player)

    def colour(self, player: int) -> int:
        return LIGHT if self.seating.light(player) else DARK

    def _track(self, player: int | None, keys: list[Key], seat_bottom: bool | None = None) -> Track:
        bottom = self.bottom(player) if player is not None else bool(seat_bottom)
        who = 0 if bottom else 1
        if player is None:
            who = 2
        return Track(bottom, self.look.skins[who], self.look.sleeves[who], keys)

    def _emit(self, kind: str, player: int | None = None, t: float | None = None, **data) -> None:
        self.events.append(TruthEvent(self.t if t is None else t, kind, self.game, self.move, player, data))

    def _add(self, dur: float, states: list[tuple[float, Scene]], tracks: list[Track] | None = None) -> None:
        shot = Shot(self.t, dur, states, tracks or [], self.game, self.move)
        self.shots.append(shot)
        self.t += dur
        self.scene = states[-1][1]

    def hold(self, dur: float) -> None:
        if dur > 0:
            self._add(dur, [(0.0, self.scene)])

    def think(self, mean: float | None = None) -> None:
        mean = self.pace.think_mean if mean is None else mean
        dur = float(min(self.pace.think_max, self.rng.lognormal(np.log(max(mean, 0.3)), 0.6)))
        if self.rng.random() < self.pace.bump_rate:
            self.hold(dur / 2)
            self.bump()
            dur /= 2
        if self.rng.random() < self.pace.spectator_rate:
            self.spectator()
        self.hold(dur)

    def bump(self) -> None:
        dx, dy, rot = self.scene.shift
        new = (dx + float(self.rng.normal(0, 6)), dy + float(self.rng.normal(0, 5)),
               rot + float(self.rng.normal(0, 1.2)))
        self._emit("bump", shift=[round(v, 2) for v in new])
        self._add(0.2, [(0.0, self.scene), (0.5, self.scene.with_(shift=new))])

    def spectator(self) -> None:
        g = self.geom
        from_bottom = bool(self.rng.random() < 0.5)
        x0 = float(self.rng.uniform(-g.width / 2, g.width / 2))
        y_edge = g.height / 2 + 200 if from_bottom else -g.height / 2 - 200
        y_in = float(self.rng.uniform(-g.height / 3, g.height / 3))
        keys = [Key(0.0, x0, y_edge), Key(0.4, x0 + 40, y_in), Key(0.6, x0 + 60, y_in), Key(1.0, x0, y_edge)]
        self._add(float(self.rng.uniform(1.5, 3.0)), [(0.0, self.scene)],
                  [self._track(None, keys, seat_bottom=from_bottom)])

    # ------------------------------------------------------------------ checkers

    def _spot(self, slot: int, colour: int, index: int) -> tuple[float, float]:
        g = self.geom
        if slot < 24:
            x, y, _ = g.checker_spot(slot, index)
        elif slot == BAR_SLOT:
            x, y, _ = g.bar_spot(colour == LIGHT, index)
        else:
            x, y = g.tray_spot(slot == TRAY_TOP, index)
        return x, y

    def _edge_y(self, player: int) -> float:
        return self.geom.height / 2 + 250 if self.bottom(player) else -self.geom.height / 2 - 250

    def move_checker(self, player: int, src: int, dst: int, hit_to_bar: bool) -> None:
        """One checker from slot ``src`` to ``dst`` (a hit sends the blot on ``dst`` to the bar)."""
        c = self.colour(player)
        opp = 1 - c
        counts = self.scene.counts
        n_src = int(counts[src, c])
        sx, sy = self._spot(src, c, max(n_src - 1, 0))
        picked = counts.copy()
        picked[src, c] -= 1
        dst_index = int(picked[dst].sum()) if dst in (TRAY_TOP, TRAY_BOTTOM) else int(picked[dst, c])
        if hit_to_bar:
            dst_index = 0
        dx, dy = self._spot(dst, c, dst_index)
        placed = picked.copy()
        placed[dst, c] += 1
        ey = self._edge_y(player)
        keys = [Key(0.0, sx, ey), Key(0.3, sx, sy), Key(0.32, sx, sy, holding=c), Key(0.62, dx, dy, holding=c),
                Key(0.64, dx, dy)]
        states = [(0.0, self.scene), (0.31, self.scene.with_(counts=picked)), (0.63, self.scene.with_(counts=placed))]
        dur = self.pace.step * float(self.rng.uniform(0.8, 1.3))
        if hit_to_bar:
            hit = placed.copy()
            hit[dst, opp] -= 1
            bx, by = self._spot(BAR_SLOT, opp, int(hit[BAR_SLOT, opp]))
            to_bar = hit.copy()
            to_bar[BAR_SLOT, opp] += 1
            keys[-1] = Key(0.64, dx, dy, holding=opp)
            keys += [Key(0.8, bx, by, holding=opp), Key(0.82, bx, by)]
            states[-1] = (0.63, self.scene.with_(counts=hit))
            states.append((0.81, self.scene.with_(counts=to_bar)))
            dur *= 1.4
        keys.append(Key(1.0, keys[-1].x, ey))
        self._add(dur, states, [self._track(player, keys)])

    def play(self, player: int, play, before: Position) -> None:
        t0 = self.t
        for a, b, hit in play.steps:
            src = BAR_SLOT if a == 25 else self.seating.slot(player, a)
            tray = TRAY_BOTTOM if self.bottom(player) else TRAY_TOP
            dst = tray if b == 0 else self.seating.slot(player, b)
            self.move_checker(player, src, dst, hit)
        self.settled.append((self.t, play.result))
        self._emit("play", player, play=play.notation, steps=[list(s) for s in play.steps], t_start=round(t0, 3))

    # ------------------------------------------------------------------ dice

    def _throw(self, player: int, n: int) -> list[tuple[float, float, float]]:
        x0, y0, x1, y1 = self.geom.right_half(self.bottom(player))
        out = []
        while len(out) < n:
            x, y = float(self.rng.uniform(x0, x1)), float(self.rng.uniform(y0, y1))
            if all((x - a) ** 2 + (y - b) ** 2 > (self.geom.die_size * 1.6) ** 2 for a, b, _ in out):
                out.append((x, y, float(self.rng.uniform(0, 360))))
        return out

    def roll(self, player: int, values: tuple[int, ...]) -> None:
        """The roller's hand shakes the cup over their right half; the dice tumble and settle.
        Cocked dice, and dice on a checker where the rules say reroll, are picked up and rolled again."""
        while True:
            spots = self._throw(player, len(values))
            dice, bad = [], None
            for v, (x, y, a) in zip(values, spots):
                h = stack_under(self.scene.counts, self.geom, x, y)
                cocked = self.rng.random() < self.pace.cocked_rate
                if h is not None and not self.rules.dice_on_checker_valid:
                    bad = "on_checker"
                if cocked:
                    bad = "cocked"
                dice.append(Die(v, x, y, a, cocked=cocked, on_checker=h is not None, z=h or 0.0,
                                owner=self._pair(player)))
            shown = dice if bad is None else [replace(d, value=int(self.rng.integers(1, 7))) if d.cocked else d
                                              for d in dice]
            self._cup(player, shown)
            if bad is None:
                self._emit("roll", player, dice=list(values), placed=[_die_dict(d) for d in dice])
                return
            self._emit("reroll", player, reason=bad, placed=[_die_dict(d) for d in shown])
            self.hold(float(self.rng.uniform(1.0, 2.5)))
            self.pickup(player)

    def _pair(self, player: int) -> int:
        """Which dice pair a player throws: their own (by seat), or the one shared pair."""
        return (0 if self.bottom(player) else 1) if self.pace.own_dice else 0

    def _cup(self, player: int, dice: list[Die]) -> None:
        x0, y0, x1, y1 = self.geom.right_half(self.bottom(player))
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        ey = self._edge_y(player)
        keys = [Key(0.0, cx, ey, cup=True), Key(0.3, cx, cy, cup=True), Key(0.45, cx + 15, cy - 10, cup=True),
                Key(0.55, cx, cy, cup=True), Key(1.0, cx, ey, cup=True)]
        base = self.scene.with_(dice=tuple(d for d in self.scene.dice if d not in dice))
        states = [(0.0, base)]
        for u in (0.5, 0.6, 0.7):  # tumbling
            tumble = tuple(Die(int(self.rng.integers(1, 7)), d.x + float(self.rng.normal(0, 25) * (0.8 - u)),
                               d.y + float(self.rng.normal(0, 25) * (0.8 - u)), float(self.rng.uniform(0, 360)),
                               moving=True, owner=d.owner) for d in dice)
            states.append((u, base.with_(dice=base.dice + tumble)))
        states.append((0.8, base.with_(dice=base.dice + tuple(dice))))
        self._add(self.pace.roll * float(self.rng.uniform(0.8, 1.3)), states, [self._track(player, keys)])

    def pickup(self, player: int) -> None:
        """The player about to roll collects the dice lying on the board."""
        if not self.scene.dice:
            return
        xs = [d.x for d in self.scene.dice]
        ys = [d.y for d in self.scene.dice]
        x, y = float(np.mean(xs)), float(np.mean(ys))
        ey = self._edge_y(player)
        keys = [Key(0.0, x, ey), Key(0.45, x, y), Key(0.55, x, y), Key(1.0, x, ey)]
        states = [(0.0, self.scene), (0.5, self.scene.with_(dice=()))]
        self._add(self.pace.pickup * float(self.rng.uniform(0.8, 1.3)), states, [self._track(player, keys)])

    def press_clock(self, player: int) -> None:
        cx = self.clock_x
        y = 45.0 if self.bottom(player) else -45.0
        ey = self._edge_y(player)
        keys = [Key(0.0, cx, ey), Key(0.45, cx, y), Key(0.55, cx, y), Key(1.0, cx, ey)]
        dur = self.pace.clock_press * float(self.rng.uniform(0.8, 1.3))
        self.clock.switch(self.t + dur * 0.5, 1 if self.bottom(player) else 0)
        self._add(dur, [(0.0, self.scene)], [self._track(player, keys)])
        self._emit("clock", player)

    # ------------------------------------------------------------------ cube

    def _cube_at(self, place: str) -> dict:
        """The scene's cube fields for a cube put at ``place`` (centre / top / bottom / off), on the bar or, where
        the players keep it off the bar (``cube_ends``), in the tray end's middle."""
        if not self.cube_ends or place == "off":
            return {"cube_place": place, "cube_at": None}
        x0, _, x1, _ = self.geom.end_rect(self.geom.trays_right)
        y = {"centre": 0.0, "top": -70.0, "bottom": 70.0}[place] + float(self.rng.uniform(-8, 8))
        x = (x0 + x1) / 2 + float(self.rng.uniform(-8, 8))
        return {"cube_place": "end", "cube_at": (round(x, 1), round(y, 1), self.geom.cube_size,
                                                 90.0 * int(self.rng.integers(4)))}

    def cube_to(self, player: int, value: int, place: str, kind: str) -> None:
        turned = self.scene.with_(cube_value=value, **self._cube_at(place))
        (x0, y0), (x1, y1) = self.scene.cube_pose(self.geom)[:2], turned.cube_pose(self.geom)[:2]
        ey = self._edge_y(player)
        keys = [Key(0.0, x0, ey), Key(0.35, x0, y0), Key(0.65, x1, y1), Key(1.0, x1, ey)]
        states = [(0.0, self.scene), (0.5, turned)]
        self._add(1.4 * float(self.rng.uniform(0.8, 1.3)), states, [self._track(player, keys)])
        self._emit(kind, player, cube=value, place=place)

    # ------------------------------------------------------------------ games

    def reset(self, score: tuple[int, int], next_position: Position, crawford: bool) -> None:
        """Both players gather the checkers and set up the next game; the score is updated."""
        g = self.geom
        sb = score if self.seating.p0_bottom else score[::-1]
        fresh = self.scene.with_(counts=slot_counts(next_position, self.seating), dice=(), cube_value=1,
                                 score=sb, **self._cube_at("off" if crawford else "centre"))
        tracks = []
        for player in (0, 1):
            ey = self._edge_y(player)
            xs = self.rng.uniform(-g.width / 3, g.width / 3, 5)
            ys = self.rng.uniform(-g.height / 3, g.height / 3, 5)
            keys = [Key(0.0, float(xs[0]), ey)] + [Key(0.1 + 0.2 * i, float(x), float(y))
                                                    for i, (x, y) in enumerate(zip(xs, ys))] + [Key(1.0, 0, ey)]
            tracks.append(self._track(player, keys))
        dur = self.pace.reset * float(self.rng.uniform(0.7, 1.4))
        self.settled.append((self.t + dur * 0.5, next_position))
        self._add(dur, [(0.0, self.scene), (0.5, fresh)], tracks)

    def position_at(self, t: float) -> Position:
        """The last settled position (after the last completed play or reset) at time t."""
        i = bisect.bisect_right(self.settled, t, key=lambda e: e[0]) - 1
        return self.settled[max(i, 0)][1]

    def run(self) -> None:
        rep = replay_match(self.record)
        score = (0, 0)
        self.hold(2.0)
        for gr in rep.games:
            if self.max_games is not None and self.game >= self.max_games:
                break
            self.game = gr.game.number
            self.move = 0
            if gr.crawford:
                self.scene = self.scene.with_(cube_place="off", cube_at=None)
            self._emit("game_start", score=list(score), crawford=gr.crawford)
            self.play_game(gr)
            self._emit("game_end", gr.winner, points=gr.points, ending=gr.ending, score=list(gr.score_after))
            score = gr.score_after
            self.hold(float(self.rng.uniform(2.0, 4.0)))
            last = self.max_games is not None and self.game >= self.max_games
            if gr is not rep.games[-1] and not last:
                nxt = rep.games[rep.games.index(gr) + 1]
                self.reset(score, Position.opening(), nxt.crawford)
        self.hold(3.0)

    def play_game(self, gr) -> None:
        actions = gr.game.actions
        first = True
        for i, a in enumerate(actions):
            self.move = i + 1
            p = a.player
            if isinstance(a, Move):
                if first:
                    self.opening_roll(p, a.dice)
                    first = False
                else:
                    self.pickup(p)
                    self.roll(p, a.dice)
                play = gr.plays[i]
                if play is None:  # the record's play is not legal: render what the record says happened
                    raise ValueError(f"game {gr.game.number}: action {i + 1} is not a legal play")
                self.think(1.2 if not play.steps else None)
                self.play(p, play, gr.positions[i])
                self.press_clock(p)
            elif isinstance(a, Double):
                self.think(2.0)
                across = "top" if self.bottom(p) else "bottom"  # turned and pushed to the opponent's side
                self.cube_to(p, self.scene.cube_value * 2, across, "double")
                self.press_clock(p)
            elif isinstance(a, Take):
                self.think(5.0)
                place = "bottom" if self.bottom(p) else "top"
                self.cube_to(p, self.scene.cube_value, place, "take")
                self.press_clock(p)
            elif isinstance(a, Drop):
                self.think(5.0)
                self._emit("drop", p)
            elif isinstance(a, Resign):
                self.think(3.0)
                self._emit("resign", p, value=a.value)
            elif isinstance(a, Timeout):
                self.clock.flag(self.t, 0 if self.bottom(p) else 1)
                self.hold(2.0)
                self._emit("timeout", p)

    def opening_roll(self, starter: int, dice: tuple[int, int]) -> None:
        """Each player throws one die into their own right half; the higher one starts with both."""
        hi, lo = max(dice), min(dice)
        other = 1 - starter
        while self.rng.random() < self.pace.tie_rate:
            v = int(self.rng.integers(1, 7))
            self._both_throw(starter, other, v, v)
            self._emit("opening_tie", None, value=v)
            self.hold(1.0)
            self.scene = self.scene.with_(dice=())
            self.hold(0.5)
        self._both_throw(starter, other, hi, lo)
        self._emit("roll", starter, dice=[dice[0], dice[1]], opening=True,
                   placed=[_die_dict(d) for d in self.scene.dice])

    def _both_throw(self, starter: int, other: int, v_start: int, v_other: int) -> None:
        (xs, ys, a_s), = self._throw(starter, 1)
        (xo, yo, a_o), = self._throw(other, 1)
        d1 = Die(v_start, xs, ys, a_s, owner=self._pair(starter))
        d2 = Die(v_other, xo, yo, a_o, owner=self._pair(other))
        tracks, states = [], [(0.0, self.scene.with_(dice=()))]
        for p, d in ((starter, d1), (other, d2)):
            ey = self._edge_y(p)
            tracks.append(self._track(p, [Key(0.0, d.x, ey), Key(0.4, d.x, d.y), Key(0.5, d.x, d.y),
                                          Key(1.0, d.x, ey)]))
        states.append((0.5, self.scene.with_(dice=(d1, d2))))
        self._add(self.pace.roll, states, tracks)


def _die_dict(d: Die) -> dict:
    return {"value": d.value, "x": round(d.x, 1), "y": round(d.y, 1), "angle": round(d.angle, 1),
            "cocked": d.cocked, "on_checker": d.on_checker}


class ClockModel:
    """A Bronstein clock: each turn the first ``delay`` seconds are free."""

    def __init__(self, reserve: float, delay: float):
        self.left = [float(reserve), float(reserve)]  # bottom, top (seat order)
        self.delay = float(delay)
        self.running: int | None = None
        self.since = 0.0
        self.flagged: int | None = None
        self.history: list[tuple[float, int | None, list[float]]] = [(0.0, None, list(self.left))]

    def switch(self, t: float, to: int) -> None:
        if self.running is not None:
            used = max(0.0, (t - self.since) - self.delay)
            self.left[self.running] = max(0.0, self.left[self.running] - used)
        self.running, self.since = to, t
        self.history.append((t, to, list(self.left)))

    def flag(self, t: float, seat: int) -> None:
        self.left[seat] = 0.0
        self.running = None
        self.history.append((t, None, list(self.left)))

    def at(self, t: float) -> tuple[tuple[float, float], int | None]:
        """Display at time t (history is appended in time order)."""
        lo, hi = 0, len(self.history) - 1
        while lo < hi:  # last entry with time <= t
            mid = (lo + hi + 1) // 2
            if self.history[mid][0] <= t:
                lo = mid
            else:
                hi = mid - 1
        t0, running, left = self.history[lo]
        left = list(left)
        if running is not None:
            left[running] = max(0.0, left[running] - max(0.0, (t - t0) - self.delay))
        return (left[0], left[1]), running
