"""Runs the Alembic migrations programmatically (at start-up and in tests)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text

from .engine import writer

MIGRATIONS = Path(__file__).parent / "migrations"
_PG_LOCK = 0x456C4772  # advisory lock id: one migrating process at a time


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def heads() -> list[str]:
    return list(ScriptDirectory.from_config(alembic_config()).get_heads())


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the database to ``revision``, in one transaction that other processes
    starting at the same time wait for."""
    config = alembic_config()
    with writer(engine).begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _PG_LOCK})
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
