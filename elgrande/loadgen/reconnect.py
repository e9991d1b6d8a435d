"""`elgrande bench reconnect`: what a game page (re)connecting costs the server.

A page's WebSocket drops and opens again often (a phone changing networks, a laptop
waking up, the daily model's 4 an hour per page): each opening authenticates, reads the
seat's view, clocks and chat, and sends the whole state with its move log. This starts
one server process on a fresh SQLite file, plays a guest's game against two computers
to ``entries`` log entries, then opens and closes that seat's page socket
``connections`` times, one after another, reading its first state each time, and divides
the server's CPU (Linux /proc) by the connections."""

from __future__ import annotations

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

from .launch import ServerProcess
from .proc import cpu_seconds

CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')


def run(connections: int, entries: int = 150, deflate: bool = False, seed: int = 0,
        progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="elgrande-reconnect-") as tmp:
        server = ServerProcess(f"sqlite:///{Path(tmp) / 'bench.db'}", None, Path(tmp),
                               deflate=deflate,
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
            assert server.process is not None
            pid = server.process.pid
            time.sleep(0.5)  # the computers' last turns settle
            before, started = cpu_seconds(pid) or 0.0, time.monotonic()
            size = 0
            for done in range(1, connections + 1):
                with opened() as ws:
                    size = len(ws.recv(timeout=30))
                if progress is not None:
                    progress(done, connections)
            cpu = (cpu_seconds(pid) or 0.0) - before
            wall = time.monotonic() - started
        finally:
            server.stop()
    return {"connections": connections, "log_entries": reached, "first_state_bytes": size,
            "deflate": deflate, "deflate_negotiated": negotiated,
            "server_cpu_ms_per_connection": round(cpu / connections * 1000, 2),
            "wall_ms_per_connection": round(wall / connections * 1000, 2)}


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
