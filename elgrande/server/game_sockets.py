"""Game pages' WebSockets taken straight from uvicorn's connection: a few kilobytes an
open page, where the ASGI path holds tens.

An open game page holds its socket for as long as it is open, mostly idle. Through the
ASGI interface each one holds uvicorn's protocol with its message queue and the request's
scope, a task running the app, the suspended frames of every layer it came through and a
second task waiting for the game's changes: about 41 KB (docs/bench.md, "Capacity").
Here a page is this protocol object, the WebSocket parser of ``websockets`` (the sans-I/O
layer uvicorn itself uses) and its ``GamePage``; nothing waits while it is idle: its
messages and its game's changes each start a task that ends when they are answered.

uvicorn is told to use it for WebSockets (``elgrande serve`` does; by hand ``uvicorn
--ws elgrande.server.game_sockets:GameSocketProtocol ...``). It serves ``/ws/games/<id>``
of the app whose lifespan put its services in the lifespan state (``STATE_KEY``, see
``app.create_app``); every other WebSocket (``/ws/me``, another app's) it hands to
uvicorn's own sans-I/O protocol, untouched. What a page is sent and how its messages are
answered is ``page.GamePage``, as on the ASGI path (``ws.py``); the checks the ASGI path
gets from its middleware are made here the same way: the request id (logs.py), the
language (i18n), the same-origin check, the bound on ids and on a message's size
(hardening), the open sockets per address (socket_counts.py), the client address behind
a trusted proxy (uvicorn's ``ProxyHeadersMiddleware``, as configured).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import itertools
import logging
import re
import weakref
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import cookie_parser
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

from .hardening.errors import DATABASE_UNAVAILABLE, database_problem
from .hardening.middleware import HUGE_NUMBER
from .i18n.catalogs import LOCALES, PSEUDO
from .i18n.context import set_current
from .i18n.negotiate import header_language
from .logs import HEADER, choose_id, request_id
from .page import (
    NO_SUCH_GAME,
    TOO_MANY_SOCKETS,
    TRY_AGAIN_LATER,
    GamePage,
    Opening,
    _json,
    opening,
    same_origin,
)
from .security import SESSION_COOKIE
from .socket_counts import admit, release

if TYPE_CHECKING:
    from .app import Services

log = logging.getLogger(__name__)

#: uvicorn's ``ws`` setting (``--ws``) that serves game pages with this module.
GAME_SOCKETS = "elgrande.server.game_sockets:GameSocketProtocol"
GAME_PATH = re.compile(r"/ws/games/(\d+)")
#: The key of the app's ``Services`` in its lifespan state.
STATE_KEY = "elgrande"
#: Messages of one page waiting to be answered before its socket stops reading (as
#: uvicorn's own protocol reads one message ahead of the app).
INBOX_LIMIT = 8
GOING_AWAY = 1012  # the server is restarting
INTERNAL_ERROR = 1011


class _Gone(Exception):
    """The page's socket is closed or closing: nothing more can be sent."""


