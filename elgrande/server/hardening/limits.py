"""Rate limits: the bounds and allowances (``Limits``), the limiters that count hits (in
memory, or in Redis shared by every process), and the account-creation limit the routes
that create accounts ask (``admit_new_account``)."""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal, Protocol

from fastapi import Request

from ..i18n import N_, _, ngettext

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limits:
    max_body: int = 64 * 1024  # bytes of one HTTP request body
    max_ws_message: int = 4096  # bytes (or characters) of one WebSocket message
    # Logins, within login_window seconds (LoginLimits): failures per (name, address) and
    # per address; every attempt per address; successful logins per account.
    login_failures_per_name: int = 10
    login_failures_per_client: int = 50
    logins_per_client: int = 100
    logins_per_account: int = 30
    login_window: float = 15 * 60
    # Accounts created per client address within account_window (0: no limit). Every
    # attempt counts, successful ones too: spam succeeds. Generous on purpose: a school
    # class, an office or a mobile carrier's NAT shares one address, and a group signing up
    # together needs far fewer than 20 registrations or 60 guests (one a minute) an hour,
    # while a script creating accounts in bulk is stopped after a few seconds of it.
    registrations_per_client: int = 20
    guests_per_client: int = 60
    account_window: float = 60 * 60

    @classmethod
    def from_settings(cls, settings: Any) -> Limits:
        """The attributes of ``settings`` named like the fields (validated there); one it
        lacks keeps its default."""
        defaults = cls()
        return cls(**{f.name: getattr(settings, f.name, getattr(defaults, f.name))
                      for f in fields(cls)})



# ------------------------------------------------------------------------ limiters


class Limiter(Protocol):
    def retry_after(self, key: str, limit: int) -> float:
        """0 if ``key`` is under ``limit`` hits in the window, else seconds to wait."""
        ...

    def hit(self, key: str) -> None: ...


class MemoryLimiter:
    """Sliding window per key, in this process's memory."""

    def __init__(self, window: float) -> None:
        self.window = window
        self._hits: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _fresh(self, key: str, now: float) -> deque[float]:
        hits = self._hits.setdefault(key, deque())
        while hits and hits[0] <= now - self.window:
            hits.popleft()
        return hits

    def retry_after(self, key: str, limit: int) -> float:
        now = time.monotonic()
        with self._lock:
            hits = self._fresh(key, now)
            if not hits:
                self._hits.pop(key, None)  # keep the table small
                return 0.0
            return 0.0 if len(hits) < limit else max(1.0, hits[0] + self.window - now)

    def hit(self, key: str) -> None:
        now = time.monotonic()
        with self._lock:
            self._fresh(key, now).append(now)


class RedisLimiter:
    """Fixed windows in Redis, shared by every server process. If Redis is away the
    limiter lets requests through (logins and sign-ups must not depend on it) and logs
    why."""

    def __init__(self, url: str, window: float, prefix: str = "elgrande:limit:") -> None:
        import redis  # here: a server without Redis never imports it

        self.window = window
        self.prefix = prefix
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        self._client = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)

    def _name(self, key: str) -> str:
        return f"{self.prefix}{int(time.time() // self.window)}:{key}"

    def retry_after(self, key: str, limit: int) -> float:
        try:
            count = int(self._client.get(self._name(key)) or 0)
        except self._errors as exc:
            log.warning("rate limit unavailable (Redis): %s", exc)
            return 0.0
        if count < limit:
            return 0.0
        return max(1.0, self.window - time.time() % self.window)

    def hit(self, key: str) -> None:
        name = self._name(key)
        try:
            with self._client.pipeline() as pipe:
                pipe.incr(name)
                pipe.expire(name, int(self.window) + 1)
                pipe.execute()
        except self._errors as exc:
            log.warning("rate limit unavailable (Redis): %s", exc)


def make_limiter(window: float, redis_url: str | None) -> Limiter:
    if redis_url and redis_url.startswith(("redis://", "rediss://", "unix://")):
        return RedisLimiter(redis_url, window)
    return MemoryLimiter(window)


@dataclass(frozen=True)
class Limiters:
    accounts: Limiter  # accounts created; its window is Limits.account_window


def make_limiters(limits: Limits, redis_url: str | None) -> Limiters:
    """In memory, or with a Redis URL shared by every process that uses it."""
    return Limiters(accounts=make_limiter(limits.account_window, redis_url))


# ---------------------------------------------------------------- account creation

# A password reset request counts like a registration (each sends an email, or may).
AccountKind = Literal["registration", "guest", "password reset"]


