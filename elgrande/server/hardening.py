"""Hardening of the web app, installed by ``install(app, settings)``:

- a strict Content-Security-Policy and the usual security headers on every response
  (and ``Cache-Control: no-store`` on pages and API answers: they carry a seat's view);
- request bodies bounded (413), WebSocket messages bounded (a clear error message, the
  oversized message is dropped and changes nothing);
- failed logins rate-limited per account name and per client address (429 with
  Retry-After), in memory or, with a ``redis://`` pub/sub URL, shared by all processes;
- account creation (registrations, guests) rate-limited per client address the same way;
- a database that is away answers 503 with a clear message instead of a server error;
- log records redacted, so passwords, session cookies, tokens and the secret key never
  reach a log.

Everything is a plain ASGI middleware or a logging hook, except the account-creation
limit: the routes that create accounts call ``admit_new_account`` (only they know whether a
request creates one: "Play now" from a logged-in player does not).
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol
from urllib.parse import parse_qs

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.concurrency import run_in_threadpool

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = "; ".join((
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",  # Bootstrap's form controls use data: SVG images
    "font-src 'self'",
    "connect-src 'self'",  # the game page's own WebSocket and API
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
))

SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}
HSTS = "max-age=31536000; includeSubDomains"


@dataclass(frozen=True)
class Limits:
    max_body: int = 64 * 1024  # bytes of one HTTP request body
    max_ws_message: int = 4096  # bytes (or characters) of one WebSocket message
    login_failures_per_name: int = 10  # failed logins per account name ...
    login_failures_per_client: int = 50  # ... and per client address ...
    login_window: float = 15 * 60  # ... within this many seconds
    # Accounts created per client address within account_window (0: no limit). Every
    # attempt counts, successful ones too: spam succeeds. Generous on purpose: a school
    # class, an office or a mobile carrier's NAT shares one address, and a group signing up
    # together needs far fewer than 20 registrations or 60 guests (one a minute) an hour,
    # while a script creating accounts in bulk is stopped after a few seconds of it.
    registrations_per_client: int = 20
    guests_per_client: int = 60
    account_window: float = 60 * 60

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Limits:
        """The ELGRANDE_* variables (docs/deploy.md); unset or empty: the default. A value
        that is not a number, or out of range, raises ValueError naming the variable."""
        env = os.environ if environ is None else environ
        defaults = cls()
        return cls(
            max_body=_whole(env, "ELGRANDE_MAX_BODY", defaults.max_body, minimum=1),
            max_ws_message=_whole(env, "ELGRANDE_MAX_WS_MESSAGE", defaults.max_ws_message,
                                  minimum=1),
            login_failures_per_name=_whole(env, "ELGRANDE_LOGIN_FAILURES_PER_NAME",
                                           defaults.login_failures_per_name, minimum=1),
            login_failures_per_client=_whole(env, "ELGRANDE_LOGIN_FAILURES_PER_CLIENT",
                                             defaults.login_failures_per_client, minimum=1),
            login_window=_seconds(env, "ELGRANDE_LOGIN_WINDOW", defaults.login_window),
            registrations_per_client=_whole(env, "ELGRANDE_REGISTRATIONS_PER_CLIENT",
                                            defaults.registrations_per_client, minimum=0),
            guests_per_client=_whole(env, "ELGRANDE_GUESTS_PER_CLIENT",
                                     defaults.guests_per_client, minimum=0),
            account_window=_seconds(env, "ELGRANDE_ACCOUNT_WINDOW", defaults.account_window),
        )


def _whole(env: Mapping[str, str], name: str, default: int, minimum: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = minimum - 1
    if value < minimum:
        raise ValueError(f"{name} must be a whole number of at least {minimum}, not {raw!r}")
    return value


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a number of seconds above 0, not {raw!r}")
    return value


# --------------------------------------------------------------------- rate limiting


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
        import redis

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


AccountKind = Literal["registration", "guest"]


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
        limit = self.registrations_per_client if kind == "registration" else self.guests_per_client
        if limit == 0:  # unlimited (the load benchmark: thousands of guests from 127.0.0.1)
            return
        key = f"{kind}:client:{client}"
        wait = self.limiter.retry_after(key, limit)
        if wait > 0:
            seconds = int(wait) + 1
            what = "new accounts" if kind == "registration" else "guest accounts"
            log.info("account creation limit reached: %s from %s", kind, client)
            raise AccountLimitReached(
                f"Too many {what} from your address; try again in {_duration(seconds)}.",
                seconds)
        self.limiter.hit(key)


def _duration(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} seconds"
    return f"{math.ceil(seconds / 60)} minutes"


def admit_new_account(request: Request, kind: AccountKind) -> None:
    """Called by a route just before it creates an account (after its CSRF check): raises
    AccountLimitReached (429) if this client address has created too many lately. Blocking
    (Redis I/O): call it from a sync route, which runs in a thread."""
    limits: AccountLimits | None = getattr(request.app.state, "account_limits", None)
    if limits is not None:  # None: an app without the hardening (install() not called)
        limits.admit(kind, _client(request.scope))


def _account_limit_reached(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, AccountLimitReached)
    headers = {"retry-after": str(exc.retry_after)}
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": {"code": "rate_limited", "message": exc.message}},
                            status_code=429, headers=headers)
    return PlainTextResponse(exc.message, status_code=429, headers=headers)


# ---------------------------------------------------------------------- middleware


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


async def _respond(send: Send, status: int, text: str, headers: dict[str, str] | None = None,
                   json_body: bool = False) -> None:
    body = (json.dumps({"error": {"code": _CODES.get(status, "error"), "message": text}})
            if json_body else text).encode()
    raw = [(b"content-type", b"application/json" if json_body else b"text/plain; charset=utf-8"),
           (b"content-length", str(len(body)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


_CODES = {413: "too_large", 429: "rate_limited", 503: "unavailable"}


# A path segment that is a number beyond 64 bits (ids are database integers).
HUGE_NUMBER = re.compile(r"/[-+]?\d{19,}(?:/|$)")


class HardeningMiddleware:
    def __init__(self, app: ASGIApp, limits: Limits, limiter: Limiter, hsts: bool) -> None:
        self.app = app
        self.limits = limits
        self.limiter = limiter
        self.headers = [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
        if hsts:
            self.headers.append((b"strict-transport-security", HSTS.encode()))
        self.ours = {name for name, _ in self.headers} | {b"cache-control"}

    def _with_headers(self, send: Send) -> Send:
        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *self.headers]
            await send(message)

        return wrapped

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and HUGE_NUMBER.search(scope.get("path", "")):
            await send({"type": "websocket.close", "code": 4404, "reason": "no such game"})
            return
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self.app(scope, self._bounded_ws_receive(receive, send), send)
        else:
            await self.app(scope, receive, send)

    # -- HTTP ---------------------------------------------------------------------

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        if HUGE_NUMBER.search(path):  # no id is that long; the database could not take it
            await _respond(self._with_headers(send), 404, "Not found.",
                           json_body=path.startswith("/api/"))
            return
        private = not path.startswith("/static/")
        started = False
        status_seen = 0

        async def send_with_headers(message: Message) -> None:
            nonlocal started, status_seen
            if message["type"] == "http.response.start":
                started = True
                status_seen = int(message["status"])
                ours = self.ours if private else self.ours - {b"cache-control"}
                headers = [h for h in message.get("headers", []) if h[0].lower() not in ours]
                headers += self.headers
                if private:
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        wants_json = path.startswith("/api/")
        length = dict(scope.get("headers", [])).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.limits.max_body:
            await _respond(send_with_headers, 413,
                           f"Request body too large (at most {self.limits.max_body} bytes).",
                           json_body=wants_json)
            return

        answered = False  # we answered 413 ourselves: drop whatever the app sends later

        async def guarded_send(message: Message) -> None:
            if not answered:
                await send_with_headers(message)

        async def too_large() -> Message:
            nonlocal answered
            if not started and not answered:
                await _respond(send_with_headers, 413,
                               f"Request body too large (at most {self.limits.max_body} bytes).",
                               json_body=wants_json)
            answered = True
            return {"type": "http.disconnect"}  # the app stops reading: the client "left"

        login = scope.get("method") == "POST" and path == "/login"
        body_receive = self._bounded_receive(receive, too_large)
        keys: list[tuple[str, int]] = []
        if login:
            body, body_receive = await self._read_all(body_receive)
            if answered:
                return
            name = (parse_qs(body.decode("utf-8", "replace")).get("name") or [""])[0]
            keys = [(f"login:name:{name.strip().lower()}", self.limits.login_failures_per_name),
                    (f"login:client:{_client(scope)}", self.limits.login_failures_per_client)]
            # In a thread: with Redis the limiter does network I/O.
            wait = max([await run_in_threadpool(self.limiter.retry_after, k, limit)
                        for k, limit in keys])
            if wait > 0:
                await _respond(send_with_headers, 429,
                               f"Too many failed logins; try again in {int(wait) + 1} seconds.",
                               headers={"retry-after": str(int(wait) + 1)})
                return
        try:
            await self.app(scope, body_receive, guarded_send)
        except Exception:
            if answered:  # the app failed on the cut-off body; the client has its 413
                return
            raise
        if login and status_seen == 400:  # the login page answers a wrong password with 400
            for key, _limit in keys:
                await run_in_threadpool(self.limiter.hit, key)

    def _bounded_receive(self, receive: Receive, too_large: Receive) -> Receive:
        seen = 0

        async def bounded() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limits.max_body:
                    return await too_large()
            return message

        return bounded

    async def _read_all(self, receive: Receive) -> tuple[bytes, Receive]:
        """Reads the whole (bounded) body, and returns a receive that replays it."""
        chunks = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return body, replay

    # -- WebSocket --------------------------------------------------------------------

    def _bounded_ws_receive(self, receive: Receive, send: Send) -> Receive:
        limit = self.limits.max_ws_message

        async def bounded() -> Message:
            while True:
                message = await receive()
                if message["type"] != "websocket.receive":
                    return message
                data = message.get("text")
                size = len(data.encode()) if isinstance(data, str) else len(message.get("bytes") or b"")
                if size <= limit:
                    return message
                # Dropped before the app sees it: nothing changes; say why.
                await send({"type": "websocket.send", "text": json.dumps({
                    "type": "error", "code": "too_large",
                    "message": f"message too large ({size} bytes; at most {limit})"})})

        return bounded


# ------------------------------------------------------------------ database errors


def _database_unavailable(request: Request, exc: Exception) -> Response:
    log.warning("database unavailable for %s %s: %s", request.method, request.url.path,
                type(exc).__name__)
    message = "The database is unavailable at the moment; please try again shortly."
    headers = {"retry-after": "5"}
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": {"code": "unavailable", "message": message}},
                            status_code=503, headers=headers)
    return PlainTextResponse(message, status_code=503, headers=headers)


# ------------------------------------------------------------- documented error answers

_REFUSAL = {  # the play API's own refusals: {"error": {...}, "state": the caller's view}
    "type": "object", "required": ["error"],
    "properties": {
        "error": {"type": "object", "required": ["code", "message"],
                  "properties": {"code": {"type": "string"}, "message": {"type": "string"}}},
        "state": {"type": ["object", "null"]},
    },
}
_DETAIL = {"type": "object", "required": ["detail"], "properties": {"detail": {}}}
ERROR_RESPONSES: dict[str, tuple[str, list[dict[str, Any]]]] = {
    "400": ("Malformed request", [_REFUSAL, _DETAIL]),
    "401": ("Not logged in", [_DETAIL]),
    "403": ("Not your seat, or a missing or wrong CSRF token", [_DETAIL]),
    "404": ("No such game", [_DETAIL, _REFUSAL]),
    "409": ("Not allowed now, or based on an old position (moved_on)", [_REFUSAL, _DETAIL]),
    "413": ("Request body too large", [_REFUSAL]),
    "503": ("The database is unavailable; try again shortly", [_REFUSAL]),
}


def document_error_responses(app: FastAPI) -> None:
    """Adds the error answers every /api/ operation may give to the OpenAPI schema
    (where a route does not document them itself), so clients and schema-based tests
    know them."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = build()
        for path, operations in schema.get("paths", {}).items():
            if not path.startswith("/api/"):
                continue
            for operation in operations.values():
                responses = operation.setdefault("responses", {})
                for status, (description, shapes) in ERROR_RESPONSES.items():
                    body = shapes[0] if len(shapes) == 1 else {"anyOf": shapes}
                    responses.setdefault(status, {
                        "description": description,
                        "content": {"application/json": {"schema": body}},
                    })
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


