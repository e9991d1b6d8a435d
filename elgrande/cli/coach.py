"""`elgrande coach RECORD.json --seat N`: the coach's review of one seat's decisions in a
game record, on the command line (docs/coach.md)."""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import UsageError, positive_int, progress

if TYPE_CHECKING:
    from elgrande.ai.coach import Budget, Finding
    from elgrande.rules import Action, GameConfig

RECORD_FORMAT = "elgrande-match/1"  # elgrande/matches/record.py's FORMAT
# elgrande.ai.coach.Budget()'s, named here so that `elgrande --help` need not import the bots
# (a test checks that they agree).
DEFAULT_LEVEL = "hard"
DEFAULT_PLAYOUTS = 48


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "coach",
        help="the coach's review of one seat's decisions in a game record",
        description="Review one seat's decisions in a game record, as the site's coach does "
                    "(docs/coach.md): for each decision the bot of --level says what it would "
                    "have played from the seat's view at the time; where that differs, both "
                    "lines are played out to the end of the game --playouts times and the "
                    "difference of the seat's final score is reported, the biggest mistakes "
                    "first. RECORD.json is an exported game record (elgrande-match/1, "
                    "finished or not) or the output of `elgrande replay --json` (which "
                    "carries no rule options: it is read with the default, yucata, rules). "
                    "A review is a function of the record, the seat, the seed and the "
                    "budget; it can take minutes of CPU at the default budget.",
    )
    p.add_argument("record", metavar="RECORD.json",
                   help="a game record (elgrande-match/1) or `elgrande replay --json` output")
    p.add_argument("--seat", type=int, required=True, metavar="N",
                   help="the seat to review, 0 to players-1")
    p.add_argument("--level", default=DEFAULT_LEVEL, metavar="LEVEL",
                   help="the coach's bot: a level or ismcts:ITERATIONS (default "
                        f"{DEFAULT_LEVEL}, the top level, as on the site)")
    p.add_argument("--playouts", type=positive_int, default=DEFAULT_PLAYOUTS, metavar="K",
                   help="playouts to the end of the game per line of a differing decision, "
                        f"1 or more (default {DEFAULT_PLAYOUTS})")
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help="the review's seed. Default: derived from the record's revealed "
                        "secret seed when it has one (a finished game's record: the same seed "
                        "as the site's review of that seat), else 0")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object: every decision's finding and the mistakes")
    p.add_argument("--no-progress", action="store_true",
                   help="hide the progress bar (shown only on a terminal anyway)")
    p.set_defaults(func=coach_command)


@dataclass(frozen=True)
class Game:
    """What a review needs from a record."""

    config: GameConfig
    log: list[Action]
    secret_seed: str | None  # revealed once the game is over
    match_id: str | None


def read_game(path: str) -> Game:
    """The game in ``path``; ``UsageError`` with a message saying what is wrong."""
    from elgrande.rules import GameConfig, parse_action

    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # not JSON, or not UTF-8
        raise UsageError(f"{path} is not JSON: {exc}") from None
    try:
        if isinstance(data, dict) and data.get("format") == RECORD_FORMAT:
            config = GameConfig.from_dict(data["config"])
            entries = [entry["action"] for entry in data["log"]]
            seed = data.get("seed")
            secret = seed if isinstance(seed, str) and seed else None
        elif isinstance(data, dict) and "moves" in data and "players" in data:
            # `elgrande replay --json`: players, rounds and the moves only.
            config = GameConfig(players=int(data["players"]), rounds=int(data.get("rounds") or 9))
            entries = [move["action"] for move in data["moves"]]
            secret = None
        else:
            raise UsageError(f"{path} is not a game record (an exported {RECORD_FORMAT} record "
                             "or the output of `elgrande replay --json`)")
        if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
            raise TypeError("a move is not a string")
    except UsageError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        what = f"missing {exc}" if isinstance(exc, KeyError) else str(exc)
        raise UsageError(f"{path}: a malformed game record ({what})") from None
    log = []
    for i, text in enumerate(entries, start=1):
        try:
            log.append(parse_action(text))
        except ValueError as exc:
            raise UsageError(f"{path}: move {i}: {exc}") from None
    _check_replays(path, config, log)
    return Game(config, log, secret, data.get("match_id") if isinstance(data, dict) else None)


