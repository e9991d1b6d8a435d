"""`elgrande bench page`: what one game page costs the server, message by message.

A page's WebSocket drops and opens again often (a phone changing networks, a laptop
waking up, the daily model's 4 an hour per page): each opening authenticates, reads the
seat's view, clocks and chat, and sends the whole state with its move log. And every
command a page sends crosses the same web stack: a ``sync`` (the state sent again, from
memory: no database) measures that stack alone; a draft step and its undo add a write
transaction and a view. This starts one server process on a fresh SQLite file, plays a
guest's game against two computers to ``entries`` log entries, waits for the guest's
turn, then opens and closes the seat's page socket ``connections`` times, sends
``commands`` syncs and ``commands`` steps and undos on one socket, each waiting for its
answer, and divides the server's CPU (Linux /proc) by each. Then it opens ``idle``
sockets of that seat's page at once and leaves them idle, each having had its first
state: the server's resident memory (RSS) they add, per socket, is what an open page
that does nothing holds (most pages of a server with many games)."""

from __future__ import annotations

import asyncio
import json
import random
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from .addresses import raise_open_files
from .launch import ServerProcess
from .memory import rss_mb
from .proc import cpu_seconds

CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')


def run(connections: int, commands: int = 200, entries: int = 150, deflate: bool = False,
        seed: int = 0, progress: Callable[[int, int], None] | None = None, idle: int = 0,
        ws_path: str = "game") -> dict[str, Any]:
    """``progress(done, total)`` after each connection and command measured; ``ws_path``:
    the server's WebSocket path (``launch.WS_PATHS``)."""
    total, done = connections + 2 * commands + idle, 0

    def advance() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    with tempfile.TemporaryDirectory(prefix="elgrande-page-") as tmp:
        if idle:
            raise_open_files()  # (inherited by the server)
        server = ServerProcess(f"sqlite:///{Path(tmp) / 'bench.db'}", None, Path(tmp),
                               deflate=deflate, ws=ws_path,
                               extra_env={"ELGRANDE_WS_PER_CLIENT": "0"}).start()
        try:
            with httpx.Client(base_url=server.url, timeout=30) as client:
                game_id = _play_now(client)
                cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
            url = f"{server.url.replace('http://', 'ws://')}/ws/games/{game_id}"
            compression = "deflate" if deflate else None

            def opened() -> ClientConnection:
                return connect(url, additional_headers={"Cookie": cookie},
                               compression=compression, open_timeout=30)

            with opened() as ws:
                assert ws.response is not None
                # What the server accepted (it offers deflate only when started with it).
                negotiated = "permessage-deflate" in ws.response.headers.get(
                    "Sec-WebSocket-Extensions", "")
                reached = _play_to(ws, entries, random.Random(seed))
                turn = _own_turn(ws)  # nobody else moves while measuring
            assert server.process is not None
            pid = server.process.pid

            def cpu_ms(count: int, since: float) -> float:
                return round(((cpu_seconds(pid) or 0.0) - since) / max(1, count) * 1000, 2)

            before, started = cpu_seconds(pid) or 0.0, time.monotonic()
            size = 0
            for _ in range(connections):
                with opened() as ws:
                    size = len(ws.recv(timeout=30))
                advance()
            per_connection = cpu_ms(connections, before)
            wall = (time.monotonic() - started) / max(1, connections)
            with opened() as ws:
                ws.recv(timeout=30)
                _quiet(ws)
                before = cpu_seconds(pid) or 0.0
                for number in range(commands):
                    _answered(ws, {"type": "sync", "id": number})
                    advance()
                per_sync = cpu_ms(commands, before)
                step = turn["legal"][0]["text"]
                before = cpu_seconds(pid) or 0.0
                for number in range(commands, 2 * commands, 2):
                    _answered(ws, {"type": "step", "action": step, "seq": turn["seq"],
                                   "id": number})
                    _answered(ws, {"type": "undo", "seq": turn["seq"], "id": number + 1})
                    advance()
                    advance()
                per_step = cpu_ms(commands, before)
            per_idle = (asyncio.run(_idle_memory(url, cookie, compression, idle, pid, advance))
                        if idle else None)
        finally:
            server.stop()
    return {"connections": connections, "commands": commands, "log_entries": reached,
            "first_state_bytes": size, "deflate": deflate, "deflate_negotiated": negotiated,
            "ws": ws_path, "idle_sockets": idle, "server_kb_per_idle_socket": per_idle,
            "server_cpu_ms_per_connection": per_connection,
            "wall_ms_per_connection": round(wall * 1000, 2),
            "server_cpu_ms_per_sync": per_sync,
            "server_cpu_ms_per_draft_step": per_step}


