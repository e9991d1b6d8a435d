"""The ASGI entry point for production servers:
``uvicorn --factory elgrande.asgi:create_app`` (settings from the ELGRANDE_* environment
or a .env file, see docs/deploy.md). Like ``elgrande serve`` it brings the database's
schema up to date first (processes starting together wait for one another), and
refuses a database that a newer version has upgraded."""

from __future__ import annotations

import sys

from fastapi import FastAPI

from elgrande.db.engine import make_engine
from elgrande.migrations import SchemaError, upgrade
from elgrande.server.app import create_app as build_app
from elgrande.server.settings import Settings, SettingsError


def prepare_database(url: str) -> None:
    """Upgrade the schema (raises SchemaError for a database newer than the code)."""
    engine = make_engine(url)
    try:
        upgrade(engine)
    finally:
        engine.dispose()


def create_app() -> FastAPI:
    """A bad setting or schema stops the process with one line (status 2 and 1)."""
    try:
        settings = Settings.load()
    except SettingsError as exc:
        print(f"elgrande: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    try:
        prepare_database(settings.database_url)
    except SchemaError as exc:
        print(f"elgrande: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    return build_app(settings)
