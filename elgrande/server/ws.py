"""The WebSocket of an open game page: pushes the seat's view after every change and
takes the same commands as the HTTP API.

Client -> server: {"type": "step", "action": "p1 bid 7", "seq": 12},
{"type": "undo" | "redo" | "finish", "seq": 12}, {"type": "sync"}.
A message may carry an integer "id"; the state sent in answer carries it as "ack".
Server -> client: {"type": "state", "state": {...}, "ack": id?}, {"type": "lobby"} (the game has not
started; the page reloads when it does), and {"type": "error", "code", "message"}
followed by a fresh state; in a clocked game {"type": "clocks", "clocks": {...}} after
the first state, after each sync and whenever the clocks change; the table chat:
{"type": "chat", "lines": [...], "may_write"} (the lines new to the page: after the
first state if there are any, and whenever a line is written); at a box-rules table
{"type": "veto", "veto": {"no_veto": [...], "window_deadline", ...}} after each state
change (server/veto.py); {"type": "chat_ok", "ack"} for the page's own
line (client: {"type": "chat", "text": "..."}). A state may carry "log_from": k, and then its "log" holds only
the lines after the first k lines of the log the connection received last (the public
log only grows; a connection gets the whole log first, and whenever a secret is pending). Only "something changed" travels between connections; each
connection then builds its own seat's view, so nothing secret is broadcast.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from dataclasses import dataclass
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect
from fastapi.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnected, WebSocketState

from .chat import ChatRefused
from .commands import Command, parse_command
from .errors import PlayError
from .hardening.errors import DATABASE_UNAVAILABLE, UNAVAILABLE_MESSAGE, database_problem
from .hardening.limits import client_address
from .i18n import _
from .live import Change
from .logs import request_id
from .seat_views import to_json, view_key
from .security import SESSION_COOKIE
from .socket_counts import SocketCounts, admit, release
from .web import current_user, services

log = logging.getLogger(__name__)

MAX_MESSAGE = 2000
# Close codes: too many sockets from one address; the database is away (try again later).
TOO_MANY_SOCKETS = 4429
TRY_AGAIN_LATER = 1013
LOGGED_OUT = 4401


def _same_origin(websocket: WebSocket) -> bool:
    """Browsers send cookies with cross-site WebSocket handshakes; refuse other origins."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True  # not a browser
    return origin.split("://", 1)[-1] == websocket.headers.get("host", "")


_UNREAD = object()  # (send_clocks: nothing read yet)


async def game_socket(websocket: WebSocket, game_id: int) -> None:
    """/ws/games/<game_id> (served by ws_path.py, before the app's routing)."""
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
        await _game_socket(websocket, game_id)
    except DATABASE_UNAVAILABLE as exc:  # before the page was served: it retries later
        log.warning("database unavailable for a game socket: %s", database_problem(exc))
        with contextlib.suppress(Exception):  # the socket may be gone already
            if websocket.application_state == WebSocketState.CONNECTING:
                await websocket.accept()  # so that the close code reaches the page
            await websocket.close(code=TRY_AGAIN_LATER, reason="database unavailable")
    finally:
        if sockets is not None:
            await release(sockets, address)


