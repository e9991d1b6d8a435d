"""An open game page: what it is sent and how its messages are answered, whatever
carries them. Its WebSocket comes through the ASGI app (``ws.py``, used by every ASGI
server and the tests' clients) or straight from uvicorn's connection (``game_sockets.py``,
which ``elgrande serve`` uses: a few kilobytes an idle page instead of tens); both drive
one ``GamePage`` through a ``Channel``.

The protocol (docs/api.md). Client -> server: {"type": "step", "action": "p1 bid 7",
"seq": 12}, {"type": "undo" | "redo" | "finish", "seq": 12}, {"type": "sync"}. A
message may carry an integer "id"; the state sent in answer carries it as "ack".
Server -> client: {"type": "state", "state": {...}, "ack": id?}, {"type": "lobby"} (the
game has not started; the page reloads when it does), and {"type": "error", "code",
"message"} followed by a fresh state; in a clocked game {"type": "clocks", "clocks":
{...}} after the first state, after each sync and whenever the clocks change; the table
chat: {"type": "chat", "lines": [...], "may_write"} (the lines new to the page: after the
first state if there are any, and whenever a line is written); at a box-rules table
{"type": "veto", "veto": {"no_veto": [...], "window_deadline", ...}} after each state
change (server/veto.py); {"type": "chat_ok", "ack"} for the page's own line (client:
{"type": "chat", "text": "..."}). A state may carry "log_from": k, and then its "log"
holds only the lines after the first k lines of the log the connection received last
(the public log only grows; a connection gets the whole log first, and whenever a
secret is pending). Only "something changed" travels between connections; each
connection then builds its own seat's view, so nothing secret is broadcast.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from starlette.concurrency import run_in_threadpool

from .chat import ChatRefused
from .commands import Command, parse_command
from .errors import PlayError
from .hardening.errors import DATABASE_UNAVAILABLE, UNAVAILABLE_MESSAGE, database_problem
from .i18n import _
from .live import Change, Subscriber
from .seat_views import to_json, view_key
from .tables import Game, User

if TYPE_CHECKING:
    from .app import Services

log = logging.getLogger(__name__)

MAX_MESSAGE = 2000
# Close codes: logged out; no such game; another origin; too many sockets from one
# address; the database is away (try again later).
LOGGED_OUT = 4401
NO_SUCH_GAME = 4404
CROSS_ORIGIN = 4403
TOO_MANY_SOCKETS = 4429
TRY_AGAIN_LATER = 1013


class Channel(Protocol):
    """How a page's messages leave: its socket, whichever server holds it."""

    async def send(self, text: str) -> None: ...

    async def close(self, code: int, reason: str) -> None: ...


