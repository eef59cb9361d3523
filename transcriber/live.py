"""Live decoding: observations in as the camera sees them, the match so far out, within a second.

It is the batch decoder's own machinery (`Decoder`), kept between calls instead of run again from the
start: the settles are built as observations come (`SettleBuilder`), each game's beam is kept
(`GameState`), and a roll is stepped for good once the roll after it has all its settles in view (the
decoder decides a roll with the next one beside it). What the footage shows since is decoded on a copy of
that beam at each look (`view`) and shown as still weighed: a play the board has not yet shown made is
"rolled, playing". A game is closed when the board shows the next one begun, with the batch decoder's
judgement of its end. So the finished live record is the batch decoder's record of the same observations
(the one difference: a die-like fixture on the board is known to the batch from the start, to the live path
only once it has lain 90 s), and the segment observed later stays the record all the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .decode import NEXT_SETTLES, Decoder, DecodeResult, GameState, collect_flags, cut_segments, insert_takes
from .moves import apply_paths, legal_plays, parse_paths
from .physical import Seating
from .position import Position
from .record import Double, Drop, Game, MatchRecord, Move, Resign, RulesProfile, Take
from .scoring import finished
from .settle import FixtureFinder, SettleBuilder

MISSING = "missing_settle"  # the decoder's flag on a play the board was not seen after


@dataclass
class LiveAction:
    player: int
    kind: str  # move, double, take, drop, resign
    dice: tuple[int, int] | None = None
    play: str | None = None  # notation ("" for Cannot Move)
    t: float | None = None  # footage time it was seen at
    settled: bool = False  # every history the decoder still weighs agrees on it

    def key(self) -> tuple:
        return (self.player, self.kind, self.dice, self.play)


@dataclass
class LiveView:
    """The board as the live decoder sees it now: the game in progress, what is settled and what is still
    weighed. Players are numbered as the match record numbers them."""

    started: bool = False  # the board has been read (its seating known)
    seating: Seating | None = None
    games: list[Game] = field(default_factory=list)  # finished games, as the batch decoder judges them
    game: int = 1  # the game in progress (or the last one, over)
    score: tuple[int, int] = (0, 0)  # before the game in progress
    crawford: bool = False
    actions: list[LiveAction] = field(default_factory=list)  # of the game in progress, oldest first
    positions: list[Position] = field(default_factory=list)  # after each of them
    position: Position = field(default_factory=Position.opening)  # the board now
    turn: int | None = None  # who throws next (or is playing now); None before the opening roll
    cube: int = 1
    owner: int | None = None
    doubled: bool = False  # a double is on the table, answered by the next play (taken) or by a drop
    dice: tuple[int, int] | None = None  # thrown and being played
    phase: str = "setup"  # setup, playing, to_roll, game_over
    t: float = 0.0  # footage time of the latest observation


class LiveDecoder:
    def __init__(self, players: tuple[str, str], length: int, profile: RulesProfile | None = None,
                 p0_light: bool = True):
        self.decoder = Decoder(players, length, profile, p0_light)
        self.finder = FixtureFinder()
        self.builder = SettleBuilder()
        self.closed = 0  # settles that take no more reads (their trays owned)
        self.game_from = 0  # the game in progress starts at this settle
        self.games: list[Game] = []
        self.score = [0, 0]
        self.gs: GameState | None = None
        self.game: Game | None = None
        self.t = 0.0
        self._replayed: list[tuple[tuple, Position]] = []  # (action key, position after) of the last view

    # ------------------------------------------------------------------ input
    def add(self, observations) -> None:
        """Observations in footage order (each batch after the last)."""
        fixed = self.finder.found()
        for o in observations:
            self.finder.add(o)
            self.builder.add(o, fixed)
            self.t = max(self.t, o.t)
        self._commit()

    def _commit(self) -> None:
        out, d = self.builder.out, self.decoder
        closed = len(out) - (1 if self.builder.open else 0)
        if closed == 0:
            return
        if self.gs is None:
            d.begin(out[0])
            self._new_game()
        for s in out[self.closed:closed]:
            d.own_trays(s)
        self.closed = closed
        d.forget()
        while True:
            games = d.split_games(cut_segments(out[self.game_from:closed]))
            if len(games) < 2:
                break
            self._close_game(games[0])  # the board shows the next game begun
        segs = games[0] if games else []
        rolls = d.rolls(segs)
        # a roll is complete once the settles after it that the decoder looks at are all in
        complete = next((j for j, r in enumerate(rolls) if len(r.next_settles) < NEXT_SETTLES), len(rolls))
        d.advance(self.gs, rolls[:complete], final=False)

    def _new_game(self) -> None:
        self.game = self.decoder.new_game(len(self.games) + 1, self.score)
        self.gs = GameState.new()

    def _close_game(self, segs) -> None:
        d = self.decoder
        d.advance(self.gs, d.rolls(segs), final=True)
        d.finish_game(self.game, self.gs, segs)
        self.games.append(self.game)
        self.score = d.score_after(self.game, self.score)
        self.game_from += sum(len(s.settles) for s in segs)
        self._new_game()

    # ------------------------------------------------------------------ output
    def _tail(self):
        """The settles of the game in progress, the one still taking reads included (a copy, trays owned)."""
        out = self.builder.out
        tail = out[self.game_from:self.closed]
        if self.closed < len(out):
            last = replace(out[-1], logp=out[-1].logp.copy(), _best=None)
            self.decoder.own_trays(last)
            tail = tail + [last]
        return tail

    def view(self) -> LiveView:
        d = self.decoder
        if self.gs is None:
            return LiveView(t=self.t)
        # (stepping makes new histories and never changes the ones it is given: a copy of the list will do)
        gs = GameState(list(self.gs.beam), self.gs.k, self.gs.done)
        d.forget()
        games = d.split_games(cut_segments(self._tail()))
        if games:
            d.advance(gs, d.rolls(games[0]), final=True)
        d.forget()
        best = gs.beam[0]
        acts = [a for a, _ in best.actions]
        provs = [p for _, p in best.actions]
        view = LiveView(True, d.seating, list(self.games), self.game.number, tuple(self.score), d.crawford,
                        t=self.t, turn=best.turn, cube=best.cube, owner=best.owner, doubled=best.pending is not None)
        shown = [_live_action(a, p) for a, p in zip(acts, provs)]
        if shown and shown[-1].kind == "move" and any(f.reason == MISSING for f in provs[-1].flags):
            # thrown, and the board not yet seen after the play: being played
            playing = shown.pop()
            view.dice, view.turn = playing.dice, playing.player
        settled = _common_prefix([[_live_action(a, p).key() for a, p in h.actions] for h in self.gs.beam])
        for k, a in enumerate(shown):
            a.settled = k < settled
        view.actions = _with_takes(shown, view.dice is not None)
        view.positions = self._positions(view.actions)
        view.position = view.positions[-1] if view.positions else Position.opening()
        if view.dice is not None:
            view.phase = "playing"
        elif any(finished(view.position, p) for p in (0, 1)):
            view.phase = "game_over"
        elif view.turn is None:
            view.phase = "setup"
        else:
            view.phase = "to_roll"
        return view

    def _positions(self, actions: list[LiveAction]) -> list[Position]:
        """The board after each action, replayed through the rules engine (from the last view's where they
        agree: most of a game is the same from one look to the next)."""
        out: list[Position] = []
        pos = Position.opening()
        same = True  # every action so far is the last view's
        for k, a in enumerate(actions):
            same = same and k < len(self._replayed) and self._replayed[k][0] == a.key()
            if same:
                pos = self._replayed[k][1]
            elif a.kind == "move" and a.play:
                # (a play the board showed that the roll does not allow is kept as shown, to be flagged)
                pos = next((p.result for p in legal_plays(pos, a.player, a.dice) if p.notation == a.play), None) \
                    or apply_paths(pos, a.player, parse_paths(a.play))
            out.append(pos)
        self._replayed = [(a.key(), p) for a, p in zip(actions, out)]
        return out

    def finish(self) -> DecodeResult:
        """The footage has ended: the game in progress is judged as the batch decoder judges a last game, and
        the match comes out as `decode` gives it."""
        if self.builder.open:
            self.builder.moved = True  # (the last settle takes no more reads)
        self._commit()
        d = self.decoder
        if self.gs is None:
            raise ValueError("no quiet frame was read: nothing to decode (is the board in view?)")
        games = d.split_games(cut_segments(self.builder.out[self.game_from:self.closed]))
        if games:
            self._close_game(games[0])
        record = MatchRecord(players=d.players, length=d.length, profile=d.profile, games=list(self.games))
        result = DecodeResult(record, d.seating, d.flags, len(self.builder.out), 0)
        insert_takes(result.record)
        collect_flags(result)
        return result


def _live_action(a, prov) -> LiveAction:
    t = prov.time if prov is not None else None
    if isinstance(a, Move):
        return LiveAction(a.player, "move", tuple(a.dice), a.play or "", t)
    kind = {Double: "double", Take: "take", Drop: "drop", Resign: "resign"}.get(type(a), type(a).__name__.lower())
    return LiveAction(a.player, kind, t=t)


def _with_takes(actions: list[LiveAction], playing: bool) -> list[LiveAction]:
    """A double followed by more play (a throw being played included) was taken, as the record says
    (`decode.insert_takes`)."""
    out = []
    for k, a in enumerate(actions):
        out.append(a)
        later = k + 1 < len(actions) or playing
        if a.kind == "double" and later and (k + 1 >= len(actions) or actions[k + 1].kind != "drop"):
            nxt = actions[k + 1] if k + 1 < len(actions) else None
            out.append(LiveAction(1 - a.player, "take", t=a.t, settled=nxt.settled if nxt is not None else False))
    return out


def _common_prefix(seqs: list[list]) -> int:
    if not seqs:
        return 0
    n = min(len(s) for s in seqs)
    for k in range(n):
        if any(s[k] != seqs[0][k] for s in seqs[1:]):
            return k
    return n


__all__ = ["LiveAction", "LiveDecoder", "LiveView"]
