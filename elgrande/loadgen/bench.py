"""`elgrande bench server`: G concurrent games played by scripted clients over real
HTTP and WebSocket against P server processes (started here, or given by URL).

Each seat of a game is a separate client (a guest account, its own cookies and
WebSocket), and seat i of game g talks to process (g + i) mod P, so with P > 1 every
turn crosses processes. A seat acts when its WebSocket shows it may: random legal
steps, then "finish", sent over that WebSocket as the game page does (``via="http"``:
through the JSON API). How long it thinks first, how many spectators watch, how often
pages reconnect and whether games are already under way when measuring starts is the
load model's (``model.py``; ``flat``: never, none, never, no). The players run in one or
more client processes (``play.py``). Measured over the window (commands sent in it):

- committed moves: seat actions in finished turns (chance steps not counted), per
  second; steps (every accepted step) and commits per second;
- latency of a commit: from sending the finishing command until every page open on the
  game (seats and spectators) has shown a state at (or past) the new sequence number;
  p50, p95, p99;
- request time of every command (until its answer); errors (anything but 200 and a 409
  "moved on", which is counted as a conflict; a game is never left in a wrong state by one);
- with servers started here: their CPU per commit and per move (``/proc/PID/stat``) and
  their memory (RSS) per open game over an idle server's;
- the load generator's own CPU and event-loop lag, so that a figure limited by the
  client shows as such.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import math
import multiprocessing
import os
import resource
import sys
import tempfile
import threading
import time
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from tqdm import tqdm

from .addresses import raise_open_files
from .launch import ServerProcess
from .memory import MemorySampler, rss_mb
from .model import MODELS
from .play import BenchConfig, Run, Slot, play_slot, watch_loop
from .proc import cpu_seconds, machine_ticks, stolen_percent

__all__ = ["BenchConfig", "drive", "percentile", "run"]

WARMUP_LIMIT = 1800.0  # seconds the warm-up may take before the run is given up
REPORT_LIMIT = 120.0  # seconds from the window's end to every client's report, at most
CLOSE_LIMIT = 60.0  # seconds a client closes its pages after its report, at most


class BenchError(RuntimeError):
    """The run could not be measured (a client process failed or went silent)."""


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)  # nearest rank
    index = min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))
    return ordered[index]


# -- one client process (or thread) --------------------------------------------------


async def _client(conn: Connection, urls: list[str], config: BenchConfig,
                  indices: list[int], own_process: bool = False) -> dict[str, Any]:
    """Warms the slots up, says so, starts measuring at the time it is sent back, and
    returns the tallies of the window."""
    run = Run(urls, config)
    slots = [Slot(index) for index in indices]
    began = time.monotonic()
    tasks = [asyncio.ensure_future(play_slot(run, slot)) for slot in slots]
    await asyncio.gather(*(slot.ready.wait() for slot in slots))
    warmup = time.monotonic() - began
    if own_process:
        # What the warm-up built (thousands of players' clients, sockets and states) stays
        # for the run: out of the collector's sight, or every full collection walks it all
        # and stops this loop for seconds (4.5 s seen with 2,000 games a process), which the
        # latencies would then count against the server.
        gc.collect()
        gc.freeze()
        # And none at all during the window: even young collections stopped this loop for
        # up to 0.2 s with 1,500 games a process (the players' states are replaced with
        # every update, so the young generation fills with states that live a while). A
        # client process lives for one run; the few cycles it leaves wait for its end.
        gc.disable()
    collections = _collections()
    start_at = await asyncio.to_thread(_exchange, conn, ("ready", warmup))
    await asyncio.sleep(max(0.0, start_at - time.time()))
    run.begin(config.seconds)
    lags: list[float] = []
    watcher = asyncio.ensure_future(watch_loop(run, lags))
    cpu = time.process_time()
    await asyncio.sleep(max(0.0, run.deadline - time.monotonic()))
    cpu = time.process_time() - cpu
    collections = _collections() - collections
    if own_process:
        gc.enable()
    games = [slot.game for slot in slots if slot.game is not None]
    # The tallies are complete once every slot has settled its last commits; closing
    # thousands of pages' WebSockets after that took minutes on a busy machine, so the
    # report is sent first and the closing gets a bounded time of its own.
    await asyncio.gather(*(slot.settled.wait() for slot in slots), watcher)
    tally = run.tally
    result = {"warmup": warmup, "moves": tally.moves, "steps": tally.steps,
            "commits": tally.commits, "requests": tally.requests,
            "games_started": tally.games_started, "games_finished": tally.games_finished,
            "open_games": len(games), "spectators": sum(len(g.spectators) for g in games),
            "reconnects": tally.reconnects, "latencies_ms": tally.latencies_ms,
            "request_ms": tally.request_ms, "conflicts": tally.conflicts,
            "errors": tally.errors, "cpu_s": cpu, "lags_ms": lags,
            "collections": collections}
    await asyncio.to_thread(conn.send, ("done", result))
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), CLOSE_LIMIT)
    return result


def _collections() -> int:
    """Garbage collections this process has made so far (all generations)."""
    return sum(generation["collections"] for generation in gc.get_stats())


def _exchange(conn: Connection, message: Any) -> Any:
    conn.send(message)
    return conn.recv()


def _run_loop(coroutine: Coroutine[Any, Any, dict[str, Any]]) -> dict[str, Any]:
    try:  # the faster event loop the servers use too (uvicorn[standard] brings it)
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    result: dict[str, Any] = uvloop.run(coroutine)
    return result


def _client_main(conn: Connection, urls: list[str], config: BenchConfig, indices: list[int],
                 own_process: bool) -> None:
    if own_process and config.client_nice:
        # The players yield the CPU to the servers under test, as a load generator on a
        # machine of its own would (here they share the cores with the servers).
        os.nice(config.client_nice)
    try:
        _run_loop(_client(conn, urls, config, indices, own_process))  # reports "done" itself
    except Exception as exc:
        with contextlib.suppress(Exception):
            conn.send(("failed", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def _expect(conn: Connection, kind: str, timeout: float) -> Any:
    if not conn.poll(timeout):
        raise BenchError(f"a client process did not report '{kind}' within {timeout:.0f} s "
                         "(an overloaded machine: try fewer --games or more --clients)")
    try:
        got, value = conn.recv()
    except EOFError:
        raise BenchError("a client process ended without a report") from None
    if got != kind:
        raise BenchError(f"a client failed: {value}")
    return value


# -- the run ---------------------------------------------------------------------------


@dataclass
class Servers:
    """The server processes started here: their CPU and memory (Linux /proc)."""

    pids: list[int]
    idle_rss_mb: float = 0.0

    def cpu_s(self) -> float:
        return sum(cpu_seconds(pid) or 0.0 for pid in self.pids)

    def rss_mb(self) -> float:
        return sum(rss_mb(pid) or 0.0 for pid in self.pids)


@contextlib.contextmanager
def _progress(start_at: float, seconds: float) -> Iterator[None]:
    """A bar of the run's time on stderr (shown on a terminal only), from a thread: the
    players run elsewhere (other processes, or another thread's event loop)."""
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


def drive(urls: list[str], config: BenchConfig, clients: int = 1,
          servers: Servers | None = None) -> dict[str, Any]:
    """Plays ``config.games`` games split over ``clients`` client processes (one asyncio
    loop of scripted players can itself be the bottleneck, as a single load generator
    would be; real players are on machines of their own; 1: a thread of this process),
    and reports them together. With ``servers``, their CPU and memory too."""
    clients = max(1, min(clients, config.games))
    raise_open_files()  # inherited by the client processes
    shares = [list(range(config.games))[i::clients] for i in range(clients)]
    context = multiprocessing.get_context("spawn")
    pipes: list[Connection] = []
    workers: list[Any] = []
    for share in shares:
        mine, theirs = context.Pipe()
        args = (theirs, urls, config, share, clients > 1)
        worker: Any = (context.Process(target=_client_main, args=args, daemon=True)
                       if clients > 1 else threading.Thread(target=_client_main, args=args,
                                                            daemon=True))
        worker.start()
        pipes.append(mine)
        workers.append(worker)
    try:
        if config.set_up_first and sys.stderr.isatty():
            print("warming up: setting every game up ...", file=sys.stderr)
        elif config.model.stagger and sys.stderr.isatty():
            print("warming up: playing the games to where measuring starts ...",
                  file=sys.stderr)
        warmups = [_expect(conn, "ready", WARMUP_LIMIT) for conn in pipes]
        start_at = time.time() + 0.2
        for conn in pipes:
            conn.send(start_at)
        time.sleep(max(0.0, start_at - time.time()))
        cpu_before = servers.cpu_s() if servers else 0.0
        ticks_before = machine_ticks()
        with _progress(start_at, config.seconds):
            time.sleep(max(0.0, start_at + config.seconds - time.time()))
            cpu = servers.cpu_s() - cpu_before if servers else 0.0
            rss = servers.rss_mb() if servers else 0.0
            stolen = stolen_percent(ticks_before, machine_ticks())
            parts = [_expect(conn, "done", REPORT_LIMIT) for conn in pipes]
    finally:
        for worker in workers:
            worker.join(timeout=10)
            if isinstance(worker, multiprocessing.process.BaseProcess) and worker.is_alive():
                worker.terminate()
    return _report(urls, config, clients, parts, max(warmups), servers, cpu, rss, stolen)


def _report(urls: list[str], config: BenchConfig, clients: int, parts: list[dict[str, Any]],
            warmup: float, servers: Servers | None, server_cpu: float,
            server_rss: float, stolen: float | None) -> dict[str, Any]:
    seconds = config.seconds
    total = {key: sum(part[key] for part in parts)
             for key in ("moves", "steps", "commits", "requests", "games_started",
                         "games_finished", "open_games", "spectators", "reconnects",
                         "conflicts", "cpu_s", "collections")}
    latencies = [x for part in parts for x in part["latencies_ms"]]
    requests = [x for part in parts for x in part["request_ms"]]
    lags = [x for part in parts for x in part["lags_ms"]]
    errors = [x for part in parts for x in part["errors"]]
    commits, moves, open_games = total["commits"], total["moves"], total["open_games"]
    return {
        "processes": len(urls),
        "games": config.games,
        "players": config.players,
        "rounds": config.rounds,
        "pace": config.pace,
        "via": config.via,
        "model": config.model.describe(),
        "seed": config.seed,
        "client_processes": clients,
        "client_nice": config.client_nice if clients > 1 else 0,
        "ramp": config.ramp,
        "set_up_first": config.set_up_first,
        "open_files_limit": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
        "warmup_s": round(warmup, 1),
        "seconds": round(seconds, 2),
        "moves": moves,
        "steps": total["steps"],
        "commits": commits,
        "moves_per_s": round(moves / seconds, 1),
        "steps_per_s": round(total["steps"] / seconds, 1),
        "commits_per_s": round(commits / seconds, 1),
        "requests": total["requests"],
        "requests_per_s": round(total["requests"] / seconds, 1),
        "games_started": total["games_started"],
        "games_finished": total["games_finished"],
        "open_games": open_games,
        "spectators": total["spectators"],
        "reconnects": total["reconnects"],
        "latency_ms": _percentiles(latencies),
        "request_ms": _percentiles(requests),
        "conflicts": total["conflicts"],
        "errors": len(errors),
        "error_samples": errors[:5],
        "server": None if servers is None else {
            "cpu_s": round(server_cpu, 2),
            "cpu_percent": round(100 * server_cpu / seconds, 1),
            "cpu_ms_per_commit": round(1000 * server_cpu / commits, 2) if commits else None,
            "cpu_ms_per_move": round(1000 * server_cpu / moves, 2) if moves else None,
            "rss_idle_mb": round(servers.idle_rss_mb, 1),
            "rss_end_mb": round(server_rss, 1),
            "rss_mb_per_open_game": (round((server_rss - servers.idle_rss_mb) / open_games, 3)
                                     if open_games else None),
        },
        "loadgen": {
            "cpu_s": round(total["cpu_s"], 2),
            "cpu_percent": round(100 * total["cpu_s"] / seconds, 1),
            "loop_lag_ms": {**_percentiles(lags, (50, 99)),
                            "max": round(max(lags), 1) if lags else None},
            "collections": total["collections"],
        },
        "load_average": [round(x, 2) for x in os.getloadavg()],
        # A run while the hypervisor took a third of the CPU measures the host, not the
        # server (docs/bench.md, "Capacity").
        "machine_stolen_percent": stolen,
    }


def _percentiles(values: list[float], qs: tuple[int, ...] = (50, 95, 99)
                 ) -> dict[str, float | None]:
    return {f"p{q}": _round(percentile(values, q)) for q in qs}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def run(*, games: int, processes: int, players: int, rounds: int, seconds: float | None,
        database_url: str | None, pubsub_url: str | None, urls: list[str] | None,
        seed: int = 0, via: str = "ws", clients: int = 1, client_nice: int = 10,
        memory_every: float | None = None, pace: str = "none", model: str = "flat",
        spectators: float | None = None, reconnects_per_hour: float | None = None,
        live_fraction: float | None = None, think_scale: float | None = None,
        stagger: bool | None = None, deflate: bool = False, ramp: int = 0,
        set_up_first: bool = False) -> dict[str, Any]:
    """Starts the servers (unless ``urls`` are given), drives them, stops them.
    ``model``: a name of ``model.MODELS``, the other ``None`` arguments its own values;
    ``seconds`` None: the model's; ``memory_every``: sample the servers' RSS that often
    (seconds) into "memory"."""
    if model not in MODELS:
        raise ValueError(f"no load model {model!r} (one of {', '.join(MODELS)})")
    load = MODELS[model].with_options(
        spectators=spectators, reconnects_per_hour=reconnects_per_hour,
        live_fraction=live_fraction, think_scale=think_scale, stagger=stagger)
    config = BenchConfig(games, players, rounds, seconds or load.seconds, seed, via,
                         client_nice, pace, load, ramp, max(1, min(clients, games)),
                         set_up_first)
    if urls:
        if memory_every:
            raise ValueError("--memory-every needs servers started here (not --url): "
                             "it reads their processes' memory")
        return drive(urls, config, clients)
    if processes > 1 and not pubsub_url:
        raise ValueError("several processes need a shared pub/sub: pass --pubsub-url redis://...")
    with tempfile.TemporaryDirectory(prefix="elgrande-bench-") as tmp:
        url = database_url or f"sqlite:///{Path(tmp) / 'bench.db'}"
        # The servers inherit the raised limit on open files. Each game's pages come
        # from an address of their own (addresses.py): the caps on open WebSockets per
        # address hold as in production.
        raise_open_files()
        started = [ServerProcess(url, pubsub_url, Path(tmp), deflate=deflate)
                   for _ in range(processes)]
        try:
            started[0].start()  # runs the migrations alone
            for server in started[1:]:
                server.start()
            servers = Servers([s.process.pid for s in started if s.process])
            servers.idle_rss_mb = servers.rss_mb()
            sampler = (MemorySampler(servers.pids, memory_every).start()
                       if memory_every else None)
            result = drive([s.url for s in started], config, clients, servers)
            result["deflate"] = deflate
            if sampler is not None:
                result["memory"] = sampler.stop()
        finally:
            for server in started:
                server.stop()
        result["database"] = url.split("://", 1)[0]
        result["pubsub"] = (pubsub_url or "in-process").split("://", 1)[0]
        return result
