"""Starts El Grande server processes (``uvicorn --factory elgrande.asgi:create_app``)
on free loopback ports, settings passed in the ELGRANDE_* environment. Used by
``elgrande bench server`` and the multi-process tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

# uvicorn's WebSocket protocol for the servers started, as `elgrande serve` runs them
# (the game pages' sockets served by elgrande/server/game_sockets.py; named, not
# imported: the load generator imports nothing of the server).
GAME_SOCKETS = "elgrande.server.game_sockets:GameSocketProtocol"
# The servers' WebSocket path (``ws``): the game pages' own ("game", as `elgrande serve`),
# or every socket through the ASGI app ("asgi": uvicorn's sans-I/O protocol), to compare.
WS_PATHS = {"game": GAME_SOCKETS, "asgi": "websockets-sansio"}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerProcess:
    def __init__(self, database_url: str, pubsub_url: str | None, log_dir: Path, *,
                 secret_key: str = "scale-shared-secret-key", lease_seconds: float = 15.0,
                 extra_env: dict[str, str] | None = None,
                 uvicorn_args: tuple[str, ...] = ("--log-level", "warning", "--no-access-log",
                                                  "--timeout-keep-alive", "30"),
                 deflate: bool = False, ws: str = "game") -> None:
        """``deflate``: per-message deflate offered on the WebSockets (off by default, as
        ``elgrande serve`` by default); ``ws``: which WebSocket path (``WS_PATHS``)."""
        self.port = free_port()
        self.uvicorn_args = uvicorn_args + ("--ws-per-message-deflate",
                                            "true" if deflate else "false", "--ws", WS_PATHS[ws])
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log_dir / f"server-{self.port}.log"
        self.env = {
            **os.environ,
            "ELGRANDE_DATABASE_URL": database_url,
            "ELGRANDE_SECRET_KEY": secret_key,  # shared: a session works on every process
            "ELGRANDE_BOT_DELAY": "0",
            "ELGRANDE_BOT_LEASE_SECONDS": str(lease_seconds),
            **({"ELGRANDE_PUBSUB_URL": pubsub_url} if pubsub_url else {}),
            # The benchmark and the multi-process tests create a guest per seat, thousands
            # an hour, all from 127.0.0.1: no account-creation limit (0) unless extra_env says.
            "ELGRANDE_GUESTS_PER_CLIENT": "0",
            "ELGRANDE_REGISTRATIONS_PER_CLIENT": "0",
            # One load generator on one address plays every game: no per-address caps.
            "ELGRANDE_WAITING_GAMES_PER_CLIENT": "0",
            "ELGRANDE_ACTIVE_GAMES_PER_CLIENT": "0",
            "ELGRANDE_BOT_SEATS_PER_CLIENT": "0",
            **(extra_env or {}),
        }
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60) -> ServerProcess:
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "uvicorn", "--factory", "elgrande.asgi:create_app",
                 "--host", "127.0.0.1", "--port", str(self.port), "--ws-max-size", "16384",
                 *self.uvicorn_args],
                env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(self.url + "/login", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"server did not start:\n{self.log.read_text()[-3000:]}")
            time.sleep(0.1)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL: no shutdown, no lease released, like a crash."""
        if self.alive:
            assert self.process is not None
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.alive:
            assert self.process is not None
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
