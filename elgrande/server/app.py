"""The composition root: ``create_app(settings)`` builds every part of a server from one
``Settings`` and hands each part what it needs. Nothing is patched afterwards.

One process (no ``pubsub_url``): an in-process broker, every bot move made here.
Several processes (``pubsub_url=redis://...``): a Redis broker between them, bot
moves claimed through leases in the database, a sweeper that takes over the moves of
a process that died, and rate limits counted in Redis. Redis is imported only then.

The database must have the current schema (``elgrande db upgrade``; ``serve`` and
``elgrande.asgi`` run it at start): the app itself never migrates."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import bootstrap
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

import elgrande
from elgrande.ai.coach import TOP_LEVEL, Budget
from elgrande.db.engine import WriteLock, make_engine, write_lock, writer
from elgrande.matches import Broker, InProcessBroker, MatchEvent, MatchStore

from .accounts import Accounts
from .alerts import Alerts
from .bot_runner import BotGate, BotRunner, LocalBotGate
from .bots import BOT_LEVELS, level_name
from .chat import Chat, ChatLimits
from .clocks import ClockKeeper, ClockThread, Due
from .clocks.rules import duration
from .farewell import leave_games
from .game_sockets import STATE_KEY as GAME_SOCKETS_KEY
from .hardening import Limits, harden, make_limiter, make_limiters
from .i18n import LanguageMiddleware
from .i18n import jinja as i18n_jinja
from .live import Change, Hub, PageHook
from .lobby import Lobby
from .lobby_caps import LobbyCaps
from .logs import RequestIdMiddleware
from .mail import Mailer
from .metrics import Metrics
from .moderation import Moderation
from .play import Play
from .profiles import PageLimits, Profiles
from .ratings import CatchUp, Ratings
from .reviews import DAY, ReviewQuota, Reviews
from .seat_views import SeatViews
from .seats import Sweeper
from .security import Signer
from .settings import Settings
from .socket_counts import LocalSocketCounts, SocketCounts
from .tables import utcnow
from .threads import Threads
from .veto import VetoWatch

HERE = Path(__file__).parent
RESULTS_CATCH_UP_SECONDS = 600.0  # between two looks for finished games left unrecorded
BOOTSTRAP_DIR = Path(bootstrap.__path__[0])


@dataclass
class Services:
    """Everything a request handler may use (``app.state.services``)."""

    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]  # writes (BEGIN IMMEDIATE on SQLite)
    store: MatchStore
    accounts: Accounts
    lobby: Lobby
    views: SeatViews
    play: Play
    hub: Hub
    bots: BotRunner
    signer: Signer
    templates: Jinja2Templates
    alerts: Alerts  # "your turn" notices for every open page of a player
    clocks: ClockKeeper  # turn clocks of clocked games (server/clocks/)
    clock_thread: ClockThread
    chat: Chat  # the table chat (server/chat.py)
    moderation: Moderation  # reports, mutes, bans, renames (server/moderation.py)
    # Background parts started and stopped with the app, in order (stopped in reverse).
    starters: list[Callable[[], None]] = field(default_factory=list)
    stoppers: list[Callable[[], None]] = field(default_factory=list)
    mail: Mailer | None = None  # email notifications; None without smtp_host
    # Open WebSockets per client address (game pages and notice channels)
    sockets: SocketCounts = field(default_factory=lambda: LocalSocketCounts(0))
    # Results and ratings of finished games, and the pages that show them
    # (server/ratings.py, server/profiles.py, docs/ratings.md)
    ratings: Ratings | None = None
    profiles: Profiles | None = None
    page_limits: PageLimits | None = None
    # Veto windows of box-rule tables: "no veto" choices, the windows' own wait
    # (server/veto.py)
    veto: VetoWatch | None = None
    # The coach's reviews, judged in the bot workers behind every game move
    # (server/reviews.py, docs/coach.md)
    reviews: Reviews | None = None
    # Worker threads: the pages' pool and the games' own (server/threads.py)
    threads: Threads = field(default_factory=lambda: Threads(8))


def build_services(settings: Settings, now: Callable[[], datetime] = utcnow) -> Services:
    """``now``: the clock of the turn clocks and sweeps (tests inject their own)."""
    engine = make_engine(settings.database_url, sqlite_sync=settings.sqlite_sync)
    starters: list[Callable[[], None]] = []
    stoppers: list[Callable[[], None]] = []
    broker: Broker
    page_hooks: tuple[tuple[PageHook, ...], tuple[PageHook, ...]] = ((), ())
    gate: BotGate = LocalBotGate()
    # Open sockets per client address and per user: this process's, or all processes'.
    per_client: SocketCounts = LocalSocketCounts(settings.ws_per_client)
    per_user: SocketCounts = LocalSocketCounts(settings.alert_sockets_per_user)
    if settings.pubsub_url:
        from elgrande.scale.leases import BotLeases, Identity
        from elgrande.scale.pubsub import RedisBroker, refresh_after_outage

        from .bot_sweeper import BotSweeper

        redis_broker = RedisBroker(settings.pubsub_url)
        redis_broker.on_reconnect(refresh_after_outage(engine, redis_broker))
        # A seat's draft changes reach only the processes with a page of that seat.
        page_hooks = ((redis_broker.watch,), (redis_broker.unwatch,))
        starters.append(redis_broker.start)
        stoppers.append(redis_broker.close)
        broker = redis_broker
        ttl = settings.bot_lease_seconds
        # A lasting name: after a restart this process takes its predecessor's leases.
        identity = Identity(settings.secret_file.parent, settings.instance_name)
        stoppers.append(identity.close)
        leases = BotLeases(engine, owner=identity.owner, ttl=ttl)
        per_client, per_user = _shared_socket_counts(settings, identity.owner, starters,
                                                     stoppers)
        gate = leases
        starters.append(leases.start)
        stoppers.append(leases.stop)
    else:
        broker = InProcessBroker()

    store = MatchStore(engine=engine, broker=broker, clock=now)
    sessions = sessionmaker(writer(engine), expire_on_commit=False)
    reads = sessionmaker(engine, expire_on_commit=False)
    hub = Hub(on_open=page_hooks[0], on_close=page_hooks[1])
    lobby = Lobby(sessions, reads, store, LobbyCaps.from_settings(settings),
                  settings.secret_key,
                  # Each finished game's result is recorded (and rated) once.
                  on_finished=lambda game_id: ratings.on_finished(game_id))
    views = SeatViews(lobby, store)
    metrics = Metrics()
    clocks = ClockKeeper(
        sessions, reads, lobby, store, now,
        # Every process's pages are told, through the broker (as commits are).
        on_change=lambda game_id, match_id, seq: store.broker.publish(
            MatchEvent(match_id, seq, "clocks")),
        on_due=lambda game_id: bots.kick(game_id),
        on_timeout=lambda due: _clock_mail(mail, "timeout", due),
        on_remind=lambda due: _clock_mail(mail, "reminder", due))
    ratings = Ratings(sessions, reads, store, lobby.seats, away=clocks.away_seats)
    catch_up = CatchUp(ratings, RESULTS_CATCH_UP_SECONDS)  # what a crash left unrecorded
    starters.append(catch_up.start)
    stoppers.append(catch_up.stop)
    play = Play(store, lobby, views, metrics, sessions=sessions,
                stand_in_level=settings.stand_in_level, clocks=clocks)
    bots = BotRunner(lobby, play, gate, settings.bot_delay,
                     processes=settings.bot_processes or min(4, os.cpu_count() or 1),
                     per_user=settings.bot_thinks_per_user, metrics=metrics)
    if settings.pubsub_url:
        sweeper = BotSweeper(engine, bots.kick, interval=max(1.0, settings.bot_lease_seconds / 3),
                             stale=settings.bot_lease_seconds)
        starters.append(sweeper.start)
        stoppers.append(sweeper.stop)

    def on_match_event(event: MatchEvent) -> None:
        # Runs in the committing thread: only hand the news on.
        if event.kind in ("clocks", "chat", "veto"):
            hub.publish(f"match:{event.match_id}", None,
                        Change(clocks=event.kind == "clocks", chat=event.kind == "chat",
                               veto=event.kind == "veto"))
            return
        hub.publish(f"match:{event.match_id}", event.seat if event.kind == "draft" else None,
                    Change(event.seq, event.drafts, draft=event.kind == "draft"))
        alerts.on_event(event)  # "your turn" for the players' other pages
        if event.kind != "draft":
            game_id = lobby.bot_game(event.match_id)
            if game_id is not None:
                bots.kick(game_id)

    chat = Chat(sessions, reads, ChatLimits(make_limiter(60.0, settings.pubsub_url),
                                            settings.chat_lines_per_minute,
                                            settings.chat_lines_per_client), now,
                on_line=lambda game_id: _chat_line(store, lobby, game_id))
    moderation = Moderation(sessions, reads, now,
                            on_ban=lambda user: leave_games(services, user),
                            on_cancel=lambda game_id: _game_changed(hub, lobby, clocks, game_id))
    alerts = Alerts(lobby, store, per_user)
    # The keeper first: a page told of a clocks change must not read its old copy.
    store.broker.subscribe(clocks.on_event)  # notes the commit; its thread settles it
    store.broker.subscribe(on_match_event)
    # Veto windows: a holder's "no veto" and the window's own wait, on the keeper's thread.
    veto = VetoWatch(sessions, reads, lobby, store, now, settings.veto_window_seconds,
                     play.pass_for, wake=clocks.wake, away=clocks.away_seats,
                     on_change=lambda match_id: store.broker.publish(
                         MatchEvent(match_id, -1, "veto")))
    store.broker.subscribe(veto.on_event)
    play.veto = veto  # a window the holder's own step opens is answered by Play
    clock_thread = ClockThread(clocks, now, settings.clock_wake_seconds, veto=veto)
    starters.append(clock_thread.start)
    stoppers.append(clock_thread.stop)
    # Waiting games that expire and idle guests' games, looked for in the background
    # (every process may: the updates are conditional, so twice is harmless).
    expiry = Sweeper(sessions, now, waiting=timedelta(days=settings.waiting_game_days),
                     idle_guest=timedelta(days=settings.idle_guest_game_days),
                     idle_solo=timedelta(days=settings.idle_solo_game_days),
                     interval=settings.expiry_sweep_seconds,
                     on_change=lambda game_id: _game_changed(hub, lobby, clocks, game_id),
                     absent=lambda at: clocks.absent_games(
                         at, timedelta(days=settings.away_abandon_days)))
    starters.append(expiry.start)
    stoppers.append(expiry.stop)
    mail = _mailer(settings, sessions, reads, lobby, store)
    if mail is not None:
        store.broker.subscribe(mail.on_event)  # notes the commit; its thread does the rest
        starters.append(mail.start)
        stoppers.append(mail.stop)
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.filters["duration"] = duration
    i18n_jinja.install(templates.env)  # _(), {% trans %}, number and date filters
    templates.env.globals.update(level_name=level_name, computer_levels=BOT_LEVELS[1:])
    accounts = Accounts.from_settings(settings, sessions, reads)
    stoppers.append(accounts.close)
    services = Services(settings, engine, sessions, store, accounts, lobby, views,
                        play, hub, bots, Signer(settings.secret_key), templates, alerts,
                        clocks, clock_thread, chat, moderation, starters, stoppers[::-1],
                        mail=mail, sockets=per_client, ratings=ratings,
                        profiles=Profiles(reads, lobby),
                        page_limits=PageLimits(make_limiter(60.0, settings.pubsub_url),
                                               settings.profile_pages_per_minute),
                        veto=veto,
                        reviews=Reviews(sessions, reads, lobby, store, bots,
                                        ReviewQuota(make_limiter(DAY, settings.pubsub_url),
                                                    settings.coach_reviews_per_day),
                                        Budget(settings.coach_level or TOP_LEVEL,
                                               settings.coach_playouts), now),
                        threads=Threads(settings.page_threads, _game_work_on_loop(
                            settings, engine)))
    return services


def _game_work_on_loop(settings: Settings, engine: Engine) -> WriteLock | None:
    """The write lock of the database when games' work may run on the event loop (an
    SQLite file, one process: ``game_work``), else None."""
    if settings.game_work != "auto" or settings.pubsub_url:
        return None
    return write_lock(engine)


def _chat_line(store: MatchStore, lobby: Lobby, game_id: int) -> None:
    """A chat line was written: every process's pages of the game are told."""
    game = lobby.get(game_id)
    if game is not None and game.match_id is not None:
        store.broker.publish(MatchEvent(game.match_id, -1, "chat"))


