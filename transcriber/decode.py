"""Decode camera observations into a match: the legal plays and cube actions that best explain them.

The rules engine is the referee: only legal plays are ever proposed. The footage is
cut into roll segments (a new pair of settled dice starts one); within a segment the
board shows the position before the play, then after it, and the split point is
free, so a missed settle costs nothing. Every segment is scored for every dice
reading the camera found plausible and every legal play of each, and a beam keeps
the best few histories across turns, so one misread frame or die is repaired by what
the board shows afterwards. What stays uncertain becomes a `Flag` with a reason,
the ranked alternatives and the footage time to look at.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

import numpy as np

from .moves import format_steps, legal_plays
from .observation import CUBE_VALUES, MAX_COUNT
from .physical import BAR_SLOT, DARK, LIGHT, N_SLOTS, TRAY_BOTTOM, TRAY_TOP, Seating, slot_counts
from .position import Position
from .record import Double, Drop, Flag, Game, MatchRecord, Move, Provenance, Resign, RulesProfile, Take
from .scoring import BACKGAMMON, GAMMON, SINGLE, finished, likely_resignation, result_value
from .settle import DiceRead, Settle, settles

BEAM = 4
WIDE_BEAM = 24  # ... or up to this many while they tie: when the board was not seen, later reads decide
TIE = 0.5  # nats
BEAM_MARGIN = 16.0  # nats: histories this far behind the best are dropped ...
EXPAND_MARGIN = 12.0  # ... and these are kept but not expanded further
DICE_CANDIDATES = 6  # dice readings tried per roll ...
DICE_MARGIN = 7.0  # ... at most this far behind the best reading
DICE_OVERRULED = 3.0  # nats: a roll the dice read this much less likely than their likeliest was chosen by the board
CLOSE_CALL = 4.0  # nats: a runner-up play this close is flagged
UNEXPLAINED = 14.0  # nats below the unconstrained reading: no legal play explains the board
JUNK = 10.0  # nats: the most one settle can say against a position (a hand resting over the points, a knock)
GAP_S = 8.0  # seconds without observations that are reported as a footage gap
NEXT_SETTLES = 3  # settles after a segment that may show the board as its play left it
CUBE_MARGIN = 3.0  # nats: a cube value this much likelier over the reads
HELD_READS = 3  # a settle of this many reads is a board held, not a glimpse
UNSEEN_TURN_COST = 6.0  # nats: prior against a whole turn passing between two reads
LATE_THROW_COST = 12.0  # nats: against the winner throwing again after the game's last play
WRONG_HALF_COST = 8.0  # nats: against the player on turn throwing into the other player's half and playing it
VOID_THROW_COST = 8.0  # nats: prior against a throw that did not count (cocked, rerolled) and was not seen so
# nats: against a play no dice read allow, as the board shows it (condoned). Each settle says at most JUNK against
# a legal play, so one or two settles after the play must be able to outweigh it; under EXPAND_MARGIN, so the
# history lives on and what the next rolls show decides
ILLEGAL_PLAY_COST = 6.0


@dataclass
class Segment:
    """Settles from one roll to the next (or to the end of the game)."""

    settles: list[Settle]
    next_settles: list[Settle] = field(default_factory=list)  # the settles after it (the next roll's first)
    paired: bool = False  # decided together with the next roll (the board was not seen in between)
    after_gap: bool = False  # footage is missing just before this roll: whole turns may have passed unseen

    @property
    def roll(self) -> Settle:
        return self.settles[0]

    @property
    def next_roll(self) -> Settle | None:
        return self.next_settles[0] if self.next_settles else None


@dataclass(frozen=True)
class ShownPlay:
    """A play as the board shows it where no legal play of the dice read explains the board: an illegal play
    the opponent condoned (half a roll played, a wrong count), or a roll misread beyond the dice tried. The
    game goes on from the position it leaves, as the players' game does (`Decoder._shown_plays`)."""

    dice: tuple[int, int]
    steps: tuple
    result: Position

    @property
    def notation(self) -> str:
        return format_steps(self.steps)


@dataclass
class Hyp:
    score: float
    pos: Position
    turn: int | None  # who rolls next; None before the opening roll
    cube: int = 1
    owner: int | None = None
    actions: tuple = ()  # (Action, Provenance) pairs, oldest first
    pending: tuple | None = None  # (doubler, provenance) of a double not yet answered by play
    note: Flag | None = None  # a doubt about what happened before the next play, flagged on that play

    def key(self) -> tuple:
        return (self.pos, self.turn, self.cube, self.owner)


@dataclass
class GameState:
    """A game being decoded: the beam after the rolls stepped so far (the live decoder keeps it between
    calls and steps on as footage comes)."""

    beam: list[Hyp]
    k: int = 0  # rolls stepped
    done: bool = False  # the best history has finished the game

    @classmethod
    def new(cls) -> GameState:
        return cls([Hyp(0.0, Position.opening(), None)])


@dataclass
class DecodeResult:
    record: MatchRecord
    seating: Seating
    flags: list[dict] = field(default_factory=list)  # {"game", "action", "t", "reason", "message", "alternatives"}
    settles: int = 0
    segments: int = 0


def infer_seating(first: Settle, p0_light: bool = True) -> tuple[Seating, float]:
    """Which way the colours play, from the opening position; returns the seating and its margin (nats)."""
    opening = Position.opening()
    scored = sorted(((first.loglik(slot_counts(opening, s)), s) for s in
                     (Seating(b, r, p0_light) for b in (True, False) for r in (True, False))),
                    key=lambda x: -x[0])
    return scored[0][1], scored[0][0] - scored[1][0]


def dice_candidates(settle: Settle, opening: bool) -> list[tuple[float, tuple[int, int]]]:
    """(log-probability, dice) for the likeliest readings of a settle's dice."""
    d = settle.dice
    if d is None or not d.values:
        return []
    # A die the camera missed (under a hand, against a checker) is any value: the play decides it.
    values = list(d.values[:2]) + [np.full(6, 1 / 6)] * (2 - len(d.values[:2]))
    v1, v2 = (np.log(np.maximum(v, 1e-9)) for v in values)
    out = []
    for a, b in itertools.product(range(6), range(6)):
        lp = float(v1[a] + v2[b])
        if opening and a == b:
            continue  # an opening roll with equal dice is rolled again
        out.append((lp, (a + 1, b + 1)))
    out.sort(key=lambda x: -x[0])
    # a die unseen makes six rolls alike for the one seen: then the seen die's next readings as well (a 4 taken
    # for a 2, the other die missed, must still be weighed against the 2)
    keep = DICE_CANDIDATES * (1 + 2 - len(d.values[:2]))
    return [o for o in out[:keep] if o[0] >= out[0][0] - DICE_MARGIN]


