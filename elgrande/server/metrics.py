"""Prometheus metrics of one server process (prometheus-client), served on a port of
their own (``metrics_host``:``metrics_port``, 127.0.0.1 by default, 0: off), never on the
public one. Each app has its own registry (tests build many apps in one process).

Counted: players' commands by kind and their latency, refusals by code (``Play`` is
handed the metrics), commits (the broker's events, so bot turns count too), how long bot
moves wait for a worker (the ``BotRunner``); sampled when scraped: open game sockets,
bot moves waiting for a worker, the database pool's checked-out connections and size.
The metrics are always kept; they are served only when ``metrics_port`` is set."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from sqlalchemy import Engine

from elgrande.matches import MatchEvent

from .errors import PlayError
from .hardening.errors import DATABASE_UNAVAILABLE

log = logging.getLogger(__name__)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.commands = Counter("elgrande_commands", "Players' commands, by kind",
                                ["kind"], registry=r)
        self.errors = Counter("elgrande_command_errors", "Commands refused or failed, by "
                              "error code", ["code"], registry=r)
        self.latency = Histogram("elgrande_command_seconds", "Time to carry out a command",
                                 ["kind"], registry=r,
                                 buckets=(.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10))
        self.commits = Counter("elgrande_commits", "Turns committed (players' and bots')",
                               registry=r)
        self.sockets = Gauge("elgrande_open_sockets", "Open game WebSockets", registry=r)
        self.bot_queue = Gauge("elgrande_bot_queue", "Bot moves waiting for a worker",
                               registry=r)
        self.bot_wait = Histogram("elgrande_bot_wait_seconds", "Time a bot move waited for "
                                  "a worker", registry=r,
                                  buckets=(.01, .05, .1, .5, 1, 2.5, 5, 10, 30, 60))
        self.pool_checked_out = Gauge("elgrande_db_pool_checked_out",
                                      "Database connections in use", registry=r)
        self.pool_size = Gauge("elgrande_db_pool_size", "Database pool size", registry=r)
        self._server: Any = None

    def watch(self, *, sockets: Callable[[], float], bot_queue: Callable[[], float],
              engine: Engine) -> None:
        """Values read at each scrape."""
        self.sockets.set_function(sockets)
        self.bot_queue.set_function(bot_queue)
        pool = engine.pool
        # Pools without a fixed size (SQLite's NullPool, StaticPool) report 0.
        self.pool_checked_out.set_function(lambda: float(getattr(pool, "checkedout", int)()))
        self.pool_size.set_function(lambda: float(getattr(pool, "size", int)()))

    @contextmanager
    def command(self, kind: str) -> Iterator[None]:
        """Counts and times one player's command, and its refusal by code (the database
        being away counts as "unavailable")."""
        self.commands.labels(kind).inc()
        started = time.perf_counter()
        try:
            yield
        except PlayError as exc:
            self.errors.labels(exc.code).inc()
            raise
        except DATABASE_UNAVAILABLE:
            self.errors.labels("unavailable").inc()
            raise
        finally:
            self.latency.labels(kind).observe(time.perf_counter() - started)

    def on_event(self, event: MatchEvent) -> None:
        if event.kind in ("commit", "created"):
            self.commits.inc()

    def start(self, host: str, port: int) -> None:
        """Serves the metrics; a port in use costs the metrics, not the game server."""
        try:
            self._server, _thread = start_http_server(port, addr=host, registry=self.registry)
        except OSError as exc:
            log.error("metrics not served: cannot listen on %s:%d: %s", host, port,
                      exc.strerror or exc)
            return
        log.info("metrics at http://%s:%d/metrics", host, self._server.server_port)

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    @property
    def port(self) -> int | None:
        return None if self._server is None else int(self._server.server_port)
