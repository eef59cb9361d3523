"""The tournament desk on the server: an event's format, its rounds drawn by the pairing engine
(tournament.formats; fixed tables: the top pairing on the lowest-numbered board), results from approved
transcripts or entered by hand, PRs (gnubg's provisional ones from the pipeline, BMAB's official ones entered
by a director, which replace them), and the standings, Cup points and prizes computed from all of it.

The event is rebuilt from the tables on every call (`event_state`): nothing computed is stored, so a result
or a PR that changes shows everywhere at once. Every change goes to the audit log. Errors are `DeskError`
with a message for the person at the desk.
"""

from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from tournament.formats import EventState, RoundNotReady
from tournament.model import BYE_DEFAULTS, FORMATS, EventRules, Pairing, Result, RoundDraw, bye_result
from tournament.model import Bye as DrawBye
from tournament.pairing import PairingError, assign_boards, opponents
from tournament.report import event_json
from tournament.results import UnfinishedMatch, check_result, match_winner

from . import setup
from .desk_models import BMAB, BY_HAND, GNUBG, Bye, MatchPR, MatchResult
from .models import Event, Match
from .review_models import Transcript
from .services import audit_log, utcnow
from .setup_models import Player, Round

APPROVED = ("approved", "submitted")


class DeskError(ValueError):
    pass


BYE_FIELDS = ("bye_wins", "bye_cup_points", "bye_ranking_points")


def bye_scoring(ev: Event, fmt: str | None = None) -> dict[str, int]:
    """What a bye is worth in the event: the director's figures, else its format's (or `fmt`'s) defaults (the
    rule texts)."""
    defaults = BYE_DEFAULTS[fmt or ev.desk_format or "swiss"]
    return {k: defaults[k] if getattr(ev, k) is None else getattr(ev, k) for k in BYE_FIELDS}


def rules_of(ev: Event) -> EventRules:
    return EventRules(format=ev.desk_format or "swiss", rounds=ev.desk_rounds, match_length=ev.match_length or 7,
                      entry_fee=ev.entry_fee, **bye_scoring(ev))


def _format_text(ev: Event) -> str:
    byes = bye_scoring(ev)
    return (f"{ev.desk_format} {ev.desk_rounds} rounds, fee {ev.entry_fee}, bye: {byes['bye_wins']} win, "
            f"{byes['bye_cup_points']} Cup, {byes['bye_ranking_points']} ranking points")


def set_format(s: Session, by: str, ev: Event, fmt: str, rounds: int | None = None,
               entry_fee: int | None = None, byes: dict[str, int | None] | None = None) -> Event:
    """The event's format, Swiss rounds, entry fee and what a bye is worth (`byes`: any of BYE_FIELDS; one not
    given keeps its value). The format is fixed once a round is drawn, the bye's worth once a bye is given (the
    draws so far were made on it)."""
    if fmt not in FORMATS:
        raise DeskError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    if setup.rounds(s, ev) and fmt != ev.desk_format:
        raise DeskError("the event has rounds already; its format cannot change now")
    byes = {k: v for k, v in (byes or {}).items() if v is not None}
    if set(byes) - set(BYE_FIELDS):
        raise DeskError(f"unknown bye setting {', '.join(sorted(set(byes) - set(BYE_FIELDS)))}; "
                        f"one of {', '.join(BYE_FIELDS)}")
    before = _format_text(ev)
    current = bye_scoring(ev, fmt)
    changed = {k: v for k, v in byes.items() if v != current[k]}
    if changed and _byes_given(s, ev):
        raise DeskError(f"a bye has been given already, so what a bye is worth cannot change now "
                        f"({', '.join(f'{k} {current[k]} -> {v}' for k, v in changed.items())})")
    try:
        EventRules(format=fmt, rounds=rounds or ev.desk_rounds, match_length=ev.match_length or 7,
                   **(current | byes))
    except ValueError as e:
        raise DeskError(str(e)) from None
    if entry_fee is not None and entry_fee < 0:
        raise DeskError(f"the entry fee cannot be negative ({entry_fee})")
    ev.desk_format = fmt
    ev.desk_rounds = rounds or ev.desk_rounds
    ev.entry_fee = ev.entry_fee if entry_fee is None else entry_fee
    for k, v in byes.items():
        setattr(ev, k, v)
    audit_log(s, by, "set_format", f"event {ev.id}", before, _format_text(ev))
    s.flush()
    return ev