class Scorer:
    """Likelihoods of many candidate positions against a segment's settles at once."""

    def __init__(self, seating: Seating):
        # counts (54 = 27 slots x light/dark) = [side0 (25), off0, side1 (25), off1] @ M
        m = np.zeros((52, N_SLOTS * 2), np.int16)
        for player in (0, 1):
            colour = LIGHT if seating.light(player) else DARK
            for i in range(24):
                m[player * 26 + i, seating.slot(player, i + 1) * 2 + colour] = 1
            m[player * 26 + 24, BAR_SLOT * 2 + colour] = 1
            m[player * 26 + 25, (TRAY_BOTTOM if seating.bottom(player) else TRAY_TOP) * 2 + colour] = 1
        self.m = m

    def counts(self, positions: list[Position]) -> np.ndarray:
        sides = np.array([p.sides for p in positions], np.int16).reshape(len(positions), 2, 25)
        x = np.concatenate([sides, 15 - sides.sum(2, keepdims=True)], 2).reshape(len(positions), 52)
        return np.clip(x @ self.m, 0, MAX_COUNT)  # (N, 54)

    @staticmethod
    def loglik(settles: list[Settle], counts: np.ndarray, colour: int | None = None) -> np.ndarray:
        """(S, N): log P(settle s | board = candidate n); with `colour`, of that colour's checkers only."""
        lp = np.stack([s.logp.reshape(N_SLOTS * 2, MAX_COUNT + 1) for s in settles])  # (S, 54, 16)
        per = lp[:, np.arange(N_SLOTS * 2)[None, :], counts]  # (S, N, 54)
        return (per if colour is None else per[..., colour::2]).sum(-1)

    @classmethod
    def robust(cls, settles: list[Settle], counts: np.ndarray) -> np.ndarray:
        """`loglik`, but a settle far from every candidate is junk rather than evidence: a read with a still
        hand over a quarter of the board, or made on the old grid just after a knock, must not decide a
        play on its own. (A mixture of the read and a junk model that fits anything JUNK nats short.)"""
        best = np.array([s.best_loglik() for s in settles])
        return np.maximum(cls.loglik(settles, counts), best[:, None] - JUNK)

    @classmethod
    def next_fit(cls, settles: list[Settle], counts: np.ndarray, robust: bool = False) -> np.ndarray:
        """(N,): per candidate, the best fit (nats below each settle's own best reading) among these settles."""
        best = np.array([s.best_loglik() for s in settles])
        ll = cls.robust(settles, counts) if robust else cls.loglik(settles, counts)
        return (ll - best[:, None]).max(0)

    def segment(self, seg: Segment, before: Position, afters: list[Position]) -> tuple[np.ndarray, np.ndarray]:
        """Per candidate: best total over the split point (settles before it show ``before``, from it on
        the candidate), and that split."""
        cb = self.counts([before])
        ca = self.counts(afters)
        lb = self.robust(seg.settles, cb)[:, 0]  # (S,)
        la = self.robust(seg.settles, ca)  # (S, N)
        pre = np.concatenate([[0.0], np.cumsum(lb)])  # (S+1,)
        suf = np.concatenate([np.cumsum(la[::-1], 0)[::-1], np.zeros((1, la.shape[1]))], 0)  # (S+1, N)
        total = pre[:, None] + suf
        if seg.next_settles:
            # The settles after the segment show the play's result too, wherever the split: the best fit
            # among the first ones (the first may be junk; later ones may show the next play already).
            # Where no settle of the segment shows the result, they are all there is. When the next play
            # was made before the board was seen, they show a later position that every candidate misses
            # by the junk floor: no evidence either way.
            total = total + self.next_fit(seg.next_settles, ca, robust=True)
        # the earliest of the best splits: a play that moves nothing scores the same at every split (up to
        # rounding), and what comes after it (a cube turned) is then read from the whole segment
        split = (total >= total.max(0) - 1e-6).argmax(0)
        return total[split, np.arange(len(afters))], split


def cut_segments(ss: list[Settle]) -> list[Segment]:
    """A new roll segment starts where dice lie settled somewhere new on the board."""
    segs: list[Segment] = []
    prev = None
    for s in ss:
        thrown = s.dice is not None and len(s.dice.values) >= 1
        if thrown and not s.dice.same_throw(prev):
            segs.append(Segment([s]))
        elif segs:
            segs[-1].settles.append(s)
        else:
            segs.append(Segment([s]))  # settles before the first roll: the set-up
        prev = s.dice if thrown else None
    for seg in segs:  # one reading of the roll: every settle that shows these dice, weighted by reads
        reads = [t for t in seg.settles if t.dice is not None and t.dice.same_throw(seg.roll.dice)
                 and len(t.dice.values) == len(seg.roll.dice.values)]
        if len(reads) > 1:
            n = sum(t.reads for t in reads)
            roll = seg.roll.dice
            orders = [roll.order_of(t.dice) for t in reads]
            values = [sum(t.dice.values[o[k]] * t.reads for t, o in zip(reads, orders)) / n
                      for k in range(len(roll.values))]
            # (into a copy: the live decoder cuts the same settles again as more arrive)
            seg.settles[0] = replace(seg.roll, dice=DiceRead(values, roll.xs,
                                                             sum(t.dice.cocked * t.reads for t in reads) / n,
                                                             sum(t.dice.on_checker * t.reads for t in reads) / n,
                                                             roll.ys))
    return segs