def _clock_mail(mail: Mailer | None, kind: str, due: Due) -> None:
    if mail is not None:
        mail.clock_notice(kind, due.game_id, due.user_id, due.deadline)


def _game_changed(hub: Hub, lobby: Lobby, clocks: ClockKeeper, game_id: int) -> None:
    """A sweep changed a game: its clocks stop, its waiting room and pages are told."""
    clocks.settle(game_id, force=True)
    hub.publish(f"room:{game_id}")
    game = lobby.get(game_id)
    if game is not None and game.match_id is not None:
        hub.publish(f"match:{game.match_id}")


def _shared_socket_counts(settings: Settings, process: str, starters: list[Callable[[], None]],
                          stoppers: list[Callable[[], None]]) -> tuple[SocketCounts, SocketCounts]:
    """Open sockets per client address and per user, counted over every process in Redis."""
    from elgrande.scale.sockets import SharedSocketCounts

    counts = tuple(SharedSocketCounts(settings.pubsub_url or "", name, limit, process=process,
                                      ttl=settings.socket_count_seconds)
                   for name, limit in (("client", settings.ws_per_client),
                                       ("user", settings.alert_sockets_per_user)))
    for shared in counts:
        starters.append(shared.start)
        stoppers.append(shared.stop)
    return counts[0], counts[1]


