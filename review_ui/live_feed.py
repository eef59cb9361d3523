"""Live boards: each board's observations as its capture agent makes them, decoded as they come
(`transcriber.live`), and the state the stream overlay and the hall are sent.

One `LiveBoard` per board, in the server process: a live decoder for the board's current match (a new one when
the match changes) and the state last published. A state is serialised once per version and the same bytes go
to every viewer, so hundreds of viewers cost little more than one. The segment observed later stays the record:
the live state says which actions are settled (every history the decoder still weighs agrees) and which are
still weighed, and the finished live record is the batch decoder's record of the same observations.

Threads: observations arrive in the server's worker threads (one board at a time, under its lock); viewers wait
in the event loop, woken through `loop.call_soon_threadsafe`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select

from transcriber.ids import XgState, xgid
from transcriber.live import LiveDecoder, LiveView
from transcriber.observation import FrameObservation
from transcriber.position import Position
from transcriber.record import Move
from transcriber.replay import CubeState
from transcriber.scoring import finished, result_value
from transcriber.transcribe import match_rules

from .board_svg import board_svg, view_flips
from .models import Board, Event
from .review_models import Transcript
from .services import utcnow

log = logging.getLogger("bgscribe.live")

MATCH_CHECK_S = 5.0  # how often a board's current match is looked up again
LOOK_EVERY_S = 1.0  # a board whose reads only add to the settle it shows is decoded again at most this often
LIVE_S = 30.0  # a board is live while its observations are at most this old
MAX_OBSERVATIONS = 2000  # one post (an agent sends every half second; after an outage it sends what it kept)
JUDGED_KEPT = 64  # a board's last plays whose judgement (or question) is remembered
_ASKED = object()  # a play put to the analyst, its judgement not back yet


class LiveInputError(ValueError):
    pass


def parse_observations(body: bytes) -> list[FrameObservation]:
    """JSON Lines of `FrameObservation`s (times: seconds since the epoch); LiveInputError naming the line."""
    out = []
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise LiveInputError("observations must be UTF-8 JSON Lines") from None
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(FrameObservation.from_json(line))
        except (ValueError, KeyError, TypeError, IndexError) as e:
            raise LiveInputError(f"line {n}: not an observation ({type(e).__name__})") from None
        if len(out) > MAX_OBSERVATIONS:
            raise LiveInputError(f"more than {MAX_OBSERVATIONS} observations in one post")
    return out


@dataclass
class MatchInfo:
    id: int
    event_id: int
    players: tuple[str, str]
    length: int
    profile: str
    round: int | None
    record: dict | None = None  # the match's transcript, once there is one: {"version", "status", "games": moves}


def _move(player, dice, play) -> tuple:
    return (player, tuple(sorted(dice or ())), play or "Cannot Move")


def record_moves(doc: dict) -> list[list[tuple]]:
    """Per game, the plays of a transcript document (dice in either order: the record and the live view are read
    from different frames)."""
    return [[_move(a["player"], a.get("dice"), a.get("play")) for a in g["actions"] if a["kind"] == "move"]
            for g in doc.get("games", [])]


def against_record(record: dict | None, view: LiveView) -> dict | None:
    """Where the live view and the match's transcript part, if they do: what the feed shows is never silently
    other than the record. Compared as far as both go (the live view may be ahead of the record, or behind it)."""
    if record is None:
        return None
    live = [[_move(a.player, a.dice, a.play) for a in g.actions if isinstance(a, Move)] for g in view.games]
    live.append([_move(a.player, a.dice, a.play) for a in view.actions if a.kind == "move"])
    differs = None
    for g, (ours, theirs) in enumerate(zip(live, record["games"]), start=1):
        k = next((k for k, (x, y) in enumerate(zip(ours, theirs)) if x != y), None)
        if k is not None:
            differs = {"game": g, "move": k + 1}
            break
    return {"version": record["version"], "status": record["status"], "agrees": differs is None,
            "differs_at": differs}


def last_play_question(m: MatchInfo, view: LiveView) -> tuple[tuple, dict] | None:
    """The game's last play as the analyst is asked it: (a key naming exactly that play in that position,
    `PlayJudge.judge`'s arguments); None where there is nothing to judge (no play yet, or Cannot Move)."""
    k = next((k for k in range(len(view.actions) - 1, -1, -1) if view.actions[k].kind == "move"), None)
    if k is None or not view.actions[k].play or not view.actions[k].dice:
        return None
    a = view.actions[k]
    before = view.positions[k - 1] if k else Position.opening()
    cube, owner = 1, None
    for b in view.actions[:k]:
        if b.kind == "take":
            cube, owner = 2 * cube, b.player
    args = {"position": before, "player": a.player, "dice": tuple(a.dice), "play": a.play, "cube": cube,
            "owner": owner, "score": tuple(view.score), "crawford": view.crawford and m.length > 1,
            "length": m.length}
    return (m.id, view.game, k, a.player, tuple(a.dice), a.play, before.sides, cube, owner), args