class Decoder:
    def __init__(self, players: tuple[str, str], length: int, profile: RulesProfile | None = None,
                 p0_light: bool = True):
        self.players, self.length = players, length
        self.profile = profile or RulesProfile(length=length)
        self.p0_light = p0_light
        self.crawford = False  # the game being decoded is the Crawford game
        self._crawford_done = False
        self.flags: list[dict] = []
        self._memo: dict = {}
        self._looks: dict = {}

    def decode(self, observations) -> DecodeResult:
        ss = settles(list(observations))
        if not ss:
            raise ValueError("no quiet frame was read: nothing to decode (is the board in view?)")
        self.begin(ss[0])
        for s in ss:
            self.own_trays(s)
        segs = cut_segments(ss)
        record = MatchRecord(players=self.players, length=self.length, profile=self.profile)
        games = self.split_games(segs)
        score = [0, 0]
        for number, game_segs in enumerate(games, start=1):
            game = self.new_game(number, score)
            self._decode_game(game, game_segs)
            record.games.append(game)
            score = self.score_after(game, score)
        return DecodeResult(record, self.seating, self.flags, len(ss), len(segs))

    def forget(self) -> None:
        """Drop what was scored for segments (kept by their ids): the live decoder cuts new ones at each call."""
        self._memo.clear()

    def begin(self, first: Settle) -> None:
        """Which way the colours play, from the first settled board (the opening position)."""
        seating, margin = infer_seating(first, self.p0_light)
        self.seating = seating
        self.scorer = Scorer(seating)
        self.opening_counts = slot_counts(Position.opening(), seating)
        self.openings = self._opening_plays()
        self._crawford_done = False
        if margin < 5:
            self._flag(0, 0, first.t0, "seating", f"the opening position barely tells the direction of play "
                       f"({margin:.1f} nats)")

    def own_trays(self, s: Settle) -> None:
        """Each tray holds one colour: its player's (once per settle, when it has all its reads)."""
        for player in (0, 1):
            s.own_tray(TRAY_BOTTOM if self.seating.bottom(player) else TRAY_TOP,
                       LIGHT if self.seating.light(player) else DARK)

    def new_game(self, number: int, score: list[int]) -> Game:
        game = Game(number=number, score=(score[0], score[1]))
        # the Crawford game: no cube, whatever the camera makes of it (the cube is often set aside)
        self.crawford = bool(self.length and self.profile.crawford and not self._crawford_done
                             and max(score) == self.length - 1)
        self._crawford_done = self._crawford_done or self.crawford
        return game

    def score_after(self, game: Game, score: list[int]) -> list[int]:
        score = list(score)
        if game.winner is not None:
            score[game.winner] = min(self.length, score[game.winner] + (game.points or 0)) if self.length \
                else score[game.winner] + (game.points or 0)
        return score

    # ------------------------------------------------------------------ games

    def split_games(self, segs: list[Segment]) -> list[list[Segment]]:
        """A game starts where the board shows the opening position again after play (whatever the dice
        show: a position that returns to the opening in play does not happen, opening dice misread do), or,
        where the opening was never seen, one opening play away from it after play deep into a game."""
        games: list[list[Segment]] = [[]]
        played = deep = False
        for seg in segs:
            looks_opening, after_opening = self._opening_looks(seg.settles[0])
            if seg.roll.dice is not None and ((looks_opening and played) or (after_opening and deep)):
                games.append([])
                played = deep = False
            if seg.roll.dice is not None:
                # (a game of one play, doubled and dropped: its opening segment shows the play afterwards)
                moved = any(t.reads >= 2 and not self._opening_looks(t)[0] for t in seg.settles[1:])
                played = played or not looks_opening or moved
                deep = deep or not (looks_opening or after_opening)
            games[-1].append(seg)
        games = [g for g in games if g]
        for g in games:
            # (across segments: after a Cannot Move the roll after next shows this play's result too)
            flat = [t for seg in g for t in seg.settles]
            end = 0
            for seg in g:
                end += len(seg.settles)
                seg.next_settles = flat[end:end + NEXT_SETTLES]
        return games

    def _opening_looks(self, settle: Settle) -> tuple[bool, bool]:
        """Does the settle show the opening position; else one opening play from it (`_after_opening`)?
        (Kept per settle, by its span and reads: the live decoder asks again at every call.)"""
        key = (settle.t0, settle.t1, settle.reads)
        if key not in self._looks:
            if len(self._looks) > 4096:
                self._looks.clear()
            looks = settle.loglik(self.opening_counts) > settle.best_loglik() - 6.0
            self._looks[key] = (looks, not looks and self._after_opening(settle))
        return self._looks[key]

    def _opening_plays(self) -> tuple[list, np.ndarray]:
        """Every opening (player, roll, play) and the board counts each leaves."""
        start = Position.opening()
        plays = [(player, (a, b), play) for player in (0, 1) for a in range(2, 7) for b in range(1, a)
                 for play in legal_plays(start, player, (a, b))]
        return plays, self.scorer.counts([p[2].result for p in plays])

    def _after_opening(self, settle: Settle) -> bool:
        """Does the settle show a board one opening play from the start (and clearly not the start itself:
        the two differ by a checker or two, a few nats on a poor camera)?"""
        _, counts = self.openings
        fit = float(self.scorer.loglik([settle], counts)[0].max())
        return fit > settle.best_loglik() - 6.0 and fit > settle.loglik(self.opening_counts) + 6.0

    def _unseen_opening(self, seg: Segment, keep: int = 3) -> list[Hyp]:
        """The game's first throw seen shows a board one play from the opening: the opening roll and play
        passed unseen (the board was set up and played under hands). The likeliest opening plays, flagged."""
        plays, counts = self.openings
        fit = self.scorer.loglik([seg.settles[0]], counts)[0]
        out, seen = [], set()
        for j in np.argsort(-fit):
            player, dice, play = plays[j]
            if play.result in seen:
                continue
            seen.add(play.result)
            rolls = sorted({f"{d[0]}{d[1]}" for p, d, q in plays if q.result == play.result})
            prov = Provenance(time=round(seg.settles[0].t0, 2), confidence=None, alternatives=rolls[1:6])
            prov.flags.append(Flag("unseen_turn", f"the opening roll and play were not seen (roll {dice[0]}{dice[1]} "
                                   f"guessed from the board; could be {', '.join(rolls)})", None))
            out.append(Hyp(float(fit[j]) - UNSEEN_TURN_COST, play.result, 1 - player,
                           actions=((Move(player, dice, play.notation), prov),)))
            if len(out) >= keep:
                break
        return out

    def _decode_game(self, game: Game, segs: list[Segment]) -> None:
        gs = GameState.new()
        self.advance(gs, self.rolls(segs), final=True)
        self.finish_game(game, gs, segs)

    def finish_game(self, game: Game, gs: GameState, segs: list[Segment]) -> None:
        """The best history's actions become the game's, and its result is judged."""
        best = gs.beam[0]
        for action, prov in best.actions:
            action.prov = prov
            game.actions.append(action)
        self._finish(game, best, segs)

    def rolls(self, segs: list[Segment]) -> list[Segment]:
        """A game's segments that start with a throw that counts. (Set-up settles before the opening roll
        are skipped; so are rolls that do not count: rerolled.)"""
        rolls = [seg for seg in segs if seg.roll.dice is not None and len(seg.roll.dice.values) >= 1
                 and not self._rethrown(seg)]
        for prev, seg in zip([None, *rolls], rolls):
            seg.after_gap = any(t.gap_before > GAP_S for t in seg.settles[:1] + (prev.settles[1:] if prev else []))
        return rolls

    def advance(self, gs: GameState, rolls: list[Segment], final: bool) -> None:
        """Step the game's beam over its rolls from `gs.k` on. A roll is decided with the one after it in view
        (two plays between reads are decided together): unless the game's footage is `final`, the last roll
        waits for the next."""
        beam, k = gs.beam, gs.k
        while k < len(rolls) and not gs.done and (final or k + 1 < len(rolls)):
            seg = rolls[k]
            if beam[0].turn is None and (self._still_opening(seg)
                                         or (self._opening_tie(seg) and not self._played_on(seg))):
                # both players threw the same number and throw again; or a die lying about while the board
                # is set up (nothing was played after it). A tie the board shows played is stepped as a throw:
                # the players' game goes on from it, flagged (`_step`)
                k += 1
                continue
            if beam[0].turn is None and self._after_opening(seg.roll) \
                    and not self._fits(seg, *self._score(beam[0], seg, dice_candidates(seg.roll, True), True)):
                # not the opening dice, left lying after their play: the opening passed unseen
                beam = self._unseen_opening(seg)  # and this roll is the second of the game
            nxt_roller = self._dice_roller(rolls[k + 1].roll) if k + 1 < len(rolls) else None
            same_roller = nxt_roller is not None and nxt_roller == self._dice_roller(seg.roll)
            # (the roll is by the player the best history expects: else a turn passed unseen, see _step)
            on_turn = k + 1 < len(rolls) and beam[0].turn is not None \
                and self._dice_roller(seg.roll) in (None, beam[0].turn) \
                and max(self._read_void(seg), self._read_void(rolls[k + 1])) <= 0.5  # (else _step weighs it void)
            if on_turn and not same_roller and self._unseen_after(beam[0], seg):
                # the board was never seen after this play: decide it together with the next roll's
                seg.paired = True
                beam = self._step_pair(beam, seg, rolls[k + 1])
                k += 2
            elif on_turn and same_roller and rolls[k + 1].after_gap and self._ends_unplayed(beam[0], seg) \
                    and (gap := self._step_gap(beam, seg, rolls[k + 1])):
                # the footage stopped after this roll and resumed at the same player's next one
                seg.paired = True
                stepped = self._step(beam, seg)
                beam = sorted(gap + stepped, key=lambda x: -x.score)[:max(2 * BEAM, len(stepped))]
                k += 1
            else:
                beam = self._step(beam, seg)
                k += 1
            gs.done = any(finished(h.pos, p) for h in beam[:1] for p in (0, 1))
        gs.beam, gs.k = beam, k

    def _step(self, beam: list[Hyp], seg: Segment) -> list[Hyp]:
        opening = beam[0].turn is None
        # an opening double the board shows played: the rules have it thrown again, casual players may play it
        cands = dice_candidates(seg.roll, opening and not (self._opening_tie(seg) and self._played_on(seg)))
        if not cands:
            return beam
        expanded: list[tuple[float, Hyp, tuple]] = []
        roller = self._dice_roller(seg.roll)
        given = beam
        if not opening and roller is not None:
            # The dice lie in the other player's half: the turn of the player we expected passed unseen
            # (a quick Cannot Move, or a roll and play between two reads).
            kept = [h for h in beam if h.turn == roller]
            for h in beam:
                if h.turn != roller:
                    kept += self._unseen_turns(h, seg)
                    # or the player on turn threw into the other half (a void throw under most rules, played on
                    # by casual players): what the board shows next decides
                    kept.append(replace(h, score=h.score - WRONG_HALF_COST, note=h.note or Flag(
                        "dice_wrong_half", "the dice lie in the opponent's half: the rules have such a throw "
                        "thrown again, and it was played", None)))
                elif seg.after_gap:  # the footage stopped: both players may have played out of sight
                    kept += self._unseen_round(h, seg)
            beam = sorted(kept, key=lambda h: -h.score)[:max(2 * BEAM, len(beam))]
        for rank_h, h in enumerate(beam):
            if h.score < beam[0].score - EXPAND_MARGIN:
                break  # far behind: not worth expanding
            # The likeliest dice reading first; the others only where it leaves doubt: an unclear
            # reading, or no play under it that fits the board (a misread die is then repaired).
            tried = cands[:1]
            options, totals, splits = self._score(h, seg, tried, opening)
            clear = len(cands) < 2 or cands[0][0] - cands[1][0] > 3.0
            if rank_h == 0 and (not clear or not self._fits(seg, options, totals, splits)):
                tried = cands
                options, totals, splits = self._score(h, seg, tried, opening)
            if not options:
                continue
            order = np.argsort(-totals)
            for rank in order[:_width(totals[order])]:
                expanded.append((float(totals[rank]), h, (options, totals, splits, order, int(rank))))
        expanded.sort(key=lambda e: -e[0])
        out: list[Hyp] = []
        seen = set()
        for total, h, (options, totals, splits, order, rank) in expanded:
            if total < expanded[0][0] - BEAM_MARGIN or not _room(len(out), expanded[0][0], total):
                break
            _, roller, roll, play = options[rank]
            nh = Hyp(total, play.result, 1 - roller, h.cube, h.owner)
            if nh.key() in seen:
                continue
            seen.add(nh.key())
            # alternatives only for the histories kept: the runner-up plays, and the best other dice
            alts = [(float(totals[j]), options[j][3]) for j in order[:12] if options[j][3].result != play.result][:5]
            other = next(((float(totals[j]), options[j][2]) for j in order
                          if sorted(options[j][2]) != sorted(roll)), None)
            split = int(splits[rank])
            prov = self._provenance(seg, play, roll, split, total, alts, other)
            over = _overruled(cands, roll)
            if over is not None:
                read, gap = over
                prov.flags.append(Flag("dice_overruled", f"the dice were read {read[0]}{read[1]} ({gap:.1f} nats "
                                       f"likelier than {roll[0]}{roll[1]}); {roll[0]}{roll[1]} is what the board "
                                       "and the rules allow: a die misread, or a roll the rules do not expect",
                                       round(float(prov.confidence), 4)))
                prov.alternatives.insert(0, f"dice {read[0]}{read[1]}")
            if opening and roll[0] == roll[1]:
                prov.flags.append(Flag("illegal_play", f"an opening roll of {roll[0]}{roll[1]}, played as the board "
                                       "shows: the rules have equal opening dice thrown again (condoned by the "
                                       "players, or a die misread)", round(float(prov.confidence), 4)))
            if seg.roll.dice.on_checker > 0.5 and not self.profile.dice_on_checker_valid:
                prov.flags.append(Flag("dice_on_checker", f"played with a die read lying on a checker: under "
                                       f"{self.profile.name} rules that throw is thrown again", None))
            if h.note is not None:
                prov.flags.insert(0, h.note)
            nh.actions = h.actions + ((Move(roller, roll, play.notation), prov),)
            nh = self._cube_actions(nh, seg, split, roller)
            out.append(nh)
        if not opening and expanded:
            # Beside the plays (which may all tie when the board is not seen after them), always keep the
            # best history in which the throw did not count: the next throw decides.
            voids = [v for v in self._void_throws(beam, given, seg) if v[0] >= expanded[0][0] - BEAM_MARGIN]
            if voids:
                total, h, note = max(voids, key=lambda v: v[0])
                out.append(Hyp(total, h.pos, h.turn, h.cube, h.owner, h.actions, h.pending, note or h.note))
                out.sort(key=lambda x: -x.score)
        return out or beam

    def _rethrown(self, seg: Segment) -> bool:
        """A throw read cocked (or on a checker, where such a die is thrown again) and thrown again by the same
        player: it did not count. Followed by the other player's throw it may have stood (the player played
        it; or the reader took a flat die for a cocked one, as a poor camera does a few reads in a hundred):
        the beam weighs both (`_void_throws`)."""
        if self._read_void(seg) <= 0.5:
            return False
        roller, nxt = self._dice_roller(seg.roll), seg.next_roll
        return nxt is None or (roller is not None and self._dice_roller(nxt) == roller)

    def _read_void(self, seg: Segment) -> float:
        """How sure the reader is that this throw cannot count: a die cocked, or on a checker where that
        die is thrown again."""
        d = seg.roll.dice
        return max(d.cocked, 0.0 if self.profile.dice_on_checker_valid else d.on_checker)

    def _void_throws(self, beam: list[Hyp], given: list[Hyp], seg: Segment) -> list[tuple[float, Hyp, Flag | None]]:
        """Histories where this throw did not count: the same player throws again into the same half and
        the board does not change in between (a cocked die the camera took for a lying one), or the reader
        saw it void (cocked, or on a checker where that die is thrown again), however sure it was. Then it
        may be no throw at all (a die-like thing read in the other half): the histories `given` to this
        step are kept as they were, beside those with the turns passed unseen put in (`beam`).
        Under rules where a die on a checker counts, a rethrown die on a checker is flagged: perhaps it
        was cocked against the checker, perhaps the players rethrew a throw that stood."""
        nxt = seg.next_roll
        roller = self._dice_roller(seg.roll)
        read_void = self._read_void(seg)
        if roller is None or (read_void <= 0.5 and (nxt is None or self._dice_roller(nxt) != roller)):
            return []
        cost = -np.log(read_void) if read_void > 0.5 else VOID_THROW_COST
        note = None
        if seg.roll.dice.on_checker > 0.5 and self.profile.dice_on_checker_valid:
            d = [int(np.argmax(v)) + 1 for v in seg.roll.dice.values]
            note = Flag("dice_on_checker", f"the throw before this one ({''.join(map(str, d))}, a die on a checker) "
                        f"was thrown again; under {self.profile.name} rules a die lying flat on a checker counts",
                        None)
        out = []
        for h in beam[:2] + (given[:2] if read_void > 0.5 else []):
            if h.turn == roller or read_void > 0.5:
                total, _ = self.scorer.segment(seg, h.pos, [h.pos])
                out.append((h.score + float(total[0]) - cost, h, note))
        return out

    def _score(self, h: Hyp, seg: Segment, cands, opening: bool):
        key = (h.key(), h.score, id(seg), tuple(c[1] for c in cands), opening)
        if key not in self._memo:
            if len(self._memo) > 64:
                self._memo.clear()
            self._memo[key] = self._score_now(h, seg, cands, opening)
        return self._memo[key]

    def _score_now(self, h: Hyp, seg: Segment, cands, opening: bool):
        options = []  # (dice log-prob, roller, roll, play)
        for dice_lp, dice in cands:
            roll = (max(dice), min(dice)) if opening else dice
            for roller in (h.turn,) if h.turn is not None else self._opening_starters(seg.roll, dice):
                options += [(dice_lp, roller, roll, play) for play in legal_plays(h.pos, roller, roll)]
        if not options:
            return [], np.zeros(0), np.zeros(0, int)
        options += self._shown_plays(h.pos, seg, options[0], {o[3].result for o in options})
        scores, splits = self.scorer.segment(seg, h.pos, [o[3].result for o in options])
        totals = h.score + np.array([o[0] - (ILLEGAL_PLAY_COST if isinstance(o[3], ShownPlay)
                                             or (opening and o[2][0] == o[2][1]) else 0.0)
                                     for o in options]) + scores
        again = self._dice_roller(seg.next_roll) if seg.next_roll is not None else None
        if again is not None:
            # the same player throws again: after a play that won the game, far less likely than a throw
            # that did not count (a cocked die the camera took for a lying one)
            totals -= LATE_THROW_COST * np.array([o[1] == again and finished(o[3].result, o[1]) for o in options])
        return options, totals, splits

    def _shown_plays(self, before: Position, seg: Segment, best, legal: set) -> list[tuple]:
        """The play the board shows after this roll, where it is none of the legal ones: read off the segment's
        last settle and the next roll's first, the mover's checkers as read (as many on the board and bar as
        before) and the opponent's as before, less the blots the mover now stands on (hit). One option with the
        likeliest dice read and its roller, `ILLEGAL_PLAY_COST` behind: it wins only where no legal play comes near."""
        dice_lp, roller, roll, _ = best
        out, seen = [], set()
        for settle in seg.settles[-1:] + seg.next_settles[:1]:
            pos = self._position_shown(settle, before, roller)
            if pos is None or pos in legal or pos in seen:
                continue
            seen.add(pos)
            steps = _steps_between(before, pos, roller)
            if steps:
                out.append((dice_lp, roller, roll, ShownPlay(roll, steps, pos)))
        return out

    def _position_shown(self, settle: Settle, before: Position, mover: int) -> Position | None:
        counts = settle.best
        colour = LIGHT if self.seating.light(mover) else DARK
        side = [int(counts[self.seating.slot(mover, p), colour]) for p in range(1, 25)]
        side.append(int(counts[BAR_SLOT, colour]))
        if sum(side) != sum(before.sides[mover]) or side == list(before.sides[mover]):
            return None
        drop = before.pips(mover) - sum((i + 1) * n for i, n in enumerate(side))
        if not 0 < drop <= 24:  # checkers move forward, at most four sixes
            return None
        opp = list(before.sides[1 - mover])
        for i in range(24):  # a blot of the opponent's where the mover now stands was hit
            if side[23 - i] and opp[i]:
                if opp[i] > 1:
                    return None
                opp[i], opp[24] = 0, opp[24] + 1
        sides = (tuple(side), tuple(opp)) if mover == 0 else (tuple(opp), tuple(side))
        try:
            return Position(sides)
        except ValueError:
            return None

    def _unseen_after(self, h: Hyp, seg: Segment) -> bool:
        """Neither this segment nor the next roll shows the board after the play: the next roll's
        play happened before the board was seen again (two plays between reads). Under every plausible
        reading of the dice: a misread die also leaves no play that fits."""
        cands = dice_candidates(seg.roll, False)
        for tried in (cands[:1], cands):  # (the likeliest reading first: most plays are seen, and cheaply)
            options, totals, splits = self._score(h, seg, tried, False)
            if not options or not seg.next_settles:
                return False
            if int(splits[int(np.argmax(totals))]) < len(seg.settles):
                return False
            fit = self.scorer.next_fit(seg.next_settles, self.scorer.counts([o[3].result for o in options]))
            if float(fit.max()) >= -UNEXPLAINED:
                return False
        return True

    def _ends_unplayed(self, h: Hyp, seg: Segment) -> bool:
        """The segment's last settle still shows the board before this roll's play."""
        last = seg.settles[-1]
        return last.best_loglik() - last.loglik(slot_counts(h.pos, self.seating)) <= UNEXPLAINED / 2

    def _step_pair(self, beam: list[Hyp], a: Segment, b: Segment) -> list[Hyp]:
        """Two rolls decided together: every play of the first, each followed by the best plays of
        the second, scored on everything both segments show."""
        cands_a = dice_candidates(a.roll, False)[:2]
        cands_b = dice_candidates(b.roll, False)[:1]
        firsts = []  # (total, h, dice_a, play_a, mid options...)
        for h in beam[:2]:
            before = self.scorer.counts([h.pos])
            lb = float(self.scorer.loglik(a.settles, before).sum())
            for dlp, dice in cands_a:
                for play in legal_plays(h.pos, h.turn, dice):
                    mid = Hyp(h.score + dlp + lb, play.result, 1 - h.turn, h.cube, h.owner)
                    options, totals, splits = self._score(mid, b, cands_b, False)
                    if not options:
                        continue
                    j = int(np.argmax(totals))
                    firsts.append((float(totals[j]), h, dice, play, mid, options, totals, splits))
        if not firsts:
            return beam
        firsts.sort(key=lambda f: -f[0])
        out: list[Hyp] = []
        seen = set()
        for total, h, dice, play, _mid, options, totals, splits in firsts:
            if not _room(len(out), firsts[0][0], total):
                break
            j = int(np.argmax(totals))
            _, roller_b, roll_b, play_b = options[j]
            nh = Hyp(total, play_b.result, 1 - roller_b, h.cube, h.owner)
            if nh.key() in seen:
                continue
            seen.add(nh.key())
            alts_a = [(f[0], f[3]) for f in firsts if f[3].result != play.result][:5]
            prov_a = self._provenance(Segment(a.settles, paired=True), play, dice, len(a.settles), total, alts_a,
                                      None)
            order = np.argsort(-totals)
            alts_b = [(float(totals[i]), options[i][3]) for i in order[:12]
                      if options[i][3].result != play_b.result][:5]
            prov_b = self._provenance(b, play_b, roll_b, int(splits[j]), total, alts_b, None)
            nh.actions = h.actions + ((Move(h.turn, dice, play.notation), prov_a),
                                      (Move(roller_b, roll_b, play_b.notation), prov_b))
            nh = self._cube_actions(nh, b, int(splits[j]), roller_b)
            out.append(nh)
        return out

    def _dice_roller(self, settle: Settle) -> int | None:
        """Who threw these dice: each player throws into their own right-hand half, and the bottom
        player's right is the camera's right (x > 0). None when the dice lie in both halves."""
        d = settle.dice
        if d is None or not d.xs:
            return None
        bottom_player = 0 if self.seating.p0_bottom else 1
        if all(x > 0 for x in d.xs):
            return bottom_player
        if all(x < 0 for x in d.xs):
            return 1 - bottom_player
        return None

    def _still_opening(self, seg: Segment) -> bool:
        """The board still shows the opening position at the next throw: nothing was played."""
        nxt = seg.next_roll
        return nxt is not None and nxt.loglik(self.opening_counts) > nxt.best_loglik() - 6.0

    def _opening_tie(self, seg: Segment) -> bool:
        cands = dice_candidates(seg.roll, False)
        return bool(cands) and cands[0][1][0] == cands[0][1][1]

    def _played_on(self, seg: Segment) -> bool:
        """The board no longer shows the opening position after this throw (held, not glimpsed under a hand)."""
        return any(t.reads >= 2 and not self._opening_looks(t)[0] for t in seg.settles[1:] + seg.next_settles[:1])

    def _all_plays(self, pos: Position, player: int) -> list[tuple[float, tuple[int, int], object]]:
        """(log P(roll), roll, play) for every roll and every distinct play of it."""
        out = []
        for a in range(1, 7):
            for b in range(1, a + 1):
                lp = float(np.log((1 if a == b else 2) / 36))
                out += [(lp, (a, b), play) for play in legal_plays(pos, player, (a, b))]
        return out

    def _unseen_round(self, h: Hyp, seg: Segment, keep: int = 3) -> list[Hyp]:
        """Histories in which, while the footage was missing, the player on turn and then the other played
        out of sight, and the player on turn now throws again."""
        first = seg.settles[0]
        out = []
        for prior, acts, pos in self._two_plays(h, self._all_plays(h.pos, h.turn), first, keep):
            for _, prov in acts:
                prov.flags.append(_missed_in_gap())
            out.append(Hyp(h.score + prior - 2 * UNSEEN_TURN_COST, pos, h.turn, h.cube, h.owner, h.actions + acts))
        return out

    def _step_gap(self, beam: list[Hyp], seg: Segment, nxt: Segment) -> list[Hyp]:
        """This roll's play was not seen before the footage stopped, and the same player throws next: the
        other player's whole turn passed in the gap. This play (its dice read) and that turn are chosen
        together by the board the next roll shows."""
        out: list[Hyp] = []
        first = nxt.settles[0]
        for h in beam[:2]:
            before = float(self.scorer.loglik(seg.settles, self.scorer.counts([h.pos])).sum())
            cands = [(dlp, dice, play) for dlp, dice in dice_candidates(seg.roll, False)[:2]
                     for play in legal_plays(h.pos, h.turn, dice)]
            for prior, acts, pos in self._two_plays(h, cands, first, 3):
                (_, prov_a), (_, prov_b) = acts
                prov_a.time = round(seg.roll.t0, 2)
                prov_b.flags.append(_missed_in_gap())
                out.append(Hyp(h.score + before + prior - UNSEEN_TURN_COST, pos, h.turn, h.cube, h.owner,
                               h.actions + acts))
        out.sort(key=lambda x: -x.score)
        return out[:BEAM]

    def _two_plays(self, h: Hyp, cands_a, first: Settle, keep: int, firsts: int = 6):
        """The likeliest pairs (a play of the player on turn from `cands_a`, then any roll and play of the
        other) to explain the board `first` shows: [(prior, ((Move, Provenance), (Move, Provenance)), pos)].
        The first play is chosen by where its player's own checkers stand afterwards (the second play moves
        them only by a hit), the second by the whole board."""
        a = h.turn
        colour_a = LIGHT if self.seating.light(a) else DARK
        if not cands_a:
            return []
        fit_a = self.scorer.loglik([first], self.scorer.counts([c[2].result for c in cands_a]), colour_a)[0]
        fit_a = fit_a + np.array([c[0] for c in cands_a])
        seen_a, pairs = set(), []
        for j in np.argsort(-fit_a):
            lp_a, dice_a, play_a = cands_a[j]
            if play_a.result in seen_a:
                continue
            seen_a.add(play_a.result)
            cands_b = self._all_plays(play_a.result, 1 - a)
            if not cands_b:
                continue
            fit_b = self.scorer.loglik([first], self.scorer.counts([c[2].result for c in cands_b]))[0]
            for k in np.argsort(-fit_b)[:keep]:
                lp_b, dice_b, play_b = cands_b[k]
                pairs.append((float(fit_b[k]) + lp_a + lp_b, lp_a + lp_b, dice_a, play_a, dice_b, play_b))
            if len(seen_a) >= firsts:
                break
        # Only pairs that explain the board: when more turns than two passed unseen, none do, and the
        # histories without this guess carry on (flagged where nothing fits).
        floor = first.best_loglik() - UNEXPLAINED / 2
        pairs = sorted((p for p in pairs if p[0] - p[1] >= floor), key=lambda x: -x[0])
        out, done = [], set()
        for _fit, prior, dice_a, play_a, dice_b, play_b in pairs:
            if play_b.result in done:
                continue
            done.add(play_b.result)
            acts = tuple((Move(player, dice, play.notation), Provenance(time=round(first.t0, 2), confidence=None,
                                                                         alternatives=[]))
                         for player, dice, play in ((a, dice_a, play_a), (1 - a, dice_b, play_b)))
            # (the board `first` shows is scored with its own roll's segment, as for every history)
            out.append((prior, acts, play_b.result))
            if len(out) >= keep:
                break
        return out

    def _unseen_turns(self, h: Hyp, seg: Segment, keep: int = 3) -> list[Hyp]:
        """Histories with one whole turn the camera never saw (roll and play between two reads):
        every roll and play of the player on turn, kept where they match what the board shows next."""
        first = seg.settles[0]
        cands = self._all_plays(h.pos, h.turn)
        fit = self.scorer.loglik([first], self.scorer.counts([c[2].result for c in cands]))[0]
        order = np.argsort(-(fit + np.array([c[0] for c in cands])))
        out: list[Hyp] = []
        seen = set()
        for j in order:
            lp, dice, play = cands[j]
            if play.result in seen:
                continue
            seen.add(play.result)
            rolls = sorted({f"{d[0]}{d[1]}" for _, d, p in cands if p.result == play.result})
            prov = Provenance(time=round(first.t0, 2), confidence=None, alternatives=rolls[1:6])
            prov.flags.append(Flag("unseen_turn", f"a whole turn happened out of sight (roll {dice[0]}{dice[1]} "
                                   f"guessed from the board; could be {', '.join(rolls)})", None))
            nh = Hyp(h.score + lp - UNSEEN_TURN_COST, play.result, 1 - h.turn, h.cube, h.owner,
                     h.actions + ((Move(h.turn, dice, play.notation), prov),))
            out.append(nh)
            if len(out) >= keep:
                break
        return out

    def _fits(self, seg: Segment, options, totals, splits) -> bool:
        """Does the best of these plays explain the board after it about as well as anything could?
        (Judged on the last settle that shows the result: in the segment, else the next roll's.) An illegal play
        as the board shows it (`ShownPlay`) never does: the dice may be misread (a 22 read as 52 shows four 2s
        played, which 52 cannot explain), so the other readings are weighed against it."""
        if not options:
            return False
        j = int(np.argmax(totals))
        if isinstance(options[j][3], ShownPlay):
            return False
        miss = self._unexplained(seg, int(splits[j]), options[j][3].result)
        return miss is None or miss < UNEXPLAINED / 2

    def _unexplained(self, seg: Segment, split: int, result: Position) -> float | None:
        """How far the board after a play is from this result (nats below the unconstrained reading), on
        the settle from the split on, or after the segment, that shows it best (one may be junk; the last
        ones may show the board being cleared after the game's last play); None: never seen."""
        shown = seg.settles[split:] + seg.next_settles
        if not shown:
            return None
        counts = slot_counts(result, self.seating)
        return min(s.best_loglik() - s.loglik(counts) for s in shown)

    def _held_odd(self, seg: Segment, split: int, result: Position) -> bool:
        """Did the board hold, for several reads, something this play does not explain? One read may be junk
        (a still hand, a knock); a board held that way is worth a look even when the next reads fit again.
        (Not in a game's last segment: there the board is being cleared.)"""
        if not seg.next_settles:
            return False
        counts = slot_counts(result, self.seating)
        return any(s.reads >= HELD_READS and s.best_loglik() - s.loglik(counts) > UNEXPLAINED
                   for s in seg.settles[split:])

    def _provenance(self, seg: Segment, play, dice: tuple[int, int], split: int, total: float,
                    alts, other) -> Provenance:
        at = seg.settles[min(split, len(seg.settles) - 1)]
        gap = (total - alts[0][0]) if alts else 50.0
        conf = 1.0 / (1.0 + sum(np.exp(-(total - a[0])) for a in alts)) if alts else 1.0
        prov = Provenance(time=round(at.t0, 2), confidence=round(float(conf), 4),
                          alternatives=[a[1].notation or "Cannot Move" for a in alts])
        if alts and gap < CLOSE_CALL:
            prov.flags.append(Flag("close_call", f"{alts[0][1].notation or 'Cannot Move'} is nearly as likely "
                                   f"({gap:.1f} nats behind)", round(float(conf), 4)))
        # (a play that moves nothing is shown by the settles before the split as well)
        start = split if play.notation else 0
        miss = self._unexplained(seg, start, play.result)
        if isinstance(play, ShownPlay):
            prov.flags.append(Flag("illegal_play", f"no legal play of {dice[0]}{dice[1]} explains the board: it "
                                   f"shows {play.notation} (an illegal play the opponent condoned, or the dice "
                                   "misread)", round(float(conf), 4)))
        elif not seg.paired and ((miss is not None and miss > UNEXPLAINED) or
                                 self._held_odd(seg, start, play.result)):
            prov.flags.append(Flag("no_legal_play", "no legal play explains what the board shows afterwards "
                                   "(an illegal move the opponent condoned, or a misread)", round(float(conf), 4)))
        if split >= len(seg.settles) and not seg.next_settles and not seg.paired:
            prov.flags.append(Flag("missing_settle", "the board was not seen after this play",
                                   round(float(conf), 4)))
        if other is not None and total - other[0] < CLOSE_CALL:
            # another reading of the dice is nearly as likely: the board cannot settle it (bear-offs)
            d = other[1]
            prov.flags.append(Flag("dice_unclear", f"the dice may be {d[0]}{d[1]} rather than {dice[0]}{dice[1]} "
                                   f"({total - other[0]:.1f} nats)", round(float(conf), 4)))
            prov.alternatives.insert(0, f"dice {d[0]}{d[1]}")
        gap_s = max(t.gap_before for t in seg.settles)
        if gap_s > GAP_S:
            prov.flags.append(Flag("footage_gap", f"{gap_s:.0f} s of footage missing around this roll", None))
        return prov

    def _cube_actions(self, h: Hyp, seg: Segment, split: int, roller: int) -> Hyp:
        """A cube turned after this play: the next roller doubled (it is answered by the roller).
        The cube is a state that lasts: its value is weighed, over every read from the split to the next
        roll, between what it was and twice that (the only double), so a single misread (a 2 read
        as an 8 in glare) turns nothing. A value held that is neither is flagged."""
        if self.crawford:
            return h
        # a cube off the board shows no value (set aside, or in a hand)
        # (up to the next roll's first settle: a player doubles before rolling, so any later change of the
        # cube belongs to a later turn)
        shown = [t for t in seg.settles[split:] + seg.next_settles[:1] if t.cube is not None and t.cube[1] != "off"]
        if not shown:
            return h
        # seen, read after read, but its face not read (a cube in a tray, turned at an angle): whether it was turned
        # here is a guess, and a missed double changes the score. A board held that long, not a glare now and then
        # (single reads at a wrong value, which the state that lasts outweighs)
        unclear = any(t.reads >= 2 * HELD_READS and t.cube_value.max() < 0.45 for t in shown)
        # up to the first reading lower than the one before: the cube back in the centre for the next game
        k = 1
        while k < len(shown) and shown[k].cube[0] >= shown[k - 1].cube[0]:
            k += 1
        shown = shown[:k]
        per = np.array([t.reads * np.log(np.maximum(t.cube_value, 1e-6)) for t in shown])  # (settles, values)
        lp = per.sum(0)
        doubler = 1 - roller
        now, twice = CUBE_VALUES.index(h.cube), CUBE_VALUES.index(min(2 * h.cube, CUBE_VALUES[-1]))
        best = int(np.argmax(lp))
        if best not in (now, twice) and lp[best] - max(lp[now], lp[twice]) > CUBE_MARGIN \
                and sum(t.reads for t in shown if t.cube[0] == CUBE_VALUES[best]) >= HELD_READS:
            prov = h.actions[-1][1]
            prov.flags.append(Flag("cube_unclear", f"the cube reads {CUBE_VALUES[best]}: it was {h.cube}", None))
        # turned at some point and left so, for several reads (one misread turns nothing); only a centred
        # cube or its owner's may be turned
        gain = np.cumsum((per[:, twice] - per[:, now])[::-1])[::-1]  # from each settle on
        later = 0  # reads of the cube still turned after the next roll
        for t in seg.next_settles[1:]:
            if t.cube is None or t.cube[0] != CUBE_VALUES[twice]:
                break
            later += t.reads
        reads = np.cumsum([t.reads for t in shown][::-1])[::-1] + later
        # (a turned cube lies on the taker's side, never in the centre)
        centred = np.cumsum([t.reads * t.cube_place.get("centre", 0.0) for t in shown][::-1])[::-1]
        turned = bool(np.any((gain > CUBE_MARGIN) & (reads >= HELD_READS) & (centred < 0.5 * (reads - later))))
        if not turned and unclear and twice != now and h.owner in (None, doubler):
            h.actions[-1][1].flags.append(Flag("cube_unclear", "the cube is seen but its face is not read: a double "
                                               "here may be missed", None))
        if turned and twice != now and h.owner in (None, doubler):
            prov = Provenance(time=round(seg.settles[-1].t0, 2), confidence=None)
            h.actions = h.actions + ((Double(doubler), prov),)
            h.cube, h.owner = 2 * h.cube, 1 - doubler  # taken, unless the game ends with a drop
            h.pending = (doubler, prov)
        return h

    def _finish(self, game: Game, best: Hyp, segs: list[Segment]) -> None:
        pending = best.pending
        for p in (0, 1):
            if finished(best.pos, p):
                game.winner, game.points = p, result_value(best.pos, p) * best.cube
                return
        end_t = segs[-1].settles[-1].t1 if segs else 0.0
        doubles = [i for i, (a, _) in enumerate(best.actions) if isinstance(a, Double)]
        after = game.actions[doubles[-1] + 1:] if doubles else []
        if after and all(isinstance(a, Move) and a.prov is not None and a.prov.flags for a in after):
            # Nothing after the last double looks like play (no play fits the board, or every one is in doubt:
            # a die pushed aside read as a throw, a turn guessed): it was dropped, and what followed was the
            # board being cleared (dice still lying, checkers gathered up). Sure only when no play fits.
            sure = all(any(f.reason in ("no_legal_play", "illegal_play") for f in a.prov.flags) for a in after)
            game.actions = game.actions[:doubles[-1] + 1]
            doubler = game.actions[-1].player
            drop = Drop(1 - doubler, Provenance(time=round(after[0].prov.time or end_t, 2)))
            if not sure:
                drop.prov.flags.append(Flag("cube_unclear", "read as a drop: what followed the double is in doubt "
                                            "and the game ended unfinished (or taken, and resigned later)", None))
            game.actions.append(drop)
            game.winner, game.points = doubler, 2 ** (len(doubles) - 1)
            return
        if pending is not None:
            doubler, prov = pending
            game.actions.append(Drop(1 - doubler, Provenance(time=round(end_t, 2))))
            game.winner, game.points = doubler, best.cube // 2
            return
        if not game.actions:
            return
        # The board was reset before the last checker was off: a resignation (or a timeout), by the player
        # on turn (one resigns on one's own turn; a flag falls on the clock that is running)
        loser = best.turn if best.turn is not None else int(best.pos.pips(1) > best.pos.pips(0))
        value = likely_resignation(best.pos, loser)
        why = ("a checker of theirs is off" if best.pos.off(loser) else
               "too far behind to save the gammon" if value == GAMMON else "near enough to save the gammon")
        flag = Flag("resignation_value_unknown", "the game stopped before it was finished: resignation or "
                    f"timeout, and for how much, is not visible on the board (taken as {RESIGNED[value]}: {why})",
                    None)
        alts = ["time out: loses the match"]
        if not best.pos.off(loser):  # (with a checker off, no gammon is left to resign)
            alts[:0] = [f"resigns {RESIGNED[v]}" for v in (SINGLE, GAMMON, BACKGAMMON) if v != value]
        game.actions.append(Resign(loser, value, Provenance(time=round(end_t, 2), alternatives=alts,
                                                            flags=[flag])))
        game.winner, game.points = 1 - loser, value * best.cube

    def _opening_starters(self, settle: Settle, dice: tuple[int, int]) -> tuple[int, ...]:
        """Who may have started with these dice: the opening roll is one die in each player's right-hand half, and
        the higher die starts (the bottom player's right is the camera's right, x > 0). Where both dice lie in one
        half on the opening position (thrown together from one cup, as casual players do), where they lie says
        nothing: either player, and the board shows which one moved (on any other position they are a later
        throw's, the opening unseen). A double (a tie, thrown again unless the board shows it played): either."""
        d = settle.dice
        if d is None or not d.xs:
            return ()
        if dice[0] == dice[1]:  # a tie the board shows played (`_step`): who played it, the board says
            return (0, 1)
        one_half = len(d.xs) >= 2 and self._dice_roller(settle) is not None  # (a roller: every die in one half)
        if one_half and self._opening_looks(settle)[0]:
            return (0, 1)
        # dice[0] is the die read first; with one die read, dice[1] is the missed one, in the other half
        bottom_die = dice[0] if d.xs[0] > 0 else dice[1]
        top_die = dice[1] if d.xs[0] > 0 else dice[0]
        bottom_player = 0 if self.seating.p0_bottom else 1
        return (bottom_player if bottom_die > top_die else 1 - bottom_player,)

    def _flag(self, game: int, action: int, t: float, reason: str, message: str, alternatives=None) -> None:
        self.flags.append({"game": game, "action": action, "t": round(t, 2), "reason": reason,
                           "message": message, "alternatives": alternatives or []})


