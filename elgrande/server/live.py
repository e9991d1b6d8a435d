"""Live updates: an in-process pub/sub of "game X changed" and the bot runner.

Only the fact that a game (or one seat's draft) changed travels here; each WebSocket
then asks for its own seat's view, so nothing secret is ever broadcast.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from .bots import bot_seed, think, worker_init
from .games import Games

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Change:
    """A change notice: the match's committed sequence and, for the seats it concerns,
    their draft versions after it (``MatchEvent``); empty for a lobby change."""

    seq: int | None = None
    drafts: tuple[tuple[int, str], ...] = ()

    def version_of(self, seat: int | None) -> str | None:
        """The seat's draft version after the change (spectators have none: ""), or
        None if the notice does not say."""
        if self.seq is None:
            return None
        if seat is None:
            return ""
        return next((v for s, v in self.drafts if s == seat), None)


@dataclass(eq=False)
class Subscriber:
    topic: str  # "match:<id>" for a running game, "room:<game id>" for a waiting one
    seat: int | None
    queue: asyncio.Queue[Change] = field(default_factory=asyncio.Queue)


class Hub:
    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self._subscribers: dict[str, set[Subscriber]] = {}
        # Told when a seat's page of a match opens and closes here (match id, seat): a
        # shared pub/sub then passes that seat's draft changes to this process only then.
        self.on_open: list[Callable[[str, int], None]] = []
        self.on_close: list[Callable[[str, int], None]] = []

    def subscribe(self, topic: str, seat: int | None) -> Subscriber:
        sub = Subscriber(topic, seat)
        self._subscribers.setdefault(topic, set()).add(sub)
        self._tell(self.on_open, sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        found = self._subscribers.get(sub.topic, set())
        if sub in found:
            found.discard(sub)
            self._tell(self.on_close, sub)

    @staticmethod
    def _tell(hooks: list[Callable[[str, int], None]], sub: Subscriber) -> None:
        if sub.seat is None or not sub.topic.startswith("match:"):
            return
        for hook in hooks:
            try:
                hook(sub.topic.removeprefix("match:"), sub.seat)
            except Exception:  # live pages must not fail on a pub/sub hiccup
                log.exception("page open/close hook failed")

    def publish(self, topic: str, seat: int | None = None, change: Change | None = None) -> None:
        """Thread-safe: may be called from worker threads. `seat` set: only that
        seat's pages (its draft changed)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        # Most notices concern no page of this process (another process's match, or a
        # draft of a seat not open here): skip waking the event loop for those.
        if not any(seat is None or sub.seat == seat
                   for sub in list(self._subscribers.get(topic, ()))):
            return
        loop.call_soon_threadsafe(self._deliver, topic, seat, change or Change())

    def _deliver(self, topic: str, seat: int | None, change: Change) -> None:
        for sub in list(self._subscribers.get(topic, ())):
            if seat is None or sub.seat == seat:
                sub.queue.put_nowait(change)


class BotRunner:
    """Moves computer opponents: thinking happens in a worker process (never on the
    event loop), database work in a thread; one runner task per game, with a short
    pause before each move so people can follow."""

    def __init__(self, games: Games, delay: float, processes: int = 1) -> None:
        self.games = games
        self.delay = delay
        self.loop: asyncio.AbstractEventLoop | None = None
        self._threads = ThreadPoolExecutor(max_workers=2, thread_name_prefix="bot-db")
        self._processes: Executor = ProcessPoolExecutor(
            max_workers=processes, mp_context=multiprocessing.get_context("spawn"),
            initializer=worker_init, initargs=(os.getpid(),))
        self._pending: set[int] = set()
        self._running: dict[int, asyncio.Task[None]] = {}

    def kick(self, game_id: int) -> None:
        """Thread-safe: bots of this game may have something to do."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self._kick, game_id)

    def _kick(self, game_id: int) -> None:
        self._pending.add(game_id)
        if game_id not in self._running:
            self._running[game_id] = asyncio.get_running_loop().create_task(self._run(game_id))

    async def _run(self, game_id: int) -> None:
        loop = asyncio.get_running_loop()
        failures = 0
        try:
            while game_id in self._pending and failures < 5:
                self._pending.discard(game_id)
                work = await loop.run_in_executor(self._threads, self.games.bot_work, game_id)
                for seat, level, state, seq in work:
                    if self.delay:
                        await asyncio.sleep(self.delay)
                    game = await loop.run_in_executor(self._threads, self.games.get, game_id)
                    if game is None or game.match_id is None:
                        return
                    steps = await self._think(state, seat, level, bot_seed(game.match_id, seat))
                    moved = await loop.run_in_executor(
                        self._threads, self.games.play_bot_steps, game_id, seat, steps, seq)
                    if not moved:
                        failures += 1
                        self._pending.add(game_id)  # the game moved on: look again
                        break
                    failures = 0
        except Exception:  # a broken bot must not take the server down; log it
            log.exception("bot failed in game %s", game_id)
        finally:
            self._running.pop(game_id, None)

    async def _think(self, state: dict[str, Any], seat: int, level: str, seed: int) -> list[str]:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._processes, think, state, seat, level, seed)
        except (RuntimeError, BrokenProcessPool, OSError):
            # No worker process can be started here (e.g. a frozen or embedded main
            # module): think in a thread instead; slower for other games, still correct.
            log.warning("bot processes unavailable; bots think in threads", exc_info=True)
            self._processes = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bot-think")
            return await loop.run_in_executor(self._processes, think, state, seat, level, seed)

    async def close(self) -> None:
        for task in list(self._running.values()):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._threads.shutdown(wait=False, cancel_futures=True)
        self._processes.shutdown(wait=False, cancel_futures=True)
