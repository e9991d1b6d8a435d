"""Plain SQL on the driver's own connection, inside the transaction SQLAlchemy began:
for statements that run inside every commit, where Core's execution costs more than
the database's work.

Statements are written once, in the ``%(name)s`` placeholder style, with two marks
for what differs between the dialects: ``{FOR UPDATE ...}`` or ``{FOR SHARE ...}``
(PostgreSQL's row lock, with its text; SQLite has none: ``BEGIN IMMEDIATE`` holds the
database) and ``{::json}`` (PostgreSQL's cast of a JSON text parameter)."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection

_LOCK = re.compile(r"\{(FOR (?:UPDATE|SHARE)[^}]*)\}")


class PlainSql:
    """Named statements for one dialect, with the value formats SQLAlchemy's column
    types would write and read."""

    def __init__(self, dialect: str, statements: Mapping[str, str]) -> None:
        self.postgres = dialect == "postgresql"
        if self.postgres:
            self.sql = {name: _LOCK.sub(r"\1", text).replace("{::json}", "::json")
                        for name, text in statements.items()}
        else:  # sqlite3's named style
            self.sql = {name: re.sub(r"%\((\w+)\)s", r":\1",
                                     _LOCK.sub("", text).replace("{::json}", "")).rstrip()
                        for name, text in statements.items()}

    def run(self, conn: Connection, name: str, params: Mapping[str, Any]) -> list[Any]:
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            cursor.execute(self.sql[name], params)
            return list(cursor.fetchall()) if cursor.description else []
        finally:
            cursor.close()

    def run_many(self, conn: Connection, name: str, rows: list[dict[str, Any]]) -> None:
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            cursor.executemany(self.sql[name], rows)
        finally:
            cursor.close()

    @property
    def integrity_error(self) -> type[Exception]:
        """The driver's own IntegrityError (plain SQL bypasses SQLAlchemy's wrapping)."""
        if self.postgres:
            import psycopg
            return psycopg.IntegrityError
        return sqlite3.IntegrityError

    def json(self, value: Any) -> Any:
        return json.loads(value) if isinstance(value, str | bytes) else value

    def moment(self, value: datetime | None) -> Any:
        """A time as a parameter: SQLAlchemy's SQLite DateTime is naive text (UTC);
        PostgreSQL takes the datetime."""
        if value is None or self.postgres:
            return value
        if value.tzinfo is not None:
            value = value.astimezone(UTC)
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")

    def read_moment(self, value: Any) -> datetime | None:
        """A time as read: aware, in UTC (SQLite gives the text written above)."""
        if value is None:
            return None
        if isinstance(value, str):
            value = datetime.fromisoformat(value)
        assert isinstance(value, datetime)
        return value if value.tzinfo else value.replace(tzinfo=UTC)