def _byes_given(s: Session, ev: Event) -> bool:
    return s.scalar(select(Bye.id).join(Round, Bye.round_id == Round.id).where(Round.event_id == ev.id)
                    .limit(1)) is not None


def seeded_players(s: Session, ev: Event) -> list[str]:
    """The event's players in seeding order (the order they were entered in)."""
    return [p.name for p in s.scalars(select(Player).where(Player.event_id == ev.id).order_by(Player.id))]


def _transcript(s: Session, m: Match) -> Transcript | None:
    return s.scalar(select(Transcript).where(Transcript.match_id == m.id))


def transcript_record(s: Session, m: Match):
    """The match record of an approved transcript, or None."""
    from .transcripts import record_from_doc

    t = _transcript(s, m)
    if t is None or t.status not in APPROVED:
        return None
    return record_from_doc(json.loads(t.doc_json))


def match_prs(s: Session, m: Match) -> dict[str, MatchPR]:
    """Each player's PR row: BMAB's official one where entered, else gnubg's."""
    rows = s.scalars(select(MatchPR).where(MatchPR.match_id == m.id)).all()
    out: dict[str, MatchPR] = {}
    for r in sorted(rows, key=lambda r: r.source == BMAB):  # official last, so it wins
        if r.pr is not None or r.player not in out:
            out[r.player] = r
    return out


_transcript_results: dict[tuple, tuple[str | None, str]] = {}


def match_result(s: Session, m: Match) -> tuple[str | None, str]:
    """(winner, where it came from): a hand-entered result, else the approved transcript's. The transcript's is
    replayed once per version (cached): the desk and the dashboard rebuild the event at every request."""
    row = s.get(MatchResult, m.id)
    if row is not None:
        return row.winner, row.source
    t = _transcript(s, m)
    if t is None or t.status not in APPROVED:
        return None, ""
    a, b = pairing_names(s, m)
    key = (t.id, t.match_id, t.version, t.status, t.updated_at, a, b)
    got = _transcript_results.get(key)
    if got is None:
        got = _transcript_result(transcript_record(s, m), a, b)
        if len(_transcript_results) > 5000:
            _transcript_results.clear()
        _transcript_results[key] = got
    return got


def _transcript_result(rec, a: str, b: str) -> tuple[str | None, str]:
    if set(rec.players) != {a, b}:  # the decoder's names, not the pairing's: a person must say who is who
        return None, f"the transcript's players ({rec.players[0]} – {rec.players[1]}) are not {a} – {b}"
    try:
        return match_winner(rec)[0], "transcript"
    except UnfinishedMatch as e:
        return None, str(e)


def pairing_names(s: Session, m: Match) -> tuple[str, str]:
    """The paired players' names (from the player rows: a transcript loaded on the match renames
    player1/player2 to the decoder's names)."""
    names = []
    for pid, fallback in ((m.player_a_id, m.player1), (m.player_b_id, m.player2)):
        p = s.get(Player, pid) if pid is not None else None
        names.append(p.name if p is not None else fallback)
    return names[0], names[1]


def event_state(s: Session, ev: Event) -> EventState:
    st = EventState(seeded_players(s, ev), rules_of(ev))
    rows = list(s.scalars(select(Player).where(Player.event_id == ev.id)))
    names = {p.id: p.name for p in rows}
    st.withdrawn = {p.name: p.withdrawn_after for p in rows if p.withdrawn_after is not None}
    st.left_early = {p.name for p in rows if p.withdrawn_after is not None and p.forfeits_attendance}
    for r in setup.rounds(s, ev):
        draw = RoundDraw(r.number)
        for m in setup.round_matches(s, r):
            a, b = pairing_names(s, m)
            draw.pairings.append(Pairing(a, b, m.board.number, m.stage))
            winner, _src = match_result(s, m)
            if winner in (a, b):
                prs = match_prs(s, m)
                pa, pb = prs.get(a), prs.get(b)
                provisional = not (pa and pb and pa.source == BMAB and pb.source == BMAB)
                st.results.append(Result(r.number, a, b, winner, pa and pa.pr, pb and pb.pr, provisional, m.stage))
        for b in s.scalars(select(Bye).where(Bye.round_id == r.id)):
            draw.byes.append(DrawBye(names[b.player_id], b.stage))
            st.results.append(bye_result(r.number, names[b.player_id], b.stage))
        st.draws.append(draw)
    return st


