"""The site's languages (docs/i18n.md): message catalogs for Python, the Jinja2 templates
and the pages' scripts, the language of the request being served, and numbers and dates
formatted for it.

Which language a request gets is decided once, from its cookie or its Accept-Language
(``negotiate``), by ``LanguageMiddleware``; a registered player's choice is kept in the
account and put back into the cookie at login. Everything below reads the language of
the running request from a context variable, so the code that makes texts (the move
log, the rules' refusals, emails) needs no extra argument; work done outside a request
(emails) picks its reader's language with ``using``."""

from __future__ import annotations

from .catalogs import DEFAULT, LANGUAGE_NAMES, LOCALES, PSEUDO, Lang, lang_for
from .context import (
    N_,
    current,
    format_date,
    format_datetime,
    format_decimal,
    format_number,
    format_percent,
    gettext,
    ngettext,
    using,
)
from .negotiate import LANG_COOKIE, LanguageMiddleware, negotiate

_ = gettext

__all__ = [
    "DEFAULT", "LANGUAGE_NAMES", "LANG_COOKIE", "LOCALES", "N_", "PSEUDO", "Lang",
    "LanguageMiddleware", "_", "current", "format_date", "format_datetime",
    "format_decimal", "format_number", "format_percent", "gettext", "lang_for", "negotiate", "ngettext",
    "using",
]
