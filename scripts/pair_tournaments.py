"""Pairs two tournaments played on the same deals, game by game, for the seat that differs.

Two runs of `elgrande tournament --json` with the same players, games, seed, rounds and
rules, whose bot lists differ in one name (say `learned@FIT.json,baseline,...` and
`hard,baseline,...`), play the same deals with the same seats: game seeds come from the
seed, the players and the game number, and the seats rotate the same way. Each game of
the first then pairs with the same game of the second, and the difference the one bot
makes is measured on the same deals:

* win share: 1 for a sole win, 1/k for a win shared by k seats, else 0;
* ahead: the share of the other seats it finished ahead of (a tie counts 1/2);
* score: its own final score.

For each, the mean difference per game (first minus second) with a normal 95% interval,
and each side's win rate with Wilson's interval.

    .venv/bin/python scripts/pair_tournaments.py FIRST.json SECOND.json [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from elgrande.ai.stats import Estimate, mean_ci, wilson_ci

MATCHING = ("players", "games", "seed", "rounds", "rules")


class PairingError(ValueError):
    pass


def read(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as exc:
        raise PairingError(f"cannot read {path!r}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise PairingError(f"{path!r} is not JSON: {exc}") from None
    if not isinstance(data, dict) or "results" not in data or "bots" not in data:
        raise PairingError(f"{path!r} is not the output of `elgrande tournament --json`")
    return data


def tested_bots(first: dict[str, Any], second: dict[str, Any]) -> tuple[str, str, int]:
    """The two bots that differ and their place in the bot lists."""
    for key in MATCHING:
        if first.get(key) != second.get(key):
            raise PairingError(f"the tournaments differ in {key} ({first.get(key)!r} and "
                               f"{second.get(key)!r}): their deals do not pair")
    a, b = first["bots"], second["bots"]
    places = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    if len(places) != 1:
        raise PairingError("the bot lists must differ in exactly one place, "
                           f"not {len(places)}: {','.join(a)} and {','.join(b)}")
    i = places[0]
    if a[i] in a[:i] + a[i + 1:] or b[i] in b[:i] + b[i + 1:]:
        raise PairingError(f"{a[i]} or {b[i]} sits in more than one seat: the tested seat "
                           "would be ambiguous")
    return a[i], b[i], i


def seat_figures(bots: list[str], scores: list[int], bot: str) -> tuple[int, float, float, int]:
    """(seat, win share, share of the others it finished ahead of, score) of ``bot``."""
    seat = bots.index(bot)
    mine, best = scores[seat], max(scores)
    winners = sum(1 for s in scores if s == best)
    share = 1.0 / winners if mine == best else 0.0
    others = [s for q, s in enumerate(scores) if q != seat]
    ahead = sum(1.0 if mine > s else 0.5 if mine == s else 0.0 for s in others) / len(others)
    return seat, share, ahead, mine


def pair(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    bot_a, bot_b, _ = tested_bots(first, second)
    games_b = {g["game"]: g for g in second["results"]}
    diffs: dict[str, list[float]] = {"win_share": [], "ahead": [], "score": []}
    wins_a = wins_b = 0.0
    for g in first["results"]:
        other = games_b.get(g["game"])
        if other is None:
            raise PairingError(f"game {g['game']} is missing from the second tournament")
        seat_a, share_a, ahead_a, score_a = seat_figures(g["bots"], g["scores"], bot_a)
        seat_b, share_b, ahead_b, score_b = seat_figures(other["bots"], other["scores"], bot_b)
        if seat_a != seat_b:
            raise PairingError(f"game {g['game']}: {bot_a} sits in seat {seat_a}, "
                               f"{bot_b} in seat {seat_b}; the seats do not pair")
        wins_a += share_a
        wins_b += share_b
        diffs["win_share"].append(share_a - share_b)
        diffs["ahead"].append(ahead_a - ahead_b)
        diffs["score"].append(float(score_a - score_b))
    n = len(first["results"])
    if n != len(second["results"]):
        raise PairingError("the second tournament has games the first has not")

    def est(e: Estimate) -> dict[str, float]:
        return {"mean": round(e.mean, 4), "low": round(e.low, 4), "high": round(e.high, 4)}

    return {
        "first": bot_a, "second": bot_b, "games": n,
        "players": first["players"], "seed": first["seed"],
        "win_rate": {bot_a: est(wilson_ci(wins_a, n)), bot_b: est(wilson_ci(wins_b, n))},
        "difference_per_game": {k: est(mean_ci(v)) for k, v in diffs.items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="pair_tournaments",
        description="Pair two `elgrande tournament --json` runs on the same deals (same "
                    "players, games, seed, rounds and rules; bot lists differing in one "
                    "place) game by game: win share, share of the others finished ahead "
                    "of, and score of the seat that differs, first minus second, with 95% "
                    "intervals.")
    parser.add_argument("first", help="the candidate's tournament (JSON)")
    parser.add_argument("second", help="the reference tournament on the same deals (JSON)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        result = pair(read(args.first), read(args.second))
    except PairingError as exc:
        print(f"pair_tournaments: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    a, b = result["first"], result["second"]
    print(f"{result['games']} games, {result['players']} players, seed {result['seed']}: "
          f"{a} against {b} in the same seat")
    for bot in (a, b):
        w = result["win_rate"][bot]
        print(f"  {bot} wins {w['mean']:.1%} [{w['low']:.1%}, {w['high']:.1%}]")
    for key, label in (("win_share", "win share"), ("ahead", "ahead"), ("score", "score")):
        d = result["difference_per_game"][key]
        print(f"  {label:<10} {d['mean']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}] per game")
    return 0


if __name__ == "__main__":
    sys.exit(main())
