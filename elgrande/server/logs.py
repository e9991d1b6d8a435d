"""The process's logging, set up by ``elgrande serve`` and the ASGI factory
(``configure_logging``): every line has a timestamp, the level, the logger and the id
of the request it belongs to, as text or as one JSON object per line (log collectors).

The request id comes from a sane ``X-Request-ID`` header or is made here; it is kept in a
context variable, so every line logged while handling that request (worker threads
included: they run in a copy of the context) carries it, and it is returned in the
response's ``X-Request-ID`` header. Redaction (``hardening/redaction.py``) works on the
records themselves, before any formatter here sees them."""

from __future__ import annotations

import json
import logging
import re
import sys
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

request_id: ContextVar[str] = ContextVar("request_id", default="-")
# What a client may choose as its id: short, and nothing that could forge a log line.
SANE_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
HEADER = b"x-request-id"


class RequestIdFilter(logging.Filter):
    """Puts the current request id on every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname, "logger": record.name,
            "request_id": getattr(record, "request_id", "-"), "message": record.getMessage()}
        if record.exc_text:  # set (and redacted) when the record was made
            line["exception"] = record.exc_text
        elif record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def configure_logging(level: str = "info", fmt: str = "text") -> None:
    """One handler on the root logger, writing to stderr; uvicorn's loggers pass their
    lines to it (the uvicorn command line gives them handlers of their own)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers = []
        logger.propagate = True


def choose_id(headers: list[tuple[bytes, bytes]]) -> str:
    for name, value in headers:
        if name.lower() == HEADER:
            given = value.decode("latin-1")
            if SANE_ID.fullmatch(given):
                return given
            break
    return uuid.uuid4().hex


class RequestIdMiddleware:
    """Sets the request id for an HTTP request or a WebSocket connection (all its
    commands), and returns it in the response header."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        ident = choose_id(scope.get("headers", []))
        token = request_id.set(ident)

        async def tagged(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.accept"):
                message["headers"] = [*message.get("headers", []), (HEADER, ident.encode())]
            await send(message)

        try:
            await self.app(scope, receive, tagged)
        finally:
            request_id.reset(token)
