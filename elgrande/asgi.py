"""The ASGI entry point for production servers:
``uvicorn --factory elgrande.asgi:create_app`` (settings from the ELGRANDE_* environment
or a .env file, see docs/deploy.md). Like ``elgrande serve`` it brings the database's
schema up to date first (processes starting together wait for one another), and
refuses a database that a newer version has upgraded."""

from __future__ import annotations

import sqlite3
import sys

from fastapi import FastAPI
from sqlalchemy.exc import SQLAlchemyError

from elgrande.db.engine import make_engine
from elgrande.migrations import SchemaError, upgrade
from elgrande.server.app import create_app as build_app
from elgrande.server.collector import tune_collector
from elgrande.server.hardening.errors import DATABASE_UNAVAILABLE, database_problem
from elgrande.server.logs import configure_logging
from elgrande.server.settings import Settings, SettingsError

# A database that cannot be opened or used at start (missing folder, not a database,
# refused connection, wrong password): one line, no traceback.
STARTUP_DATABASE_ERRORS: tuple[type[Exception], ...] = (
    SQLAlchemyError, sqlite3.Error, *DATABASE_UNAVAILABLE)

# uvicorn's own frame limit (ws_max_size), as a multiple of the app's message limit: a
# message a little too long still gets the app's clear "too_large" answer, a huge one is
# refused (close 1009) before it is read into memory.
WS_FRAME_FACTOR = 4


def ws_frame_limit(settings: Settings) -> int:
    return settings.max_ws_message * WS_FRAME_FACTOR


def database_failure(exc: BaseException) -> str:
    return f"the database cannot be used: {database_problem(exc)}"


def prepare_database(url: str) -> None:
    """Upgrade the schema (raises SchemaError for a database newer than the code)."""
    engine = make_engine(url)
    try:
        upgrade(engine)
    finally:
        engine.dispose()


def create_app() -> FastAPI:
    """A bad setting, schema or database stops the process with one line (status 2, 1
    and 1). Run it with ``--ws-max-size`` (docs/deploy.md): uvicorn's default lets a
    16 MiB frame into memory."""
    try:
        settings = Settings.load()
    except SettingsError as exc:
        print(f"elgrande: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    configure_logging(settings.log_level, settings.log_format)
    tune_collector(settings.gc_young_threshold)  # this process is a server: fewer, not longer, pauses
    try:
        prepare_database(settings.database_url)
        return build_app(settings)
    except SchemaError as exc:
        print(f"elgrande: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    except STARTUP_DATABASE_ERRORS as exc:
        print(f"elgrande: {database_failure(exc)}", file=sys.stderr)
        raise SystemExit(1) from None
