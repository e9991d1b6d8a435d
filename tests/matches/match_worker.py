"""A separate process for the concurrency and crash tests (run as a script).

    match_worker.py finish URL MATCH SEAT BASE   prints "ready", waits for a line, finishes,
                                           prints "ok SEQ" or "moved SEQ"
    match_worker.py stream URL SEED              commits random turns forever, printing
                                           "committed MATCH SEQ" after each commit
"""

from __future__ import annotations

import random
import sys

from elgrande.matches import GameMovedOn, MatchStore
from elgrande.rules import GameConfig


def finish(url: str, match_id: str, seat: int, base: int) -> None:
    store = MatchStore(url)
    store.view(match_id, seat)  # connected and warm before the start signal
    print("ready", flush=True)
    sys.stdin.readline()
    try:
        view = store.finish(match_id, seat, base_seq=base)
    except GameMovedOn as moved:
        print(f"moved {moved.seq} {' '.join(moved.view['draft']['steps'])}", flush=True)
    else:
        print(f"ok {view.seq}", flush=True)


def stream(url: str, seed: int) -> None:
    store = MatchStore(url)
    rng = random.Random(seed)
    matches = [store.create(GameConfig(players=p, rounds=6)) for p in (2, 3, 4)]
    while True:
        match_id = rng.choice(matches)
        view = store.view(match_id, None)
        if view.over:
            matches.remove(match_id)
            matches.append(store.create(GameConfig(players=3, rounds=6)))
            continue
        seat = rng.choice(view.to_act)
        mine = store.view(match_id, seat)
        while mine.legal:
            mine = store.step(match_id, seat, rng.choice(mine.legal), base_seq=mine.seq)
        if rng.random() < 0.3:  # leave some drafts uncommitted, with undo history
            store.undo(match_id, seat)
            continue
        done = store.finish(match_id, seat, base_seq=mine.seq)
        print(f"committed {match_id} {done.seq}", flush=True)


if __name__ == "__main__":
    command, url, *rest = sys.argv[1:]
    if command == "finish":
        finish(url, rest[0], int(rest[1]), int(rest[2]))
    else:
        stream(url, int(rest[0]))
