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
    except (OSError, ValueError) as exc:  # ValueError: not JSON, or not UTF-8
        raise SystemExit(f"elgrande: cannot read {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise SystemExit(f"elgrande: {path}: not a game record")
    return data


def _verify(args: argparse.Namespace) -> int:
    from elgrande.matches.record import VerifyError, verify

    record = _read(args.game)
    try:
        lines = verify(record)
    except (VerifyError, KeyError, TypeError, ValueError) as exc:
        print(f"{args.game}: FAILED: {exc}", file=sys.stderr)
        if args.json:
            print(json.dumps({"game": args.game, "match_id": record.get("match_id"),
                              "ok": False, "error": str(exc)}))
        return 1
    if args.json:
        print(json.dumps({"game": args.game, "match_id": record.get("match_id"), "ok": True,
                          "checks": lines}))
        return 0
    for line in lines:
        print(line)
    print(f"{args.game}: OK")
    return 0


def _replay(args: argparse.Namespace) -> int:
    from elgrande.matches.record import VerifyError, listing, replay_record
    from elgrande.rules import is_terminal

    record = _read(args.game)
    try:
        if args.json:
            state = replay_record(record)
            out: Any = {
                "match_id": record.get("match_id"),
                "players": record["config"].get("players"),
                "rounds": record["config"].get("rounds"),
                # base_seq: moves with the same base were committed together.
                "moves": [{key: entry[key] for key in ("seq", "at", "seat", "base_seq", "action")}
                          for entry in record["log"]],
                "final_scores": state.scores if is_terminal(state) else None,
            }
        else:
            out = listing(record)
    except (VerifyError, KeyError, TypeError, ValueError) as exc:
        print(f"{args.game}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(out) if args.json else "\n".join(out))
    return 0


def register(subparsers: Any) -> None:
    verify = subparsers.add_parser(
        "verify", help="check a game record: seed commitment, every chance draw, final state",
        description="Check an exported game record: the revealed seed matches the commitment "
                    "published at the start, every chance outcome (card draws) in the log is "
                    "the one the seed gives, and replaying the log gives the recorded final "
                    "state. Exit status 0 when it checks out, 1 when not.")
    verify.add_argument("game", metavar="GAME.json", help="an exported game record")
    verify.add_argument("--json", action="store_true",
                        help='print one JSON object: {"ok": true, "checks": [...]} or '
                             '{"ok": false, "error": ...}')
    verify.set_defaults(func=_verify)
    replay = subparsers.add_parser(
        "replay", help="print a game record move by move",
        description="List an exported game record move by move (sequence number, time, "
                    "action; a blank line between commits) and the final scores.")
    replay.add_argument("game", metavar="GAME.json", help="an exported game record")
    replay.add_argument("--json", action="store_true",
                        help="print one JSON object: the moves and the final scores")
    replay.set_defaults(func=_replay)