# ----------------------------------------------------------------------- log redaction

_SENSITIVE = re.compile(
    r"""(?ix)
    (?P<key>password|passwd|secret(?:_key)?|csrf_token|x-csrf-token|token|authorization|
            elgrande_session|session|cookie)
    (?P<sep>["']?\s*[:=]\s*["']?|%3D)
    (?P<value>(?!\[REDACTED\])[^\s"'&,;}\]]+)
    """
)
# itsdangerous tokens (our session cookies and CSRF tokens): payload.timestamp.signature
_SIGNED_TOKEN = re.compile(r"\b[\w-]+\.[\w-]{6}\.[\w-]{27}\b")
_secrets: set[str] = set()
_installed = False
_lock = threading.Lock()


def redact(text: str) -> str:
    """``text`` with values of password/secret/token/session fields and the known
    secrets replaced by [REDACTED]."""
    text = _SENSITIVE.sub(lambda m: f"{m.group('key')}{m.group('sep')}[REDACTED]", text)
    text = _SIGNED_TOKEN.sub("[REDACTED]", text)
    for secret in _secrets:
        text = text.replace(secret, "[REDACTED]")
    return text


def _redact_arg(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float):
        return value
    return redact(value if isinstance(value, str) else str(value))


def _redact_record(record: logging.LogRecord) -> None:
    if record.exc_info and not record.exc_text:
        record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
    full = record.getMessage()
    clean = redact(full)
    if clean == full:
        return  # nothing secret: leave the record as it is
    if record.args:
        # Keep the arguments (formatters such as uvicorn's access log read them), each
        # redacted, if that is enough; otherwise the whole message becomes plain text.
        args = record.args
        record.args = (tuple(_redact_arg(a) for a in args) if isinstance(args, tuple)
                       else {k: _redact_arg(v) for k, v in args.items()})
        try:
            if redact(record.getMessage()) == record.getMessage():
                return
        except (TypeError, ValueError):
            pass
    record.msg, record.args = clean, None