def iso(t: float | None) -> str | None:
    return None if t is None else datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds")


def state_of(number: int, m: MatchInfo | None, view: LiveView | None, last_obs: float | None, version: int,
             now: float, heard_at: float | None = None, analysis: dict | None = None) -> dict:
    """The JSON a viewer is sent for one board (see the README's "Live boards" for every field). `heard_at`: when
    the agent last posted (by the server's clock: an agent's may be off); `analysis`: gnubg's judgement of the
    last play (`Judgement.to_json`), once made."""
    live = heard_at is not None and now - heard_at <= LIVE_S
    # (every key in every state, null where not known yet: a viewer's page need not guess)
    base = {"board": number, "version": version, "updated": iso(now), "live": live, "footage_time": iso(last_obs),
            "match": None, "phase": "waiting", "game": None, "score": None, "score_after_game": None,
            "match_over": False, "crawford": False, "turn": None, "dice": None, "cube": None, "position": None,
            "pips": None, "last_play": None, "actions": [], "settled": 0, "games": [], "record": None, "svg": None,
            "clocks": None}
    if m is None:
        return base
    base["match"] = {"id": m.id, "event_id": m.event_id, "round": m.round, "length": m.length,
                     "players": list(m.players)}
    if view is None or not view.started:
        return {**base, "phase": "waiting" if view is None else "setup", "game": 1, "score": [0, 0],
                "score_after_game": [0, 0]}
    pos = view.position
    score = list(view.score)
    winner = next((p for p in (0, 1) if finished(pos, p)), None)
    after = list(score)
    if winner is not None:
        after[winner] += result_value(pos, winner) * view.cube
    length = m.length
    over = bool(length) and max(after) >= length
    moves = [a for a in view.actions if a.kind == "move"]
    last = moves[-1] if moves else None
    cube = CubeState(view.cube, view.owner, (1 - view.owner) if view.doubled and view.owner is not None else None)
    flip_x, flip_y = view_flips(view.seating.__dict__ if view.seating else None)
    return {**base, "phase": view.phase, "game": view.game, "score": score, "score_after_game": after,
            "match_over": over, "crawford": view.crawford and length > 1, "turn": view.turn,
            "dice": list(view.dice) if view.dice else None,
            "cube": {"value": view.cube, "owner": view.owner, "offered": view.doubled},
            "position": {"xgid": xgid(XgState(pos, view.cube, view.owner, view.turn or 0, view.dice,
                                              (score[0], score[1]), view.crawford, length)),
                         "checkers": [list(pos.sides[0]), list(pos.sides[1])],
                         "off": [pos.off(0), pos.off(1)]},
            "pips": [pos.pips(0), pos.pips(1)],
            "last_play": None if last is None else {"player": last.player, "dice": list(last.dice),
                                                    "play": last.play or "Cannot Move", "settled": last.settled,
                                                    "at": iso(last.t), "analysis": analysis},
            "actions": [{"player": a.player, "kind": a.kind, "dice": list(a.dice) if a.dice else None,
                         "play": (a.play or "Cannot Move") if a.kind == "move" else None, "settled": a.settled,
                         "at": iso(a.t)} for a in view.actions],
            "settled": sum(a.settled for a in view.actions),
            "games": [{"number": g.number, "winner": g.winner, "points": g.points} for g in view.games],
            "record": against_record(m.record, view),
            "svg": board_svg(pos, names=m.players, title=f"board {number}", cube=cube, flip_x=flip_x,
                             flip_y=flip_y)}


