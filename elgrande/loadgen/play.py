"""The scripted players of ``elgrande bench server`` inside one client process: game
slots that create games and replace them as they end, seats that act when their page
shows they may (thinking first, as the load model says), spectators, pages that
reconnect, and the tally of what was measured.

A run has two phases. In the warm-up (``stagger`` models only) every slot creates its
game and plays it without thinking up to a drawn point, so that measuring starts on
games at every stage; then the seats wait (with ``set_up_first``, the warm-up only sets
every game up, and measuring starts with all of them open at their start). ``Run.begin`` starts the measured window:
only commands sent in it are counted, but errors are counted from the start.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from .addresses import source_address
from .client import SeatClient
from .model import LoadModel, ThinkTimes, stagger_target, think_kind

SETTLE_WAIT = 5.0  # seconds a page may still take to show a commit when a game is settled


@dataclass
class BenchConfig:
    games: int = 8
    players: int = 3
    rounds: int = 9  # the standard game, as the lobby offers it first
    seconds: float = 20.0
    seed: int = 0
    via: str = "ws"  # moves over the page's WebSocket ("ws") or the JSON API ("http")
    client_nice: int = 10  # scheduling niceness of the client processes (0: as the servers)
    pace: str = "none"  # the tables' clock (docs/clocks.md): every commit settles clocks
    model: LoadModel = field(default_factory=lambda: LoadModel("flat", think=None))
    # Games being set up at once, over all client processes (0: every game at once);
    # players arrive over time on a real server, not all in the same second.
    ramp: int = 0
    clients: int = 1  # client processes sharing ``ramp``
    # Every game set up (accounts, lobby, joining, starting, pages open) before measuring,
    # then played from its start: the measured window holds the games, not their arrival.
    set_up_first: bool = False


@dataclass
class Tally:
    moves: int = 0  # steps in committed turns
    steps: int = 0  # accepted steps (in committed turns or not yet)
    commits: int = 0
    conflicts: int = 0
    requests: int = 0
    games_started: int = 0
    games_finished: int = 0
    reconnects: int = 0
    request_ms: list[float] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass
class Pending:
    """A commit whose latency is still to be measured: when its command was sent, the
    sequence number it made, and the pages open then (with their connection number)."""

    started: float
    seq: int
    audience: list[tuple[SeatClient, int]]


class Run:
    """The phases of a run in one client process, and its tally."""

    def __init__(self, urls: list[str], config: BenchConfig) -> None:
        self.urls = urls
        self.config = config
        self.model = config.model
        self.tally = Tally()
        self.go = asyncio.Event()
        share = math.ceil(config.ramp / max(1, config.clients)) if config.ramp else 0
        self.setups: asyncio.Semaphore | None = asyncio.Semaphore(share) if share else None
        self.start = math.inf
        self.deadline = math.inf

    @property
    def started(self) -> bool:
        return self.go.is_set()

    def begin(self, seconds: float) -> None:
        self.start = time.monotonic()
        self.deadline = self.start + seconds
        self.go.set()

    def measuring(self, at: float) -> bool:
        return self.start <= at < self.deadline

    def over(self) -> bool:
        return time.monotonic() >= self.deadline


@dataclass
class Game:
    seats: list[SeatClient]
    spectators: list[SeatClient]
    target: tuple[int, int] | None  # the warm-up's (round index, commits into it)
    ready: asyncio.Event  # the slot's: set when the warm-up reached ``target``
    pending: list[Pending] = field(default_factory=list)
    commits: int = 0
    commits_at_round: int | None = None
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    @property
    def pages(self) -> list[SeatClient]:
        return [*self.seats, *self.spectators]

    def reached(self, state: dict[str, Any]) -> bool:
        """Whether the warm-up has brought the game to its drawn point."""
        if self.target is None:
            return True
        round_index, extra = self.target
        labels = state.get("round_labels") or []
        current = labels.index(state["round"]) if state.get("round") in labels else 0
        if current < round_index:
            return False
        if self.commits_at_round is None:
            self.commits_at_round = self.commits
        return self.commits - self.commits_at_round >= extra

    def abandon(self) -> None:
        """After an error: the game's other pages stop too (the slot starts another)."""
        me = asyncio.current_task()
        for task in self.tasks:
            if task is not me:
                task.cancel()


