"""Runs the Alembic migrations programmatically, and tells where a database stands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text

from elgrande.db.engine import writer

from .tables import metadata

HERE = Path(__file__).parent
_PG_LOCK = 0x456C4772  # advisory lock id: one migrating process at a time


class SchemaError(Exception):
    """The database's schema does not fit this version of the code; the message says
    what to do."""


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(HERE))
    return config


def _scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config())


def heads() -> list[str]:
    """The newest revision(s) this code knows."""
    return list(_scripts().get_heads())


def current(engine: Engine) -> str | None:
    """The database's revision (None: an empty database, never migrated)."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def _refuse_unknown(revision: str | None) -> None:
    known = {script.revision for script in _scripts().walk_revisions()}
    if revision is not None and revision not in known:
        raise SchemaError(
            f"the database is at schema revision {revision}, which this version of El "
            "Grande does not know: a newer version has upgraded it. Run that version, or "
            "restore a backup taken before the upgrade.")


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the database to ``revision``, in one transaction that other processes
    starting at the same time wait for. Refuses a database newer than the code."""
    _refuse_unknown(current(engine))
    config = alembic_config()
    with writer(engine).begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _PG_LOCK})
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def require_current(engine: Engine) -> None:
    """Raise SchemaError unless the database is exactly at this code's head (for a
    server that must not migrate by itself)."""
    found = current(engine)
    _refuse_unknown(found)
    if found not in heads():
        raise SchemaError(
            f"the database is at schema revision {found or '(none: empty)'}, this version "
            f"needs {', '.join(heads())}: run `elgrande db upgrade` first.")


def check(engine: Engine) -> list[Any]:
    """Differences between the database and the tables the code declares (empty: they
    agree). Raises SchemaError when the database is not at the head revision."""
    require_current(engine)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return list(compare_metadata(context, metadata))
