"""`bgscribe event pair|standings|prizes`: the tournament desk over the server's database (the same folder or
settings `bgscribe serve` uses; SQLite takes the server running at the same time)."""

from __future__ import annotations

import getpass
import json
import sys


def add_desk_commands(esub) -> None:
    def common(p):
        p.add_argument("--data", default=None, metavar="DIR", help="the server's data folder (default: the settings')")
        p.add_argument("--config", default=None, metavar="FILE", help="the server's settings file (TOML)")
        p.add_argument("--event", required=True, metavar="NAME|ID", help="the event, by name or number")
        p.add_argument("--json", action="store_true", help="print JSON")

    p = esub.add_parser("pair", help="draw and publish the event's next round (audited)",
                        description="Draw the event's next round with the pairing engine and publish it (boards "
                                    "assigned, top pairing on the lowest board). Refused, saying which matches, "
                                    "while the previous round lacks results. Exit 1 when refused.")
    common(p)
    p.add_argument("--by", default=None, metavar="NAME", help="who the audit log names (default: your login name)")
    p.set_defaults(func=cmd_pair)
    p = esub.add_parser("standings", help="the event's standings and Cup points",
                        description="The event's standings (match wins, average PR, head-to-head, shared places) "
                                    "and Cup points, marked provisional while any PR is gnubg's estimate.")
    common(p)
    p.set_defaults(func=cmd_standings)
    p = esub.add_parser("prizes", help="the event's prize split",
                        description="The entry-fee pool split by the standings (ties split evenly) and the two "
                                    "side pools (most match wins, best PR).")
    common(p)
    p.set_defaults(func=cmd_prizes)


def _open(args):
    from .config import load_settings
    from .db import Database

    overrides = {"data_dir": args.data} if args.data else {}
    settings = load_settings(args.config, **overrides)
    return Database(settings.db_url)


def _event(s, ref: str):
    from sqlalchemy import select

    from .models import Event

    ev = s.scalar(select(Event).where(Event.name == ref))
    if ev is None and ref.isdigit():
        ev = s.get(Event, int(ref))
    if ev is None:
        names = ", ".join(e.name for e in s.scalars(select(Event).order_by(Event.id))) or "none"
        raise LookupError(f"no event {ref!r} (events: {names})")
    return ev


def _run(args, what: str, fn) -> int:
    from .desk import DeskError

    try:
        db = _open(args)
    except (OSError, ValueError) as e:
        print(f"bgscribe event {what}: {e}", file=sys.stderr)
        return 2
    try:
        with db.session() as s:
            try:
                return fn(s, _event(s, args.event))
            except LookupError as e:
                print(f"bgscribe event {what}: {e}", file=sys.stderr)
                return 2
            except DeskError as e:
                s.rollback()
                print(f"bgscribe event {what}: {e}", file=sys.stderr)
                return 1
    finally:
        db.dispose()


def cmd_pair(args) -> int:
    from . import desk

    def go(s, ev):
        r = desk.draw_next_round(s, args.by or getpass.getuser(), ev)
        s.commit()
        rnd = next(x for x in desk.desk_json(s, ev)["rounds"] if x["number"] == r.number)
        if args.json:
            print(json.dumps({**rnd, "starts_at": rnd["starts_at"].isoformat(), "forced": r.forced}, indent=1))
        else:
            print(f"round {r.number} drawn:")
            for p in rnd["pairings"]:
                print(f"  board {p['board']}: {p['a']} – {p['b']}" + (f" ({p['stage']})" if p["stage"] != "swiss"
                                                                     else ""))
            for b in rnd["byes"]:
                print(f"  bye: {b}")
            for f in r.forced:
                print(f"  note: {f}")
        return 0

    return _run(args, "pair", go)


def cmd_standings(args) -> int:
    from . import desk

    def go(s, ev):
        d = desk.desk_json(s, ev)
        if args.json:
            print(json.dumps({k: d[k] for k in ("standings", "cup_points", "provisional")}, indent=1))
            return 0
        print(f"{ev.name}: standings{' (provisional)' if d['provisional'] else ''}")
        for st in d["standings"]:
            pr = "" if st["avg_pr"] is None else f", PR {st['avg_pr']:.2f}"
            print(f"{st['place']:>4}{'=' if st['shared'] else ' '} {st['player']}: {st['match_wins']} "
                  f"win{'s' * (st['match_wins'] != 1)}{pr}{' (withdrawn)' if st['withdrawn'] else ''}")
        print("Cup points:", ", ".join(f"{p} {c['total']}" for p, c in d["cup_points"].items()))
        return 0

    return _run(args, "standings", go)


def cmd_prizes(args) -> int:
    from . import desk

    def go(s, ev):
        prizes = desk.desk_json(s, ev)["prizes"]
        if args.json:
            print(json.dumps(prizes, indent=1))
            return 0
        if not prizes:
            print(f"{ev.name}: no players yet")
            return 0
        print(f"{ev.name}: pool EUR {prizes['pool']:.2f}{' (provisional)' if prizes['provisional'] else ''}")
        for p, eur in prizes["places"].items():
            print(f"  {p}: EUR {eur:.2f}")
        print("  most points:", ", ".join(f"{p} EUR {v:.2f}" for p, v in prizes["most_points"].items()))
        print("  best PR:", ", ".join(f"{p} EUR {v:.2f}" for p, v in prizes["best_pr"].items()) or "not known yet")
        for n in prizes["notes"]:
            print(f"  note: {n}")
        return 0

    return _run(args, "prizes", go)
