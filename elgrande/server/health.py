"""Health checks for load balancers and supervisors, and HEAD wherever GET is answered.

- ``GET /healthz``: the process lives and serves (200 "ok"); it touches nothing else, so a
  database outage does not get healthy processes restarted.
- ``GET /readyz``: the database and, when configured, Redis answer: 200, else 503 naming
  the part that is down (details go to the log, not to the caller).
- ``HeadAsGet``: FastAPI routes answer only the methods they declare, so a HEAD on a page
  would be a 405; this middleware serves HEAD as GET without the body (RFC 9110 9.3.2).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, PlainTextResponse
from sqlalchemy import Engine, text

from .hardening.errors import database_problem

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
Check = Callable[[], None]  # raises when its part is down

log = logging.getLogger(__name__)
router = APIRouter(include_in_schema=False)


def database_check(engine: Engine) -> Check:
    def check() -> None:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    return check


def redis_check(url: str) -> Check:
    import redis  # only when Redis is configured

    client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)

    def check() -> None:
        client.ping()

    return check


@router.get("/healthz")
def healthz() -> PlainTextResponse:
    return PlainTextResponse("ok")


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    checks: dict[str, Check] = request.app.state.readiness
    parts: dict[str, str] = {}
    for name, check in checks.items():
        try:
            await run_in_threadpool(check)
            parts[name] = "ok"
        except Exception as exc:  # any failure means "not ready"; the log says why
            log.warning("readiness: %s is down: %s", name, database_problem(exc))
            parts[name] = "down"
    ready = all(state == "ok" for state in parts.values())
    return JSONResponse({"ready": ready, **parts}, status_code=200 if ready else 503,
                        headers={} if ready else {"retry-after": "5"})


class HeadAsGet:
    """Serves a HEAD request as GET, sending the headers (Content-Length included) and no
    body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # wait for the last part, send one empty body
                message = {"type": "http.response.body", "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)
