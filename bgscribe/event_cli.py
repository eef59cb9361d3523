"""`bgscribe pr` (a match's provisional PR from GNU Backgammon) and `bgscribe event ...` (the tournament desk:
a whole simulated event; the draw, standings and prizes of an event on the server)."""

from __future__ import annotations

import json
import sys


def add_event_commands(sub) -> None:
    p = sub.add_parser("pr", help="a match's provisional PR per player, from GNU Backgammon's analysis",
                       description="Analyse a match file with GNU Backgammon (Debian's gnubg, run as a separate "
                                   "process) and print each player's provisional PR: XG-style, 500 x the equity "
                                   "lost per non-forced decision (checker plays and close cube decisions), with "
                                   "gnubg's error rate (mEMG, about twice the PR) and the decisions counted. "
                                   "Exit 1 when gnubg is missing or fails, 2 for a file that does not read.")
    p.add_argument("match", metavar="MATCH.mat", help="a .mat or any match file `bgscribe convert` reads")
    p.add_argument("--ply", type=int, default=2, choices=(0, 1, 2, 3),
                   help="gnubg's analysis depth: 2 (default) about 20 s an 11-point match on one core, "
                        "0 under a second")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--decisions", action="store_true",
                   help="with --json: every decision too (played, gnubg's best, equity lost)")
    p.add_argument("--timeout", type=float, default=600, metavar="S", help="give gnubg this long (default: 600)")
    p.set_defaults(func=cmd_pr)

    ev = sub.add_parser("event", help="the tournament desk: simulate an event; pair, standings, prizes on the server",
                        description="The tournament desk. `simulate` runs a whole event through the desk's code "
                                    "(the swisspair engine, generated matches); `pair`, `standings` and `prizes` "
                                    "work on an event in the server's database.")
    esub = ev.add_subparsers(dest="event_command", metavar="ACTION")
    p = esub.add_parser("simulate", help="run a whole event: pairings, results, standings, Cup points, prizes",
                        description="Run a whole event through the same code the server uses: the real pairing "
                                    "engine each round, each match's result from a generated legal match, then the "
                                    "standings, Cup points and prize split. The PRs are random unless --pr-ply "
                                    "has gnubg analyse each generated match.")
    p.add_argument("--players", type=int, required=True, metavar="N")
    p.add_argument("--rounds", type=int, default=6, metavar="R", help="Swiss rounds (default: 6; the cup ignores it)")
    p.add_argument("--format", default="swiss", choices=("swiss", "swiss-top4", "cup"),
                   help="swiss (BMAB), swiss-top4 (Amberg: Swiss, then semi-finals, final and 3rd place), "
                        "cup (knockout with a consolation bracket)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the generated matches' seed (default: 0)")
    p.add_argument("--length", type=int, default=7, metavar="POINTS", help="match length (default: 7)")
    p.add_argument("--pr-ply", type=int, choices=(0, 1, 2, 3), metavar="N",
                   help="analyse every match with gnubg at N plies for its PRs (0: about 1 s a match)")
    p.add_argument("--entry-fee", type=int, default=100, metavar="EUR", help="per player (default: 100)")
    for flag, what in (("wins", "match wins in the Swiss score (0 or 1)"), ("cup-points", "Cup points (0-2)"),
                       ("ranking-points", "Amberg ranking points")):
        p.add_argument(f"--bye-{flag}", type=int, metavar="N",
                       help=f"a bye's {what} (default: the format's rules: 1 win, no Cup or ranking points)")
    p.add_argument("--json", action="store_true", help="print the whole event as JSON")
    p.set_defaults(func=cmd_event_simulate)
    from review_ui.desk_cli import add_desk_commands

    add_desk_commands(esub)
    ev.set_defaults(func=lambda args: (ev.print_help(), 2)[1])


def cmd_pr(args) -> int:
    from tournament.pr import GnubgError, analyse_mat
    from transcriber.errors import MatchFormatError

    try:
        a = analyse_mat(args.match, ply=args.ply, timeout=args.timeout)
    except (FileNotFoundError, MatchFormatError) as e:
        print(f"bgscribe pr: {e}", file=sys.stderr)
        return 2
    except GnubgError as e:
        print(f"bgscribe pr: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(a.to_json(with_decisions=args.decisions), indent=1))
        return 0
    print(f"provisional PR ({args.ply}-ply GNU Backgammon, {a.seconds:.1f} s):")
    for p in a.players:
        print(f"  {p.name}: PR {p.pr:.2f}  (error rate {p.error_rate:.1f} mEMG over {p.decisions} decisions: "
              f"{p.checker_decisions} checker, {p.cube_decisions} cube)")
    return 0


def cmd_event_simulate(args) -> int:
    from tournament.model import BYE_DEFAULTS, EventRules
    from tournament.pairing import PairingError
    from tournament.pr import GnubgError
    from tournament.simulate import simulate_event

    given = {"bye_wins": args.bye_wins, "bye_cup_points": args.bye_cup_points,
             "bye_ranking_points": args.bye_ranking_points}
    byes = BYE_DEFAULTS[args.format] | {k: v for k, v in given.items() if v is not None}
    try:
        rules = EventRules(format=args.format, rounds=args.rounds, match_length=args.length,
                           entry_fee=args.entry_fee, **byes)
        if args.players < 2:
            raise ValueError(f"--players must be 2 or more, not {args.players}")
        if args.format == "swiss-top4" and args.players < 4:
            raise ValueError("swiss-top4 needs at least 4 players")
        out = simulate_event(args.players, rules, args.seed, args.pr_ply,
                             progress=None if args.json else lambda k, n: print(f"round {k}/{n} done",
                                                                                  file=sys.stderr))
    except (ValueError, PairingError) as e:
        print(f"bgscribe event simulate: {e}", file=sys.stderr)
        return 2
    except GnubgError as e:
        print(f"bgscribe event simulate: {e} (run without --pr-ply for random PRs)", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    for st in out["standings"][:8]:
        print(f"{st['place']:>3}{'=' if st['shared'] else ' '} {st['player']}: {st['match_wins']} "
              f"win{'s' * (st['match_wins'] != 1)}, PR {st['avg_pr']}")
    print("prizes:", ", ".join(f"{p} EUR {v:.2f}" for p, v in out["prizes"]["places"].items()))
    return 0
