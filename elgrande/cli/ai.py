"""`elgrande tournament ...` and `elgrande bench ai ...` (the bots' commands, docs/ai.md)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from . import UsageError, positive_int


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "tournament",
        help="play bots against each other with rotated seats and report their strength",
        description="Play K games between bots (seats rotated so every bot plays every seat "
                    "equally) and report win rate, score, margin with 95% confidence "
                    "intervals, an Elo-style rating, and how often each bot finished ahead "
                    "of each other one.",
    )
    p.add_argument("--players", type=int, required=True, choices=range(2, 6), metavar="N",
                   help="players per game, 2 to 5")
    p.add_argument("--bots", required=True, metavar="BOTS",
                   help="comma-separated bot per seat, e.g. hard,heuristic,heuristic,heuristic; "
                        "names: easy, medium, hard (the levels); random, heuristic, ismcts, "
                        "learned; baseline and hard-2026-12 (the frozen bot); the variants "
                        "on trial hard-g, hard-margin, hard-bid, hard-horizon, hard-pbid, "
                        "hard-plan, hard-turn (docs/ai.md); an iteration budget as in "
                        "ismcts:N, learned:N, learned-g:N, hard-turn:N, hard-plan:N; "
                        "learned[:N]@MODEL_FILE for another fit of the learned evaluation")
    p.add_argument("--games", type=positive_int, required=True, metavar="K",
                   help="number of games, 1 or more")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="tournament seed (default 0)")
    p.add_argument("--workers", type=positive_int, default=1, metavar="W",
                   help="worker processes, 1 or more (default 1)")
    p.add_argument("--rounds", type=int, default=9, choices=(6, 9), help="game length")
    p.add_argument("--rules", choices=("yucata", "box"), default="yucata",
                   help="rule set: yucata (default) or box, the publisher's rules with the "
                        "Veto cards (docs/box-rules.md)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--no-progress", action="store_true",
                   help="hide the progress bar (shown only on a terminal anyway)")
    p.set_defaults(func=tournament_command)
    # `bench` belongs to the engine's module; join it if it is already there.
    bench = subparsers.choices.get("bench")
    if bench is None:
        bench = subparsers.add_parser("bench", help="benchmarks", description="Measure speed.")
        bench.add_subparsers(dest="bench_target", metavar="TARGET", required=True)
    register_bench(_subparsers_of(bench))


def _subparsers_of(parser: argparse.ArgumentParser) -> Any:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    raise RuntimeError("the bench command has no sub-commands")


def register_bench(bench_subparsers: Any) -> None:
    """Add `bench ai` to the `bench` command's sub-parsers (idempotent)."""
    if "ai" in bench_subparsers.choices:
        return
    p = bench_subparsers.add_parser(
        "ai", help="ISMCTS iterations per second from fixed positions",
        description="Run the ISMCTS bot's search from fixed game positions and report "
                    "iterations per second for each position, and overall.")
    p.add_argument("--iterations", type=positive_int, default=200, metavar="I",
                   help="iterations per position, 1 or more (default 200)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=bench_command)


def tournament_command(args: argparse.Namespace) -> int:
    from elgrande.ai.levels import make_bot
    from elgrande.ai.stats import format_head_to_head, format_table, head_to_head, summarise
    from elgrande.ai.tournament import run_tournament

    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    problems = []
    if len(bots) != args.players:
        problems.append(f"it lists {len(bots)} bots for {args.players} players")
    for name in sorted(set(bots)):
        try:
            make_bot(name)
        except ValueError as e:
            problems.append(str(e))
    if problems:
        raise UsageError("argument --bots: " + "; ".join(problems))
    if args.games % args.players:
        print(f"note: {args.games} games is not a multiple of {args.players}; "
              "seats are not perfectly balanced", file=sys.stderr)
    games = run_tournament(bots, args.games, args.seed, workers=args.workers, rounds=args.rounds,
                           show_progress=not args.no_progress and sys.stderr.isatty(),
                           rules=args.rules)
    summaries = summarise(games)
    if args.json:
        print(json.dumps({
            "players": args.players, "bots": bots, "games": args.games, "seed": args.seed,
            "rounds": args.rounds, "rules": args.rules,
            "summary": [s.to_dict() for s in summaries],
            "head_to_head": [r.to_dict() for r in head_to_head(games)],
            "results": [{"game": g.index, "bots": list(g.bots), "scores": list(g.scores)}
                        for g in games],
        }, indent=2))
    else:
        print(f"{args.games} games, {args.players} players, seed {args.seed}, "
              f"{args.rules} rules, bots {','.join(bots)}")
        print(format_table(summaries))
        if len(summaries) > 1:
            print()
            print(format_head_to_head(head_to_head(games)))
    return 0


def bench_command(args: argparse.Namespace) -> int:
    from elgrande.ai.bench import run_bench
    from elgrande.rules import ENGINE_CHOICE

    results = run_bench(args.iterations)
    if args.json:
        print(json.dumps([r.to_dict() for r in results], indent=2))
        return 0
    print(f"{'players':>7} {'position':>12} {'phase':<14} {'iterations':>10} {'it/s':>8}")
    for r in results:
        print(f"{r.players:>7} {f'seed {r.seed} +{r.plies}':>12} {r.phase:<14} "
              f"{r.iterations:>10} {r.per_second:8.1f}")
    total = sum(r.iterations for r in results) / sum(r.seconds for r in results)
    print(f"overall {total:.1f} iterations/s")
    print(f"engine and search: {ENGINE_CHOICE.engine} ({ENGINE_CHOICE.reason})")
    return 0
