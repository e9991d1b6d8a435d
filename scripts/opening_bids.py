"""The opening bid (round 1, the first seat to bid) each bot makes on the same seeded deals:
how high a bot bids, compared side by side (docs/ai.md, "Bids guided by the heuristic").

    .venv/bin/python scripts/opening_bids.py --players 4 --deals 12 --bots hard,hard-bid,medium
"""

from __future__ import annotations

import argparse
import random
from collections import Counter

from elgrande.ai import make_bot
from elgrande.rules import ENGINE, GameConfig, is_chance, new_game, redact, resolve_chance, to_act


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, choices=range(2, 6))
    parser.add_argument("--deals", type=int, default=12, help="seeded deals (seeds 0 to N-1)")
    parser.add_argument("--bots", default="hard,hard-bid,medium", help="comma-separated bots")
    args = parser.parse_args()
    bots = args.bots.split(",")
    counts: dict[str, Counter[int]] = {name: Counter() for name in bots}
    for deal in range(args.deals):
        rng = random.Random(deal)
        state = new_game(GameConfig(players=args.players))
        while is_chance(state):
            resolve_chance(state, rng)
        seat = to_act(state)[0]
        visible = redact(state, seat)
        for name in bots:
            counts[name][make_bot(name, deal).choose(visible, seat).arg] += 1
    print(f"engine {ENGINE}; {args.deals} deals, {args.players} players; bid: times")
    for name, bids in counts.items():
        print(f"{name:>12}: " + ", ".join(f"{bid}: {n}" for bid, n in sorted(bids.items())))


if __name__ == "__main__":
    main()