class Page:
    """A game page open on a seat or as a spectator: waits and thinks on its WebSocket,
    reconnecting it when the model says (only in the measured window)."""

    def __init__(self, run: Run, client: SeatClient, rng: random.Random) -> None:
        self.run = run
        self.client = client
        self.rng = rng
        self.next_at: float | None = None  # the next reconnect (drawn when measuring starts)

    def _reconnect_at(self) -> float:
        if not self.run.started:
            return math.inf
        if self.next_at is None:  # from the start of measuring, or of a later page
            self.next_at = (max(self.run.start, time.monotonic())
                            + self.run.model.next_reconnect(self.rng))
        return self.next_at

    async def reconnect(self) -> None:
        """The page's WebSocket drops and the page opens a new one (its script's retry or
        a reload): the first state on it is the page's next."""
        client = self.client
        await client.disconnect()
        client.state = None
        await client.connect()
        if self.run.measuring(time.monotonic()):
            self.run.tally.reconnects += 1
        self.next_at = time.monotonic() + self.run.model.next_reconnect(self.rng)

    async def wait_for(self, predicate: Any) -> dict[str, Any] | None:
        """The first state satisfying ``predicate``; None when the run is over. In the
        warm-up it waits until measuring starts at most."""
        while True:
            if not self.run.started:
                waiter = asyncio.ensure_future(self.client.wait_for(predicate, timeout=None))
                go = asyncio.ensure_future(self.run.go.wait())
                await asyncio.wait({waiter, go}, return_when=asyncio.FIRST_COMPLETED)
                go.cancel()
                if waiter.done():
                    return waiter.result()
                waiter.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await waiter
                continue
            now = time.monotonic()
            if now >= self.run.deadline:
                return None
            until = min(self.run.deadline, self._reconnect_at())
            try:
                return await self.client.wait_for(predicate, timeout=max(0.0, until - now))
            except TimeoutError:
                now = time.monotonic()
                if now < self.run.deadline and now >= self._reconnect_at():
                    await self.reconnect()

    async def pause(self, seconds: float) -> bool:
        """Thinks for ``seconds`` (reconnecting if one falls due); False when the run ends
        first."""
        end = time.monotonic() + seconds
        while True:
            now = time.monotonic()
            until = min(end, self.run.deadline, self._reconnect_at())
            if until > now:
                await asyncio.sleep(until - now)
            now = time.monotonic()
            if now >= self.run.deadline:
                return False
            if now >= self._reconnect_at():
                await self.reconnect()
                continue
            if now >= end:
                return True


def _may_act(state: dict[str, Any], floor: int) -> bool:
    return bool(state["finished"] or (
        state["seq"] >= floor and (state["legal"] or state["draft"]["can_finish"])))


