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

from elgrande.db.engine import WriteLock

T = TypeVar("T")

#: Threads for games' commands and states: as many as anyio's default pool had for all.
PLAY_THREADS = 40


class Threads:
    def __init__(self, page_threads: int, on_loop: WriteLock | None = None) -> None:
        self.page_threads = page_threads
        self._play: CapacityLimiter | None = None
        # SQLite served by this process alone: a game's work runs on the event loop while
        # the database's write lock is free (``play``).
        self.on_loop = on_loop

    def start(self) -> None:
        """In the event loop, before serving (the app's lifespan): the default pool's
        size belongs to the loop."""
        to_thread.current_default_thread_limiter().total_tokens = self.page_threads
        self._play = CapacityLimiter(PLAY_THREADS)

    async def play(self, func: Callable[..., T], *args: Any) -> T:
        """``func(*args)`` for a game: on the event loop itself when the database is this
        process's SQLite file and no thread is writing to it (the call then holds the
        write lock throughout, so it never waits for it: a hand-over to a worker thread
        and back costs far more than a command's own work), else in a thread of the
        games' pool."""
        if self.on_loop is not None:
            with self.on_loop.try_hold() as held:
                if held:
                    return func(*args)
        if self._play is None:  # not started (a test's app without its lifespan)
            self._play = CapacityLimiter(PLAY_THREADS)
        return await to_thread.run_sync(partial(func, *args), limiter=self._play)
