"""`elgrande bench server`: G concurrent games played by scripted clients over real
HTTP and WebSocket against P server processes (started here, or given by URL).

Each seat of a game is a separate client (a guest account, its own cookies and
WebSocket), and seat i of game g talks to process (g + i) mod P, so with P > 1 every
turn crosses processes. A seat acts when its WebSocket shows it may: random legal
steps, then "finish", sent over that WebSocket as the game page does (``via="http"``:
through the JSON API). The players run in one or more client processes. Measured:

- committed moves: seat actions in finished turns (chance steps not counted), per second;
- latency of a commit: from sending the finishing request until every seat's WebSocket
  has delivered a state at (or past) the new sequence number; p50, p95, p99;
- request time of every command (until its answer); errors (anything but 200 and a 409 "moved on",
  which is counted as a conflict; a game is never left in a wrong state by one).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import multiprocessing
import os
import random
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from .client import ClientError, SeatClient
from .launch import ServerProcess
from .memory import MemorySampler


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)  # nearest rank
    index = min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))
    return ordered[index]


@dataclass
class Tally:
    moves: int = 0
    commits: int = 0
    conflicts: int = 0
    requests: int = 0
    games_finished: int = 0
    request_ms: list[float] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    pending: list[tuple[list[SeatClient], float, int]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


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


async def _arrival(client: SeatClient, seq: int, timeout: float) -> float | None:
    """When the client's WebSocket first showed ``seq`` (or later)."""
    deadline = time.monotonic() + timeout
    while True:
        for seen, at in client.arrivals:
            if seen >= seq:
                return float(at)
        if time.monotonic() > deadline:
            return None
        await asyncio.sleep(0.01)


async def _new_game(urls: list[str], slot: int, config: BenchConfig) -> list[SeatClient]:
    clients = [SeatClient(urls[(slot + i) % len(urls)]) for i in range(config.players)]
    for client in clients:
        await client.guest()
    game_id = await clients[0].create_game(config.players, config.rounds, pace=config.pace)
    for client in clients[1:]:
        await client.join(game_id)
    await clients[0].start()
    for client in clients:
        await client.connect()
    return clients


async def _seat(client: SeatClient, seats: list[SeatClient], rng: random.Random, tally: Tally,
                deadline: float, via: str) -> None:
    """One seat: act whenever the page says so, until the game ends or time is up."""
    send = client.command_ws if via == "ws" else client.command
    seen_seq = 0
    while time.monotonic() < deadline:
        try:
            state = await client.wait_for(
                lambda s, floor=seen_seq: s["finished"] or (
                    s["seq"] >= floor and bool(s["legal"] or s["draft"]["can_finish"])),
                timeout=max(0.1, deadline - time.monotonic()))
        except TimeoutError:
            return
        except ClientError as exc:  # the WebSocket closed under us
            tally.errors.append(f"seat {client.seat}: {exc}")
            return
        if state["finished"]:
            return
        steps = 0
        body: dict[str, Any] = {"state": state}
        while time.monotonic() < deadline:
            current = body["state"]
            command = "finish" if current["draft"]["can_finish"] else "step"
            if command == "step" and not current["legal"]:
                break
            action = rng.choice(current["legal"])["text"] if command == "step" else None
            started = time.monotonic()
            try:
                status, body = await send(command, current["seq"], action)
            except Exception as exc:  # a dropped connection, a timeout
                tally.errors.append(f"{command}: {type(exc).__name__}: {exc}")
                return
            tally.requests += 1
            tally.request_ms.append((time.monotonic() - started) * 1000)
            if status == 409 and (body.get("error") or {}).get("code") == "moved_on":
                tally.conflicts += 1
                break
            if status != 200:
                tally.errors.append(f"{command} {status}: {body.get('error')}")
                break
            steps += 1 if command == "step" else 0
            new_seq = body["state"]["seq"]
            if new_seq != current["seq"]:  # committed (finish, or a secret choice)
                tally.commits += 1
                tally.moves += steps
                tally.pending.append((seats, started, new_seq))
                seen_seq = new_seq
                break


async def _slot(urls: list[str], slot: int, config: BenchConfig, tally: Tally,
                deadline: float) -> None:
    game = 0
    while time.monotonic() < deadline:
        try:
            clients = await _new_game(urls, slot, config)
        except Exception as exc:
            tally.errors.append(f"setting up a game: {type(exc).__name__}: {exc}")
            return
        rng = random.Random(f"{config.seed}:{slot}:{game}")
        try:
            await asyncio.gather(*(_seat(c, clients, random.Random(rng.random()), tally, deadline,
                                         config.via)
                                   for c in clients))
            if clients[0].state and clients[0].state["finished"]:
                tally.games_finished += 1
            # Latencies need the WebSockets: measure before they close.
            await _settle(tally, clients)
        finally:
            for client in clients:
                with contextlib.suppress(Exception):
                    await client.close()
        game += 1


async def _settle(tally: Tally, clients: list[SeatClient]) -> None:
    mine = [p for p in tally.pending if p[0] is clients]
    tally.pending = [p for p in tally.pending if p[0] is not clients]
    for seats, started, seq in mine:
        arrivals = [await _arrival(c, seq, 5.0) for c in seats]
        if any(a is None for a in arrivals):
            tally.errors.append(f"a seat never saw sequence {seq} on its WebSocket")
            continue
        latency = (max(a for a in arrivals if a is not None) - started) * 1000
        tally.latencies_ms.append(latency)