async def _game_socket(websocket: WebSocket, game_id: int) -> None:
    svc = services(websocket)
    game, user, seat = await run_in_threadpool(_opening, websocket, game_id)
    # The session the page opened with: each command checks it still holds.
    session = svc.signer.session(websocket.cookies.get(SESSION_COOKIE))
    if game is None:
        await websocket.close(code=4404, reason="no such game")
        return
    await websocket.accept()
    topic = f"match:{game.match_id}" if game.match_id else f"room:{game_id}"
    sub = svc.hub.subscribe(topic, seat)

    last_sent: list[Any] = [None]  # the key of the view this page has now
    log_lines: list[int | None] = [None]  # lines of the public move log the page holds
    sending = asyncio.Lock()  # one view at a time, in order
    # Set while none of this page's commands is being carried out. The draft change a
    # command makes reaches its page as a notice too, and would go out as a state just
    # before the command's answer, the same state again: the pump waits for the answer
    # then, and has nothing left to send (any other change goes out at once).
    answered = asyncio.Event()
    answered.set()

    async def send_state(ack: Any = None, shown: Any = None, *, answer: bool = True,
                         change: Change | None = None) -> None:
        """Sends the seat's view (``answer``: to a message of the page's). A change
        notice (not an answer) that brings nothing new to this page (its own command's
        answer went out already) sends nothing, and a view never goes out after a later
        one (a command's answer overtaken by another's commit)."""
        if game.match_id is None:
            await websocket.send_json({"type": "lobby"})
            return
        async with sending:
            last = last_sent[0]
            version = change.version_of(seat) if change is not None else None
            if shown is None and change is not None and change.seq is not None and version is not None:
                # The notice says what the view is made of: nothing to do if the page
                # has it, no database read if this process made it or holds its parts.
                key = view_key(game.match_id, seat, change.seq, version)
                if key == last:
                    return
                shown = svc.views.remembered_state(game, seat, change.seq, version) or (
                    await svc.threads.play(svc.views.seat_state, game, seat))
            if shown is None or (last is not None and shown.key[2] < last[2]):
                shown = await svc.threads.play(svc.views.seat_state, game, seat)
            # The page keeps the public move log: send only its new lines.
            text = shown.text_after(log_lines[0])
            if isinstance(ack, int) and not isinstance(ack, bool):
                await websocket.send_text(f'{{"type":"state","ack":{ack},"state":{text}}}')
            elif answer or shown.key != last:
                await websocket.send_text(f'{{"type":"state","state":{text}}}')
            else:
                return
            last_sent[0] = shown.key
            log_lines[0] = len(shown.log.lines) if shown.log.public else None

    async def send_clocks(read: Any = _UNREAD) -> None:
        """The game's clocks (public: remaining time, who is away), if it has any
        (``read``: as just read, None for none)."""
        if game.match_id is None or (read is _UNREAD
                                     and svc.clocks.known_unclocked(game.match_id)):
            return
        clocks = read if read is not _UNREAD else (
            svc.clocks.public_known(game_id) or await svc.threads.play(_clocks_of, svc, game))
        if clocks is not None:
            await websocket.send_text(to_json({"type": "clocks", "clocks": clocks}))

    async def send_veto() -> None:
        """Box rules: whose "no veto" holds and the open window's deadline (public)."""
        if game.match_id is None or svc.veto is None or getattr(game, "rules", None) != "box":
            return
        veto = await svc.threads.play(svc.veto.public, game_id)
        if veto is not None:
            await websocket.send_text(to_json({"type": "veto", "veto": veto}))

    chat_seen = [0]  # the newest chat line this page has
    reads_chat = game.match_id is not None and svc.chat.may_read(game, seat)

    async def send_chat(read: list[dict[str, Any]] | None = None) -> None:
        """The chat lines this page has not had (none if it may not read the chat;
        ``read``: as just read)."""
        if not reads_chat:
            return
        lines = read if read is not None else await run_in_threadpool(
            svc.chat.lines, game_id, user.id if user else None, chat_seen[0])
        if lines:  # (a game without chat lines sends none: the page shows the form)
            await websocket.send_text(to_json({"type": "chat", "lines": lines,
                                               "may_write": seat is not None}))
            chat_seen[0] = max(line["id"] for line in lines)

    async def pump() -> None:
        while True:
            changes = await sub.changes()  # (several at once: one refresh)
            moves = [c for c in changes if not (c.clocks or c.chat or c.veto)]
            if moves and all(c.draft for c in moves):
                await answered.wait()
            try:
                if moves:
                    await send_state(answer=False, change=moves[-1])
                if moves or any(c.veto for c in changes):
                    await send_veto()
                if any(c.clocks for c in changes):
                    await send_clocks()
                if any(c.chat for c in changes):
                    await send_chat()
            except DATABASE_UNAVAILABLE as exc:  # the next change or sync catches up
                log.warning("database unavailable for a page update: %s", database_problem(exc))

    pusher = asyncio.create_task(pump())
    try:
        # What a page gets first, read in one worker-thread hop (after subscribing: no
        # change between the reading and the subscription is missed).
        first = (await run_in_threadpool(_first_parts, svc, game, seat, user, reads_chat)
                 if game.match_id is not None else None)
        await send_state(shown=first.shown if first else None)
        if first is not None:  # (after: this page has its state, the others get theirs)
            svc.hub.opened_at(topic, first.shown.key[2])
        try:
            if first is None or first.complete:
                await send_clocks(first.clocks if first else _UNREAD)
                await send_veto()
                await send_chat(first.chat if first else None)
        except DATABASE_UNAVAILABLE as exc:
            # The page has its state: the socket stays (these come with the next change
            # or sync), as it does when the database goes away later.
            log.warning("database unavailable for a page's extras: %s", database_problem(exc))
        connection_id = request_id.get()
        for number in itertools.count(1):
            text = await websocket.receive_text()
            # Each message's log lines carry the connection's request id and its number.
            request_id.set(f"{connection_id}.{number}")
            ack, command, error = _parse(text)
            try:
                if isinstance(command, ChatLine):
                    await _chat(websocket, svc, game, user, seat, session, command.text, ack)
                    continue
                if command == "sync":
                    await send_state(ack)
                    await send_clocks()
                    await send_veto()
                    continue
                shown = None
                answered.clear()
                try:
                    if error is None and isinstance(command, Command):
                        try:
                            shown, error = await _command(svc, game, seat, session, command)
                        except _LoggedOut:
                            # Logged out (or out everywhere) since the page opened: this
                            # socket's session is over too.
                            await websocket.close(code=LOGGED_OUT, reason="logged out")
                            return
                    if error is not None:
                        await websocket.send_json({"type": "error", **error.to_dict()})
                        shown = error.shown
                    # The answer to a command: the state after it (or unchanged, after an
                    # error), tagged with the command's id so the page knows its click
                    # has been handled.
                    await send_state(ack, shown)
                finally:
                    answered.set()
            except DATABASE_UNAVAILABLE as exc:
                # The socket stays: the page shows why its move did not take and may
                # send it again (a lost socket would reconnect and drop the move silently).
                log.warning("database unavailable for a game command: %s", database_problem(exc))
                await websocket.send_json({"type": "error", "code": "unavailable",
                                           "message": _(UNAVAILABLE_MESSAGE), "ack": ack})
    # (Disconnected: the page went while another task of this socket was sending.)
    except (WebSocketDisconnect, WebSocketDisconnected):
        pass
    finally:
        pusher.cancel()
        # (a pusher that was sending when the page went away ended with the disconnect)
        with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect,
                                 WebSocketDisconnected):
            await pusher
        svc.hub.unsubscribe(sub)


