"""Pub/sub chosen by URL: in-process by default, Redis when several server processes
share the work. Only "match X is now at sequence N" travels (``MatchEvent``); every
process then builds its own pages' views from the database, so nothing secret is sent.

``make_broker(url)``: ``None``/``""``/``memory://`` gives the in-process broker,
``redis://``, ``rediss://`` or ``unix://`` a ``RedisBroker``.
"""

from __future__ import annotations

import json
import logging
import queue
import secrets
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import redis
from sqlalchemy import Engine, select

from elgrande.matches.pubsub import Broker, InProcessBroker, Listener, MatchEvent
from elgrande.matches.tables import MatchRow

log = logging.getLogger(__name__)

CHANNEL = "elgrande:match-events"


def draft_channel(channel: str, match_id: str, seat: int) -> str:
    """Where a seat's draft changes go: only processes with a page of that seat listen
    (most steps concern no other process, and receiving costs more than sending)."""
    return f"{channel}:draft:{match_id}:{seat}"
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


def make_broker(url: str | None) -> Broker:
    if not url or url.startswith("memory:"):
        return InProcessBroker()
    if url.startswith(REDIS_SCHEMES):
        return RedisBroker(url)
    raise ValueError(f"unknown pub/sub URL {url!r}: use redis://host:port/db or leave it empty")


def encode(event: MatchEvent, origin: str) -> str:
    return json.dumps({"o": origin, "m": event.match_id, "s": event.seq, "k": event.kind,
                       "t": event.seat, "d": event.drafts, "b": event.base, "a": event.added,
                       "w": event.at})


def decode(data: str | bytes) -> tuple[str, MatchEvent]:
    raw = json.loads(data)
    drafts = tuple((int(seat), str(version)) for seat, version in raw.get("d", ()))
    base = raw.get("b")
    return raw["o"], MatchEvent(str(raw["m"]), int(raw["s"]), str(raw["k"]), raw["t"], drafts,
                                None if base is None else int(base),
                                tuple(str(a) for a in raw.get("a", ())), raw.get("w"))