def _json(value: Any) -> str:
    """A small message's JSON, as starlette's ``send_json`` writes it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def same_origin(origin: str | None, host: str | None) -> bool:
    """Browsers send cookies with cross-site WebSocket handshakes; refuse other origins
    (no Origin header: not a browser)."""
    if origin is None:
        return True
    return origin.split("://", 1)[-1] == (host or "")


@dataclass(frozen=True)
class Opening:
    """Who opens a page of which game: None for ``game`` when there is no such game."""

    game: Game | None
    user: User | None
    seat: int | None


def opening(svc: Services, game_id: int, session: tuple[int, int] | None) -> Opening:
    """The game, the page's user (from its session, None for a visitor) and seat:
    database reads, so in a worker thread (or on the loop where the database is this
    process's SQLite file)."""
    game = svc.lobby.get(game_id)
    if game is None:
        return Opening(None, None, None)
    game = _shared(game)
    user = user_of(svc, session)
    return Opening(game, user, svc.lobby.seat_of(game_id, user.id if user else None))


# The games the open pages hold, one object per game as read (its pages only read it):
# an ORM object is about 1.5 KB, and a game has a page per seat and spectator.
_PAGE_GAMES: weakref.WeakValueDictionary[tuple[Any, ...], Game] = weakref.WeakValueDictionary()
_PAGE_GAMES_LOCK = threading.Lock()


def _shared(game: Game) -> Game:
    """``game``, or the equal one another open page of it holds (same match, same status)."""
    key = (game.id, game.match_id, game.status, game.rules, game.chat)
    with _PAGE_GAMES_LOCK:
        found = _PAGE_GAMES.get(key)
        if found is None:
            _PAGE_GAMES[key] = found = game
    return found


def user_of(svc: Services, session: tuple[int, int] | None) -> User | None:
    """The user of a valid session of the user's current generation (as ``current_user``
    of web.py, from the session the cookie named)."""
    if session is None:
        return None
    user = svc.accounts.get(session[0])
    if user is None or user.banned_at is not None:  # a ban ends every session for good
        return None
    return user if user.session_generation == session[1] else None


@dataclass(frozen=True)
class ChatLine:
    """A chat message from the page: {"type": "chat", "text": "..."}."""

    text: str


@dataclass(frozen=True)
class _FirstParts:
    shown: Any  # the seat's view
    clocks: Any = None  # the public clocks, if any
    chat: list[dict[str, Any]] | None = None  # the chat lines (None: not read)
    complete: bool = True  # False: the database went away after the view was read


_UNREAD = object()  # (send_clocks: nothing read yet)


class _LoggedOut(Exception):
    """The session a socket was opened with no longer holds."""


class GamePage:
    """One open page of a game: a seat's (``seat``) or a spectator's (None). Its driver
    calls ``start`` once, then ``receive`` for each message in order, and ``refresh``
    with the changes its subscription (``subscription``) collected, at any time; all on
    the event loop."""

    def __init__(self, svc: Services, game: Game, user: User | None, seat: int | None,
                 session: tuple[int, int] | None, channel: Channel, address: str) -> None:
        self.svc = svc
        self.game = game
        self.user_id = user.id if user is not None else None  # (not the whole account)
        self.seat = seat
        self.session = session  # the session the page opened with: checked at each command
        self.channel = channel
        self.address = address
        self.topic = f"match:{game.match_id}" if game.match_id else f"room:{game.id}"
        self.last_sent: Any = None  # the key of the view this page has now
        self.log_lines: int | None = None  # lines of the public move log the page holds
        self.sending = asyncio.Lock()  # one view at a time, in order
        # While one of this page's commands is being carried out: done when it is
        # answered. The draft change a command makes reaches its page as a notice too,
        # and would go out as a state just before the command's answer, the same state
        # again: a refresh waits for the answer then, and has nothing left to send (any
        # other change goes out at once). (A future only while needed: most pages idle.)
        self.answering: asyncio.Future[None] | None = None
        self.chat_seen = 0  # the newest chat line this page has
        self.reads_chat = game.match_id is not None and svc.chat.may_read(game, seat)
        self.subscription: Subscriber | None = None

    def subscribe(self, wake: Any = None) -> Subscriber:
        """The page's subscription to its game's changes (before its first state is read,
        so no change between the reading and the subscription is missed); ``wake``: called
        on the event loop when a change arrives (else the driver waits in ``changes()``)."""
        self.subscription = self.svc.hub.subscribe(self.topic, self.seat, wake)
        return self.subscription

    def unsubscribe(self) -> None:
        if self.subscription is not None:
            self.svc.hub.unsubscribe(self.subscription)
            self.subscription = None

    # -- the first state -------------------------------------------------------------

    async def start(self) -> None:
        """What a page gets first, read in one worker-thread hop."""
        game, svc = self.game, self.svc
        first = (await run_in_threadpool(_first_parts, svc, game, self.seat, self.user_id,
                                         self.reads_chat)
                 if game.match_id is not None else None)
        await self.send_state(shown=first.shown if first else None)
        if first is not None:  # (after: this page has its state, the others get theirs)
            svc.hub.opened_at(self.topic, first.shown.key[2])
        try:
            if first is None or first.complete:
                await self.send_clocks(first.clocks if first else _UNREAD)
                await self.send_veto()
                await self.send_chat(first.chat if first else None)
        except DATABASE_UNAVAILABLE as exc:
            # The page has its state: the socket stays (these come with the next change
            # or sync), as it does when the database goes away later.
            log.warning("database unavailable for a page's extras: %s", database_problem(exc))

    # -- what is sent ----------------------------------------------------------------

    async def send_state(self, ack: Any = None, shown: Any = None, *, answer: bool = True,
                         change: Change | None = None) -> None:
        """Sends the seat's view (``answer``: to a message of the page's). A change
        notice (not an answer) that brings nothing new to this page (its own command's
        answer went out already) sends nothing, and a view never goes out after a later
        one (a command's answer overtaken by another's commit)."""
        game, seat, svc = self.game, self.seat, self.svc
        if game.match_id is None:
            await self.channel.send('{"type":"lobby"}')
            return
        async with self.sending:
            last = self.last_sent
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
            text = shown.text_after(self.log_lines)
            if isinstance(ack, int) and not isinstance(ack, bool):
                await self.channel.send(f'{{"type":"state","ack":{ack},"state":{text}}}')
            elif answer or shown.key != last:
                await self.channel.send(f'{{"type":"state","state":{text}}}')
            else:
                return
            self.last_sent = shown.key
            self.log_lines = len(shown.log.lines) if shown.log.public else None

    async def send_clocks(self, read: Any = _UNREAD) -> None:
        """The game's clocks (public: remaining time, who is away), if it has any
        (``read``: as just read, None for none)."""
        game, svc = self.game, self.svc
        if game.match_id is None or (read is _UNREAD
                                     and svc.clocks.known_unclocked(game.match_id)):
            return
        clocks = read if read is not _UNREAD else (
            svc.clocks.public_known(game.id) or await svc.threads.play(_clocks_of, svc, game))
        if clocks is not None:
            await self.channel.send(to_json({"type": "clocks", "clocks": clocks}))

    async def send_veto(self) -> None:
        """Box rules: whose "no veto" holds and the open window's deadline (public)."""
        game, svc = self.game, self.svc
        if game.match_id is None or svc.veto is None or getattr(game, "rules", None) != "box":
            return
        veto = await svc.threads.play(svc.veto.public, game.id)
        if veto is not None:
            await self.channel.send(to_json({"type": "veto", "veto": veto}))

    async def send_chat(self, read: list[dict[str, Any]] | None = None) -> None:
        """The chat lines this page has not had (none if it may not read the chat;
        ``read``: as just read)."""
        if not self.reads_chat:
            return
        lines = read if read is not None else await run_in_threadpool(
            self.svc.chat.lines, self.game.id, self.user_id, self.chat_seen)
        if lines:  # (a game without chat lines sends none: the page shows the form)
            await self.channel.send(to_json({"type": "chat", "lines": lines,
                                             "may_write": self.seat is not None}))
            self.chat_seen = max(line["id"] for line in lines)

    async def refresh(self, changes: Iterable[Change]) -> None:
        """The page's share of some changes its subscription collected (several at once:
        one refresh)."""
        changes = list(changes)
        moves = [c for c in changes if not (c.clocks or c.chat or c.veto)]
        if moves and all(c.draft for c in moves) and self.answering is not None:
            await asyncio.shield(self.answering)
        try:
            if moves:
                await self.send_state(answer=False, change=moves[-1])
            if moves or any(c.veto for c in changes):
                await self.send_veto()
            if any(c.clocks for c in changes):
                await self.send_clocks()
            if any(c.chat for c in changes):
                await self.send_chat()
        except DATABASE_UNAVAILABLE as exc:  # the next change or sync catches up
            log.warning("database unavailable for a page update: %s", database_problem(exc))

    # -- what the page sends -----------------------------------------------------------

    async def receive(self, text: str) -> bool:
        """Answers one message of the page; False when the page's session ended (the
        socket has been closed with 4401)."""
        ack, command, error = parse_message(text)
        try:
            if isinstance(command, ChatLine):
                return await self._chat(command.text, ack)
            if command == "sync":
                await self.send_state(ack)
                await self.send_clocks()
                await self.send_veto()
                return True
            shown = None
            self.answering = asyncio.get_running_loop().create_future()
            try:
                if error is None and isinstance(command, Command):
                    try:
                        shown, error = await self._command(command)
                    except _LoggedOut:
                        # Logged out (or out everywhere) since the page opened: this
                        # socket's session is over too.
                        await self.channel.close(LOGGED_OUT, "logged out")
                        return False
                if error is not None:
                    await self.channel.send(_json({"type": "error", **error.to_dict()}))
                    shown = error.shown
                # The answer to a command: the state after it (or unchanged, after an
                # error), tagged with the command's id so the page knows its click has
                # been handled.
                await self.send_state(ack, shown)
            finally:
                answering, self.answering = self.answering, None
                if answering is not None:
                    answering.set_result(None)
        except DATABASE_UNAVAILABLE as exc:
            # The socket stays: the page shows why its move did not take and may send it
            # again (a lost socket would reconnect and drop the move silently).
            log.warning("database unavailable for a game command: %s", database_problem(exc))
            await self.channel.send(_json({"type": "error", "code": "unavailable",
                                           "message": _(UNAVAILABLE_MESSAGE), "ack": ack}))
        return True

    async def _command(self, command: Command) -> tuple[Any, PlayError | None]:
        """Carries out one command: (the seat's view after it, None), or (None, the
        refusal) when it was refused; _LoggedOut if the page's session ended meanwhile."""
        if self.seat is None:
            return None, PlayError("spectator", _("spectators cannot act in this game"))
        try:
            shown = await self.svc.threads.play(_act_in_session, self.svc, self.game,
                                                self.seat, self.session, command)
        except PlayError as exc:
            return None, exc
        return shown, None

    async def _chat(self, text: str, ack: Any) -> bool:
        """Writes a chat line; the answer is {"type": "chat_ok", "ack"} or an error (the
        line itself reaches every page, this one too, as a "chat" message)."""
        svc, user_id, seat = self.svc, self.user_id, self.seat
        if seat is not None and not await _session_holds(svc, self.session):
            await self.channel.close(LOGGED_OUT, "logged out")
            return False
        try:
            if user_id is None or self.game.match_id is None:
                raise ChatRefused("spectator",
                                  _("Only the players of this game write in its chat."))
            await run_in_threadpool(svc.chat.post, self.game, user_id, seat, text,
                                    self.address)
        except ChatRefused as exc:
            await self.channel.send(_json({"type": "error", "code": exc.code,
                                           "message": str(exc), "ack": ack}))
            return True
        await self.channel.send(_json({"type": "chat_ok", "ack": ack}))
        return True


def parse_message(text: str) -> tuple[Any, Command | ChatLine | str | None, PlayError | None]:
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


def _first_parts(svc: Any, game: Any, seat: int | None, user_id: int | None,
                 reads_chat: bool) -> _FirstParts:
    """A new page's view, the game's clocks and its chat lines, in one worker-thread hop
    (a page reconnecting is common: each hop and read counts)."""
    shown = svc.views.seat_state(game, seat)
    try:
        clocks = _clocks_of(svc, game)
        chat = svc.chat.lines(game.id, user_id, 0) if reads_chat else None
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


async def _session_holds(svc: Any, session: tuple[int, int] | None) -> bool:
    """The session the socket was opened with still holds (checked at each command, as
    an HTTP command is)."""
    return session is not None and await run_in_threadpool(svc.accounts.session_holds,
                                                           *session)


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
