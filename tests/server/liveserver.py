"""A real uvicorn server on a free loopback port, in a thread, on a temporary SQLite file."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

from elgrande.server.game_sockets import GAME_SOCKETS
from elgrande.server.settings import Settings
from tests.apps import app_for


@contextmanager
def live_server(tmp_path: Path, bot_delay: float = 0.0) -> Iterator[str]:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'live.db'}", secret_key="test-secret-key-0123456789",
                        bot_delay=bot_delay)
    with serving(app_for(settings)) as url:
        yield url


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn in a thread; its base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on", ws=GAME_SOCKETS)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
