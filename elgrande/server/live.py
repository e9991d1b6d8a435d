"""Live updates: an in-process pub/sub of "game X changed" for the open pages.

Only the fact that a game (or one seat's draft) changed travels here; each WebSocket
then asks for its own seat's view, so nothing secret is ever broadcast.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Change:
    """A change notice: the match's committed sequence and, for the seats it concerns,
    their draft versions after it (``MatchEvent``); empty for a lobby change."""

    seq: int | None = None
    drafts: tuple[tuple[int, str], ...] = ()
    clocks: bool = False  # only the game's clocks changed (server/clocks/)
    chat: bool = False  # only a line of the table chat (server/chat.py)
    veto: bool = False  # only the "no veto" choices or a window's wait (server/veto.py)
    draft: bool = False  # only a seat's draft (the notice reaches that seat's pages alone)

    def version_of(self, seat: int | None) -> str | None:
        """The seat's draft version after the change (spectators have none: ""), or
        None if the notice does not say."""
        if self.seq is None:
            return None
        if seat is None:
            return ""
        return next((v for s, v in self.drafts if s == seat), None)


@dataclass(eq=False, slots=True)
class Subscriber:
    """One open page's subscription. Its changes wait in a list with at most one
    waiter (an ``asyncio.Queue`` per page, mostly idle, held about 2 KB more), or, with
    ``wake``, until the page takes them (``take``) after being told that there are some
    (no task waits for an idle page's changes: game_sockets.py)."""

    topic: str  # "match:<id>" for a running game, "room:<game id>" for a waiting one
    seat: int | None
    wake: Callable[[], None] | None = None
    _pending: list[Change] = field(default_factory=list)
    _waiter: asyncio.Future[None] | None = None

    def put(self, change: Change) -> None:
        """On the event loop."""
        self._pending.append(change)
        if self.wake is not None:
            self.wake()
        elif self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def take(self) -> list[Change]:
        """Every change since the last call (none: an empty list)."""
        found, self._pending = self._pending, []
        return found

    async def changes(self) -> list[Change]:
        """Every change since the last call, once there is one (a page busy sending
        gets the ones that came meanwhile together: one refresh)."""
        while not self._pending:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        found, self._pending = self._pending, []
        return found


PageHook = Callable[[str, int], None]


def call_soon(loop: asyncio.AbstractEventLoop, callback: Callable[..., object],
              *args: object) -> None:
    """``callback(*args)`` soon on ``loop``, from its own thread or any other (from its
    own, without waking it through its self-pipe: a game's commit may run on the loop,
    server/threads.py)."""
    if _running_loop() is loop:
        loop.call_soon(callback, *args)
    else:
        loop.call_soon_threadsafe(callback, *args)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # a worker thread
        return None


class Hub:
    def __init__(self, on_open: Sequence[PageHook] = (), on_close: Sequence[PageHook] = ()
                 ) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self._subscribers: dict[str, set[Subscriber]] = {}
        # The newest committed sequence each watched match is known here at (from its
        # notices and its pages' first states): see ``opened_at``.
        self._heard: dict[str, int] = {}
        # Told when a seat's page of a match opens and closes here (match id, seat): a
        # shared pub/sub then passes that seat's draft changes to this process only then.
        self.on_open = tuple(on_open)
        self.on_close = tuple(on_close)

    def subscribe(self, topic: str, seat: int | None,
                  wake: Callable[[], None] | None = None) -> Subscriber:
        sub = Subscriber(topic, seat, wake)
        self._subscribers.setdefault(topic, set()).add(sub)
        self._tell(self.on_open, sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        found = self._subscribers.get(sub.topic, set())
        if sub in found:
            found.discard(sub)
            if not found:  # no entry kept for a game nobody watches any more
                del self._subscribers[sub.topic]
                self._heard.pop(sub.topic, None)
            self._tell(self.on_close, sub)

    @staticmethod
    def _tell(hooks: tuple[PageHook, ...], sub: Subscriber) -> None:
        if sub.seat is None or not sub.topic.startswith("match:"):
            return
        for hook in hooks:
            try:
                hook(sub.topic.removeprefix("match:"), sub.seat)
            except Exception:  # live pages must not fail on a pub/sub hiccup
                log.exception("page open/close hook failed")

    def publish(self, topic: str, seat: int | None = None, change: Change | None = None) -> None:
        """Thread-safe: may be called from worker threads. `seat` set: only that
        seat's pages (its draft changed)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        # Most notices concern no page of this process (another process's match, or a
        # draft of a seat not open here): skip waking the event loop for those.
        if not any(seat is None or sub.seat == seat
                   for sub in list(self._subscribers.get(topic, ()))):
            return
        call_soon(loop, self._deliver, topic, seat, change or Change())

    def opened_at(self, topic: str, seq: int) -> None:
        """On the event loop: a page of ``topic`` opened with the match at ``seq``, as
        read from the database. If that is newer than this process has heard of, a
        notice was lost: a process that committed a move was killed before telling
        the others (its pages reconnect here and find the move). The other pages
        here would wait for it until the next change: they are told now."""
        heard = self._heard.get(topic)
        if heard is None or seq > heard:
            self._heard[topic] = seq
        if heard is not None and seq > heard:
            log.info("a page found %s at %d, heard at %d: telling its other pages",
                     topic, seq, heard)
            self._deliver(topic, None, Change(seq))

    def _deliver(self, topic: str, seat: int | None, change: Change) -> None:
        if change.seq is not None and topic in self._subscribers:
            self._heard[topic] = max(change.seq, self._heard.get(topic, change.seq))
        for sub in list(self._subscribers.get(topic, ())):
            if seat is None or sub.seat == seat:
                sub.put(change)