class AccountLimitReached(Exception):
    """Too many accounts created from one client address: answered 429 with Retry-After."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


@dataclass(frozen=True)
class AccountLimits:
    limiter: Limiter  # its window is Limits.account_window
    registrations_per_client: int
    guests_per_client: int

    def admit(self, kind: AccountKind, client: str) -> None:
        """Counts one attempt to create an account of ``kind`` from ``client``; or, if the
        client is at its limit, counts nothing and raises AccountLimitReached."""
        limit = self.guests_per_client if kind == "guest" else self.registrations_per_client
        if limit == 0:  # unlimited (the load benchmark: thousands of guests from 127.0.0.1)
            return
        key = f"{kind}:client:{client}"
        wait = self.limiter.retry_after(key, limit)
        if wait > 0:
            seconds = int(wait) + 1
            log.info("account creation limit reached: %s from %s", kind, client)
            raise AccountLimitReached(_(_TOO_MANY[kind], wait=_duration(seconds)), seconds)
        self.limiter.hit(key)


_TOO_MANY = {
    "registration": N_("Too many new accounts from your address; try again in %(wait)s."),
    "guest": N_("Too many guest accounts from your address; try again in %(wait)s."),
    "password reset": N_("Too many password reset requests from your address; try again "
                         "in %(wait)s."),
}


def _duration(seconds: int) -> str:
    if seconds < 120:
        return ngettext("%(num)s second", "%(num)s seconds", seconds)
    return ngettext("%(num)s minute", "%(num)s minutes", math.ceil(seconds / 60))


# ------------------------------------------------------------------------ logins


class LoginLimitReached(AccountLimitReached):
    """Too many logins: answered 429 with Retry-After like the account-creation limit."""


@dataclass(frozen=True)
class LoginLimits:
    """Limits on logins, asked by ``Accounts.login`` with the very name key it looks up
    (so a repeated or differently encoded field cannot be counted apart from what is
    used). Nothing here locks an account: wrong passwords are counted per (name,
    address) and per address, so a guesser slows only itself; successful logins are
    counted per account, which only someone with the password can fill (the cost of a
    hash is what they would otherwise repeat without end); every attempt is counted per
    address."""

    limiter: Limiter  # its window is Limits.login_window
    failures_per_name: int = 10
    failures_per_client: int = 50
    attempts_per_client: int = 100
    logins_per_account: int = 30

    @classmethod
    def from_limits(cls, limiter: Limiter, limits: Limits) -> LoginLimits:
        return cls(limiter, limits.login_failures_per_name, limits.login_failures_per_client,
                   limits.logins_per_client, limits.logins_per_account)

    def admit(self, key: str, client: str) -> None:
        """Counts one attempt for name key ``key`` from ``client``, or raises
        LoginLimitReached (counting nothing) if one of the limits is reached."""
        checks = (
            (f"login:failed:{client}:{key}", self.failures_per_name,
             N_("Too many failed logins for this name; try again in %(wait)s.")),
            (f"login:failed:{client}", self.failures_per_client,
             N_("Too many failed logins; try again in %(wait)s.")),
            (f"login:tried:{client}", self.attempts_per_client,
             N_("Too many logins from your address; try again in %(wait)s.")),
            (f"login:ok:{key}", self.logins_per_account,
             N_("Too many logins to this account; try again in %(wait)s.")),
        )
        for bucket, limit, what in checks:
            wait = self.limiter.retry_after(bucket, limit)
            if wait > 0:
                seconds = int(wait) + 1
                log.info("login limit reached: %s", bucket)
                raise LoginLimitReached(_(what, wait=_duration(seconds)), seconds)
        self.limiter.hit(f"login:tried:{client}")

    def failed(self, key: str, client: str) -> None:
        self.limiter.hit(f"login:failed:{client}:{key}")
        self.limiter.hit(f"login:failed:{client}")

    def succeeded(self, key: str) -> None:
        self.limiter.hit(f"login:ok:{key}")


@dataclass(frozen=True)
class LookupLimits:
    """Invitations by name tell whether a name exists: lookups are limited per user and
    per address within the window of the limiter (``Limits.account_window``)."""

    limiter: Limiter
    per_user: int = 60
    per_client: int = 120

    def admit(self, user_id: int, client: str, count: int) -> None:
        """Counts ``count`` lookups, or raises LoginLimitReached (counting nothing)."""
        if count <= 0:
            return
        buckets = ((f"lookup:user:{user_id}", self.per_user),
                   (f"lookup:client:{client}", self.per_client))
        for bucket, limit in buckets:
            wait = self.limiter.retry_after(bucket, max(1, limit - count + 1))
            if wait > 0:
                seconds = int(wait) + 1
                raise LoginLimitReached(_("Too many invitations by name lately; try again "
                                          "in %(wait)s.", wait=_duration(seconds)), seconds)
        for bucket, _limit in buckets:
            for _hit in range(count):
                self.limiter.hit(bucket)


def client_address(scope: Mapping[str, Any]) -> str:
    """The key a client is limited by: its address as the ASGI server saw it."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def admit_new_account(request: Request, kind: AccountKind) -> None:
    """Called by a route just before it creates an account (after its CSRF check): raises
    AccountLimitReached (429) if this client address has created too many lately. Blocking
    (Redis I/O): call it from a sync route, which runs in a thread."""
    limits: AccountLimits | None = getattr(request.app.state, "account_limits", None)
    if limits is not None:  # None: an app without the hardening (harden() not called)
        limits.admit(kind, client_address(request.scope))
