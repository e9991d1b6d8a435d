"""Open WebSockets counted across every server process, in Redis, so that a limit per
client address or per user holds however many processes serve the pages.

Each process keeps its own counts in memory (the truth about its sockets) and mirrors
them into a Redis hash of its own. The processes' deadlines are a sorted set: a process
refreshes its deadline (and rewrites its hash) every third of ``ttl``; one that died
stops counting once its deadline has passed, and the first admission after that
deletes its hash (Redis also expires the hash ``ttl`` after its last refresh). Admitting
a socket sums the key over the live processes and takes the place in one Lua script,
so two processes cannot both take the last place.

The deadlines are by the processes' clocks (injected in tests): the hosts' clocks must
agree to well within ``ttl`` (NTP does). Without Redis, admissions fall back to this
process's own count and the next refresh after Redis returns restores the mirror."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable

import redis

log = logging.getLogger(__name__)

PREFIX = "elgrande:sockets"

# KEYS: the deadlines, this process's hash. ARGV: the hash prefix, this process, the
# counted key, the limit (0: none), now, this process's new deadline, the hash's ttl (ms).
_ADMIT = """
local dead = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[5])
for _, process in ipairs(dead) do
  redis.call('DEL', ARGV[1] .. process)
  redis.call('ZREM', KEYS[1], process)
end
local limit = tonumber(ARGV[4])
if limit > 0 then
  local total = 0
  for _, process in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    total = total + tonumber(redis.call('HGET', ARGV[1] .. process, ARGV[3]) or '0')
  end
  if total >= limit then return 0 end
end
redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
redis.call('PEXPIRE', KEYS[2], ARGV[7])
redis.call('ZADD', KEYS[1], ARGV[6], ARGV[2])
return 1
"""
_RELEASE = """
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) <= 0 then
  redis.call('HDEL', KEYS[1], ARGV[1])
end
"""


class SharedSocketCounts:
    """Open sockets per key (``name``: what is counted, e.g. client addresses), at most
    ``limit`` per key over all processes (0: no limit). ``process`` names this process
    (a lasting name lets a restarted process drop its predecessor's counts at once)."""

    waits = True  # a Redis round trip

    def __init__(self, url: str, name: str, limit: int, *, process: str, ttl: float = 30.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.limit = limit
        self.ttl, self.clock = ttl, clock
        self.process = process
        self.open: Counter[str] = Counter()  # this process's sockets per key
        self._hashes = f"{PREFIX}:{name}:process:"
        self._deadlines = f"{PREFIX}:{name}:deadlines"
        self._mine = self._hashes + process
        self._client = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        self._admit = self._client.register_script(_ADMIT)
        self._release = self._client.register_script(_RELEASE)
        self._lock = threading.Lock()  # the local counts and their mirror change together
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._away = False  # Redis unreachable: logged once per outage

    # -- sockets (blocking: call from a worker thread) ---------------------------------

    def admit(self, key: str) -> bool:
        """Counts one more socket of ``key``; False (nothing counted) if the key has
        ``limit`` open over all live processes."""
        with self._lock:
            try:
                now = self.clock()
                taken = self._admit(
                    keys=[self._deadlines, self._mine],
                    args=[self._hashes, self.process, key, self.limit, now, now + self.ttl,
                          self._ttl_ms()])
                self._back()
            except (redis.RedisError, OSError) as exc:
                self._gone(exc)  # this process's own count still applies
                taken = not self.limit or self.open[key] < self.limit
            if taken:
                self.open[key] += 1
            return bool(taken)

    def release(self, key: str) -> None:
        # Redis first: once this process's own count shows the socket gone, every
        # process's admission sees it gone too (the local count is read without the lock).
        with self._lock:
            try:
                self._release(keys=[self._mine], args=[key])
            except (redis.RedisError, OSError) as exc:
                self._gone(exc)  # the next refresh rewrites the mirror
            self.open[key] -= 1
            if self.open[key] <= 0:
                del self.open[key]

    # -- liveness --------------------------------------------------------------------

    def refresh(self) -> None:
        """Rewrites this process's hash from its own counts and moves its deadline on."""
        with self._lock:
            try:
                with self._client.pipeline() as pipe:  # MULTI: seen whole or not at all
                    pipe.delete(self._mine)
                    if self.open:
                        pipe.hset(self._mine, mapping=dict(self.open))  # type: ignore[arg-type]
                        pipe.pexpire(self._mine, self._ttl_ms())
                    pipe.zadd(self._deadlines, {self.process: self.clock() + self.ttl})
                    pipe.execute()
                self._back()
            except (redis.RedisError, OSError) as exc:
                self._gone(exc)

    def start(self) -> None:
        self.refresh()  # at once: a predecessor of the same name stops counting now
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name=f"socket counts {self._mine}",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """A clean stop: this process's sockets stop counting at once."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        try:
            with self._client.pipeline() as pipe:
                pipe.delete(self._mine)
                pipe.zrem(self._deadlines, self.process)
                pipe.execute()
        except (redis.RedisError, OSError) as exc:
            log.warning("could not remove this process's socket counts: %s", exc)
        self._client.close()

    def _loop(self) -> None:
        while not self._stop.wait(self.ttl / 3):
            self.refresh()

    def _ttl_ms(self) -> int:
        return max(1, int(self.ttl * 1000))

    def _gone(self, exc: BaseException) -> None:
        if not self._away:
            self._away = True
            log.warning("socket counts unavailable (Redis), counting this process only: %s",
                        exc)

    def _back(self) -> None:
        if self._away:
            self._away = False
            log.warning("socket counts shared through Redis again")
