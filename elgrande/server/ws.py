"""The WebSocket of an open game page: pushes the seat's view after every change and
takes the same commands as the HTTP API.

Client -> server: {"type": "step", "action": "p1 bid 7", "seq": 12},
{"type": "undo" | "redo" | "finish", "seq": 12}, {"type": "sync"}.
A message may carry an integer "id"; the state sent in answer carries it as "ack".
Server -> client: {"type": "state", "state": {...}, "ack": id?}, {"type": "lobby"} (the game has not
started; the page reloads when it does), and {"type": "error", "code", "message"}
followed by a fresh state. Only "something changed" travels between connections; each
connection then builds its own seat's view, so nothing secret is broadcast.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from fastapi.concurrency import run_in_threadpool

from .games import PlayError
from .web import current_user, services

router = APIRouter()

COMMANDS = ("step", "undo", "redo", "finish")
MAX_MESSAGE = 2000


def _same_origin(websocket: WebSocket) -> bool:
    """Browsers send cookies with cross-site WebSocket handshakes; refuse other origins."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True  # not a browser
    return origin.split("://", 1)[-1] == websocket.headers.get("host", "")


@router.websocket("/ws/games/{game_id}")
async def game_socket(websocket: WebSocket, game_id: int) -> None:
    svc = services(websocket)
    if not _same_origin(websocket):
        await websocket.close(code=4403, reason="cross-origin connection refused")
        return
    game = await run_in_threadpool(svc.games.get, game_id)
    if game is None:
        await websocket.close(code=4404, reason="no such game")
        return
    user = current_user(websocket)
    seat = await run_in_threadpool(svc.games.seat_of, game_id, user.id if user else None)
    await websocket.accept()
    topic = f"match:{game.match_id}" if game.match_id else f"room:{game_id}"
    sub = svc.hub.subscribe(topic, seat)

    async def send_state(ack: Any = None) -> None:
        if game.match_id is None:
            await websocket.send_json({"type": "lobby"})
            return
        view = await run_in_threadpool(svc.games.snapshot, game, seat)
        message: dict[str, Any] = {"type": "state", "state": view}
        if isinstance(ack, int):
            message["ack"] = ack
        await websocket.send_json(message)

    async def pump() -> None:
        while True:
            await sub.queue.get()
            while not sub.queue.empty():  # several changes at once: one refresh
                sub.queue.get_nowait()
            await send_state()

    pusher = asyncio.create_task(pump())
    try:
        await send_state()
        while True:
            text = await websocket.receive_text()
            message, error = _parse(text)
            ack = message.get("id") if message is not None else None
            if message is not None and message["type"] == "sync":
                await send_state(ack)
                continue
            if error is None and message is not None:
                error = await _command(svc, game, seat, message)
            if error is not None:
                await websocket.send_json({"type": "error", **error})
            # The answer to a command: the state after it (or unchanged, after an error),
            # tagged with the command's id so the page knows its click has been handled.
            await send_state(ack)
    except WebSocketDisconnect:
        pass
    finally:
        pusher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pusher
        svc.hub.unsubscribe(sub)


def _parse(text: str) -> tuple[dict[str, Any] | None, dict[str, str] | None]:
    if len(text) > MAX_MESSAGE:
        return None, {"code": "bad_request", "message": "message too long"}
    try:
        message = json.loads(text)
    except json.JSONDecodeError:
        return None, {"code": "bad_json", "message": "messages must be JSON objects"}
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return None, {"code": "bad_request", "message": "a message needs a string 'type'"}
    kind = message["type"]
    if kind != "sync" and kind not in COMMANDS:
        return None, {"code": "bad_request", "message": f"unknown message type {kind!r}"}
    seq = message.get("seq")
    if seq is not None and (not isinstance(seq, int) or isinstance(seq, bool)):
        return None, {"code": "bad_request", "message": "'seq' must be an integer"}
    if kind == "step" and not isinstance(message.get("action"), str):
        return None, {"code": "bad_request", "message": "a step needs an 'action' string"}
    return message, None


async def _command(svc: Any, game: Any, seat: int | None, message: dict[str, Any]) -> dict[str, str] | None:
    """Carries out one command; an error record, or None when it worked (the change then
    reaches this page through the hub like everyone else's)."""
    if seat is None:
        return {"code": "spectator", "message": "spectators cannot act in this game"}
    try:
        await run_in_threadpool(svc.games.act, game, seat, message["type"], message.get("seq"),
                                message.get("action"))
    except PlayError as exc:
        return {"code": exc.code, "message": exc.message}
    return None
