"""What the match store's cache of committed logs costs the garbage collector: the objects
it tracks and the time of a full collection, with N matches of about L log entries each
held in the cache (docs/bench.md, "Capacity").

    .venv/bin/python scripts/cached_logs_gc.py --matches 1000 --entries 150 --repeat 7

Matches are played at random to L entries, written to a fresh SQLite file and loaded once
each, so that the store caches them as a server caches its busy games.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import tempfile
import time
from pathlib import Path

from elgrande.asgi import prepare_database
from elgrande.matches import Match, MatchStore
from elgrande.rules import GameConfig, is_terminal, legal_actions, to_act


def played(seed: int, entries: int) -> Match:
    """A 3-player match played at random, each turn committed, to ``entries`` (or to its
    end: a random game lasts about 200)."""
    rng = random.Random(seed)
    match = Match.new(GameConfig(players=3), seed=f"gc:{seed}")
    while match.seq < entries and not is_terminal(match.state):
        seat = to_act(match.state)[0]
        draft = match.draft(seat)
        match.step(seat, rng.choice(legal_actions(draft.current, seat)))
        if seat in match.drafts and match.drafts[seat].at_boundary:
            match.finish(seat)
    return match


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--entries", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=7, help="full collections timed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'gc.db'}"
        prepare_database(url)
        store = MatchStore(url)
        ids, logged = [], 0
        for i in range(args.matches):
            match = played(i, args.entries)
            logged += match.seq
            ids.append(store.add(match))
            if (i + 1) % 100 == 0:
                print(f"  {i + 1}/{args.matches} matches written", flush=True)
        gc.collect()
        before = len(gc.get_objects())
        for match_id in ids:
            store.load_seat(match_id, None)
        gc.collect()
        tracked = len(gc.get_objects()) - before
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            gc.collect()
            times.append((time.perf_counter() - start) * 1000)
        cached = len(store._committed)  # noqa: SLF001 (what the cache holds)
        print(f"{cached} matches cached ({logged / args.matches:.0f} entries each): {tracked:,} more "
              f"objects tracked ({tracked / max(cached, 1):.0f} a match); full collection "
              f"{statistics.median(times):.1f} ms median ({min(times):.1f}-{max(times):.1f})")
        store.close()


if __name__ == "__main__":
    main()
