"""The `elgrande` command. Each area of the project contributes its sub-commands
from a module of this package that defines ``register(subparsers)``.

What every sub-command gets from here: ``--version``; argparse-style errors for bad
values (the ``type=`` validators below, and ``UsageError`` for checks that need several
options); no traceback when the reader of the output goes away (``| head``) or on Ctrl+C;
and ``progress()`` bars that appear only on a terminal."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import math
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from elgrande import __version__

# Modules that may contribute sub-commands; a module that does not exist yet is skipped.
COMMAND_MODULES = ("engine", "matches", "ai", "duel", "server", "db", "admin", "ratings",
                   "spiel_bench", "coach", "train_value")

T = TypeVar("T")


class UsageError(Exception):
    """Bad arguments that argparse could not see alone (e.g. --seat beyond --players):
    reported like argparse's own errors, with the command's usage, exit status 2."""


# --- argparse `type=` validators: argparse names the option in front of the message. ---


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def positive_int(text: str) -> int:
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not allowed; it takes a whole number "
                                          "of 1 or more")
    return value


def non_negative_int(text: str) -> int:
    value = _whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is not allowed; it takes a whole number "
                                          "of 0 or more")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"{text} is not allowed; it takes a number above 0")
    return value


def port(text: str) -> int:
    value = _whole(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port; it takes a whole number "
                                          "from 0 to 65535 (0: any free port)")
    return value


def progress(iterable: Iterable[T], *, shown: bool = True, **options: Any) -> Iterator[T]:
    """``tqdm`` on standard error, and only when that is a terminal (a bar in a log file
    or a pipe is noise) and ``shown``."""
    from tqdm import tqdm

    # tqdm's disable=None: off unless the file is a terminal.
    return iter(tqdm(iterable, file=sys.stderr, disable=None if shown else True, **options))


# --- the parser and the entry point ------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="elgrande",
        description="El Grande: play, simulate, benchmark, serve and analyse games.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        full = f"{__name__}.{name}"
        if importlib.util.find_spec(full) is None:
            continue
        importlib.import_module(full).register(subparsers)
    _remember_parsers(parser)
    return parser


def _remember_parsers(parser: argparse.ArgumentParser) -> None:
    """Every (sub-)parser leaves itself in the namespace as ``_parser`` (the innermost one
    wins), so that ``UsageError`` is reported with the right command's usage."""
    parser.set_defaults(_parser=parser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _remember_parsers(sub)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result = args.func(args)
        # Output to a pipe is buffered: flush here, where a closed pipe can be handled.
        sys.stdout.flush()
    except UsageError as exc:
        # As argparse's parser.error(), but returned, like the commands' other statuses.
        args._parser.print_usage(sys.stderr)
        print(f"{args._parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`elgrande ... | head`): stop quietly. Point stdout at
        # /dev/null so that the interpreter's own flush at exit does not fail again
        # (the recipe of Python's documentation, "Note on SIGPIPE").
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
