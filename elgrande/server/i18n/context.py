"""The language of the work being done (a request, a WebSocket, an email), in a context
variable: set by ``LanguageMiddleware`` for requests and sockets (worker threads get a
copy), by ``using`` elsewhere."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date, datetime
from functools import lru_cache
from typing import Any

from babel import dates, numbers

from .catalogs import DEFAULT, Lang, lang_for

_current: ContextVar[Lang | None] = ContextVar("elgrande_language", default=None)


def current() -> Lang:
    return _current.get() or lang_for(DEFAULT)


@contextmanager
def using(code: str | None) -> Iterator[Lang]:
    """Texts made inside are in ``code`` (None: the default)."""
    token = _current.set(lang_for(code or DEFAULT))
    try:
        yield current()
    finally:
        _current.reset(token)


def set_current(code: str) -> Any:
    """For the middleware: the token to reset with ``reset_current``."""
    return _current.set(lang_for(code))


def reset_current(token: Any) -> None:
    _current.reset(token)


def gettext(message: str, **values: Any) -> str:
    """``message`` in the current language, its ``%(name)s`` fields filled in."""
    text = current().gettext(message)
    return text % values if values else text


def ngettext(singular: str, plural: str, n: int, **values: Any) -> str:
    """The form for ``n``; ``%(num)s`` is ``n`` formatted for the language."""
    text = current().ngettext(singular, plural, n)
    return text % {"num": format_number(n), **values}


def N_(message: str) -> str:
    """Marks a text for the catalogs where it is defined; translated where it is shown."""
    return message


def format_number(value: int) -> str:
    if type(value) is int:
        return _integer(current().code, value)
    return numbers.format_decimal(value, locale=current().locale)


@lru_cache(maxsize=4096)
def _integer(code: str, value: int) -> str:
    # Babel takes tens of microseconds a number, and every view and page formats the
    # same few counts (points, Caballeros, rounds) over and over.
    return numbers.format_decimal(value, locale=lang_for(code).locale)


def format_decimal(value: float, pattern: str | None = None) -> str:
    return numbers.format_decimal(value, format=pattern, locale=current().locale)


def format_percent(value: float) -> str:
    """A share (0.5) as a percentage, "50%" / "50 %" as the language writes it."""
    return numbers.format_percent(value, locale=current().locale)


def format_date(value: date | datetime, form: str = "medium") -> str:
    return dates.format_date(value, format=form, locale=current().locale)


def format_datetime(value: datetime, form: str = "medium", tz: str = "UTC") -> str:
    return dates.format_datetime(value, format=form, tzinfo=dates.get_timezone(tz),
                                 locale=current().locale)
