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
from datetime import UTC, datetime

import redis

from elgrande.matches.pubsub import Broker, InProcessBroker, Listener, MatchEvent

log = logging.getLogger(__name__)

CHANNEL = "elgrande:match-events"
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
        self._outbox: queue.SimpleQueue[str | None] = queue.SimpleQueue()
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

    # -- the Redis side -------------------------------------------------------------

    def send(self, event: MatchEvent) -> None:
        """Only to the other processes. Queued for the sender thread, so a command never
        waits for Redis; events go out in order, several in one round trip under load."""
        self._outbox.put(encode(event, self.origin))
        self.start()

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

    def _publish(self, batch: list[str]) -> None:
        """A second attempt takes a fresh connection (the pooled one may date from before
        a Redis restart)."""
        if not batch:
            return
        for attempt in (1, 2):
            try:
                with self._client.pipeline(transaction=False) as pipe:
                    for data in batch:
                        pipe.publish(self.channel, data)
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

    def receive(self, listener: Listener) -> Callable[[], None]:
        """Listen to the other processes' events only (used by ``relay``)."""
        return self.subscribe(listener)

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
                pubsub.subscribe(self.channel)
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
                    message = pubsub.get_message(timeout=0.5)
                    if message is None or message.get("type") != "message":
                        continue
                    try:
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


def relay(local: Broker, remote: RedisBroker) -> Callable[[], None]:
    """Joins a process's existing broker (the one the ``MatchStore`` publishes on and
    the web app listens to) to Redis: its events go out, other processes' events come
    in. Returns a function that undoes it."""
    inbound = threading.local()

    def outward(event: MatchEvent) -> None:
        if not getattr(inbound, "active", False):
            remote.send(event)

    def inward(event: MatchEvent) -> None:
        inbound.active = True
        try:
            local.publish(event)
        finally:
            inbound.active = False

    stop_out = local.subscribe(outward)
    stop_in = remote.receive(inward)

    def undo() -> None:
        stop_out()
        stop_in()

    return undo
