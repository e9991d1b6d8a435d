"""Database engines: an SQLite file in WAL mode by default, PostgreSQL (psycopg 3) by URL."""

from __future__ import annotations

import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import DBAPIError

DEFAULT_URL = "sqlite:///elgrande.db"  # what `make run` uses

# Execution option marking a connection that will write: on SQLite it begins with
# BEGIN IMMEDIATE, so writers queue for the lock instead of failing on upgrade.
WRITE = "elgrande_write"
_HOLDS_WRITE_LOCK = "elgrande_holds_write_lock"
WRITE_LOCK_TIMEOUT = 30.0  # seconds, as SQLite's busy_timeout


# SQLite's PRAGMA synchronous in WAL mode: "normal", a commit is in the WAL (in the
# operating system's hands) when it returns, so a killed process loses nothing; "full",
# also fsync'd, so it survives power loss (docs/deploy.md).
SYNC_MODES = ("normal", "full")


def make_engine(url: str, *, sqlite_sync: str = "normal", **kwargs: Any) -> Engine:
    if sqlite_sync not in SYNC_MODES:
        raise ValueError(f"sqlite_sync must be one of {SYNC_MODES}, not {sqlite_sync!r}")
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    # Every worker thread of the web app (up to 40) may hold a connection: a pool much
    # smaller than that would open (and set up) new connections under load, which for
    # PostgreSQL means a new server process each time.
    if url.startswith("sqlite") and ":memory:" not in url:
        kwargs.setdefault("pool_size", 48)
        kwargs.setdefault("max_overflow", 16)
    elif url.startswith("postgresql"):
        kwargs.setdefault("pool_size", 20)  # per process: mind max_connections (default 100)
        kwargs.setdefault("max_overflow", 20)
    engine = create_engine(url, **kwargs)
    if engine.dialect.name == "sqlite":
        _configure_sqlite(engine, sqlite_sync)
    return engine


class WriteLock:
    """The lock this process's writers of one SQLite database queue on. Taken for each
    write transaction; or held by a thread for a whole call (``try_hold``), during which
    its write transactions take nothing more."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._holder = threading.local()

    def held_here(self) -> bool:
        return getattr(self._holder, "held", False)

    @contextmanager
    def try_hold(self) -> Iterator[bool]:
        """Holds the lock for the block if it is free now (True), else holds nothing
        (False): for the event loop, which must never wait for it."""
        if self.held_here() or not self.lock.acquire(blocking=False):
            yield False
            return
        self._holder.held = True
        try:
            yield True
        finally:
            self._holder.held = False
            self.lock.release()


# Per engine (keyed by its dialect, which its ``execution_options`` copies share and a
# ``dispose`` keeps).
_WRITE_LOCKS: weakref.WeakKeyDictionary[Any, WriteLock] = weakref.WeakKeyDictionary()


def write_lock(engine: Engine) -> WriteLock | None:
    """The write lock of an SQLite engine made by ``make_engine``; None for others."""
    return _WRITE_LOCKS.get(engine.dialect)


def writer(engine: Engine) -> Engine:
    """The same engine (same pool) with connections marked as writing."""
    return engine.execution_options(**{WRITE: True})


def _configure_sqlite(engine: Engine, sync: str) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # We issue BEGIN ourselves (pysqlite's implicit transactions are unreliable).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA busy_timeout=30000")
        _set_wal(cursor)
        cursor.execute(f"PRAGMA synchronous={sync.upper()}")  # (one of SYNC_MODES)
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    # SQLite has one writer at a time. Writers of this process queue on a lock of their
    # own, in order, instead of in SQLite's busy handler, which sleeps up to 100 ms
    # between tries (the long tail of the latencies); other processes still queue there.
    lock = WriteLock()
    _WRITE_LOCKS[engine.dialect] = lock
    write_lock = lock.lock
    holders: dict[int, dict[str, Any]] = {}  # id(DBAPI connection) -> its pool record's info

    def release(info: dict[str, Any]) -> None:
        if info.pop(_HOLDS_WRITE_LOCK, False):
            write_lock.release()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        if not connection.get_execution_options().get(WRITE):
            _begin(connection, "BEGIN DEFERRED")
            return
        info = connection.info
        # A timeout rather than waiting for ever: a thread that would nest two write
        # transactions falls back to SQLite's own busy wait (and its error). A thread
        # that holds the lock for a whole call (``WriteLock.try_hold``) takes nothing.
        if (not info.get(_HOLDS_WRITE_LOCK) and not lock.held_here()
                and write_lock.acquire(timeout=WRITE_LOCK_TIMEOUT)):
            info[_HOLDS_WRITE_LOCK] = True
            holders[id(connection.connection.dbapi_connection)] = info
        try:
            _begin(connection, "BEGIN IMMEDIATE")
        except BaseException:
            release(info)
            raise

    # Released once COMMIT or ROLLBACK has run (SQLAlchemy's events fire before them).
    dialect = engine.dialect
    do_commit, do_rollback = dialect.do_commit, dialect.do_rollback

    def _commit(dbapi_connection: Any) -> None:
        try:
            do_commit(dbapi_connection)
        finally:
            release(holders.pop(id(dbapi_connection), {}))

    def _rollback(dbapi_connection: Any) -> None:
        try:
            do_rollback(dbapi_connection)
        finally:
            release(holders.pop(id(dbapi_connection), {}))

    dialect.do_commit = _commit  # type: ignore[method-assign]
    dialect.do_rollback = _rollback  # type: ignore[method-assign]

    # However a transaction ends (a connection closed or invalidated mid-transaction),
    # its connection goes back to the pool: the lock is released by then at the latest.
    @event.listens_for(engine.pool, "checkin")
    def _on_checkin(dbapi_connection: Any, record: Any) -> None:
        holders.pop(id(dbapi_connection), None)
        if record is not None:
            release(record.info)

    @event.listens_for(engine.pool, "invalidate")
    def _on_invalidate(dbapi_connection: Any, record: Any, _exc: Any) -> None:
        holders.pop(id(dbapi_connection), None)
        if record is not None:
            release(record.info)


def _begin(connection: Any, statement: str) -> None:
    """Begins a transaction on the driver's connection itself: every command begins
    one, and SQLAlchemy's execution path (events, result set-up) cost several times
    SQLite's own work for it. Errors are wrapped as SQLAlchemy wraps them."""
    try:
        connection.connection.dbapi_connection.execute(statement)
    except sqlite3.Error as exc:
        raise DBAPIError.instance(statement, None, exc, sqlite3.Error) from exc


def _set_wal(cursor: Any) -> None:
    """WAL mode is stored in the file. Switching to it needs the database to itself and
    SQLite answers "locked" at once, without its busy wait, when several processes open
    a new file together: so retry briefly."""
    for attempt in range(100):
        try:
            if cursor.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError:
            if attempt == 99:
                raise
            time.sleep(0.02)