def withdraw_player(s: Session, by: str, ev: Event, name: str, forfeit_attendance: bool = False) -> int:
    """`name` leaves the event (audited): not drawn after the rounds drawn so far; their results stay and the
    standings show them, marked. Returns the last round they were drawn in."""
    _check_desk(ev)
    pl = setup.player(s, ev, name) if name.strip() else None
    if pl is None:
        raise DeskError(f"{name!r} is not a player of event {ev.name!r}")
    try:
        last = event_state(s, ev).withdraw(pl.name, forfeit_attendance)
    except ValueError as e:
        raise DeskError(str(e)) from None
    pl.withdrawn_after, pl.forfeits_attendance = last, forfeit_attendance
    audit_log(s, by, "withdraw_player", f"event {ev.id} player {pl.name}", "in the event",
              f"withdrawn after round {last}" + (", attendance points forfeited" if forfeit_attendance else ""))
    s.flush()
    return last


def reinstate_player(s: Session, by: str, ev: Event, name: str) -> None:
    """Undo a withdrawal (audited), only while no round has been drawn since it."""
    pl = setup.player(s, ev, name) if name.strip() else None
    if pl is None or pl.withdrawn_after is None:
        raise DeskError(f"{name!r} has not withdrawn from event {ev.name!r}")
    drawn = len(setup.rounds(s, ev))
    if drawn > pl.withdrawn_after:
        raise DeskError(f"round {pl.withdrawn_after + 1} has been drawn without {pl.name} since the withdrawal; "
                        "it cannot be undone now")
    before = f"withdrawn after round {pl.withdrawn_after}"
    pl.withdrawn_after, pl.forfeits_attendance = None, False
    audit_log(s, by, "reinstate_player", f"event {ev.id} player {pl.name}", before, "in the event")
    s.flush()


def _check_desk(ev: Event) -> None:
    if not ev.desk_format:
        raise DeskError(f"event {ev.name!r} has no format yet: choose swiss, swiss-top4 or cup first")


def draw_next_round(s: Session, by: str, ev: Event, starts_at: datetime | None = None) -> Round:
    """Draw and publish the next round: refused (DeskError saying which matches) while the previous round
    has matches without a result."""
    _check_desk(ev)
    st = event_state(s, ev)
    if len(st.players) < 2:
        raise DeskError("the event needs at least 2 players to draw a round")
    try:
        draw = st.next_draw()
    except (RoundNotReady, PairingError) as e:
        raise DeskError(str(e)) from None
    boards = [b.number for b in setup.event_boards(s, ev)]
    try:
        assign_boards(draw, boards)
    except ValueError as e:
        raise DeskError(f"{e}: register more boards for the event") from None
    r = setup.new_round(s, by, ev, draw.number, starts_at)
    _enter_draw(s, by, ev, r, draw)
    audit_log(s, by, "draw_round", f"event {ev.id} round {r.number}", "",
              {"pairings": [f"{p.board}: {p.a} – {p.b}" for p in draw.pairings],
               "byes": [b.player for b in draw.byes], "forced": draw.forced})
    s.flush()
    r.forced = draw.forced  # for the caller's answer (not stored: the audit log keeps it)
    return r


def _enter_draw(s: Session, by: str, ev: Event, r: Round, draw: RoundDraw) -> None:
    for p in draw.pairings:
        m = setup.set_pairing(s, by, r, p.board, p.a, p.b)
        m.stage = p.stage
    for b in draw.byes:
        pl = setup.player(s, ev, b.player)
        s.add(Bye(round_id=r.id, player_id=pl.id, stage=b.stage))
    s.flush()


