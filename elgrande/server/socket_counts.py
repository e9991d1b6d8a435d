"""Open WebSockets per key (a client address, a user), so one address or one player
cannot hold the server's memory with idle sockets: counted in this process's memory, or,
with Redis configured, over every process (``scale.sockets.SharedSocketCounts``)."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Protocol

import anyio
from starlette.concurrency import run_in_threadpool


class SocketCounts(Protocol):
    """At most ``limit`` open sockets per key (0: no limit); ``open`` is this process's
    (for the metrics). When ``waits``, ``admit`` and ``release`` may wait for Redis:
    call them from a worker thread (else they are quick enough for the event loop)."""

    limit: int
    open: Counter[str]
    waits: bool

    def admit(self, key: str) -> bool: ...

    def release(self, key: str) -> None: ...


async def admit(counts: SocketCounts, key: str) -> bool:
    """``counts.admit`` from the event loop: in a worker thread only if it may wait."""
    if counts.waits:
        return await run_in_threadpool(counts.admit, key)
    return counts.admit(key)


async def release(counts: SocketCounts, key: str) -> None:
    """``counts.release`` from the event loop. Shielded: it is called as a socket's
    handler ends, often because that handler is being cancelled (its client gone, the
    server stopping), and a cancelled wait for the worker thread would keep the socket's
    place taken for the life of the process."""
    if counts.waits:
        with anyio.CancelScope(shield=True):
            await run_in_threadpool(counts.release, key)
    else:
        counts.release(key)


class LocalSocketCounts:
    """The sockets of this process only (one process, no Redis)."""

    waits = False  # a lock held for a dictionary update

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open: Counter[str] = Counter()
        self._lock = threading.Lock()  # admitted and released from worker threads

    def admit(self, key: str) -> bool:
        with self._lock:
            if self.limit and self.open[key] >= self.limit:
                return False
            self.open[key] += 1
            return True

    def release(self, key: str) -> None:
        with self._lock:
            self.open[key] -= 1
            if self.open[key] <= 0:
                del self.open[key]