RESIGNED = {SINGLE: "a single game", GAMMON: "a gammon", BACKGAMMON: "a backgammon"}


def _room(kept: int, best: float, total: float) -> bool:
    """Is there room for one more history scored `total`, `kept` being kept already? The beam, widened to
    take in every one that ties the best: nothing seen decides between them yet, later reads will."""
    return kept < BEAM or (kept < WIDE_BEAM and total >= best - TIE)


def _width(ranked) -> int:
    """How many of these ranked scores to keep (see `_room`)."""
    return min(max(BEAM, int(np.sum(np.asarray(ranked) >= ranked[0] - TIE))), WIDE_BEAM)


def _missed_in_gap() -> Flag:
    return Flag("footage_gap", "played while the footage was missing (roll and play guessed from the board "
                "afterwards)", None)


def _overruled(cands: list[tuple[float, tuple[int, int]]],
               roll: tuple[int, int]) -> tuple[tuple[int, int], float] | None:
    """The dice's likeliest reading and how much likelier they read it than ``roll``, where the roll played is not
    it by more than `DICE_OVERRULED`: the play and the rules chose the roll against the dice (the opening's one die
    a half, a die misread in glare). Such a roll is a guess a person should see, never a silent repair."""
    best_lp, best = cands[0]
    if sorted(best) == sorted(roll):
        return None
    lp = max((lp for lp, d in cands if sorted(d) == sorted(roll)), default=best_lp - DICE_MARGIN)
    return (best, best_lp - lp) if best_lp - lp > DICE_OVERRULED else None


