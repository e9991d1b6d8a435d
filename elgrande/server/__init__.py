"""The web app: `create_app(settings)` builds it, `elgrande serve` runs it (docs/server.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI

    from .settings import Settings


def create_app(settings: Settings | None = None) -> FastAPI:
    from .app import create_app as factory

    return factory(settings)
