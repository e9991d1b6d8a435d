"""The ASGI middleware in front of the app: security headers on every response, request
bodies bounded (413), state-changing requests from another origin refused (403; ws.py
does the same for WebSockets), WebSocket messages bounded (a clear error message; the oversized
message is dropped and changes nothing), and ids too long for the database refused (404)
before any route sees them. Logins are limited by ``Accounts.login`` (limits.LoginLimits),
which alone knows the name it looks up."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from ..i18n import N_, _
from .headers import security_headers
from .limits import Limits

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_CODES = {403: "cross_origin", 413: "too_large", 429: "rate_limited"}
UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
CROSS_ORIGIN = N_("Refused: this request came from another site (its Origin or Referer is "
                  "not this server). Use the form on this site.")


def same_origin(scope: Scope) -> bool:
    """True unless the request says it comes from another origin: its Origin header (a
    browser sends it with every POST), else its Referer, must name the host the request
    was sent to. Neither header: not a browser's cross-site request (scripts, tools);
    the CSRF token still guards it."""
    headers = dict(scope.get("headers", []))
    host = headers.get(b"host", b"").decode("latin-1").lower()
    source = headers.get(b"origin") or headers.get(b"referer")
    if source is None:
        return True
    parts = urlsplit(source.decode("latin-1").strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False  # "null" (a sandboxed frame, a data: page) or garbage
    netloc = parts.netloc.lower()
    default = {"http": ":80", "https": ":443"}[parts.scheme]
    return bool(host) and netloc.removesuffix(default) == host.removesuffix(default)

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
    def __init__(self, app: ASGIApp, limits: Limits, hsts: bool) -> None:
        self.app = app
        self.limits = limits
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
            await _respond(self._with_headers(send), 404, _("Not found."),
                           json_body=path.startswith("/api/"))
            return
        private = not path.startswith("/static/")
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
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
                           _("Request body too large (at most %(num)s bytes).",
                             num=self.limits.max_body),
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
                               _("Request body too large (at most %(num)s bytes).",
                             num=self.limits.max_body),
                               json_body=wants_json)
            answered = True
            return {"type": "http.disconnect"}  # the app stops reading: the client "left"

        if scope.get("method") in UNSAFE and not same_origin(scope):
            # A cross-site form or script: refused before anything reads its body.
            await _respond(send_with_headers, 403, _(CROSS_ORIGIN), json_body=wants_json)
            return
        try:
            await self.app(scope, self._bounded_receive(receive, too_large), guarded_send)
        except Exception:
            if answered:  # the app failed on the cut-off body; the client has its 413
                return
            raise

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
