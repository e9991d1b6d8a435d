"""Moves computer opponents: thinking happens in a worker process (never on the event
loop), database work in a thread; one runner task per game, with a short pause before
each move so people can follow. The worker processes are shared fairly: each user's
bots wait in their own queue, served round-robin (``FairShare``), so one user's many
games never hold up another user's bot.

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
import time
from collections import Counter, deque
from collections.abc import Callable, Coroutine
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from .bots import think, worker_init
from .live import call_soon
from .lobby import Lobby
from .metrics import Metrics
from .play import BotTurn, Play

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


class FairShare:
    """The worker pool's ``slots`` handed out round-robin between users, at most
    ``per_user`` at once to one user: one user's many bot games cannot make another
    user's bot wait behind them. Used on the event loop only.

    A low-priority lane (``acquire_low``, the coach's reviews): served first come first
    served, only when no bot move that could run is waiting, and never on more than half
    the slots (at least one), so game moves always find a worker soon."""

    def __init__(self, slots: int, per_user: int) -> None:
        self.free = slots
        self.per_user = per_user
        self.busy: Counter[int] = Counter()
        self.waiting: dict[int, deque[asyncio.Future[None]]] = {}  # in round-robin order
        self.low_cap = max(1, slots // 2)
        self.low_busy = 0
        self.low_waiting: deque[asyncio.Future[None]] = deque()

    async def acquire(self, user: int) -> None:
        if self.free and self.busy[user] < self.per_user and user not in self.waiting:
            self._grant(user)
            return
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.setdefault(user, deque()).append(ready)
        try:
            await ready
        except asyncio.CancelledError:
            if ready.done() and not ready.cancelled():
                self.release(user)  # granted just as it was cancelled: hand it on
            else:
                self._forget(user, ready)
            raise

    def release(self, user: int) -> None:
        self.busy[user] -= 1
        if self.busy[user] <= 0:
            del self.busy[user]
        self.free += 1
        self._dispatch()

    def _grant(self, user: int) -> None:
        self.free -= 1
        self.busy[user] += 1

    def _forget(self, user: int, ready: asyncio.Future[None]) -> None:
        queue = self.waiting.get(user)
        if queue is not None and ready in queue:
            queue.remove(ready)
            if not queue:
                del self.waiting[user]

    def _dispatch(self) -> None:
        while self.free:
            user = self._next_user()
            if user is None:
                break
            queue = self.waiting.pop(user)
            ready = queue.popleft()
            if queue:
                self.waiting[user] = queue  # to the back of the round
            self._grant(user)
            ready.set_result(None)
        while self.free and self.low_waiting and self.low_busy < self.low_cap:
            self.free -= 1
            self.low_busy += 1
            self.low_waiting.popleft().set_result(None)

    def _next_user(self) -> int | None:
        """The next user whose waiting bot move may run now."""
        return next((u for u in self.waiting if self.busy[u] < self.per_user), None)

    # -- the low-priority lane

    async def acquire_low(self) -> None:
        if (self.free and self.low_busy < self.low_cap and not self.low_waiting
                and self._next_user() is None):
            self.free -= 1
            self.low_busy += 1
            return
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.low_waiting.append(ready)
        try:
            await ready
        except asyncio.CancelledError:
            if ready.done() and not ready.cancelled():
                self.release_low()  # granted just as it was cancelled: hand it on
            elif ready in self.low_waiting:
                self.low_waiting.remove(ready)
            raise

    def release_low(self) -> None:
        self.low_busy -= 1
        self.free += 1
        self._dispatch()


Think = Callable[[dict[str, Any], int, str, int], list[str]]


class BotRunner:
    def __init__(self, lobby: Lobby, play: Play, gate: BotGate, delay: float,
                 processes: int = 1, per_user: int = 2, think_fn: Think = think,
                 executor: Executor | None = None, metrics: Metrics | None = None) -> None:
        """``processes`` workers think; ``per_user``: at most this many of them for one
        user's bots at once. Tests give ``think_fn`` (how a turn is thought out) and an
        ``executor`` (threads) of their own."""
        self.lobby = lobby
        self.play = play
        self.gate = gate
        self.delay = delay
        self.loop: asyncio.AbstractEventLoop | None = None
        self._think_fn = think_fn
        self._threads = ThreadPoolExecutor(max_workers=2, thread_name_prefix="bot-db")
        self._processes: Executor = executor or ProcessPoolExecutor(
            max_workers=processes, mp_context=multiprocessing.get_context("spawn"),
            initializer=worker_init, initargs=(os.getpid(),))
        self._share = FairShare(processes, per_user)
        self.metrics = metrics or Metrics()
        self._pending: set[int] = set()
        self._running: dict[int, asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[Any]] = set()  # the coach's reviews

    def kick(self, game_id: int) -> None:
        """Thread-safe: bots of this game may have something to do."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        call_soon(loop, self._kick, game_id)

    def _kick(self, game_id: int) -> None:
        self._pending.add(game_id)
        if game_id not in self._running:
            self._running[game_id] = asyncio.get_running_loop().create_task(self._run(game_id))

    def work(self, game_id: int) -> list[BotTurn]:
        """The bot turns to play now that this process may play."""
        work = self.play.bot_work(game_id)
        game = self.lobby.get(game_id)
        if game is None or game.match_id is None:
            return []
        due = {turn.seat for turn in work}
        for match_id, seat in self.gate.held():  # leftovers of moves already made
            if match_id == game.match_id and seat not in due:
                self.gate.release(match_id, seat)
        return [turn for turn in work if self.gate.take(game.match_id, turn.seat)]

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
                for turn in work:
                    if self.delay:
                        await asyncio.sleep(self.delay)
                    steps = await self._think(turn)
                    moved = await loop.run_in_executor(
                        self._threads, self.play_steps, game_id, turn.seat, steps, turn.seq)
                    if not moved:
                        failures += 1
                        self._pending.add(game_id)  # the game moved on: look again
                        break
                    failures = 0
        except Exception:  # a broken bot must not take the server down; log it
            log.exception("bot failed in game %s", game_id)
        finally:
            self._running.pop(game_id, None)

    async def _think(self, turn: BotTurn) -> list[str]:
        """Waits for this user's fair share of the worker pool, then thinks there."""
        started = time.perf_counter()
        await self._share.acquire(turn.user_id)
        self.metrics.bot_wait.observe(time.perf_counter() - started)
        try:
            return await self._think_now(turn.state, turn.seat, turn.level, turn.seed)
        finally:
            self._share.release(turn.user_id)

    def queued(self) -> int:
        """Bot moves waiting for a worker (event loop's view; read by the metrics)."""
        return sum(len(waiting) for waiting in list(self._share.waiting.values()))

    async def _think_now(self, state: dict[str, Any], seat: int, level: str, seed: int
                         ) -> list[str]:
        result: list[str] = await self._in_worker(self._think_fn, state, seat, level, seed)
        return result

    async def _in_worker(self, fn: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._processes, fn, *args)
        except (RuntimeError, BrokenProcessPool, OSError):
            # No worker process can be started here (e.g. a frozen or embedded main
            # module): think in a thread instead; slower for other games, still correct.
            log.warning("bot processes unavailable; bots think in threads", exc_info=True)
            self._processes = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bot-think")
            return await loop.run_in_executor(self._processes, fn, *args)

    # -- low-priority work (the coach): behind every game move, in the same workers

    async def work_low(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in a worker once no bot move is waiting for one (plain data in
        and out: it may run in another process)."""
        await self._share.acquire_low()
        try:
            return await self._in_worker(fn, *args)
        finally:
            self._share.release_low()

    def spawn(self, make: Callable[[], Coroutine[Any, Any, Any]]) -> bool:
        """Thread-safe: runs the coroutine ``make()`` as a task on the loop, cancelled by
        ``close``. False if the runner has no loop (not serving)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return False

        def start() -> None:
            task = loop.create_task(make())
            self._background.add(task)
            task.add_done_callback(self._background.discard)

        loop.call_soon_threadsafe(start)
        return True

    async def close(self) -> None:
        for task in [*self._running.values(), *self._background]:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._threads.shutdown(wait=False, cancel_futures=True)
        self._processes.shutdown(wait=False, cancel_futures=True)