class LiveBoard:
    def __init__(self, hub: LiveHub, number: int):
        self.hub, self.number = hub, number
        self.lock = threading.Lock()
        self.match: MatchInfo | None = None
        self.match_at = -1e9  # when the match was last looked up
        self.decoder: LiveDecoder | None = None
        self.view: LiveView | None = None
        self.look: tuple | None = None  # what the last view was decoded from
        self.looked_at = 0.0
        self.last_obs: float | None = None  # footage time of the latest observation
        self.heard_at: float | None = None  # when the agent last posted
        self.cut_sent: int | None = None  # the match whose segment the agent was asked to close
        self.judged: dict[tuple, object] = {}  # last plays put to the analyst: their judgement, or _ASKED
        self.question: tuple | None = None  # the key of the last play the state shows
        self.version = 0
        self.state: dict = state_of(number, None, None, None, 0, time.time())
        self.body = json.dumps(self.state, separators=(",", ":")).encode()
        self._waiters: asyncio.Event | None = None

    # ------------------------------------------------------------------ from the agent
    def observe(self, observations: list[FrameObservation], board_id: int) -> dict:
        """Take a post of observations (in footage order; ones at or before the latest already taken are a resent
        post and skipped); decode, publish. {"accepted", "version", "cut_segment"}: the agent closes its segment
        at once when told the match is over, so that its transcript is not waiting on a minute's segment."""
        now = time.time()
        with self.lock:
            was_live = self.state.get("live")
            self.heard_at = now
            self._check_match(board_id, now)
            new = [o for o in observations if self.last_obs is None or o.t > self.last_obs]
            if new:
                self.last_obs = new[-1].t
            try:
                if self.decoder is not None and new:
                    self.decoder.add(new)
                b = self.decoder.builder if self.decoder else None
                look = (self.match.id if self.match else None, len(b.out), b.open, b.out[-1].reads if b.out else 0) \
                    if b is not None else None
                if look != self.look and (self.look is None or look[:3] != self.look[:3]
                                          or now - self.looked_at >= LOOK_EVERY_S):
                    self.look, self.looked_at = look, now
                    self.view = self.decoder.view() if self.decoder is not None else None
                    self._publish(now)
                    was_live = True
            except Exception:  # noqa: BLE001 - the live view is extra: never refuse the agent's post for it
                # (a post refused would be sent again and again; the decoder starts afresh from the next settles)
                log.exception("board %d: live decoding failed; starting it afresh", self.number)
                m = self.match
                self.decoder = LiveDecoder(m.players, m.length, match_rules(m.profile, m.length)) if m else None
                self.view, self.look = None, None
                self._publish(now)
                was_live = True
            if not was_live:
                self._publish(now)  # (heard from again: live)
            cut = bool(self.state.get("match_over")) and self.match is not None and self.cut_sent != self.match.id
            if cut:
                self.cut_sent = self.match.id
            return {"accepted": len(new), "version": self.version, "cut_segment": cut}

    def _check_match(self, board_id: int, now: float) -> None:
        if now - self.match_at < MATCH_CHECK_S:
            return
        self.match_at = now
        m = self.hub.current_match(board_id)
        if (m.id if m else None) != (self.match.id if self.match else None):
            self.match = m
            self.decoder = LiveDecoder(m.players, m.length, match_rules(m.profile, m.length)) if m else None
            self.view, self.look = None, None
            self._publish(now)
        elif m is not None and m.record != self.match.record:  # the record came, or staff changed it
            self.match = m
            self._publish(now)

    def _publish(self, now: float) -> None:
        self.version += 1
        self.state = state_of(self.number, self.match, self.view, self.last_obs, self.version, now, self.heard_at,
                              self._analysis())
        self.body = json.dumps(self.state, separators=(",", ":")).encode()
        self.hub.notify(self)

    def _analysis(self) -> dict | None:
        """The last play's judgement where the analyst has made it; else it is asked (once) and the state is
        published again when it answers."""
        analyst = self.hub.analyst
        q = last_play_question(self.match, self.view) \
            if analyst is not None and self.match is not None and self.view is not None and self.view.started \
            else None
        self.question = q[0] if q else None
        if q is None:
            return None
        key, args = q
        got = self.judged.get(key)
        if got is None and key not in self.judged:
            self.judged[key] = _ASKED
            while len(self.judged) > JUDGED_KEPT:
                del self.judged[next(iter(self.judged))]
            analyst.ask(self.number, key, args, self._judged)
        return got if isinstance(got, dict) else None

    def _judged(self, key: tuple, verdict: dict | None) -> None:
        """(the analyst's thread) A judgement is back: shown at once if its play is still the last one."""
        with self.lock:
            if key in self.judged:
                self.judged[key] = verdict
            if verdict is not None and key == self.question:
                self._publish(time.time())

    # ------------------------------------------------------------------ to viewers
    def check_silent(self) -> None:
        """A board said live whose agent has gone quiet is published again, as not live (a viewer's poll and each
        feed's keep-alive ask: nothing else would, since nothing arrives)."""
        now = time.time()
        if self.state.get("live") and (self.heard_at is None or now - self.heard_at > LIVE_S):
            with self.lock:
                self._publish(now)

    async def next_state(self, seen: int, timeout: float) -> tuple[int, bytes] | None:
        """The state once its version is past `seen` (at once if it is already); None after `timeout` s."""
        self.check_silent()
        if self.version > seen:
            return self.version, self.body
        if self._waiters is None:
            self._waiters = asyncio.Event()
        waiters = self._waiters
        try:
            await asyncio.wait_for(waiters.wait(), timeout)
        except TimeoutError:
            return None
        return self.version, self.body

    def _wake(self) -> None:  # (in the event loop)
        waiters, self._waiters = self._waiters, None
        if waiters is not None:
            waiters.set()