async def _seat(run: Run, game: Game, client: SeatClient, rng: random.Random,
                think: ThinkTimes | None) -> None:
    """One seat: acts whenever its page says so, until the game ends or time is up."""
    tally = run.tally
    page = Page(run, client, random.Random(rng.random()))
    send = client.command_ws if run.config.via == "ws" else client.command
    seen_seq = 0
    under_way = False  # this seat's think began before measuring did (a game under way)
    try:
        while True:
            state = await page.wait_for(lambda s, floor=seen_seq: _may_act(s, floor))
            if state is None or state["finished"]:
                return
            if not run.started:  # the warm-up: straight on to the drawn point, then wait
                if game.reached(state):
                    game.ready.set()
                    await run.go.wait()
                    under_way = True
                    continue
            current = state
            first = True
            while True:  # the commands of one turn
                if think is not None and run.started:
                    delay = think.sample(think_kind(current, first), rng, under_way=under_way)
                    under_way = False
                    if not await page.pause(delay):
                        return
                    latest = client.state
                    if latest is not None and latest["seq"] > current["seq"]:
                        current = latest  # a commit came in while thinking
                    if not _may_act(current, seen_seq) or current["finished"]:
                        break
                command = "finish" if current["draft"]["can_finish"] else "step"
                if command == "step" and not current["legal"]:
                    break
                action = rng.choice(current["legal"])["text"] if command == "step" else None
                started = time.monotonic()
                if started >= run.deadline:
                    return
                try:
                    status, body = await send(command, current["seq"], action)
                except Exception as exc:  # a dropped connection, a timeout
                    tally.errors.append(f"{command}: {type(exc).__name__}: {exc}")
                    game.abandon()
                    return
                first = False
                counted = run.measuring(started)
                if counted:
                    tally.requests += 1
                    tally.request_ms.append((time.monotonic() - started) * 1000)
                if status == 409 and (body.get("error") or {}).get("code") == "moved_on":
                    tally.conflicts += counted
                    break
                if status != 200:
                    tally.errors.append(f"{command} {status}: {body.get('error')}")
                    break
                if command == "step" and counted:
                    tally.steps += 1
                new_seq = body["state"]["seq"]
                if new_seq != current["seq"]:  # committed (finish, or a secret choice)
                    game.commits += 1
                    if counted:
                        tally.commits += 1
                        tally.moves += len(current["draft"]["steps"]) + (command == "step")
                        game.pending.append(Pending(started, new_seq, [
                            (p, p.connections) for p in game.pages if p.connected]))
                    seen_seq = new_seq
                    break
                current = body["state"]
    except Exception as exc:  # the WebSocket closed under us, a reconnect refused
        tally.errors.append(f"seat {client.seat}: {type(exc).__name__}: {exc}")
        game.abandon()


async def _spectate(run: Run, game: Game, client: SeatClient, rng: random.Random) -> None:
    """A spectator's page: open until the game ends or time is up."""
    try:
        await Page(run, client, rng).wait_for(lambda s: s["finished"])
    except Exception as exc:
        run.tally.errors.append(f"spectator: {type(exc).__name__}: {exc}")
        game.abandon()


async def _new_game(run: Run, slot: int, rng: random.Random) -> tuple[list[SeatClient],
                                                                     list[SeatClient]]:
    config, urls = run.config, run.urls
    # One address per game's players (a household), another per spectator.
    seats = [SeatClient(url, source=source_address(url, slot))
             for url in (urls[(slot + i) % len(urls)] for i in range(config.players))]
    spectators: list[SeatClient] = []
    try:
        for client in seats:
            await client.guest()
        game_id = await seats[0].create_game(config.players, config.rounds, pace=config.pace)
        for client in seats[1:]:
            await client.join(game_id)
        await seats[0].start()
        for client in seats:
            await client.connect()
        for j in range(run.model.spectators_for(rng)):  # anonymous visitors of the page
            url = urls[(slot + config.players + j) % len(urls)]
            spectator = SeatClient(url, source=source_address(url, config.games * (j + 1) + slot))
            spectators.append(spectator)
            spectator.game_id = game_id
            await spectator.connect()
        for client in [*seats, *spectators]:  # from now on they talk over their WebSockets
            await client.close_idle_connections()
    except BaseException:
        await _close([*seats, *spectators])
        raise
    return seats, spectators


def _describe(exc: Exception) -> str:
    """The exception, with the request it failed on if it is an HTTP one and the system's
    errors beneath it ("All connection attempts failed" does not say which)."""
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, httpx.RequestError):
        with contextlib.suppress(RuntimeError):  # raised when it has no request
            text += f" ({exc.request.method} {exc.request.url.path})"
    causes = sorted(set(_system_errors(exc)))
    return text + (f" [{'; '.join(causes)}]" if causes else "")


def _system_errors(exc: BaseException, depth: int = 0) -> list[str]:
    """The OS errors (with an errno) that caused ``exc``, through its chain and groups."""
    if depth > 8:
        return []
    found = [str(exc)] if isinstance(exc, OSError) and exc.errno is not None else []
    inner = list(exc.exceptions) if isinstance(exc, BaseExceptionGroup) else []
    inner += [e for e in (exc.__cause__, exc.__context__) if e is not None]
    for e in inner:
        found += _system_errors(e, depth + 1)
    return found