class RedisBroker:
    """The ``Broker`` interface over one Redis channel.

    ``publish`` calls this process's listeners at once (they never wait for Redis) and
    sends the event to the other processes; events from other processes reach the
    listeners from a background thread. While Redis is away, publishing logs a warning
    and carries on (the commit has happened; the database is the truth) and the
    listening thread reconnects by itself; ``on_reconnect`` callbacks then run, so the
    caller can refresh whatever changed meanwhile.
    """

    def __init__(self, url: str, *, channel: str = CHANNEL, retry_delay: float = 0.2) -> None:
        self.url = url
        self.channel = channel
        self.origin = secrets.token_hex(8)  # our own messages come back; skip them
        self._retry_delay = retry_delay
        # The health check pings an idle subscription, so a silently dropped connection
        # is noticed and re-made.
        self._client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2,
                                            health_check_interval=15)
        self._local = InProcessBroker()
        self._reconnect: list[Callable[[], None]] = []
        self._stop = threading.Event()
        self.connected = threading.Event()  # set while the listener is subscribed
        self._thread: threading.Thread | None = None
        self._sender: threading.Thread | None = None
        self._outbox: queue.SimpleQueue[tuple[str, str] | None] = queue.SimpleQueue()
        # Draft channels this process listens to, with how many pages want each; the
        # listening thread (the only one to touch its connection) applies the changes.
        self._watched: dict[str, int] = {}
        self._watch_changes: queue.SimpleQueue[str] = queue.SimpleQueue()
        # The draft channels other processes listen to (by their origin), as announced:
        # a draft change nobody else listens to is not sent at all.
        self._listeners_elsewhere: dict[str, set[str]] = {}
        self._lock = threading.Lock()
        self._publish_failing = False
        self.lost_at: datetime | None = None  # when the listener last lost Redis

    # -- Broker -------------------------------------------------------------------

    def publish(self, event: MatchEvent) -> None:
        self._local.publish(event)
        self.send(event)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self.start()
        return self._local.subscribe(listener)

    def publish_here(self, event: MatchEvent) -> None:
        """To this process's listeners only."""
        self._local.publish(event)

    # -- the Redis side -------------------------------------------------------------

    def send(self, event: MatchEvent) -> None:
        """Only to the other processes. Queued for the sender thread, so a command never
        waits for Redis; events go out in order, several in one round trip under load."""
        channel = self.channel
        if event.kind == "draft" and event.seat is not None:
            channel = draft_channel(self.channel, event.match_id, event.seat)
            with self._lock:
                if not self._listeners_elsewhere.get(channel):
                    return  # no other process has a page of this seat: most steps
        self._outbox.put((channel, encode(event, self.origin)))
        self.start()

    def _announce(self, kind: str, channel: str | None = None) -> None:
        """Tells the other processes which draft channels this one listens to ("watch",
        "unwatch"), or asks them to tell theirs ("hello", after (re)connecting)."""
        self._outbox.put((self.channel, json.dumps({"o": self.origin, "c": kind,
                                                    "ch": channel})))
        self.start()

    def _on_control(self, origin: str, kind: str, channel: str | None) -> None:
        if origin == self.origin:
            if kind == "watch" and channel is not None:
                # Every process has heard we listen now: the seat's pages catch up with
                # any draft change made before.
                self._caught_up(channel)
            return
        with self._lock:
            if kind == "watch" and channel is not None:
                self._listeners_elsewhere.setdefault(channel, set()).add(origin)
            elif kind == "unwatch" and channel is not None:
                self._listeners_elsewhere.get(channel, set()).discard(origin)
            mine = list(self._watched) if kind == "hello" else []
        for own in mine:  # a process (re)joined: tell it what we listen to
            self._announce("watch", own)

    def _send_loop(self) -> None:
        while True:
            batch = [self._outbox.get()]
            while True:  # whatever else is waiting goes in the same round trip
                try:
                    batch.append(self._outbox.get_nowait())
                except queue.Empty:
                    break
            self._publish([data for data in batch if data is not None])
            if None in batch:  # closing: what was queued before has gone out
                return

    def _publish(self, batch: list[tuple[str, str]]) -> None:
        """A second attempt takes a fresh connection (the pooled one may date from before
        a Redis restart)."""
        if not batch:
            return
        for attempt in (1, 2):
            try:
                if len(batch) == 1:  # the usual case: a plain command is cheaper
                    self._client.publish(*batch[0])
                else:
                    with self._client.pipeline(transaction=False) as pipe:
                        for channel, data in batch:
                            pipe.publish(channel, data)
                        pipe.execute()
            except (redis.RedisError, OSError) as exc:
                if attempt == 2:
                    if not self._publish_failing:
                        log.warning("Redis publish failed (other processes miss this update "
                                    "until Redis is back): %s", exc)
                    self._publish_failing = True
            else:
                self._publish_failing = False
                return

    def watch(self, match_id: str, seat: int) -> None:
        """A page of ``seat`` is open here: hear that seat's draft changes made by other
        processes. Once every process knows, a draft notice for the seat is published
        here, so the page catches up with any change made before."""
        channel = draft_channel(self.channel, match_id, seat)
        with self._lock:
            self._watched[channel] = self._watched.get(channel, 0) + 1
            first = self._watched[channel] == 1
        if first:
            self._watch_changes.put(channel)

    def listening_elsewhere(self, match_id: str, seat: int) -> int:
        """How many other processes have said they listen to this seat's drafts."""
        with self._lock:
            return len(self._listeners_elsewhere.get(
                draft_channel(self.channel, match_id, seat), ()))

    def unwatch(self, match_id: str, seat: int) -> None:
        channel = draft_channel(self.channel, match_id, seat)
        with self._lock:
            left = self._watched.get(channel, 0) - 1
            if left > 0:
                self._watched[channel] = left
                return
            self._watched.pop(channel, None)
        self._watch_changes.put(channel)

    def _apply_watches(self, pubsub: Any) -> None:
        """In the listening thread: (un)subscribe the draft channels that changed."""
        while True:
            try:
                channel = self._watch_changes.get_nowait()
            except queue.Empty:
                return
            with self._lock:
                wanted = channel in self._watched
            if wanted:
                pubsub.subscribe(channel)
                self._announce("watch", channel)
            else:
                pubsub.unsubscribe(channel)
                self._announce("unwatch", channel)

    def _caught_up(self, channel: str) -> None:
        """A refresh for the pages of the seat whose draft channel we now hear."""
        match_id, _, seat = channel.removeprefix(f"{self.channel}:draft:").rpartition(":")
        self._local.publish(MatchEvent(match_id, -1, "draft", int(seat)))

    def on_reconnect(self, callback: Callable[[], None]) -> None:
        """``callback()`` runs in the listening thread after every reconnection."""
        self._reconnect.append(callback)

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._listen, name="redis-broker",
                                                daemon=True)
                self._thread.start()
            if self._sender is None:
                self._sender = threading.Thread(target=self._send_loop, name="redis-sender",
                                                daemon=True)
                self._sender.start()

    def close(self) -> None:
        self._stop.set()
        self._outbox.put(None)  # the sender sends what is queued, then stops
        if self._sender is not None:
            self._sender.join(timeout=5)
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._client.close()

    def _listen(self) -> None:
        first = True
        while not self._stop.is_set():
            pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            try:
                with self._lock:
                    watched = list(self._watched)
                pubsub.subscribe(self.channel, *watched)
                self._announce("hello")
                for channel in watched:
                    self._announce("watch", channel)
                self.connected.set()
                if not first:
                    log.warning("Redis is back; refreshing live pages")
                    for callback in list(self._reconnect):
                        try:
                            callback()
                        except Exception:  # one bad callback must not stop the listener
                            log.exception("Redis reconnect callback failed")
                first = False
                while not self._stop.is_set():
                    self._apply_watches(pubsub)
                    message = pubsub.get_message(timeout=0.1)
                    if message is None or message.get("type") != "message":
                        continue
                    try:
                        control = json.loads(message["data"])
                        if isinstance(control, dict) and "c" in control:
                            self._on_control(str(control["o"]), str(control["c"]),
                                             control.get("ch"))
                            continue
                        origin, event = decode(message["data"])
                    except (ValueError, KeyError, TypeError):
                        log.warning("ignoring a malformed message on %s", self.channel)
                        continue
                    if origin != self.origin:
                        self._local.publish(event)
            except (redis.RedisError, OSError) as exc:
                if self.connected.is_set() or self.lost_at is None:
                    log.warning("lost the Redis connection (%s); reconnecting", exc)
                    self.lost_at = datetime.now(UTC)
                self.connected.clear()
                first = False  # whenever it comes back, it is a reconnection
                self._stop.wait(self._retry_delay)
            finally:
                try:
                    pubsub.close()
                except (redis.RedisError, OSError):
                    pass
        self.connected.clear()


def refresh_after_outage(engine: Engine, broker: RedisBroker, margin: float = 10.0
                         ) -> Callable[[], None]:
    """A reconnect callback: matches changed since Redis went away (less a margin) get a
    local "commit" event, so their pages fetch a fresh view."""

    def refresh() -> None:
        since = (broker.lost_at or datetime.now(UTC)) - timedelta(seconds=margin)
        with engine.connect() as conn:
            rows = conn.execute(select(MatchRow.id, MatchRow.head_seq)
                                .where(MatchRow.updated_at >= since)).all()
        for match_id, seq in rows:
            broker.publish_here(MatchEvent(match_id, seq, "commit"))

    return refresh
