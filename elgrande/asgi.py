"""An app factory for running several processes before the web app wires these pieces
in itself: ``uvicorn --factory elgrande.scale.asgi:create_app`` (settings from the
ELGRANDE_* environment, see docs/deploy.md)."""

from __future__ import annotations

from fastapi import FastAPI

from elgrande.server import hardening
from elgrande.server.app import create_app as create_web_app
from elgrande.server.settings import Settings

from . import install


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    app = create_web_app(settings)
    hardening.install(app, settings)  # both are no-ops if the app already did it
    install(app, settings)
    return app
