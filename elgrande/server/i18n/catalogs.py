"""The catalogs of each language, read from the ``.po`` files in ``elgrande/locale`` and
compiled in memory when first used: no compiled ``.mo`` file is committed or built, so
a fresh clone serves every language as it is (docs/i18n.md)."""

from __future__ import annotations

import functools
import gettext as gnu
import hashlib
import io
from pathlib import Path
from typing import Any

import orjson
from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from .pseudo import PseudoTranslations

LOCALE_DIR = Path(__file__).resolve().parents[2] / "locale"
DEFAULT = "en"  # the language of the source texts: no catalog of its own
LOCALES = ("en", "de", "fr")  # offered in the header's switch
# What each language is called in itself (the switch shows these, never translated).
LANGUAGE_NAMES = {"en": "English", "de": "Deutsch", "fr": "Français"}
# A made-up language that marks every translated text (tests, and the curious, with
# ELGRANDE_PSEUDO_LOCALE): text left untranslated stands out on the page.
PSEUDO = "qps"
DOMAINS = ("messages", "js")  # server and templates; the pages' scripts


def _translations(code: str, domain: str) -> gnu.NullTranslations:
    if code == PSEUDO:
        return PseudoTranslations()
    path = LOCALE_DIR / code / "LC_MESSAGES" / f"{domain}.po"
    if code == DEFAULT or not path.exists():
        return gnu.NullTranslations()
    with path.open("rb") as po:
        catalog = read_po(po, locale=code, domain=domain)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)  # fuzzy entries are left out: English shows instead
    buffer.seek(0)
    return gnu.GNUTranslations(buffer)


def _script_catalog(code: str) -> dict[str, Any]:
    """The pages' scripts' messages as JSON: each message's text, or its plural forms in
    the order of ``plural`` (the categories of the browser's ``Intl.PluralRules``)."""
    messages: dict[str, Any] = {}
    if code == PSEUDO:
        return {"locale": code, "pseudo": True, "plural": ["one", "other"], "messages": {}}
    path = LOCALE_DIR / code / "LC_MESSAGES" / "js.po"
    if code != DEFAULT and path.exists():
        with path.open("rb") as po:
            catalog = read_po(po, locale=code, domain="js")
        for message in catalog:
            if not message.id or message.fuzzy:
                continue
            if isinstance(message.id, (list, tuple)):
                forms = [str(form) for form in message.string or ()]
                if all(forms):
                    messages[message.id[0]] = forms
            elif message.string:
                messages[message.id] = message.string
    # The browser's Intl.PluralRules category of each gettext plural index: CLDR's
    # forms, which Babel's catalogs follow (French: one, many for millions, other).
    plural = ["one", "many", "other"] if _plural_count(code) == 3 else ["one", "other"]
    return {"locale": code, "plural": plural, "messages": messages}


def _plural_count(code: str) -> int:
    from babel.messages.plurals import get_plural

    return int(get_plural(code).num_plurals)


class Lang:
    """One language: its server catalog, its scripts' catalog (as JSON bytes, with a
    version for the URL) and its Babel locale for numbers and dates."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.locale = Locale.parse("en" if code == PSEUDO else code)
        self.translations = _translations(code, "messages")
        self.script_json = orjson.dumps(_script_catalog(code))
        self.script_version = hashlib.sha256(self.script_json).hexdigest()[:12]

    @property
    def tag(self) -> str:
        """The BCP 47 tag for ``<html lang>`` (the browser's number formats follow it)."""
        return "en-XA" if self.code == PSEUDO else self.code

    @property
    def script_url(self) -> str:
        return f"/i18n/{self.code}.json?v={self.script_version}"

    def gettext(self, message: str) -> str:
        return self.translations.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.translations.ngettext(singular, plural, n)


@functools.cache
def lang_for(code: str) -> Lang:
    """The language of ``code`` (anything unknown: the default)."""
    if code not in LOCALES and code != PSEUDO:
        code = DEFAULT
    return Lang(code)