@dataclass(frozen=True)
class ChatLine:
    """A chat message from the page: {"type": "chat", "text": "..."}."""

    text: str


async def _chat(websocket: WebSocket, svc: Any, game: Any, user: Any, seat: int | None,
                session: tuple[int, int] | None, text: str, ack: Any) -> None:
    """Writes a chat line; the answer is {"type": "chat_ok", "ack"} or an error (the
    line itself reaches every page, this one too, as a "chat" message)."""
    if seat is not None and not await _session_holds(svc, session):
        await websocket.close(code=LOGGED_OUT, reason="logged out")
        return
    try:
        if user is None or game.match_id is None:
            raise ChatRefused("spectator", _("Only the players of this game write in its chat."))
        await run_in_threadpool(svc.chat.post, game, user, seat, text,
                                client_address(websocket.scope))
    except ChatRefused as exc:
        await websocket.send_json({"type": "error", "code": exc.code, "message": str(exc),
                                   "ack": ack})
        return
    await websocket.send_json({"type": "chat_ok", "ack": ack})


def _parse(text: str) -> tuple[Any, Command | ChatLine | str | None, PlayError | None]:
    """(the message's "id", its command, chat line or "sync", None) or (id, None, the
    error)."""
    if len(text) > MAX_MESSAGE:
        return None, None, PlayError("bad_request", "message too long")
    try:
        message = json.loads(text)
    except json.JSONDecodeError:
        return None, None, PlayError("bad_json", "messages must be JSON objects")
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return None, None, PlayError("bad_request", "a message needs a string 'type'")
    ack = message.get("id")
    if message["type"] == "sync":
        return ack, "sync", None
    if message["type"] == "chat":
        if not isinstance(message.get("text"), str):
            return ack, None, PlayError("bad_request", "a chat message needs a string 'text'")
        return ack, ChatLine(message["text"]), None
    try:
        return ack, parse_command(message["type"], message.get("seq"), message.get("action")), None
    except PlayError as exc:
        return ack, None, exc


