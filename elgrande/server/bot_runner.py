"""Moves computer opponents: thinking happens in a worker process (never on the event
loop), database work in a thread; one runner task per game, with a short pause before
each move so people can follow.

With several server processes every process hears every commit and may want to move
the same bot: a ``BotGate`` decides which one does. ``LocalBotGate`` (one process)
lets every move through; ``elgrande.scale.leases.BotLeases`` (several processes) lets a
process move a bot only while it holds that seat's lease in the database."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from .bots import bot_seed, think, worker_init
from .lobby import Lobby
from .play import Play

log = logging.getLogger(__name__)


class BotGate(Protocol):
    def take(self, match_id: str, seat: int) -> bool:
        """May this process work on the seat's move now?"""

    def renew(self, match_id: str, seat: int) -> bool:
        """Is the move still this process's (just before playing it)?"""

    def release(self, match_id: str, seat: int) -> None: ...

    def held(self) -> set[tuple[str, int]]: ...


class LocalBotGate:
    """One server process: it alone moves the bots."""

    def take(self, match_id: str, seat: int) -> bool:
        return True

    def renew(self, match_id: str, seat: int) -> bool:
        return True

    def release(self, match_id: str, seat: int) -> None:
        pass

    def held(self) -> set[tuple[str, int]]:
        return set()


class BotRunner:
    def __init__(self, lobby: Lobby, play: Play, gate: BotGate, delay: float,
                 processes: int = 1) -> None:
        self.lobby = lobby
        self.play = play
        self.gate = gate
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

    def work(self, game_id: int) -> list[tuple[int, str, dict[str, Any], int]]:
        """The bot seats to move now whose moves this process may make."""
        work = self.play.bot_work(game_id)
        game = self.lobby.get(game_id)
        if game is None or game.match_id is None:
            return []
        due = {item[0] for item in work}
        for match_id, seat in self.gate.held():  # leftovers of moves already made
            if match_id == game.match_id and seat not in due:
                self.gate.release(match_id, seat)
        return [item for item in work if self.gate.take(game.match_id, item[0])]

    def play_steps(self, game_id: int, seat: int, steps: list[str], seq: int) -> bool:
        game = self.lobby.get(game_id)
        if game is None or game.match_id is None:
            return False
        if not self.gate.renew(game.match_id, seat):
            log.warning("bot lease for game %s seat %s lost; not playing", game_id, seat)
            return False
        try:
            return self.play.play_bot_steps(game_id, seat, steps, seq)
        finally:
            self.gate.release(game.match_id, seat)

    async def _run(self, game_id: int) -> None:
        loop = asyncio.get_running_loop()
        failures = 0
        try:
            while game_id in self._pending and failures < 5:
                self._pending.discard(game_id)
                work = await loop.run_in_executor(self._threads, self.work, game_id)
                for seat, level, state, seq in work:
                    if self.delay:
                        await asyncio.sleep(self.delay)
                    game = await loop.run_in_executor(self._threads, self.lobby.get, game_id)
                    if game is None or game.match_id is None:
                        return
                    steps = await self._think(state, seat, level, bot_seed(game.match_id, seat))
                    moved = await loop.run_in_executor(
                        self._threads, self.play_steps, game_id, seat, steps, seq)
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
