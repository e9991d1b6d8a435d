"""Apps and databases for tests: the schema is made by the migrations, as `elgrande
serve` does at start (neither the app nor a MatchStore migrates by itself)."""

from __future__ import annotations

from typing import Any

from elgrande.asgi import prepare_database
from elgrande.server.app import create_app
from elgrande.server.settings import Settings


def migrated(url: str) -> str:
    """``url``, with its database brought to the current schema."""
    prepare_database(url)
    return url


def app_for(settings: Settings, now: Any = None) -> Any:
    """The app of ``settings`` on a migrated database (``now``: an injected clock)."""
    migrated(settings.database_url)
    return create_app(settings) if now is None else create_app(settings, now)