@dataclass(frozen=True)
class _FirstParts:
    shown: Any  # the seat's view
    clocks: Any = None  # the public clocks, if any
    chat: list[dict[str, Any]] | None = None  # the chat lines (None: not read)
    complete: bool = True  # False: the database went away after the view was read


def _first_parts(svc: Any, game: Any, seat: int | None, user: Any, reads_chat: bool
                 ) -> _FirstParts:
    """A new page's view, the game's clocks and its chat lines, in one worker-thread hop
    (a page reconnecting is common: each hop and read counts)."""
    shown = svc.views.seat_state(game, seat)
    try:
        clocks = _clocks_of(svc, game)
        chat = svc.chat.lines(game.id, user.id if user else None, 0) if reads_chat else None
    except DATABASE_UNAVAILABLE as exc:
        # The page gets its state: the socket stays (the rest comes with the next change
        # or sync), as it does when the database goes away later.
        log.warning("database unavailable for a page's extras: %s", database_problem(exc))
        return _FirstParts(shown, complete=False)
    return _FirstParts(shown, clocks, chat)


def _clocks_of(svc: Any, game: Any) -> dict[str, Any] | None:
    """The game's public clocks; None without a clock (known once per match: a game
    without one is not read again at every page opening)."""
    if game.match_id is None or svc.clocks.clocked_game(game.match_id) is None:
        return None
    found: dict[str, Any] | None = svc.clocks.public_known(game.id) or svc.clocks.public(game.id)
    return found


def _opening(websocket: WebSocket, game_id: int) -> tuple[Any, Any, int | None]:
    """The game, the page's user and seat (in one worker-thread hop: the user is read
    from the database, never on the event loop)."""
    svc = services(websocket)
    game = svc.lobby.get(game_id)
    if game is None:
        return None, None, None
    user = current_user(websocket)
    return game, user, svc.lobby.seat_of(game_id, user.id if user else None)


async def _session_holds(svc: Any, session: tuple[int, int] | None) -> bool:
    """The session the socket was opened with still holds (checked at each command, as
    an HTTP command is)."""
    return session is not None and await run_in_threadpool(svc.accounts.session_holds,
                                                           *session)


class _LoggedOut(Exception):
    """The session a socket was opened with no longer holds."""


async def _command(svc: Any, game: Any, seat: int | None, session: tuple[int, int] | None,
                   command: Command) -> tuple[Any, PlayError | None]:
    """Carries out one command: (the seat's view after it, None), or (None, the
    refusal) when it was refused; _LoggedOut if the page's session ended meanwhile."""
    if seat is None:
        return None, PlayError("spectator", _("spectators cannot act in this game"))
    try:
        shown = await svc.threads.play(_act_in_session, svc, game, seat, session, command)
    except PlayError as exc:
        return None, exc
    return shown, None


def _act_in_session(svc: Any, game: Any, seat: int, session: tuple[int, int] | None,
                    command: Command) -> Any:
    """The command, refused if the page's session no longer holds: checked at each
    command, as an HTTP command is, in the command's own transaction (no connection
    and transaction of its own: a draft step is mostly such overhead)."""
    if session is None:
        raise _LoggedOut

    def check(conn: Any) -> None:
        if not svc.accounts.session_holds_on(conn, *session):
            raise _LoggedOut

    return svc.play.act(game, seat, command, check)
