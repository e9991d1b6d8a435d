"""Which language a request is served in: the ``lang`` cookie (set by the header's
switch, and at login from the account), else the best match of Accept-Language, else
English. Decided from the request's headers alone: no database read per request."""

from __future__ import annotations

from collections.abc import Iterable
from http.cookies import SimpleCookie
from typing import Any

from .catalogs import DEFAULT, LOCALES, PSEUDO
from .context import reset_current, set_current

LANG_COOKIE = "lang"
LANG_MAX_AGE = 365 * 24 * 3600


def _accepted(header: str) -> list[str]:
    """The languages of an Accept-Language header, best first (q=0 left out)."""
    ranked: list[tuple[float, int, str]] = []
    for order, part in enumerate(header.split(",")[:32]):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag and quality > 0:
            ranked.append((-quality, order, tag.strip().lower()))
    return [tag for _, _, tag in sorted(ranked)]


def negotiate(cookie: str | None, accept_language: str | None,
              allowed: Iterable[str] = LOCALES) -> str:
    offered = tuple(allowed)
    if cookie in offered:
        return str(cookie)
    for tag in _accepted(accept_language or ""):
        primary = tag.split("-")[0]
        if primary in offered:
            return primary
    return DEFAULT


def header_language(headers: Iterable[tuple[str, str]], allowed: Iterable[str] = LOCALES
                    ) -> str:
    """The language of a request with these headers (names in lower case): its ``lang``
    cookie, else Accept-Language, else English."""
    cookie = accept = None
    for name, value in headers:
        if name == "cookie":
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(value)
            except Exception:  # a malformed cookie header: as if there were none
                continue
            if LANG_COOKIE in jar:
                cookie = jar[LANG_COOKIE].value
        elif name == "accept-language":
            accept = value
    return negotiate(cookie, accept, allowed)


class LanguageMiddleware:
    """Sets the language of each HTTP request and WebSocket for all it runs (templates,
    answers, the texts of a socket's views, in worker threads too). ``pseudo``: the
    pseudo-language may be picked (tests)."""

    def __init__(self, app: Any, pseudo: bool = False) -> None:
        self.app = app
        self.allowed = LOCALES + ((PSEUDO,) if pseudo else ())

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        code = header_language(((name.decode("latin-1"), value.decode("latin-1"))
                                for name, value in scope.get("headers") or ()), self.allowed)
        scope.setdefault("state", {})["language"] = code
        token = set_current(code)
        try:
            await self.app(scope, receive, send)
        finally:
            reset_current(token)
