"""Fixtures of the turn-framework tests: a database URL for each backend (SQLite file,
real PostgreSQL started by tests/pg_server.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.apps import migrated
from tests.pg_server import postgres_server, postgres_url  # noqa: F401  (fixtures)


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The same test on an SQLite file and on a fresh PostgreSQL database, both empty."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'matches.db'}"
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def db_url(empty_db_url: str) -> str:
    """``empty_db_url`` with the schema made by the migrations."""
    return migrated(empty_db_url)
