"""The ASGI middleware in front of the app: security headers on every response, request
bodies bounded (413), failed logins rate-limited (429 with Retry-After), WebSocket
messages bounded (a clear error message; the oversized message is dropped and changes
nothing), and ids too long for the database refused (404) before any route sees them."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from starlette.concurrency import run_in_threadpool

from .headers import security_headers
from .limits import Limiter, Limits, client_address

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_CODES = {413: "too_large", 429: "rate_limited"}

# A path segment that is a number beyond 64 bits (ids are database integers).
HUGE_NUMBER = re.compile(r"/[-+]?\d{19,}(?:/|$)")


async def _respond(send: Send, status: int, text: str, headers: dict[str, str] | None = None,
                   json_body: bool = False) -> None:
    body = (json.dumps({"error": {"code": _CODES.get(status, "error"), "message": text}})
            if json_body else text).encode()
    raw = [(b"content-type", b"application/json" if json_body else b"text/plain; charset=utf-8"),
           (b"content-length", str(len(body)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


class HardeningMiddleware:
    def __init__(self, app: ASGIApp, limits: Limits, login_limiter: Limiter,
                 hsts: bool) -> None:
        self.app = app
        self.limits = limits
        self.limiter = login_limiter
        self.headers = security_headers(hsts)
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
                    (f"login:client:{client_address(scope)}",
                     self.limits.login_failures_per_client)]
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
