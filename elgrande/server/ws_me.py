"""The WebSocket of every page of a logged-in player, ``/ws/me``: "your turn" notices
for all of their games (``alerts.py``; the page's side is ``static/js/notify.js``).

Server -> client: first {"type": "waiting", "games": [3, 7]} (the games waiting for the
player's move, so nothing is missed while a page was away), then
{"type": "turn", "game": 7, "your_turn": true | false} whenever that changes. The client
sends nothing. Closed with 4401 when the session is not (or no longer) valid, 4403
from another origin, 4429 when the address or the user has too many open.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from fastapi.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnected, WebSocketState

from .alerts import Alerts, Notice
from .hardening.errors import DATABASE_UNAVAILABLE, database_problem
from .hardening.limits import client_address
from .socket_counts import SocketCounts, admit, release
from .tables import User
from .web import current_user, services
from .ws import LOGGED_OUT, TOO_MANY_SOCKETS, TRY_AGAIN_LATER, _same_origin

router = APIRouter()
log = logging.getLogger(__name__)


@router.websocket("/ws/me")
async def my_socket(websocket: WebSocket) -> None:
    if not _same_origin(websocket):
        await websocket.close(code=4403, reason="cross-origin connection refused")
        return
    sockets: SocketCounts | None = getattr(websocket.app.state, "ws_clients", None)
    address = client_address(websocket.scope)
    # In a worker thread: with Redis, the count is over every process.
    if sockets is not None and not await admit(sockets, address):
        await _refuse(websocket, TOO_MANY_SOCKETS, f"too many connections from your address "
                      f"(at most {sockets.limit})")
        return
    try:
        await _my_socket(websocket)
    except DATABASE_UNAVAILABLE as exc:  # the page tries again later
        log.warning("database unavailable for a notice socket: %s", database_problem(exc))
        with contextlib.suppress(Exception):  # the socket may be gone already
            await _refuse(websocket, TRY_AGAIN_LATER, "database unavailable")
    finally:
        if sockets is not None:
            await release(sockets, address)


async def _refuse(websocket: WebSocket, code: int, reason: str) -> None:
    # Accepted only to be closed: a close code and reason reach the client.
    if websocket.application_state == WebSocketState.CONNECTING:
        await websocket.accept()
    await websocket.close(code=code, reason=reason)


async def _my_socket(websocket: WebSocket) -> None:
    user = await run_in_threadpool(current_user, websocket)
    if user is None:
        await _refuse(websocket, LOGGED_OUT, "log in first")
        return
    alerts: Alerts = services(websocket).alerts
    if not await admit(alerts.pages, str(user.id)):
        await _refuse(websocket, TOO_MANY_SOCKETS, f"too many open pages for your account "
                      f"(at most {alerts.pages.limit})")
        return
    # Subscribed before the list is read: a turn that comes meanwhile is not lost.
    queue = alerts.open(user.id)
    pusher: asyncio.Task[None] | None = None
    try:
        await websocket.accept()
        games = await run_in_threadpool(alerts.waiting, user)
        await websocket.send_json({"type": "waiting", "games": games})
        pusher = asyncio.create_task(_push(websocket, user, queue))
        while True:  # the client sends nothing: this only notices the page going away
            await websocket.receive_text()
    # (Disconnected: the page went while another task of this socket was sending.)
    except (WebSocketDisconnect, WebSocketDisconnected):
        pass
    finally:
        alerts.close(user.id, queue)
        await release(alerts.pages, str(user.id))
        if pusher is not None:
            pusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pusher


async def _push(websocket: WebSocket, user: User, queue: asyncio.Queue[Notice]) -> None:
    while True:
        notice = await queue.get()
        # Logged out (or out everywhere) since the page opened: the channel ends too.
        try:
            now = await run_in_threadpool(current_user, websocket)
        except DATABASE_UNAVAILABLE as exc:  # this notice is lost; a reconnect catches up
            log.warning("database unavailable for a notice: %s", database_problem(exc))
            continue
        if now is None or now.id != user.id:
            await websocket.close(code=LOGGED_OUT, reason="logged out")
            return
        await websocket.send_json(notice)