def install_log_redaction(*secrets: str) -> None:
    """Every log record of the process is redacted when it is created (whatever handler
    later writes it), exception tracebacks included. ``secrets`` (e.g. the secret key)
    are removed wherever they appear."""
    global _installed
    with _lock:
        _secrets.update(s for s in secrets if s and len(s) >= 8)
        if _installed:
            return
        _installed = True
        previous = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            try:
                _redact_record(record)
            except Exception:  # never lose a log line over redaction
                record.msg, record.args = "[log message withheld: redaction failed]", None
            return record

        logging.setLogRecordFactory(factory)


# ---------------------------------------------------------------------------- install


def install(app: FastAPI, settings: Any) -> None:
    """Adds the hardening to ``app`` (call once, before the app serves)."""
    if getattr(app.state, "hardened", False):
        return
    app.state.hardened = True
    limits = Limits.from_env()
    redis_url = getattr(settings, "pubsub_url", None) or os.environ.get("ELGRANDE_PUBSUB_URL")
    limiter = make_limiter(limits.login_window, redis_url)
    app.state.account_limits = AccountLimits(make_limiter(limits.account_window, redis_url),
                                             limits.registrations_per_client,
                                             limits.guests_per_client)
    app.add_exception_handler(AccountLimitReached, _account_limit_reached)
    app.add_middleware(HardeningMiddleware, limits=limits, limiter=limiter,
                       hsts=bool(getattr(settings, "secure_cookies", False)))
    # Connection refused or lost, server shutting down, SQLite busy: not our bug, a 503.
    app.add_exception_handler(OperationalError, _database_unavailable)
    app.add_exception_handler(InterfaceError, _database_unavailable)
    app.add_exception_handler(PoolTimeout, _database_unavailable)
    document_error_responses(app)
    install_log_redaction(str(getattr(settings, "secret_key", "")))