def _round_started(s: Session, r: Round) -> str | None:
    for m in setup.round_matches(s, r):
        if s.get(MatchResult, m.id) is not None:
            return f"match {m.id} on board {m.board.number} has a result"
        if _transcript(s, m) is not None:
            return f"match {m.id} on board {m.board.number} has a transcript"
    return None


def redraw_round(s: Session, by: str, ev: Event, number: int) -> Round:
    """Throw away the latest round's draw and draw it again (before any of its matches has a result)."""
    _check_desk(ev)
    rs = setup.rounds(s, ev)
    if not rs or rs[-1].number != number:
        raise DeskError(f"only the latest round ({rs[-1].number if rs else 'none yet'}) can be drawn again")
    r = rs[-1]
    why = _round_started(s, r)
    if why:
        raise DeskError(f"round {number} cannot be drawn again: {why}")
    starts = r.starts_at
    before = [f"{m.board.number}: {m.player1} – {m.player2}" for m in setup.round_matches(s, r)]
    for m in setup.round_matches(s, r):
        setup.remove_pairing(s, by, r, m.board.number)
    s.query(Bye).filter(Bye.round_id == r.id).delete()
    s.delete(r)
    s.flush()
    audit_log(s, by, "redraw_round", f"event {ev.id} round {number}", before, "drawn again")
    return draw_next_round(s, by, ev, starts)


def swap_players(s: Session, by: str, ev: Event, number: int, x: str, y: str) -> list[str]:
    """The director swaps two players between their pairings (or a player with the one on a bye) in round
    `number`; returns warnings (a repeat pairing it makes). Refused once either match has begun (a result or a
    transcript)."""
    _check_desk(ev)
    r = setup.get_round(s, ev, number)
    if r is None:
        raise DeskError(f"event {ev.id} has no round {number}")
    if x == y:
        raise DeskError("choose two different players to swap")
    ms = setup.round_matches(s, r)
    byes = {b.player_id: b for b in s.scalars(select(Bye).where(Bye.round_id == r.id))}

    def where(name):
        for m in ms:
            if name in (m.player1, m.player2):
                return m
        pl = setup.player(s, ev, name)
        if pl is not None and pl.id in byes:
            return byes[pl.id]
        raise DeskError(f"{name} is not in round {number}")

    mx, my = where(x), where(y)
    if mx is my:
        raise DeskError(f"{x} and {y} play each other already; swap one of them with a player of another pairing")
    for m in (mx, my):
        if isinstance(m, Match):
            if m.stage != "swiss":
                raise DeskError(f"board {m.board.number} is a {m.stage} match: knockout pairings follow the bracket")
            if s.get(MatchResult, m.id) is not None or _transcript(s, m) is not None:
                raise DeskError(f"the match on board {m.board.number} has begun (a result or a transcript)")
    before = _round_text(s, r)
    px, py = setup.player(s, ev, x), setup.player(s, ev, y)
    for m, old, new in ((mx, (x, px), (y, py)), (my, (y, py), (x, px))):
        if isinstance(m, Match):
            if m.player1 == old[0]:
                m.player1, m.player_a_id = new[0], new[1].id
            else:
                m.player2, m.player_b_id = new[0], new[1].id
        else:
            m.player_id = new[1].id
    s.flush()
    st = event_state(s, ev)
    earlier = opponents([res for res in st.results if res.round < number])
    warnings = [f"{m.player1} – {m.player2} (board {m.board.number}) is a repeat pairing"
                for m in (mx, my) if isinstance(m, Match) and m.player2 in earlier.get(m.player1, set())]
    audit_log(s, by, "swap_players", f"event {ev.id} round {number}", before,
              {"swapped": [x, y], "after": _round_text(s, r), "warnings": warnings})
    return warnings


def _round_text(s: Session, r: Round) -> list[str]:
    return [f"{m.board.number}: {m.player1} – {m.player2}" for m in setup.round_matches(s, r)]


