"""A real PostgreSQL server for tests: Debian's `postgresql` package, started by the test
suite itself in a temporary directory on a free 127.0.0.1 port.

PostgreSQL refuses to run as root, so as root it runs as the `postgres` user (runuser).
One server per test process (started on first use, stopped at exit); each test gets its
own database from the `postgres_url` fixture. Reuse from any conftest.py:

    from tests.pg_server import postgres_server, postgres_url  # noqa: F401  (fixtures)
"""

from __future__ import annotations

import atexit
import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

_lock = threading.Lock()
_shared: PostgresServer | None = None
_names = itertools.count(1)


def find_bindir() -> Path:
    """The folder of initdb, pg_ctl and postgres: $ELGRANDE_TEST_PG_BIN, else Debian's
    newest /usr/lib/postgresql/N/bin, else the folder of a pg_ctl on the PATH."""
    override = os.environ.get("ELGRANDE_TEST_PG_BIN")
    if override:
        if not (Path(override) / "pg_ctl").exists():
            raise RuntimeError(f"ELGRANDE_TEST_PG_BIN={override} holds no pg_ctl")
        return Path(override)
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
        key=lambda p: int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0,
    )
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_ctl")
    if on_path:
        return Path(on_path).parent
    raise RuntimeError(
        "PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin nor on the "
        "PATH: install Debian's postgresql package (make test does: "
        "scripts/system-packages.txt) or set ELGRANDE_TEST_PG_BIN to the folder of pg_ctl"
    )


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresServer:
    """A throw-away PostgreSQL cluster (trust authentication, loopback only)."""

    def __init__(self) -> None:
        self.bindir = find_bindir()
        self.as_root = os.geteuid() == 0
        self.dir = Path(tempfile.mkdtemp(prefix="elgrande-pg-"))
        self.data = self.dir / "data"
        self.port = 0
        self.running = False

    def _run(self, *args: str) -> None:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            log = self.dir / "server.log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise RuntimeError(
                f"{' '.join(command)} failed ({result.returncode}):\n"
                f"{result.stdout}{result.stderr}{tail}"
            )

    def start(self) -> PostgresServer:
        if self.as_root:
            shutil.chown(self.dir, "postgres", "postgres")
        self._run(
            "initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust",
            "--encoding=UTF8", "--locale=C", "--no-sync",
        )
        self.port = free_port()
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.dir} "
            "-c fsync=off -c full_page_writes=off -c max_connections=200"
        )
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.dir / "server.log"),
            "-o", options, "-w", "-t", "60", "start",
        )
        self.running = True
        return self

    def stop(self) -> None:
        if self.running:
            self.running = False
            try:
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
            finally:
                shutil.rmtree(self.dir, ignore_errors=True)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str | None = None) -> str:
        """A new empty database; returns its SQLAlchemy URL."""
        import psycopg

        name = name or f"test_{os.getpid()}_{next(_names)}"
        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True
        ) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def shared_server() -> PostgresServer:
    """The one server of this process, started on first use and stopped at exit."""
    global _shared
    with _lock:
        if _shared is None:
            server = PostgresServer()
            try:
                server.start()
            except BaseException:
                server.stop()
                raise
            _shared = server
            atexit.register(server.stop)
        return _shared


@pytest.fixture(scope="session")
def postgres_server() -> PostgresServer:
    return shared_server()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    return postgres_server.create_database()