def _steps_between(before: Position, after: Position, mover: int) -> tuple:
    """The mover's checkers from the points it left to the points it reached (the farthest paired first), and
    which of those hit: the notation of a play no rule made (`ShownPlay`)."""
    a, b = before.sides[mover], after.sides[mover]
    left = [p for i in range(24, -1, -1) for p in [i + 1] * max(0, a[i] - b[i])]
    reached = [p for i in range(23, -1, -1) for p in [i + 1] * max(0, b[i] - a[i])]
    if len(left) != len(reached) or not left:
        return ()
    opp_before, opp_after = before.sides[1 - mover], after.sides[1 - mover]
    hit = {p for p in range(1, 25) if opp_before[24 - p] and not opp_after[24 - p]}
    return tuple((f, t, t in hit) for f, t in zip(left, reached))


def decode(observations, players: tuple[str, str] = ("Light", "Dark"), length: int = 7,
           profile: RulesProfile | None = None, p0_light: bool = True) -> DecodeResult:
    result = Decoder(players, length, profile, p0_light).decode(observations)
    insert_takes(result.record)
    collect_flags(result)
    return result


def insert_takes(record: MatchRecord) -> None:
    """A double followed by more play was taken by the player it was offered to."""
    for g in record.games:
        out = []
        for i, a in enumerate(g.actions):
            out.append(a)
            if isinstance(a, Double):
                nxt = g.actions[i + 1] if i + 1 < len(g.actions) else None
                if nxt is not None and not isinstance(nxt, Drop):
                    out.append(Take(1 - a.player, Provenance(time=a.prov.time if a.prov else None)))
        g.actions = out


def collect_flags(result: DecodeResult) -> None:
    for g in result.record.games:
        for k, a in enumerate(g.actions, start=1):
            if a.prov is None:
                continue
            for f in a.prov.flags:
                result.flags.append({"game": g.number, "action": k, "t": a.prov.time, "reason": f.reason,
                                     "message": f.message, "confidence": f.confidence,
                                     "alternatives": a.prov.alternatives[:5]})