def _check_replays(path: str, config: GameConfig, log: list[Action]) -> None:
    from elgrande.rules import IllegalAction, apply, new_game
    from elgrande.server.rule_messages import illegal_action_text  # standard library only

    state = new_game(config)
    for i, action in enumerate(log, start=1):
        try:
            apply(state, action)
        except IllegalAction as exc:
            raise UsageError(f"{path}: move {i} ({action}) does not replay: "
                             f"{illegal_action_text(exc.code, exc.params)}") from None


def review_seed(game: Game, seat: int, given: int | None) -> int:
    """--seed, else the site's seed for the seat's review (from the revealed secret seed),
    else 0."""
    if given is not None:
        return given
    if game.secret_seed is None:
        return 0
    from elgrande.server.bots import coach_seed

    return coach_seed(game.secret_seed, seat)


def _budget(args: argparse.Namespace) -> Budget:
    from elgrande.ai.coach import Budget
    from elgrande.ai.levels import make_bot

    try:
        make_bot(args.level)
    except ValueError as exc:
        raise UsageError(f"argument --level: {exc}") from None
    return Budget(args.level, args.playouts)


def coach_command(args: argparse.Namespace) -> int:
    from elgrande.ai.coach import decision_points, judge

    budget = _budget(args)
    game = read_game(args.record)
    players = game.config.players
    if not 0 <= args.seat < players:
        raise UsageError(f"argument --seat: {args.seat} is not a seat of this {players}-player "
                         f"game; it takes 0 to {players - 1}")
    seed = review_seed(game, args.seat, args.seed)
    started = time.process_time()
    points = decision_points(game.config, game.log, args.seat)
    findings = [judge(point, seed, budget)
                for point in progress(points, shown=not args.no_progress, desc="decisions",
                                      unit="decision", dynamic_ncols=True)]
    cpu = time.process_time() - started
    worse = _mistakes(findings)
    if args.json:
        print(json.dumps({
            "record": args.record, "match_id": game.match_id, "seat": args.seat,
            "players": players, "rounds": game.config.rounds, "moves": len(game.log),
            "seed": seed, "budget": budget.to_dict(), "decisions": len(findings),
            "agreed": sum(1 for f in findings if f.agreed),
            "mistakes": [f.to_dict() for f in worse],
            "findings": [f.to_dict() for f in findings],
            "cpu_seconds": round(cpu, 2),
        }, indent=2))
        return 0
    agreed = sum(1 for f in findings if f.agreed)
    print(f"seat {args.seat} of {players} players, {game.config.rounds} rounds, "
          f"{len(game.log)} moves; coach {budget.level}, {budget.playouts} playouts per line, "
          f"seed {seed}")
    print(f"{len(findings)} decisions: the coach agreed with {agreed}, would have played "
          f"otherwise {len(findings) - agreed} times, {len(worse)} of them priced as a loss; "
          f"CPU {cpu:.1f} s")
    if not worse:
        print("no mistakes found")
    for f in worse:
        print(f"round {f.round}, turn {f.turn}: played {', '.join(f.played)}, "
              f"coach {', '.join(f.coach)}, about {f.delta:.1f} ± {f.se:.1f} points")
    return 0


def _mistakes(findings: list[Finding]) -> list[Finding]:
    """As the site shows them: the differing decisions that the playouts price above zero,
    the biggest first."""
    from elgrande.ai.coach import mistakes

    return [f for f in mistakes(findings) if f.delta is not None and f.delta > 0]
