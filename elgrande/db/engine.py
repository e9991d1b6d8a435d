"""Database engines: an SQLite file in WAL mode by default, PostgreSQL (psycopg 3) by URL."""

from __future__ import annotations

import os
import sqlite3
import time
from typing import Any

from sqlalchemy import Engine, create_engine, event

DEFAULT_URL = "sqlite:///elgrande.db"
URL_ENV = "ELGRANDE_DATABASE_URL"

# Execution option marking a connection that will write: on SQLite it begins with
# BEGIN IMMEDIATE, so writers queue for the lock instead of failing on upgrade.
WRITE = "elgrande_write"


def database_url(url: str | None = None) -> str:
    """``url``, else $ELGRANDE_DATABASE_URL, else ``sqlite:///elgrande.db``."""
    return url or os.environ.get(URL_ENV) or DEFAULT_URL


def make_engine(url: str | None = None, **kwargs: Any) -> Engine:
    url = database_url(url)
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    engine = create_engine(url, **kwargs)
    if engine.dialect.name == "sqlite":
        _configure_sqlite(engine)
    return engine


def writer(engine: Engine) -> Engine:
    """The same engine (same pool) with connections marked as writing."""
    return engine.execution_options(**{WRITE: True})


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # We issue BEGIN ourselves (pysqlite's implicit transactions are unreliable).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA busy_timeout=30000")
        _set_wal(cursor)
        cursor.execute("PRAGMA synchronous=FULL")  # a commit survives power loss too
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        mode = "IMMEDIATE" if connection.get_execution_options().get(WRITE) else "DEFERRED"
        connection.exec_driver_sql(f"BEGIN {mode}")


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
