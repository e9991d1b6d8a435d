"""`elgrande verify GAME.json` and `elgrande replay GAME.json`: check and list an exported
game record (see docs/matches.md)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def _read(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, json.JSONDecodeError) as exc:
        raise SystemExit(f"cannot read {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise SystemExit(f"{path}: not a game record")
    return data


def _verify(args: argparse.Namespace) -> int:
    from elgrande.matches.record import VerifyError, verify

    try:
        lines = verify(_read(args.game))
    except (VerifyError, KeyError, TypeError) as exc:
        print(f"{args.game}: FAILED: {exc}", file=sys.stderr)
        return 1
    for line in lines:
        print(line)
    print(f"{args.game}: OK")
    return 0


def _replay(args: argparse.Namespace) -> int:
    from elgrande.matches.record import VerifyError, listing

    try:
        lines = listing(_read(args.game))
    except (VerifyError, KeyError, TypeError) as exc:
        print(f"{args.game}: {exc}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


def register(subparsers: Any) -> None:
    verify = subparsers.add_parser(
        "verify", help="check a game record: seed commitment, every chance draw, final state"
    )
    verify.add_argument("game", metavar="GAME.json")
    verify.set_defaults(func=_verify)
    replay = subparsers.add_parser("replay", help="print a game record move by move")
    replay.add_argument("game", metavar="GAME.json")
    replay.set_defaults(func=_replay)
