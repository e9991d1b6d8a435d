"""The pseudo-language: every translated text comes out accented and in brackets
("⟦Ŀöğ íñ⟧"), its placeholders and markup untouched. A page shown in it that still has
plain text has text that does not go through the catalogs."""

from __future__ import annotations

import gettext as gnu
import re

OPEN, CLOSE = "⟦", "⟧"
_ACCENTS = str.maketrans("aceinouyACEINOUY", "áçéíñöûýÁÇÉÍÑÖÛÝ")
# Left as they are: %(name)s placeholders, {name} fields and HTML tags.
_KEEP = re.compile(r"%\(\w+\)[sd]|%[sd%]|\{\w*\}|<[^>]*>|&\w+;")


def pseudo(text: str) -> str:
    if not text or text.startswith(OPEN):
        return text
    out, at = [], 0
    for kept in _KEEP.finditer(text):
        out.append(text[at:kept.start()].translate(_ACCENTS))
        out.append(kept.group())
        at = kept.end()
    out.append(text[at:].translate(_ACCENTS))
    return OPEN + "".join(out) + CLOSE


class PseudoTranslations(gnu.NullTranslations):
    def gettext(self, message: str) -> str:
        return pseudo(message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return pseudo(msgid1 if n == 1 else msgid2)

    def pgettext(self, context: str, message: str) -> str:
        return pseudo(message)