def enter_result(s: Session, by: str, m: Match, winner: str) -> MatchResult:
    """A director enters a match's winner by hand (audited); refused with the reason when it contradicts the
    match's approved transcript."""
    a, b = pairing_names(s, m)
    if winner not in (a, b) or not winner:
        raise DeskError(f"the winner must be {a} or {b}, not {winner!r}")
    rec = transcript_record(s, m)
    if rec is not None:
        why = check_result(rec, a, b, winner)
        if why:
            raise DeskError(f"refused: {why}")
    row = s.get(MatchResult, m.id)
    before = "" if row is None else f"{row.winner} ({row.source}, {row.entered_by})"
    if row is None:
        row = MatchResult(match_id=m.id, winner=winner, source=BY_HAND, entered_by=by, entered_at=utcnow())
        s.add(row)
    else:
        row.winner, row.source, row.entered_by, row.entered_at = winner, BY_HAND, by, utcnow()
    audit_log(s, by, "enter_result", f"match {m.id}", before, f"{winner} wins", m.id)
    s.flush()
    return row


def enter_official_pr(s: Session, by: str, m: Match, player: str, pr: float) -> MatchPR:
    """BMAB's official PR for a player of a match; it replaces gnubg's estimate everywhere."""
    a, b = pairing_names(s, m)
    if player not in (a, b):
        raise DeskError(f"{player!r} does not play match {m.id} ({a} – {b})")
    if not 0 <= pr <= 200:
        raise DeskError(f"a PR is 0 to 200, not {pr}")
    row = s.scalar(select(MatchPR).where(MatchPR.match_id == m.id, MatchPR.player == player,
                                         MatchPR.source == BMAB))
    before = "" if row is None else row.pr
    if row is None:
        row = MatchPR(match_id=m.id, player=player, source=BMAB, analysis_json="", error="", entered_by=by,
                      at=utcnow())
        s.add(row)
    row.pr, row.entered_by, row.at = pr, by, utcnow()
    audit_log(s, by, "official_pr", f"match {m.id} {player}", before, pr, m.id)
    s.flush()
    return row


def import_official_prs(s: Session, by: str, ev: Event, text: str) -> int:
    """BMAB's official PRs from a CSV (`round,player,pr`; `,` `;` or tab): all lines or none, every problem by
    line (setup.CsvImportError). Returns how many were entered."""
    import csv
    import io

    from .setup import CsvImportError, LineError

    text = text.lstrip("\ufeff")
    first = next((line for line in text.splitlines() if line.strip()), "")
    reader = csv.reader(io.StringIO(text), delimiter=max(",;\t", key=first.count))
    header, rows, errors = None, [], []
    by_round = {r.number: r for r in setup.rounds(s, ev)}
    for row in reader:
        line = reader.line_num
        if not any(c.strip() for c in row):
            continue
        if header is None:
            header = [c.strip().lower() for c in row]
            missing = [c for c in ("round", "player", "pr") if c not in header]
            if missing:
                raise CsvImportError([LineError(line, f"missing column {', '.join(missing)} "
                                                      "(expected round,player,pr)")])
            continue
        cells = dict(zip(header, (c.strip() for c in row), strict=False))
        try:
            number, pr = int(cells.get("round", "")), float(cells.get("pr", "").replace(",", "."))
        except ValueError:
            errors.append(LineError(line, f"round {cells.get('round')!r} or PR {cells.get('pr')!r} is not a number"))
            continue
        r = by_round.get(number)
        m = r and next((m for m in setup.round_matches(s, r) if cells.get("player") in pairing_names(s, m)), None)
        if m is None:
            errors.append(LineError(line, f"{cells.get('player')!r} has no match in round {number}"))
            continue
        if not 0 <= pr <= 200:
            errors.append(LineError(line, f"a PR is 0 to 200, not {pr}"))
            continue
        rows.append((m, cells["player"], pr))
    if header is None:
        errors.append(LineError(1, "the file is empty (expected a header: round,player,pr)"))
    if errors:
        raise CsvImportError(errors)
    for m, player, pr in rows:
        enter_official_pr(s, by, m, player, pr)
    audit_log(s, by, "import_official_prs", f"event {ev.id}", "", f"{len(rows)} PRs from CSV")
    return len(rows)


