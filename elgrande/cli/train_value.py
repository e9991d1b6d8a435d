"""`elgrande train-value`: fit the learned evaluation on self-play games (docs/ai.md, "A
learned evaluation")."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from . import UsageError, positive_int, progress

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "ai" / "value_model.json"


def _players(text: str) -> list[int]:
    try:
        counts = sorted({int(part) for part in text.split(",")})
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of player "
                                         "counts, e.g. 2,3,4,5") from None
    if not counts or not all(2 <= n <= 5 for n in counts):
        raise argparse.ArgumentTypeError(f"{text!r}: player counts go from 2 to 5")
    return counts


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "train-value",
        help="fit the learned evaluation (value_model.json) on self-play games",
        description="Play --games games per player count between heuristic bots (and "
                    "search bots in --search-share of the seats), record "
                    "every turn's position with its features and the game's winner, and fit "
                    "the learned evaluation's weights per player count and rounds left "
                    "(elgrande/ai/value.py). One game in five is held out and the learned "
                    "win chances are compared there with the search's old reward. Writes "
                    "the model as JSON (--out). Needs numpy (the dev or learn extras).",
    )
    p.add_argument("--games", type=positive_int, default=3000, metavar="N",
                   help="games per player count (default 3000)")
    p.add_argument("--players", type=_players, default=[2, 3, 4, 5], metavar="LIST",
                   help="player counts, comma-separated (default 2,3,4,5)")
    p.add_argument("--seed", type=int, default=1, metavar="S", help="seed (default 1)")
    p.add_argument("--workers", type=positive_int, default=1, metavar="W",
                   help="worker processes (default 1)")
    p.add_argument("--easy-share", type=float, default=0.2, metavar="P",
                   help="chance that a seat is played by the easy bot instead of medium "
                        "(default 0.2)")
    p.add_argument("--search-share", type=float, default=0.0, metavar="P",
                   help="chance that a seat is played by --search-bot (default 0); the "
                        "easy and search shares add up to at most 1")
    p.add_argument("--search-bot", default=None, metavar="BOT",
                   help="the search bot of those seats (default ismcts:300; any bot name, "
                        "e.g. baseline)")
    p.add_argument("--merge", action="store_true",
                   help="keep the other player counts' weights from the model already at "
                        "--out, and replace only those of --players")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="FILE",
                   help="where to write the model (default: the shipped "
                        "elgrande/ai/value_model.json)")
    p.add_argument("--json", action="store_true", help="print the held-out check as JSON")
    p.add_argument("--no-progress", action="store_true",
                   help="hide the progress bar (shown only on a terminal anyway)")
    p.set_defaults(func=train_value_command)


def _command(args: argparse.Namespace) -> str:
    """The command line that makes this model again (workers and output aside)."""
    command = (f"elgrande train-value --games {args.games} --players "
               f"{','.join(map(str, args.players))} --seed {args.seed} "
               f"--easy-share {args.easy_share}")
    if args.search_share:
        command += f" --search-share {args.search_share} --search-bot {args.search_bot}"
    return command + (" --merge" if args.merge else "")


def train_value_command(args: argparse.Namespace) -> int:
    try:
        import numpy  # noqa: F401
    except ImportError:
        raise UsageError("training needs numpy: pip install 'elgrande[learn]'") from None
    from elgrande.ai.train_value import (
        DEFAULT_SEARCH_BOT,
        Field,
        describe,
        fit,
        generate,
        merge,
    )
    from elgrande.ai.value import ValueModel

    if args.search_bot is None:
        args.search_bot = DEFAULT_SEARCH_BOT
    try:
        field = Field(args.easy_share, args.search_share, args.search_bot)
    except ValueError as e:
        raise UsageError(f"{e} (--easy-share, --search-share, --search-bot)") from None
    old = None
    if args.merge:
        try:
            old = ValueModel.from_dict(json.loads(args.out.read_text()))
        except (OSError, ValueError) as e:
            raise UsageError(f"--merge needs a model at {args.out} to merge into: {e}") from None

    start = time.monotonic()
    data = generate(args.games, args.players, args.seed, args.workers, field=field,
                    progress=lambda it, total: progress(it, shown=not args.no_progress,
                                                        total=total, unit="game"))
    model, info = fit(data, args.players)
    model.info.update({"command": _command(args),
                       "seconds": round(time.monotonic() - start, 1)})
    if old is not None:
        model = merge(old, model)
    args.out.write_text(json.dumps(model.to_dict(), indent=1) + "\n")
    if args.json:
        print(json.dumps(model.info, indent=2))
    else:
        print(f"{info['games']} training games, {info['positions']} positions; "
              f"written to {args.out}")
        print("held-out games (lower is better):")
        print("\n".join(describe(info["held_out"])))
    return 0