async def _idle_memory(url: str, cookie: str, compression: str | None, count: int,
                       pid: int, advance: Callable[[], None]) -> float:
    """Opens ``count`` sockets of the page, each read to its first state, and keeps them
    open and idle: the server's RSS they add, in KB per socket (after a first batch has
    warmed the server up: its caches and the allocator's arenas)."""
    from websockets.asyncio.client import ClientConnection as Async
    from websockets.asyncio.client import connect as open_async

    sockets: list[Async] = []

    async def open_one() -> None:
        socket = await open_async(url, additional_headers={"Cookie": cookie},
                                  compression=compression, open_timeout=60,
                                  ping_interval=None, max_size=None)
        await socket.recv()  # its first state
        sockets.append(socket)
        advance()

    async def open_many(n: int) -> None:
        for start in range(0, n, 100):  # (a hundred handshakes at a time)
            await asyncio.gather(*(open_one() for _ in range(min(100, n - start))))

    warm = min(50, count)
    try:
        await open_many(warm)
        await asyncio.sleep(1.0)  # what the openings sent after the state (clocks, chat)
        before = rss_mb(pid) or 0.0
        await open_many(count - warm)
        await asyncio.sleep(1.0)
        after = rss_mb(pid) or 0.0
    finally:
        await asyncio.gather(*(socket.close() for socket in sockets), return_exceptions=True)
    return round((after - before) * 1024 / max(1, count - warm), 1)


def _own_turn(ws: ClientConnection) -> dict[str, Any]:
    """Plays on (finishing the guest's turn under way, if any) to the first state in
    which the guest alone is to act, with a step to take and nothing entered yet."""
    number = 10_000
    while True:
        message = json.loads(ws.recv(timeout=60))
        if message.get("type") != "state":
            continue
        state = message["state"]
        if state.get("finished"):
            raise RuntimeError("the game ended before the guest's turn: use fewer --entries")
        draft = state["draft"]
        if state["legal"] and not draft["steps"] and state["to_act"] == [state["seat"]]:
            return dict(state)
        number += 1
        if draft["can_finish"]:
            ws.send(json.dumps({"type": "finish", "seq": state["seq"], "id": number}))
        elif state["legal"]:
            ws.send(json.dumps({"type": "step", "seq": state["seq"], "id": number,
                                "action": state["legal"][0]["text"]}))


def _quiet(ws: ClientConnection) -> None:
    """Reads what the page is sent on opening (the clocks, the chat) until nothing comes."""
    while True:
        try:
            ws.recv(timeout=0.3)
        except TimeoutError:
            return


def _answered(ws: ClientConnection, message: dict[str, Any]) -> None:
    """Sends a command and waits for the state answering it; an error is a failure."""
    ws.send(json.dumps(message))
    while True:
        answer = json.loads(ws.recv(timeout=30))
        if answer.get("type") == "error":
            raise RuntimeError(f"the server refused {message['type']}: {answer.get('message')}")
        if answer.get("ack") == message["id"]:
            return


def _play_now(client: httpx.Client) -> int:
    """A guest's new game against two computers: its id."""
    found = CSRF_FIELD.search(client.get("/login").text)
    if found is None:
        raise RuntimeError("no CSRF token on /login")
    answer = client.post("/play-now", data={"csrf_token": found.group(1)})
    if answer.status_code != 303:
        raise RuntimeError(f"play-now answered {answer.status_code}")
    return int(answer.headers["location"].rsplit("/", 1)[1])


def _play_to(ws: ClientConnection, entries: int, rng: random.Random) -> int:
    """Random legal steps for the guest's seat until the log has ``entries`` entries (or
    the game is over); the number reached."""
    reached, number = 0, 0
    while reached < entries:
        message = json.loads(ws.recv(timeout=60))
        if message.get("type") != "state":
            continue
        state = message["state"]
        reached = state.get("log_from", 0) + len(state["log"])
        if state.get("finished"):
            break
        draft = state["draft"]
        number += 1
        if draft["can_finish"] and (not state["legal"] or rng.random() < 0.4):
            ws.send(json.dumps({"type": "finish", "seq": state["seq"], "id": number}))
        elif state["legal"]:
            ws.send(json.dumps({"type": "step", "seq": state["seq"], "id": number,
                                "action": rng.choice(state["legal"])["text"]}))
    return reached