async def _drive_slots(urls: list[str], config: BenchConfig, slots: list[int],
                       start_at: float) -> dict[str, Any]:
    """Plays the games of ``slots`` from wall-clock time ``start_at`` for the configured
    time; the raw tallies."""
    await asyncio.sleep(max(0.0, start_at - time.time()))
    tally = Tally()
    started = time.monotonic()
    deadline = started + config.seconds
    await asyncio.gather(*(_slot(urls, slot, config, tally, deadline) for slot in slots))
    return {"elapsed": time.monotonic() - started, "moves": tally.moves,
            "commits": tally.commits, "requests": tally.requests,
            "games_finished": tally.games_finished, "latencies_ms": tally.latencies_ms,
            "request_ms": tally.request_ms, "conflicts": tally.conflicts,
            "errors": tally.errors}


def _drive_in_process(urls: list[str], config: BenchConfig, slots: list[int],
                      start_at: float) -> dict[str, Any]:
    if config.client_nice and multiprocessing.parent_process() is not None:
        # The players yield the CPU to the servers under test, as a load generator on a
        # machine of its own would (here they share the cores with the servers).
        os.nice(config.client_nice)
    try:  # the faster event loop the servers use too (uvicorn[standard] brings it)
        import uvloop
    except ImportError:
        return asyncio.run(_drive_slots(urls, config, slots, start_at))
    result: dict[str, Any] = uvloop.run(_drive_slots(urls, config, slots, start_at))
    return result


@contextlib.contextmanager
def _progress(start_at: float, seconds: float) -> Iterator[None]:
    """A bar of the run's time on stderr (shown on a terminal only), from a thread: the
    players run elsewhere (other processes, or this thread's event loop)."""
    done = threading.Event()

    def show() -> None:
        with tqdm(total=round(seconds), unit="s", desc="driving games", disable=None,
                  file=sys.stderr, leave=False) as bar:
            while not done.wait(0.5):
                bar.n = min(round(seconds), max(0, round(time.time() - start_at)))
                bar.refresh()

    thread = threading.Thread(target=show, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=2)


def drive(urls: list[str], config: BenchConfig, clients: int = 1) -> dict[str, Any]:
    """Plays ``config.games`` games split over ``clients`` client processes (one asyncio
    loop of scripted players can itself be the bottleneck, as a single load generator
    would be; real players are on machines of their own), and reports them together."""
    clients = max(1, min(clients, config.games))
    shares = [list(range(config.games))[i::clients] for i in range(clients)]
    start_at = time.time() + (1.0 if clients > 1 else 0.0)  # all begin together
    with _progress(start_at, config.seconds):
        if clients == 1:
            parts = [_drive_in_process(urls, config, shares[0], start_at)]
        else:
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(clients, mp_context=context) as pool:
                parts = list(pool.map(_drive_in_process, [urls] * clients,
                                      [config] * clients, shares, [start_at] * clients))
    elapsed = max(part["elapsed"] for part in parts)
    total = {key: sum(part[key] for part in parts)
             for key in ("moves", "commits", "requests", "games_finished", "conflicts")}
    latencies = [x for part in parts for x in part["latencies_ms"]]
    requests = [x for part in parts for x in part["request_ms"]]
    errors = [x for part in parts for x in part["errors"]]
    return {
        "processes": len(urls),
        "games": config.games,
        "players": config.players,
        "rounds": config.rounds,
        "pace": config.pace,
        "via": config.via,
        "client_processes": clients,
        "client_nice": config.client_nice if clients > 1 else 0,
        "seconds": round(elapsed, 2),
        "moves": total["moves"],
        "commits": total["commits"],
        "moves_per_s": round(total["moves"] / elapsed, 1),
        "commits_per_s": round(total["commits"] / elapsed, 1),
        "requests": total["requests"],
        "requests_per_s": round(total["requests"] / elapsed, 1),
        "games_finished": total["games_finished"],
        "latency_ms": {f"p{q}": _round(percentile(latencies, q)) for q in (50, 95, 99)},
        "request_ms": {f"p{q}": _round(percentile(requests, q)) for q in (50, 95, 99)},
        "conflicts": total["conflicts"],
        "errors": len(errors),
        "error_samples": errors[:5],
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def run(*, games: int, processes: int, players: int, rounds: int, seconds: float,
        database_url: str | None, pubsub_url: str | None, urls: list[str] | None,
        seed: int = 0, via: str = "ws", clients: int = 1, client_nice: int = 10,
        memory_every: float | None = None, pace: str = "none") -> dict[str, Any]:
    """Starts the servers (unless ``urls`` are given), drives them, stops them;
    ``memory_every``: sample the servers' RSS that often (seconds) into "memory"."""
    config = BenchConfig(games, players, rounds, seconds, seed, via, client_nice, pace)
    if urls:
        if memory_every:
            raise ValueError("--memory-every needs servers started here (not --url): "
                             "it reads their processes' memory")
        return drive(urls, config, clients)
    if processes > 1 and not pubsub_url:
        raise ValueError("several processes need a shared pub/sub: pass --pubsub-url redis://...")
    with tempfile.TemporaryDirectory(prefix="elgrande-bench-") as tmp:
        url = database_url or f"sqlite:///{Path(tmp) / 'bench.db'}"
        servers = [ServerProcess(url, pubsub_url, Path(tmp)) for _ in range(processes)]
        try:
            servers[0].start()  # runs the migrations alone
            for server in servers[1:]:
                server.start()
            sampler = (MemorySampler([s.process.pid for s in servers if s.process],
                                     memory_every).start()
                       if memory_every else None)
            result = drive([s.url for s in servers], config, clients)
            if sampler is not None:
                result["memory"] = sampler.stop()
        finally:
            for server in servers:
                server.stop()
        result["database"] = url.split("://", 1)[0]
        result["pubsub"] = (pubsub_url or "in-process").split("://", 1)[0]
        return result
