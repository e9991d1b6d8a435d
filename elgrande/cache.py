"""A small thread-safe LRU map: the per-process caches of the store and the web app."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Lru(Generic[K, V]):
    """At most ``size`` entries; the least recently used goes first. With ``weigh`` (an
    entry's estimated bytes), also at most ``budget`` bytes in all: entries grow with
    the length of a game, so a count alone does not bound the memory."""

    def __init__(self, size: int, *, budget: int = 0,
                 weigh: Callable[[K, V], int] | None = None) -> None:
        self._size = size
        self._budget = budget if weigh is not None else 0
        self._weigh = weigh
        self._lock = threading.Lock()
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self.weight = 0  # estimated bytes held (0 without ``weigh``)

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            self._items.move_to_end(key)
            return found[0]

    def put(self, key: K, value: V) -> None:
        weight = self._weigh(key, value) if self._weigh is not None else 0
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.weight -= old[1]
            self._items[key] = (value, weight)
            self.weight += weight
            while len(self._items) > self._size or (
                    self._budget and self.weight > self._budget and len(self._items) > 1):
                self.weight -= self._items.popitem(last=False)[1][1]

    def pop(self, key: K) -> V | None:
        """Forgets ``key``; what it held (None if nothing)."""
        with self._lock:
            old = self._items.pop(key, None)
            if old is None:
                return None
            self.weight -= old[1]
            return old[0]

    def __len__(self) -> int:
        return len(self._items)
