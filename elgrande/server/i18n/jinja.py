"""The templates' side: ``{{ _("...") }}``, ``{% trans %}`` and ``ngettext`` read the
request's language (newstyle gettext: the values are put in after translation and
escaped by autoescape), and filters that format numbers and dates for it."""

from __future__ import annotations

from typing import Any

from jinja2 import Environment

from .catalogs import LANGUAGE_NAMES, LOCALES
from .context import (
    current,
    format_date,
    format_datetime,
    format_decimal,
    format_number,
    format_percent,
)


def install(env: Environment) -> None:
    env.add_extension("jinja2.ext.i18n")
    env.policies["ext.i18n.trimmed"] = True  # a {% trans %} block's line breaks are spaces
    env.install_gettext_callables(  # type: ignore[attr-defined]
        lambda message: current().gettext(message),
        lambda singular, plural, n: current().ngettext(singular, plural, n),
        newstyle=True)
    env.filters["number"] = format_number
    env.filters["decimal"] = format_decimal
    env.filters["percent"] = format_percent
    env.filters["date"] = format_date
    env.filters["datetime"] = format_datetime
    env.globals["language"] = _language
    env.globals["language_names"] = LANGUAGE_NAMES
    env.globals["languages"] = LOCALES


def _language() -> Any:
    return current()