class LiveHub:
    """Every board's live state; `db` for the boards' current matches."""

    def __init__(self, db, analyst=None):
        self.db = db
        self.analyst = analyst  # live_analysis.LiveAnalyst: the last play's error, where gnubg runs
        self.boards: dict[int, LiveBoard] = {}
        self.guard = threading.Lock()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.hall_version = 0
        self._hall: asyncio.Event | None = None

    def board(self, number: int) -> LiveBoard:
        with self.guard:
            if number not in self.boards:
                self.boards[number] = LiveBoard(self, number)
            return self.boards[number]

    def current_match(self, board_id: int) -> MatchInfo | None:
        from .dashboard import board_match
        from .setup import current_round

        now = utcnow()
        with self.db.session() as s:
            b = s.get(Board, board_id)
            ev = s.get(Event, b.event_id) if b is not None and b.event_id else None
            rounds = {ev.id: current_round(s, ev, now)} if ev is not None else {}
            m = board_match(s, b, rounds, now) if b is not None else None
            if m is None or (m.ended_at is not None and m.ended_at < now):
                return None
            e = s.get(Event, m.event_id)
            t = s.scalar(select(Transcript).where(Transcript.match_id == m.id))
            record = None if t is None else {"version": t.version, "status": t.status,
                                             "games": record_moves(json.loads(t.doc_json))}
            return MatchInfo(m.id, m.event_id, (m.player1 or "Player 1", m.player2 or "Player 2"), e.match_length,
                             e.rules_profile, m.round.number if m.round else None, record)

    def notify(self, board: LiveBoard) -> None:
        """(from any thread) Wake the board's viewers and the hall's."""
        with self.guard:
            self.hall_version += 1
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._wake, board)

    def _wake(self, board: LiveBoard) -> None:
        board._wake()
        hall, self._hall = self._hall, None
        if hall is not None:
            hall.set()

    async def hall_change(self, seen: int, timeout: float) -> bool:
        if self.hall_version > seen:
            return True
        if self._hall is None:
            self._hall = asyncio.Event()
        hall = self._hall
        try:
            await asyncio.wait_for(hall.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def event_of_board(self, number: int) -> Event | None:
        with self.db.session() as s:
            b = s.scalar(select(Board).where(Board.number == number))
            if b is None or b.event_id is None:
                return None
            ev = s.get(Event, b.event_id)
            s.expunge(ev)
            return ev


__all__ = ["LiveBoard", "LiveHub", "LiveInputError", "parse_observations", "state_of"]
