"""``install(app, settings)``: joins a web app to the other server processes.

- pub/sub: with ``ELGRANDE_PUBSUB_URL=redis://...`` (or ``settings.pubsub_url``) the
  store's broker is relayed through Redis; after Redis comes back, pages of matches
  that moved meanwhile are told to refresh;
- computer seats: the bot runner plays only moves whose lease it holds, and a sweeper
  picks up bot moves whose process died.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import timedelta
from typing import Any

from fastapi import FastAPI
from sqlalchemy import select

from elgrande.db.models import MatchRow
from elgrande.matches.pubsub import MatchEvent

from .bots import BotSweeper, LeasedGames
from .leases import BotLeases, utcnow
from .pubsub import RedisBroker, make_broker, relay

log = logging.getLogger(__name__)


def pubsub_url(settings: Any) -> str | None:
    return getattr(settings, "pubsub_url", None) or os.environ.get("ELGRANDE_PUBSUB_URL") or None


def refresh_recent(store: Any, broker: RedisBroker, margin: float = 10.0) -> Callable[[], None]:
    """A reconnect callback: matches changed since Redis went away (less a margin) get a
    local "commit" event, so their pages fetch a fresh view."""

    def refresh() -> None:
        since = (broker.lost_at or utcnow()) - timedelta(seconds=margin)
        with store.engine.connect() as conn:
            rows = conn.execute(select(MatchRow.id, MatchRow.head_seq)
                                .where(MatchRow.updated_at >= since)).all()
        for match_id, seq in rows:
            store.broker.publish(MatchEvent(match_id, seq, "commit"))

    return refresh


def install(app: FastAPI, settings: Any) -> None:
    if getattr(app.state, "scaled", False):
        return
    app.state.scaled = True
    services = app.state.services
    store = services.games.store
    stoppers: list[Callable[[], None]] = []
    starters: list[Callable[[], None]] = []

    url = pubsub_url(settings)
    if url:
        broker = store.broker if isinstance(store.broker, RedisBroker) else make_broker(url)
        if isinstance(broker, RedisBroker):
            if broker is not store.broker:
                stoppers.append(relay(store.broker, broker))
            broker.on_reconnect(refresh_recent(store, broker))
            # A seat's draft changes reach only the processes with a page of that seat.
            services.hub.on_open.append(broker.watch)
            services.hub.on_close.append(broker.unwatch)
            starters.append(broker.start)
            stoppers.append(broker.close)

    ttl = float(os.environ.get("ELGRANDE_BOT_LEASE_SECONDS", "15"))
    leases = BotLeases(services.engine, ttl=ttl)
    services.bots.games = LeasedGames(services.bots.games, leases)
    sweeper = BotSweeper(services.engine, services.bots.kick, interval=max(1.0, ttl / 3),
                         stale=ttl)
    app.state.bot_leases, app.state.bot_sweeper = leases, sweeper
    starters += [leases.start, sweeper.start]
    stoppers += [sweeper.stop, leases.stop]

    inner: Callable[[Any], AbstractAsyncContextManager[Any]] = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(application: Any) -> AsyncIterator[Any]:
        async with inner(application) as state:
            for start in starters:
                start()
            try:
                yield state
            finally:
                for stop in stoppers:
                    try:
                        stop()
                    except Exception:
                        log.warning("scale shutdown step failed", exc_info=True)

    app.router.lifespan_context = lifespan