def store_analysis(s: Session, m: Match, analysis=None, error: str = "") -> None:
    """gnubg's provisional PRs of a match (or the reason there are none), replacing an earlier analysis."""
    s.query(MatchPR).filter(MatchPR.match_id == m.id, MatchPR.source == GNUBG).delete()
    for name in pairing_names(s, m):
        p = analysis.by_name(name) if analysis is not None else None
        decisions = [d for d in (analysis.decisions if analysis else []) if d.player == name]
        s.add(MatchPR(match_id=m.id, player=name, source=GNUBG, pr=p and p.pr, error_rate=p and p.error_rate,
                      decisions=p and p.decisions, ply=analysis and analysis.ply,
                      analysis_json=json.dumps([d.__dict__ for d in decisions]) if p else "",
                      error=error if p is None else "", entered_by="pipeline", at=utcnow()))
    s.flush()


def gnubg_decision(s: Session, match_id: int, game: int, action: int, kind: str) -> dict | None:
    """gnubg's view of one action of the match (1-based game and action, as the transcript numbers them):
    {"best", "played", "error", "skill", "ply"}, or None where it has none (not analysed, or its list of the
    game's actions does not line up with the transcript's there)."""
    for row in s.scalars(select(MatchPR).where(MatchPR.match_id == match_id, MatchPR.source == GNUBG)):
        if not row.analysis_json:
            continue
        for d in json.loads(row.analysis_json):
            if d.get("game") == game and d.get("move") == action and d.get("kind") == kind:
                return {**{k: d.get(k) for k in ("best", "played", "error", "skill", "forced")}, "ply": row.ply}
    return None


def desk_json(s: Session, ev: Event) -> dict:
    """The event's rounds with results and PRs, its standings, Cup points and prizes."""
    st = event_state(s, ev)
    out = event_json(st) if st.players else {"standings": [], "cup_points": {}, "prizes": {}, "provisional": False,
                                             "ranking_points": {}, "withdrawn": {}}
    rounds = []
    for r in setup.rounds(s, ev):
        rows = []
        for m in setup.round_matches(s, r):
            winner, src = match_result(s, m)
            prs = match_prs(s, m)
            a, b = pairing_names(s, m)
            rows.append({"board": m.board.number, "match_id": m.id, "a": a, "b": b, "stage": m.stage,
                         "winner": winner, "result_source": src if winner else "",
                         "result_problem": "" if winner else src, "pr_a": _pr(prs.get(a)), "pr_b": _pr(prs.get(b))})
        byes = [p.name for p in s.scalars(select(Player).join(Bye, Bye.player_id == Player.id)
                                          .where(Bye.round_id == r.id))]
        rounds.append({"number": r.number, "starts_at": r.starts_at, "pairings": rows, "byes": byes})
    nxt = None
    if ev.desk_format and not st.finished:
        waiting = st.missing(len(st.draws))
        nxt = {"number": len(st.draws) + 1, "ready": not waiting,
               "waiting_for": [f"{p.a} – {p.b}" for p in waiting]}
    return {"event_id": ev.id, "name": ev.name, "format": ev.desk_format, "swiss_rounds": ev.desk_rounds,
            "bye_scoring": bye_scoring(ev), "season": ev.season,
            "rounds_total": st.rounds if ev.desk_format and st.players else None, "next_round": nxt,
            "rounds": rounds,
            **{k: out[k] for k in ("standings", "cup_points", "ranking_points", "prizes", "provisional",
                                    "withdrawn")}}


def _pr(row: MatchPR | None) -> dict | None:
    if row is None:
        return None
    return {"pr": None if row.pr is None else round(row.pr, 2), "source": row.source,
            "provisional": row.source != BMAB, "error": row.error, "ply": row.ply}


def pairings_csv(s: Session, r: Round) -> str:
    import csv
    import io

    def cell(name: str) -> str:  # a spreadsheet runs a cell that starts like a formula: quote it
        return f"'{name}" if name[:1] in ("=", "+", "-", "@") else name

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["round", "board", "player_a", "player_b", "stage"])
    for m in setup.round_matches(s, r):
        w.writerow([r.number, m.board.number, *map(cell, pairing_names(s, m)), m.stage])
    for b in s.scalars(select(Player).join(Bye, Bye.player_id == Player.id).where(Bye.round_id == r.id)):
        w.writerow([r.number, "", cell(b.name), "BYE", "bye"])
    return buf.getvalue()
