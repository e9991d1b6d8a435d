"""`elgrande duel ...`: a paired sequential test of a candidate bot against a baseline
(docs/ai.md, "Paired duels")."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import TYPE_CHECKING, Any

from . import UsageError, positive_int

if TYPE_CHECKING:
    from elgrande.ai.duel import DuelConfig, DuelResult
    from elgrande.ai.stats import Estimate

ROLES = ("candidate", "baseline", "opponents")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "duel",
        help="test whether a candidate bot beats a baseline, on paired deals, until sure",
        description="Play every deal twice, once with the candidate and once with the "
                    "baseline in the tested seat (same chance seed, same opponents and "
                    "seeds; the tested seat rotates), and run a sequential probability "
                    "ratio test on the pairs' results (H0: the candidate is --elo0 better, "
                    "H1: --elo1 better). Stops when one hypothesis is accepted or at "
                    "--max-games. Games replay exactly for any --workers.",
    )
    p.add_argument("--candidate", required=True, metavar="BOT",
                   help="the bot under test, e.g. hard or ismcts:3000")
    p.add_argument("--baseline", default="baseline", metavar="BOT",
                   help="the bot it is compared with (default baseline, the frozen hard bot)")
    p.add_argument("--opponents", default=None, metavar="BOT",
                   help="the bot in every other seat (default: the baseline)")
    p.add_argument("--players", type=int, required=True, metavar="N", help="players, 2 to 5")
    p.add_argument("--rules", choices=("yucata", "box"), default="yucata",
                   help="rule set (default yucata)")
    p.add_argument("--rounds", type=int, default=9, choices=(6, 9),
                   help="game length (default 9)")
    p.add_argument("--max-games", type=positive_int, default=400, metavar="N",
                   help="stop after this many games (pairs of 2) even if undecided "
                        "(default 400)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="duel seed (default 0)")
    p.add_argument("--workers", type=positive_int, default=1, metavar="W",
                   help="worker processes (default 1)")
    p.add_argument("--elo0", type=float, default=None, metavar="E",
                   help="H0: the candidate is E Elo better on the pair score (default 0)")
    p.add_argument("--elo1", type=float, default=None, metavar="E",
                   help="H1: ... E Elo better (default 30; more than --elo0)")
    p.add_argument("--p0", type=float, default=None, metavar="D",
                   help="instead of --elo0: H0's mean win-share difference per pair "
                        "(candidate minus baseline, -1 to 1), e.g. 0")
    p.add_argument("--p1", type=float, default=None, metavar="D",
                   help="instead of --elo1: H1's mean win-share difference, e.g. 0.05")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="chance of accepting H1 when H0 holds (default 0.05)")
    p.add_argument("--beta", type=float, default=0.05,
                   help="chance of accepting H0 when H1 holds (default 0.05)")
    p.add_argument("--independent-seeds", action="store_true",
                   help="give the tested seat's two bots different seeds (a bot against "
                        "itself then plays two different games, a check of the test's noise)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a report")
    p.add_argument("--no-progress", action="store_true",
                   help="hide the progress bar (shown only on a terminal anyway)")
    p.set_defaults(func=duel_command)


def _hypotheses(args: argparse.Namespace) -> tuple[float, float, str]:
    """(mu0, mu1, description): the mean pair score under H0 and H1."""
    from elgrande.ai.sprt import elo_to_score

    if args.p0 is not None or args.p1 is not None:
        if args.elo0 is not None or args.elo1 is not None:
            raise UsageError("give --elo0/--elo1 or --p0/--p1, not both")
        if args.p0 is None or args.p1 is None:
            raise UsageError("--p0 and --p1 go together")
        if not -1 < args.p0 < args.p1 < 1:
            raise UsageError("--p0 must be less than --p1, both between -1 and 1")
        return (1 + args.p0) / 2, (1 + args.p1) / 2, \
            f"win-share difference {args.p0:+.3f} vs {args.p1:+.3f}"
    elo0 = 0.0 if args.elo0 is None else args.elo0
    elo1 = 30.0 if args.elo1 is None else args.elo1
    if not (math.isfinite(elo0) and math.isfinite(elo1)) or elo0 >= elo1:
        raise UsageError(f"--elo0 ({elo0:g}) must be less than --elo1 ({elo1:g})")
    return elo_to_score(elo0), elo_to_score(elo1), f"Elo {elo0:g} vs {elo1:g}"


def _config(args: argparse.Namespace) -> DuelConfig:
    from elgrande.ai.duel import DuelConfig
    from elgrande.ai.levels import make_bot

    if not 2 <= args.players <= 5:
        raise UsageError(f"argument --players: {args.players} is not allowed; it takes 2 to 5")
    opponents = args.opponents or args.baseline
    problems = []
    for option, name in (("--candidate", args.candidate), ("--baseline", args.baseline),
                         ("--opponents", opponents)):
        try:
            make_bot(name)
        except ValueError as e:
            problems.append(f"argument {option}: {e}")
    for option in ("alpha", "beta"):
        if not 0 < getattr(args, option) < 0.5:
            problems.append(f"argument --{option}: it takes a number between 0 and 0.5")
    if args.max_games < 2:
        problems.append("argument --max-games: a pair is 2 games; it takes 2 or more")
    if problems:
        raise UsageError("; ".join(problems))
    mu0, mu1, _ = _hypotheses(args)
    return DuelConfig(candidate=args.candidate, baseline=args.baseline, opponents=opponents,
                      players=args.players, mu0=mu0, mu1=mu1, alpha=args.alpha, beta=args.beta,
                      max_games=args.max_games, seed=args.seed, rounds=args.rounds,
                      rules=args.rules, independent_seeds=args.independent_seeds)


def duel_command(args: argparse.Namespace) -> int:
    from elgrande.ai.duel import run_duel

    config = _config(args)
    if sys.stderr.isatty() and not args.no_progress:
        from tqdm import tqdm

        with tqdm(total=config.max_pairs * 2, unit="game", file=sys.stderr,
                  dynamic_ncols=True) as bar:
            def show(games: int, llr: float) -> None:
                bar.update(games - bar.n)
                bar.set_postfix_str(f"LLR {llr:+.2f}")
            result = run_duel(config, args.workers, progress=show)
    else:
        result = run_duel(config, args.workers)
    print(json.dumps(_as_dict(result, args), indent=2) if args.json else _report(result, args))
    return 0


VERDICTS = {"H1": "H1 accepted: the candidate is stronger",
            "H0": "H0 accepted: the candidate is not stronger by the margin tested",
            "continue": "undecided at --max-games"}


def _identity(c: DuelConfig, args: argparse.Namespace) -> dict[str, Any]:
    """What the report says of the duel itself: its bots, deals and hypotheses."""
    return {
        "candidate": c.candidate, "baseline": c.baseline, "opponents": c.opponents,
        "players": c.players, "rules": c.rules, "rounds": c.rounds, "seed": c.seed,
        "independent_seeds": c.independent_seeds,
        "hypotheses": {"mu0": c.mu0, "mu1": c.mu1, "description": _hypotheses(args)[2],
                       "alpha": c.alpha, "beta": c.beta},
    }


def _as_dict(result: DuelResult, args: argparse.Namespace) -> dict[str, Any]:
    c = result.config
    times = {}
    for role in ROLES:
        per_decision, per_turn = result.think_times(role)
        times[role] = {"decision": per_decision.to_dict(), "turn": per_turn.to_dict()}
    return {
        **_identity(c, args),
        "games": result.games, "pairs": len(result.pairs),
        "win_rate": {"candidate": result.win_rate(0).to_dict(),
                     "baseline": result.win_rate(1).to_dict()},
        "share_difference": result.share_difference().to_dict(),
        "points_difference": result.points_difference().to_dict(),
        "elo": result.elo().to_dict(),
        "llr": result.llr, "bounds": [result.bounds.lower, result.bounds.upper],
        "verdict": result.verdict, "cpu_seconds": result.cpu_seconds,
        "think_seconds": times,
        "results": [{"pair": p.pair, "seat": p.seat,
                     "candidate_scores": list(p.candidate.scores),
                     "baseline_scores": list(p.baseline.scores), "score": p.score}
                    for p in result.pairs],
    }


def _report(result: DuelResult, args: argparse.Namespace) -> str:
    c = result.config
    cand, base = result.win_rate(0), result.win_rate(1)
    diff, points, elo = result.share_difference(), result.points_difference(), result.elo()
    lines = [
        f"duel: {c.candidate} (candidate) against {c.baseline} (baseline), {c.players} "
        f"players, opponents {c.opponents}, {c.rules} rules, {c.rounds} rounds, seed {c.seed}",
        f"test: {_hypotheses(args)[2]} (pair score {c.mu0:.3f} vs {c.mu1:.3f}), "
        f"alpha {c.alpha:g}, beta {c.beta:g}",
        f"games {result.games} ({len(result.pairs)} pairs), CPU {result.cpu_seconds:.0f} s",
        f"win rate in the tested seat: candidate {_rate(cand)}, baseline {_rate(base)} "
        f"(parity {1 / c.players:.0%})",
        f"win share difference per pair {diff.mean:+.3f} [{diff.low:+.3f}, {diff.high:+.3f}]"
        f", Elo {elo.mean:+.0f} [{elo.low:+.0f}, {elo.high:+.0f}]",
        f"points difference per pair {points.mean:+.1f} [{points.low:+.1f}, "
        f"{points.high:+.1f}]",
        f"LLR {result.llr:+.2f} (bounds {result.bounds.lower:+.2f}, "
        f"{result.bounds.upper:+.2f}): {VERDICTS[result.verdict]}",
        "",
        f"{'CPU seconds':<12} {'bot':<14} {'decisions':>9} {'p50':>5} {'p95':>5} {'max':>5}"
        f" {'turns':>7} {'p50':>5} {'p95':>5} {'max':>5}",
    ]
    names = {"candidate": c.candidate, "baseline": c.baseline, "opponents": c.opponents}
    for role in ROLES:
        d, t = result.think_times(role)
        lines.append(f"{role:<12} {names[role]:<14} {d.count:>9} {d.format()}"
                     f" {t.count:>7} {t.format()}")
    return "\n".join(lines)


def _rate(e: Estimate) -> str:
    return f"{e.mean:.1%} [{e.low:.1%}, {e.high:.1%}]"
