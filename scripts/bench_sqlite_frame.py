"""CPU of one write transaction's frame on SQLite (docs/bench.md, "Server CPU per committed
move"): through SQLAlchemy's pool as MatchStore does, on one SQLAlchemy connection kept
open, and on the driver alone. Each runs BEGIN IMMEDIATE, a one-row SELECT and COMMIT on
a WAL database with synchronous=NORMAL; prints microseconds of CPU per transaction, three
rounds of 20,000 each.

    .venv/bin/python scripts/bench_sqlite_frame.py
"""

from __future__ import annotations

import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from elgrande.db.engine import make_engine, writer

TRANSACTIONS = 20_000


def cpu_us(transaction: Callable[[], None]) -> float:
    start = time.process_time()
    for _ in range(TRANSACTIONS):
        transaction()
    return (time.process_time() - start) / TRANSACTIONS * 1e6


def main() -> None:
    folder = Path(tempfile.mkdtemp())
    pooled_engine = writer(make_engine(f"sqlite:///{folder / 'pooled.db'}"))
    kept = writer(make_engine(f"sqlite:///{folder / 'kept.db'}")).connect()
    driver = sqlite3.connect(folder / "driver.db", isolation_level=None)
    driver.execute("PRAGMA journal_mode=WAL")
    driver.execute("PRAGMA synchronous=NORMAL")

    def pooled() -> None:
        with pooled_engine.connect() as conn, conn.begin():
            conn.connection.dbapi_connection.execute("SELECT 1").fetchall()  # type: ignore[union-attr]

    def kept_open() -> None:
        with kept.begin():
            kept.connection.dbapi_connection.execute("SELECT 1").fetchall()  # type: ignore[union-attr]

    def driver_only() -> None:
        driver.execute("BEGIN IMMEDIATE")
        driver.execute("SELECT 1").fetchall()
        driver.execute("COMMIT")

    figures: dict[str, list[float]] = {"pooled": [], "kept open": [], "driver": []}
    for _ in range(3):
        for name, transaction in (("pooled", pooled), ("kept open", kept_open),
                                  ("driver", driver_only)):
            figures[name].append(round(cpu_us(transaction), 1))
    for name, values in figures.items():
        print(f"{name:>10}: {', '.join(map(str, values))} µs of CPU per transaction")


if __name__ == "__main__":
    main()
