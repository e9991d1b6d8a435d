"""Worker threads for blocking work, in two pools: a game's moves never queue behind pages.

Database reads and writes and the building of views run in worker threads. Page
requests, sign-ins and the opening of game pages use anyio's default pool, which
``start()`` limits to ``page_threads``. A game's commands and its pages' refreshed states
use a pool of their own (``play()``). So when hundreds of players arrive at once, a move
neither waits for a free thread behind their requests nor shares the interpreter with
more than ``page_threads`` of them (docs/server.md, "Worker threads").
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from anyio import CapacityLimiter, to_thread

T = TypeVar("T")

#: Threads for games' commands and states: as many as anyio's default pool had for all.
PLAY_THREADS = 40


class Threads:
    def __init__(self, page_threads: int) -> None:
        self.page_threads = page_threads
        self._play: CapacityLimiter | None = None

    def start(self) -> None:
        """In the event loop, before serving (the app's lifespan): the default pool's
        size belongs to the loop."""
        to_thread.current_default_thread_limiter().total_tokens = self.page_threads
        self._play = CapacityLimiter(PLAY_THREADS)

    async def play(self, func: Callable[..., T], *args: Any) -> T:
        """``func(*args)`` in a thread of the games' pool."""
        if self._play is None:  # not started (a test's app without its lifespan)
            self._play = CapacityLimiter(PLAY_THREADS)
        return await to_thread.run_sync(partial(func, *args), limiter=self._play)
