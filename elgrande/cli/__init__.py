"""The `elgrande` command. Each area of the project contributes its sub-commands
from a module of this package that defines ``register(subparsers)``."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys

# Modules that may contribute sub-commands; a module that does not exist yet is skipped.
COMMAND_MODULES = ("engine", "matches", "ai", "server")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="elgrande",
        description="El Grande: play, simulate, benchmark, serve and analyse games.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        full = f"{__name__}.{name}"
        if importlib.util.find_spec(full) is None:
            continue
        importlib.import_module(full).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result = args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
