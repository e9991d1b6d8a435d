"""Open WebSockets per key (a client address, a user), so one address or one player
cannot hold the server's memory with idle sockets: counted in this process's memory, or,
with Redis configured, over every process (``scale.sockets.SharedSocketCounts``)."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Protocol


class SocketCounts(Protocol):
    """At most ``limit`` open sockets per key (0: no limit); ``open`` is this process's
    (for the metrics). ``admit`` and ``release`` may wait for Redis: call them from a
    worker thread."""

    limit: int
    open: Counter[str]

    def admit(self, key: str) -> bool: ...

    def release(self, key: str) -> None: ...


class LocalSocketCounts:
    """The sockets of this process only (one process, no Redis)."""

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
