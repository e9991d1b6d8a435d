"""The per-process caches are bounded by estimated bytes as well as by count (issue 11,
the soak run: memory must level off). Their entries grow with the length of a game, so
a bound on the count alone let memory climb for as long as longer games filled them."""

from __future__ import annotations

import random
import tracemalloc
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from elgrande.cache import Lru
from elgrande.rules import to_act
from tests.server.conftest import As, services
from tests.server.helpers import choose

SEAT_VIEWS = str(Path(__file__).resolve().parents[2] / "elgrande" / "server" / "seat_views.py")


def test_an_lru_with_a_budget_drops_its_oldest_entries_beyond_it() -> None:
    cache: Lru[int, str] = Lru(100, budget=1000, weigh=lambda _, text: len(text))
    for key in range(10):
        cache.put(key, "x" * 300)
    assert len(cache) == 3 and cache.weight == 900, "three fit in 1000 bytes"
    assert cache.get(6) is None and cache.get(7) == "x" * 300
    cache.put(9, "x" * 10)  # a replaced entry is weighed again
    assert cache.weight == 610
    cache.put(10, "x" * 500)  # 1110: the least recently used (8) goes
    assert cache.get(8) is None and cache.get(7) is not None and cache.weight == 810
    cache.pop(7)
    assert cache.weight == 510 and len(cache) == 2
    cache.put(11, "x" * 5000)  # larger than the budget alone: kept, the rest goes
    assert len(cache) == 1 and cache.get(11) is not None


def test_an_lru_without_weights_is_bounded_by_count_alone() -> None:
    cache: Lru[int, str] = Lru(2, budget=1)
    for key in range(3):
        cache.put(key, "x" * 1000)
    assert len(cache) == 2 and cache.get(0) is None and cache.weight == 0


def test_the_views_of_a_whole_game_hold_memory_linear_in_its_length(
        client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    """Every open page builds its seat's view after each commit (here: the three seats
    and a spectator), and the views are cached. Each cached view used to keep the whole
    text of its log, so one game's views held memory growing with the square of its
    length: about 43 bytes per (view, line of its log) beyond the views' own JSON for a
    whole game, against 13 to 26 now, depending on the deal (a view's list of lines
    shared with the others, and what grows with the game alone: the lines themselves,
    the events; 30 games measured on 2026-12-01). The bound lies between the two."""
    game_id = three_humans[0]
    svc = services(client)
    game = svc.lobby.get(game_id)
    rng = random.Random(3)
    tracemalloc.start()
    try:
        start = tracemalloc.take_snapshot()
        pairs = 0  # (view, log line) pairs cached
        views: dict[Any, Any] = {}
        while True:
            match = svc.store.load(game.match_id)
            for seat in (0, 1, 2, None):
                shown = svc.views.seat_state(game, seat)
                views[shown.key] = shown
                pairs += len(match.log)
            if match.over or len(match.log) > 400:
                break
            seat = to_act(match.state)[0]
            view = svc.store.view(game.match_id, seat)
            while view.legal:
                view = svc.store.step(game.match_id, seat, choose(view.legal, rng))
            svc.store.finish(game.match_id, seat)
        end = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    held = sum(stat.size_diff for stat in end.compare_to(start, "filename")
               if stat.traceback[0].filename == SEAT_VIEWS)
    heads = sum(len(shown.head) for shown in views.values())
    assert pairs > 20_000, "a whole game"
    per_pair = (held - heads) / pairs
    assert per_pair < 34, f"{per_pair:.1f} bytes per (view, log line) beyond the views' own"