class GameSocketProtocol(asyncio.Protocol):
    """One WebSocket connection, as uvicorn's WebSocket protocols are made: uvicorn's
    HTTP protocol hands it the upgrade request (``data_received``) and the transport."""

    __slots__ = ("config", "server_state", "app_state", "loop", "transport", "ws", "other",
                 "page", "context", "inbox", "parts", "text", "answering", "refreshing",
                 "writable", "counted", "closed", "heard", "pinged", "messages")

    def __init__(self, config: Any, server_state: Any, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.config = config
        self.server_state = server_state
        self.app_state = app_state
        self.loop = _loop or asyncio.get_event_loop()
        self.transport: asyncio.Transport | None = None
        self.ws: ServerProtocol | None = None  # the WebSocket, once the handshake is ours
        self.other: asyncio.Protocol | None = None  # uvicorn's, for any other WebSocket
        self.page: GamePage | None = None
        self.context: contextvars.Context | None = None  # the connection's request id, language
        self.inbox: list[str | None] = []  # messages waiting for the page (None: not text)
        self.parts: list[bytes] = []  # a message arriving in several frames
        self.text = True  # whether that message is text
        self.answering: asyncio.Task[None] | None = None  # the task answering the inbox
        self.refreshing: asyncio.Task[None] | None = None  # the task sending the changes
        self.writable: asyncio.Future[None] | None = None  # while the send buffer is full
        self.counted: tuple[Any, str] | None = None  # (socket counts, address) admitted
        self.closed = False
        self.heard = True  # something came from the client since the last keepalive round
        self.pinged = False  # a keepalive ping is waiting for its pong
        self.messages = itertools.count(1)

    # -- uvicorn's side --------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.server_state.connections.add(self)

    def data_received(self, data: bytes) -> None:
        if self.other is not None:
            self.other.data_received(data)
        elif self.ws is None:
            self._handshake(data)  # the first call: the upgrade request as uvicorn read it
        elif not self.closed:
            self.ws.receive_data(data)
            self.heard, self.pinged = True, False
            for event in _taken(self.ws.events):
                if isinstance(event, Frame):
                    self._frame(event)
            self._flush()

    def eof_received(self) -> bool | None:
        if self.other is not None:
            return self.other.eof_received()
        if self.ws is not None:
            self.ws.receive_eof()
            self._flush()
        return None

    def pause_writing(self) -> None:
        if self.other is not None:
            self.other.pause_writing()
        elif self.writable is None:
            self.writable = self.loop.create_future()

    def resume_writing(self) -> None:
        if self.other is not None:
            self.other.resume_writing()
        else:
            self._writable()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.other is not None:
            self.other.connection_lost(exc)
            _let_go(getattr(self.other, "conn", None))  # (uvicorn's protocol holds it there)
            return
        self.closed = True
        _let_go(self.ws)
        self.server_state.connections.discard(self)
        keepalive = _KEEPALIVES.get(self.loop)
        if keepalive is not None:
            keepalive.discard(self)
        self._writable()  # (a sender waiting for the buffer learns that it is gone)
        for task in (self.answering, self.refreshing):
            if task is not None:
                task.cancel()
        if self.page is not None:
            self.page.unsubscribe()
            self.page = None
        if self.counted is not None:
            counts, address = self.counted
            self.counted = None
            if counts.waits:  # (Redis: in a thread)
                self.loop.create_task(release(counts, address))
            else:
                counts.release(address)

    def shutdown(self) -> None:
        """uvicorn is stopping: the page is told (1012) and will reconnect."""
        if self.other is not None:
            self.other.shutdown()  # type: ignore[attr-defined]
            return
        if self.ws is not None and self.page is not None and not self.closed:
            self._close(GOING_AWAY, "server restarting")
        if self.transport is not None:
            self.transport.close()

    # -- the handshake ---------------------------------------------------------------

    def _handshake(self, data: bytes) -> None:
        services: Services | None = self.app_state.get(STATE_KEY)
        extensions = [ServerPerMessageDeflateFactory(
            server_max_window_bits=12, client_max_window_bits=12,
            compress_settings={"memLevel": 5})] if self.config.ws_per_message_deflate else []
        # The handshake is parsed by a protocol of its own: websockets' parser keeps the
        # request it parsed (its headers) for as long as the connection lives.
        ws = ServerProtocol(extensions=extensions, max_size=self.config.ws_max_size,
                            logger=log)
        ws.receive_data(data)
        events = ws.events_received()
        request = events[0] if events and isinstance(events[0], Request) else None
        path = request.path.partition("?")[0] if request is not None else ""
        found = GAME_PATH.fullmatch(path)
        if services is None or found is None:
            _let_go(ws)  # (uvicorn's protocol parses the request again)
            self._hand_over(data)
            return
        self.ws = ws
        assert request is not None
        context = contextvars.copy_context()
        context.run(_enter, request, services)
        self.context = context
        self.loop.create_task(self._open(services, request, path, int(found.group(1))),
                              context=context.copy())

    def _hand_over(self, data: bytes) -> None:
        """Any other WebSocket: uvicorn's own protocol takes the connection as it was."""
        self.server_state.connections.discard(self)
        other = WebSocketsSansIOProtocol(config=self.config, server_state=self.server_state,
                                         app_state=self.app_state, _loop=self.loop)
        self.other = other
        assert self.transport is not None
        other.connection_made(self.transport)
        other.data_received(data)

    async def _open(self, svc: Services, request: Request, path: str, game_id: int) -> None:
        try:
            await self._serve(svc, request, path, game_id)
        except _Gone:
            pass
        except DATABASE_UNAVAILABLE as exc:  # before the page was served: it retries later
            log.warning("database unavailable for a game socket: %s", database_problem(exc))
            if self.ws is not None and self.ws.state is State.CONNECTING:
                self._accept(request)  # so that the close code reaches the page
            self._close(TRY_AGAIN_LATER, "database unavailable")
        except Exception:
            log.exception("a game socket failed")
            if self.ws is not None and self.ws.state is State.CONNECTING:
                self._reject(500, "internal error")
            else:
                self._close(INTERNAL_ERROR, "internal error")

    async def _serve(self, svc: Services, request: Request, path: str, game_id: int) -> None:
        headers = request.headers
        if not same_origin(_first(headers, "Origin"), _first(headers, "Host")):
            # Another site's page gets nothing (as on the ASGI path: the handshake fails).
            self._reject(403, "cross-origin connection refused")
            return
        if HUGE_NUMBER.search(path):  # no game's id is that long
            self._accept(request)
            self._close(NO_SUCH_GAME, "no such game")
            return
        address = await self._client_address(request)
        counts = svc.sockets
        if counts is not None:
            if not await admit(counts, address):
                # Accepted only to be closed: a close code and reason reach the client.
                self._accept(request)
                self._close(TOO_MANY_SOCKETS, f"too many connections from your address "
                                              f"(at most {counts.limit})")
                return
            if self.closed:  # gone while it was counted (with Redis, in a thread)
                await release(counts, address)
                return
            self.counted = (counts, address)
        cookie = cookie_parser("; ".join(headers.get_all("Cookie"))).get(SESSION_COOKIE)
        # The session the page opened with: each command checks it still holds.
        session = svc.signer.session(cookie)
        # In a worker thread: the user is read from the database, never on the event loop.
        opened: Opening = await run_in_threadpool(opening, svc, game_id, session)
        if self.closed:
            return
        self._accept(request)
        if opened.game is None:
            # Accepted first, so that the page learns why (the ASGI path cannot tell it).
            self._close(NO_SUCH_GAME, "no such game")
            return
        page = GamePage(svc, opened.game, opened.user, opened.seat, session, self, address)
        self.page = page
        page.subscribe(self._changed)
        if self.config.ws_ping_interval:
            _keepalive(self).add(self)
        await page.start()
        self._answer()  # what the page sent meanwhile

    async def _client_address(self, request: Request) -> str:
        """The client's address as the ASGI path sees it (behind a trusted proxy: the
        address it forwarded, if uvicorn is told to trust it)."""
        assert self.transport is not None
        peer = self.transport.get_extra_info("peername")
        scope: dict[str, Any] = {
            "type": "websocket", "client": (str(peer[0]), int(peer[1])) if peer else None,
            "headers": [(name.lower().encode("latin-1"), value.encode("latin-1"))
                        for name, value in request.headers.raw_items()]}
        if self.config.proxy_headers:
            await _proxy_headers(self.config.forwarded_allow_ips)(
                scope, None, None)  # type: ignore[arg-type]
        client = scope.get("client")
        return str(client[0]) if client else "unknown"

    def _accept(self, request: Request) -> None:
        handshake = self.ws
        assert handshake is not None
        response = handshake.accept(request)
        response.headers[HEADER.decode()] = request_id.get()
        handshake.send_response(response)
        self._flush()
        if response.status_code != 101:  # not a valid handshake: websockets said why
            self._abort()
            return
        # The frames from here on: a protocol that starts open, with the handshake's
        # extensions (the handshake's, holding the request, is let go).
        ws = ServerProtocol(state=State.OPEN, max_size=self.config.ws_max_size, logger=log)
        ws.extensions = handshake.extensions
        self.ws = ws
        _let_go(handshake)

    def _reject(self, status: int, text: str) -> None:
        assert self.ws is not None
        self.ws.send_response(self.ws.reject(status, text))
        self._flush()
        self._abort()

    # -- frames ----------------------------------------------------------------------

    def _frame(self, frame: Frame) -> None:
        opcode = frame.opcode
        if opcode is Opcode.TEXT or opcode is Opcode.BINARY:
            self.text, self.parts = opcode is Opcode.TEXT, [bytes(frame.data)]
        elif opcode is Opcode.CONT:
            self.parts.append(bytes(frame.data))
        else:
            return  # ping (answered by the parser), pong (heard), close (replied to)
        if not frame.fin:
            return
        data, self.parts = b"".join(self.parts), []
        if not self.text:
            self.inbox.append(None)
        else:
            try:
                self.inbox.append(data.decode())
            except UnicodeDecodeError:
                self._close(1007, "invalid UTF-8")
                return
        if len(self.inbox) >= INBOX_LIMIT and self.transport is not None:
            self.transport.pause_reading()  # a page that sends faster than it is answered
        self._answer()

    def _answer(self) -> None:
        """A task answers the waiting messages, in order, if none does yet."""
        if self.page is not None and self.inbox and self.answering is None and not self.closed:
            assert self.context is not None
            self.answering = self.loop.create_task(self._answer_inbox(),
                                                   context=self.context.copy())

    async def _answer_inbox(self) -> None:
        page, limit = self.page, self.app_state[STATE_KEY].settings.max_ws_message
        assert page is not None
        connection_id = request_id.get()
        try:
            while self.inbox and not self.closed:
                text = self.inbox.pop(0)
                if len(self.inbox) == INBOX_LIMIT - 1 and self.transport is not None:
                    self.transport.resume_reading()
                # Each message's log lines carry the connection's request id and its number.
                request_id.set(f"{connection_id}.{next(self.messages)}")
                if text is None:
                    await self.send(_json({"type": "error", "code": "bad_request",
                                           "message": "messages must be text"}))
                elif len(text) > limit and len(text.encode()) > limit:
                    # Dropped before the page sees it (the hardening's bound): say why.
                    await self.send(_json({
                        "type": "error", "code": "too_large",
                        "message": f"message too large ({len(text.encode())} bytes; "
                                   f"at most {limit})"}))
                elif not await page.receive(text):
                    return
        except _Gone:
            pass
        except Exception:
            log.exception("a game page's message failed")
            self._close(INTERNAL_ERROR, "internal error")
        finally:
            self.answering = None
        self._answer()  # (a message that came while the last one was finishing)

    def _changed(self) -> None:
        """The page's game changed (on the event loop): a task sends the page its share,
        if none does yet (changes coming meanwhile go out together)."""
        if self.refreshing is None and not self.closed and self.page is not None:
            assert self.context is not None
            self.refreshing = self.loop.create_task(self._refresh(),
                                                    context=self.context.copy())

    async def _refresh(self) -> None:
        page = self.page
        try:
            while page is not None and page.subscription is not None and not self.closed:
                changes = page.subscription.take()
                if not changes:
                    break
                await page.refresh(changes)
        except _Gone:
            pass
        except Exception:
            log.exception("a game page's refresh failed")
            self._close(INTERNAL_ERROR, "internal error")
        finally:
            self.refreshing = None

    # -- the page's channel ------------------------------------------------------------

    async def send(self, text: str) -> None:
        """``page.Channel``: a message to the page (waits while the client reads slowly)."""
        if self.closed or self.ws is None:
            raise _Gone
        try:
            self.ws.send_text(text.encode())
        except InvalidState:  # closing
            raise _Gone from None
        self._flush()
        while self.writable is not None and not self.closed:
            await asyncio.shield(self.writable)
        if self.closed:
            raise _Gone

    async def close(self, code: int, reason: str) -> None:
        """``page.Channel``."""
        self._close(code, reason)

    def _close(self, code: int, reason: str) -> None:
        """Starts the closing handshake (the client answers; then the connection ends)."""
        if self.ws is None or self.closed:
            return
        try:
            self.ws.send_close(code, reason)
        except InvalidState:  # closing already
            return
        self._flush()
        if self.transport is not None:
            # A client that does not answer the close is not waited for long.
            self.loop.call_later(10.0, self._abort)

    def _flush(self) -> None:
        assert self.ws is not None and self.transport is not None
        for data in _taken(self.ws.writes):
            if data:
                self.transport.write(data)
            else:  # the WebSocket is closed: so is the connection
                self.transport.close()

    def _abort(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def _writable(self) -> None:
        waiter, self.writable = self.writable, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def keepalive(self) -> None:
        """One round of the keepalive (``Keepalive``): a ping to a page that has been
        quiet since the last round; closed if the last ping had no answer."""
        if self.closed or self.ws is None:
            return
        if self.pinged:
            log.info("a game page did not answer the keepalive ping: closing it")
            self._close(INTERNAL_ERROR, "keepalive ping timeout")
            self._abort()
        elif not self.heard:
            try:
                self.ws.send_ping(b"")
            except InvalidState:
                return
            self._flush()
            self.pinged = True
        self.heard = False


# Held sockets and the garbage collector. A server holding thousands of mostly idle pages
# keeps their protocols in the collector's oldest generation; whatever new object such a
# protocol keeps past a young collection is promoted, and the middle and full collections
# that walk the promoted objects stop every page (docs/bench.md, "Capacity"). Two habits
# of websockets' sans-I/O protocol did that with every message, keepalive pongs included.


def _taken(pending: list[Any]) -> list[Any]:
    """The events or writes waiting in a websockets protocol (``events``, ``writes``),
    taken in place. Its ``events_received()`` and ``data_to_send()`` replace the list
    with a new one, which lives until the next message and so is promoted each time."""
    if not pending:
        return []
    taken = pending.copy()
    pending.clear()
    return taken


def _let_go(ws: ServerProtocol | None) -> None:
    """Ends the parser of a websockets protocol that reads nothing more (the handshake's,
    once the open one takes over; a connection's, once it is lost). The parser is a
    generator holding its protocol, a reference cycle: left running, a protocol let go
    waits for the collector, usually in the oldest generation, where only a full
    collection frees it. Ended, it is freed at once, with the request it parsed."""
    if ws is not None:
        ws.parser.close()


def _first(headers: Any, name: str) -> str | None:
    """A header's first value (a request may repeat one)."""
    found = headers.get_all(name)
    return str(found[0]) if found else None


def _enter(request: Request, svc: Services) -> None:
    """The connection's context: its request id (from its header, else a new one) and
    its language (its ``lang`` cookie, else Accept-Language), as the ASGI path's
    middleware sets them."""
    headers = [(name.lower(), value) for name, value in request.headers.raw_items()]
    request_id.set(choose_id([(name.encode("latin-1"), value.encode("latin-1"))
                              for name, value in headers]))
    allowed = LOCALES + ((PSEUDO,) if svc.settings.pseudo_locale else ())
    set_current(header_language(headers, allowed))


async def _as_seen(scope: Any, receive: Any, send: Any) -> None:
    """(What the proxy-headers middleware hands on: the scope it changed in place.)"""


@functools.lru_cache(maxsize=8)
def _trusting(hosts: tuple[str, ...] | str) -> ProxyHeadersMiddleware:
    return ProxyHeadersMiddleware(_as_seen, list(hosts) if isinstance(hosts, tuple) else hosts)


def _proxy_headers(hosts: list[str] | str) -> ProxyHeadersMiddleware:
    """uvicorn's middleware trusting ``hosts``, made once: it sets a scope's client from
    X-Forwarded-For when the peer is trusted."""
    return _trusting(tuple(hosts) if isinstance(hosts, list) else hosts)


class Keepalive:
    """The game pages of one event loop, each pinged when quiet for a round (uvicorn's
    ping interval): one timer for all of them, not one each."""

    def __init__(self, loop: asyncio.AbstractEventLoop, interval: float) -> None:
        self.loop = loop
        self.interval = interval
        self.pages: set[GameSocketProtocol] = set()
        self.timer: asyncio.TimerHandle | None = None

    def add(self, page: GameSocketProtocol) -> None:
        self.pages.add(page)
        if self.timer is None:
            self.timer = self.loop.call_later(self.interval, self._round)

    def discard(self, page: GameSocketProtocol) -> None:
        self.pages.discard(page)

    def _round(self) -> None:
        self.timer = None
        for page in list(self.pages):
            page.keepalive()
        if self.pages:
            self.timer = self.loop.call_later(self.interval, self._round)


_KEEPALIVES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Keepalive] = \
    weakref.WeakKeyDictionary()


def _keepalive(page: GameSocketProtocol) -> Keepalive:
    found = _KEEPALIVES.get(page.loop)
    if found is None:
        found = _KEEPALIVES[page.loop] = Keepalive(page.loop,
                                                   float(page.config.ws_ping_interval or 20))
    return found
