"""The game page's WebSocket through the ASGI app (``/ws/games/<id>``, served by
ws_path.py before the app's routing): for every ASGI server and for the tests' clients.
``elgrande serve`` takes these sockets from uvicorn's connection itself instead
(``game_sockets.py``). What a page is sent and how its messages are answered is
``page.GamePage``, the same for both (the protocol is described there)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging

from fastapi import WebSocket, WebSocketDisconnect
from fastapi.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnected, WebSocketState

from .hardening.errors import DATABASE_UNAVAILABLE, database_problem
from .hardening.limits import client_address
from .logs import request_id
from .page import (
    LOGGED_OUT,
    NO_SUCH_GAME,
    TOO_MANY_SOCKETS,
    TRY_AGAIN_LATER,
    GamePage,
    Opening,
    opening,
    same_origin,
)
from .security import SESSION_COOKIE
from .socket_counts import SocketCounts, admit, release
from .web import services

log = logging.getLogger(__name__)

__all__ = ["LOGGED_OUT", "TOO_MANY_SOCKETS", "TRY_AGAIN_LATER", "game_socket", "_same_origin"]


def _same_origin(websocket: WebSocket) -> bool:
    """Browsers send cookies with cross-site WebSocket handshakes; refuse other origins."""
    return same_origin(websocket.headers.get("origin"), websocket.headers.get("host"))


class _AsgiChannel:
    """A page's messages through the ASGI app's WebSocket."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket

    async def send(self, text: str) -> None:
        await self.websocket.send_text(text)

    async def close(self, code: int, reason: str) -> None:
        await self.websocket.close(code=code, reason=reason)


async def game_socket(websocket: WebSocket, game_id: int) -> None:
    """/ws/games/<game_id>."""
    if not _same_origin(websocket):
        await websocket.close(code=4403, reason="cross-origin connection refused")
        return
    sockets: SocketCounts | None = getattr(websocket.app.state, "ws_clients", None)
    address = client_address(websocket.scope)
    # In a worker thread: with Redis, the count is over every process.
    if sockets is not None and not await admit(sockets, address):
        # Accepted only to be closed: a close code and reason reach the client.
        await websocket.accept()
        await websocket.close(code=TOO_MANY_SOCKETS,
                              reason=f"too many connections from your address "
                              f"(at most {sockets.limit})")
        return
    try:
        await _game_socket(websocket, game_id, address)
    except DATABASE_UNAVAILABLE as exc:  # before the page was served: it retries later
        log.warning("database unavailable for a game socket: %s", database_problem(exc))
        with contextlib.suppress(Exception):  # the socket may be gone already
            if websocket.application_state == WebSocketState.CONNECTING:
                await websocket.accept()  # so that the close code reaches the page
            await websocket.close(code=TRY_AGAIN_LATER, reason="database unavailable")
    finally:
        if sockets is not None:
            await release(sockets, address)


async def _game_socket(websocket: WebSocket, game_id: int, address: str) -> None:
    svc = services(websocket)
    # The session the page opened with: each command checks it still holds.
    session = svc.signer.session(websocket.cookies.get(SESSION_COOKIE))
    # In a worker thread: the user is read from the database, never on the event loop.
    opened: Opening = await run_in_threadpool(opening, svc, game_id, session)
    if opened.game is None:
        await websocket.close(code=NO_SUCH_GAME, reason="no such game")
        return
    await websocket.accept()
    page = GamePage(svc, opened.game, opened.user, opened.seat, session,
                    _AsgiChannel(websocket), address)
    sub = page.subscribe()

    async def pump() -> None:
        while True:
            await page.refresh(await sub.changes())

    pusher = asyncio.create_task(pump())
    try:
        await page.start()
        connection_id = request_id.get()
        for number in itertools.count(1):
            text = await websocket.receive_text()
            # Each message's log lines carry the connection's request id and its number.
            request_id.set(f"{connection_id}.{number}")
            if not await page.receive(text):
                return
    # (Disconnected: the page went while another task of this socket was sending.)
    except (WebSocketDisconnect, WebSocketDisconnected):
        pass
    finally:
        pusher.cancel()
        # (a pusher that was sending when the page went away ended with the disconnect)
        with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect,
                                 WebSocketDisconnected):
            await pusher
        page.unsubscribe()
