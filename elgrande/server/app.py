"""The app factory: `create_app(settings)` builds one FastAPI application."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import bootstrap
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from sqlalchemy import Engine
from sqlalchemy.orm import sessionmaker

from elgrande.db.engine import make_engine, writer
from elgrande.matches import MatchEvent, MatchStore

from .accounts import Accounts
from .games import Games
from .live import BotRunner, Change, Hub
from .security import Signer
from .settings import Settings

HERE = Path(__file__).parent
BOOTSTRAP_DIR = Path(bootstrap.__path__[0])


@dataclass
class Services:
    settings: Settings
    engine: Engine
    accounts: Accounts
    games: Games
    hub: Hub
    bots: BotRunner
    signer: Signer
    templates: Jinja2Templates


def build_services(settings: Settings) -> Services:
    engine = make_engine(settings.database_url)
    store = MatchStore(engine=engine)  # runs the migrations, ours (0002_web) included
    # Writes begin IMMEDIATE on SQLite, so concurrent writers queue instead of failing.
    sessions = sessionmaker(writer(engine), expire_on_commit=False)
    reads = sessionmaker(engine, expire_on_commit=False)
    hub = Hub()
    games = Games(sessions, store, reads)
    bots = BotRunner(games, settings.bot_delay,
                     processes=settings.bot_processes or min(4, os.cpu_count() or 1))

    def on_match_event(event: MatchEvent) -> None:
        # Runs in the committing thread: only hand the news on.
        hub.publish(f"match:{event.match_id}", event.seat if event.kind == "draft" else None,
                    Change(event.seq, event.drafts))
        if event.kind != "draft":
            game_id = games.bot_game(event.match_id)
            if game_id is not None:
                bots.kick(game_id)

    store.broker.subscribe(on_match_event)
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    return Services(settings, engine, Accounts(sessions, reads), games, hub, bots, Signer(settings.secret_key), templates)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    services = build_services(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        services.hub.loop = loop
        services.bots.loop = loop
        # Bots that were due to move when the server last stopped move now.
        for game_id in services.games.active_ids():
            services.bots.kick(game_id)
        yield
        await services.bots.close()
        services.engine.dispose()

    app = FastAPI(
        title="El Grande online",
        description="Play El Grande in the browser. The HTTP API below drives games; "
        "live updates come over the WebSocket /ws/games/{game_id}.",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.services = services
    app.mount("/static/bootstrap", StaticFiles(directory=str(BOOTSTRAP_DIR)), name="bootstrap")
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    from . import api, pages, ws

    app.include_router(pages.router)
    app.include_router(api.router)
    app.include_router(ws.router)
    # Several processes: Redis pub/sub (ELGRANDE_PUBSUB_URL), bot-move leases (docs/deploy.md).
    from elgrande.scale import install as install_scale

    install_scale(app, settings)
    # Security headers (strict CSP), size bounds, login rate limits, log redaction.
    from .hardening import install as install_hardening

    install_hardening(app, settings)
    return app