async def _close(clients: list[SeatClient]) -> None:
    for client in clients:
        with contextlib.suppress(Exception):
            await client.close()


@dataclass
class Slot:
    """One of the games kept open: a new one is created as soon as one ends."""

    index: int
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    settled: asyncio.Event = field(default_factory=asyncio.Event)  # its tallies are final
    game: Game | None = None  # the game under way (None between two)


async def play_slot(run: Run, slot: Slot) -> None:
    config, model, tally = run.config, run.model, run.tally
    think = model.think_of(slot.index)
    if not model.stagger and not config.set_up_first:
        slot.ready.set()
        await run.go.wait()  # games are created in the measured window
    number = 0
    try:
        while not run.over():
            rng = random.Random(f"{config.seed}:{slot.index}:{number}")
            # (set up first: the warm-up ends with the game set up, at its start)
            target = (stagger_target(rng, config.rounds, config.players)
                      if model.stagger and not config.set_up_first and number == 0 else None)
            if run.measuring(time.monotonic()):
                tally.games_started += 1
            try:
                async with run.setups or contextlib.nullcontext():
                    seats, spectators = await _new_game(run, slot.index, rng)
            except Exception as exc:
                tally.errors.append(f"setting up a game{'' if run.started else ' (warm-up)'}: "
                                    f"{_describe(exc)}")
                return
            game = slot.game = Game(seats, spectators, target, slot.ready)
            try:
                game.tasks = [asyncio.ensure_future(_seat(run, game, client,
                                                          random.Random(rng.random()), think))
                              for client in seats]
                game.tasks += [asyncio.ensure_future(
                    _spectate(run, game, client, random.Random(rng.random())))
                    for client in spectators]
                await asyncio.gather(*game.tasks[:len(seats)], return_exceptions=True)
                for task in game.tasks[len(seats):]:
                    task.cancel()
                await asyncio.gather(*game.tasks, return_exceptions=True)
                # A game that ends after the deadline was still open at it: the report
                # counts it so (the slot keeps it), not as finished.
                if seats[0].state and seats[0].state["finished"] and not run.over():
                    slot.game = None
                    if run.measuring(time.monotonic()):
                        tally.games_finished += 1
                await _settle(run, game)  # latencies need the WebSockets: before closing
            finally:
                if run.over():
                    slot.settled.set()  # the report need not wait for the closing
                await _close(game.pages)
                if not run.over():  # at the end it still counts as open
                    slot.game = None
            number += 1
    finally:
        slot.ready.set()  # a failed slot does not hold the others' start up
        slot.settled.set()


async def _settle(run: Run, game: Game) -> None:
    """The latency of each commit: until the last page open at its command showed it.
    A page that reconnected in between and never showed it is left out."""
    for pending in game.pending:
        arrivals = []
        for client, connection in pending.audience:
            at = _arrival(client, pending.seq)
            deadline = time.monotonic() + SETTLE_WAIT
            while at is None and client.connections == connection and client.connected \
                    and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
                at = _arrival(client, pending.seq)
            if at is None and client.connections == connection:
                run.tally.errors.append(f"a page never saw sequence {pending.seq} on its "
                                        "WebSocket")
                break
            if at is not None:
                arrivals.append(at)
        else:
            if arrivals:
                run.tally.latencies_ms.append((max(arrivals) - pending.started) * 1000)
    game.pending.clear()


def _arrival(client: SeatClient, seq: int) -> float | None:
    """When the client's WebSocket first showed ``seq`` (or later)."""
    for seen, at in client.arrivals:
        if seen >= seq:
            return at
    return None


async def watch_loop(run: Run, lags_ms: list[float], every: float = 0.05) -> None:
    """The event loop's lag over the measured window: how late a ``every``-second sleep
    wakes up (a busy loop delays every page's reading, and with it the latencies)."""
    while not run.over():
        before = time.monotonic()
        await asyncio.sleep(every)
        lags_ms.append(max(0.0, time.monotonic() - before - every) * 1000)