def _mailer(settings: Settings, sessions: sessionmaker[Session], reads: sessionmaker[Session],
            lobby: Lobby, store: MatchStore) -> Mailer | None:
    """Email notifications (server/mail/), when an SMTP server is configured."""
    if not settings.smtp_host:
        return None
    from datetime import UTC, datetime

    from .mail.outbox import Outbox
    from .mail.sender import SmtpSender
    from .mail.tokens import MailTokens

    sender = SmtpSender(settings.smtp_host, settings.smtp_port, settings.smtp_user,
                        settings.smtp_password, settings.smtp_starttls, settings.mail_from)
    outbox = Outbox(sessions, sender, lambda: datetime.now(UTC), settings.mail_max_tries)
    return Mailer(sessions, reads, lobby, store, MailTokens(settings.secret_key), outbox,
                  settings.base_url, settings.confirmation_mails_per_day)


def create_app(settings: Settings, now: Callable[[], datetime] = utcnow) -> FastAPI:
    services = build_services(settings, now)
    sockets = services.sockets
    metrics = _serve_metrics(services, sockets)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
        loop = asyncio.get_running_loop()
        services.threads.start()
        services.hub.loop = loop
        services.alerts.loop = loop
        services.bots.loop = loop
        for start in services.starters:
            start()
        # Starts and endings a crash cut short are finished before anything is served.
        services.lobby.recover()
        # Bots that were due to move when the server last stopped move now.
        for game_id in services.lobby.active_ids():
            services.bots.kick(game_id)
        try:
            # The lifespan state: uvicorn hands it to its WebSocket protocols, and
            # game_sockets.py serves the game pages' sockets with these services.
            yield {GAME_SOCKETS_KEY: services}
        finally:
            await services.bots.close()
            for stop in services.stoppers:
                stop()
            services.engine.dispose()

    app = FastAPI(
        title="El Grande online",
        description="Play El Grande in the browser. The HTTP API below drives games; "
        "live updates come over the WebSocket /ws/games/{game_id}.",
        version=elgrande.__version__,
        lifespan=lifespan,
    )
    app.state.services = services
    app.state.ws_clients = sockets
    app.state.metrics = metrics
    app.state.readiness = _readiness(services)
    app.mount("/static/bootstrap", StaticFiles(directory=str(BOOTSTRAP_DIR)), name="bootstrap")
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    from . import (
        account_pages,
        admin_pages,
        api,
        chat_pages,
        health,
        language_pages,
        pages,
        player_pages,
        review_api,
        ws_me,
    )
    from .ws_path import GameSocketPath

    app.include_router(health.router)
    app.include_router(pages.router)
    app.include_router(player_pages.router)  # ranking, profiles, "My games", play again
    app.include_router(api.router)
    app.include_router(review_api.router)  # the coach's reviews
    app.include_router(ws_me.router)
    app.include_router(account_pages.router)
    app.include_router(chat_pages.router)
    app.include_router(admin_pages.router)
    app.include_router(language_pages.router)  # the header's switch, the scripts' catalogs
    # Security headers (strict CSP), size bounds, rate limits, log redaction.
    limits = Limits.from_settings(settings)
    harden(app, limits=limits, limiters=make_limiters(limits, settings.pubsub_url),
           hsts=settings.secure_cookies, secrets=[settings.secret_key, settings.smtp_password])
    # The language of each request and socket (cookie, else Accept-Language).
    app.add_middleware(LanguageMiddleware, pseudo=settings.pseudo_locale)
    # HEAD wherever GET is answered; the request id outermost, so every answer has one.
    app.add_middleware(health.HeadAsGet)
    app.add_middleware(RequestIdMiddleware)
    # Outermost: a game page's socket skips the stack above (ws_path.py).
    app.add_middleware(GameSocketPath, limits=limits, pseudo=settings.pseudo_locale)
    return app


def _serve_metrics(services: Services, sockets: SocketCounts) -> Metrics | None:
    """The metrics, served from the app's start to its stop when a port is set
    (docs/deploy.md)."""
    settings = services.settings
    if not settings.metrics_port:
        return None
    metrics = services.play.metrics
    # Read in the scrape's thread: list() copies in one step while the loop changes them.
    metrics.watch(sockets=lambda: float(sum(list(sockets.open.values()))),
                  bot_queue=lambda: float(services.bots.queued()), engine=services.engine)
    services.store.broker.subscribe(metrics.on_event)
    services.starters.append(lambda: metrics.start(settings.metrics_host, settings.metrics_port))
    services.stoppers.insert(0, metrics.stop)
    return metrics


def _readiness(services: Services) -> dict[str, Callable[[], None]]:
    from .health import database_check, redis_check

    checks = {"database": database_check(services.engine)}
    if services.settings.pubsub_url:
        checks["redis"] = redis_check(services.settings.pubsub_url)
    return checks
