"""Real servers for the scale tests, started by the tests on free 127.0.0.1 ports:
Debian's redis-server, a PostgreSQL that can be stopped and started again, and El Grande
server processes (``elgrande.loadgen.launch``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from elgrande.loadgen.launch import ServerProcess, free_port
from tests.pg_server import PostgresServer

__all__ = ["RedisServer", "RestartablePostgres", "ServerProcess", "redis_server"]

# The redis-server program: $ELGRANDE_TEST_REDIS_SERVER, else the one on the PATH.
REDIS_SERVER = (os.environ.get("ELGRANDE_TEST_REDIS_SERVER") or shutil.which("redis-server")
                or "/usr/bin/redis-server")


class RedisServer:
    """A throw-away redis-server (no persistence, loopback only); ``restart`` keeps the
    port, so clients can reconnect."""

    def __init__(self) -> None:
        if not Path(REDIS_SERVER).exists():
            raise RuntimeError(f"{REDIS_SERVER} not found: install Debian's redis-server package "
                               "(make test does: scripts/system-packages.txt) or set "
                               "ELGRANDE_TEST_REDIS_SERVER")
        self.dir = Path(tempfile.mkdtemp(prefix="elgrande-redis-"))
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.dir), "--protected-mode", "no"],
            stdout=open(self.dir / "redis.log", "ab"), stderr=subprocess.STDOUT)
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError("redis-server did not start: "
                                       + (self.dir / "redis.log").read_text()[-1000:]) from None
                time.sleep(0.02)
        client.close()
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class RestartablePostgres(PostgresServer):
    """A PostgreSQL cluster of its own (not the shared one), which a test may stop and
    start again on the same port."""

    def halt(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def resume(self) -> None:
        options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.dir} "
                   "-c fsync=off -c full_page_writes=off -c max_connections=200")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.dir / "server.log"),
                  "-o", options, "-w", "-t", "60", "start")


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer().start()
    yield server
    server.cleanup()
