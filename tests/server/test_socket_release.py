"""A socket's place in the counts is given back even when its handler is being cancelled."""

from __future__ import annotations

import threading
from collections import Counter

import anyio

from elgrande.server.socket_counts import release


class WaitingCounts:
    """Counts whose release must run in a worker thread (as with Redis)."""

    waits = True
    limit = 1

    def __init__(self) -> None:
        self.open: Counter[str] = Counter({"address": 1})
        self.released_in: list[str] = []

    def admit(self, key: str) -> bool:
        return False

    def release(self, key: str) -> None:
        self.released_in.append(threading.current_thread().name)
        self.open[key] -= 1


def test_a_cancelled_handler_still_releases_its_place() -> None:
    counts = WaitingCounts()

    async def handler_cancelled_before_its_finally() -> None:
        with anyio.CancelScope() as scope:
            scope.cancel()  # the client went away: the handler's scope is cancelled
            try:
                await anyio.sleep(10)
            finally:
                await release(counts, "address")

    anyio.run(handler_cancelled_before_its_finally)
    assert counts.open["address"] == 0
    assert counts.released_in and counts.released_in[0] != threading.current_thread().name
