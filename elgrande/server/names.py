"""Account names: the key that makes them unique, and the skeleton that finds look-alikes.

- ``name_key``: NFKC normalisation, then case folding: `Mallory` and `mallory` are one
  name (unique column ``web_users.name_key``).
- ``skeleton``: the Unicode confusable skeleton (UTS #39), made case-blind: a new name
  whose skeleton is an existing name's is refused (`maIlory`, `rnallory` next to
  `mallory`). Names are ASCII (``NAME_PATTERN``), so the skeleton map below is the part of
  the Unicode confusables table (https://www.unicode.org/Public/security/latest/
  confusables.txt) whose sources are characters a name may hold.
"""

from __future__ import annotations

import re
import unicodedata

from .i18n import _

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.\-]{3,24}$")
GUEST_PREFIX = "guest-"

# confusables.txt entries for the characters of NAME_PATTERN (source -> prototype).
_CONFUSABLES = {
    "0": "O",  # 0030 DIGIT ZERO -> LATIN CAPITAL LETTER O
    "1": "l",  # 0031 DIGIT ONE -> LATIN SMALL LETTER L
    "I": "l",  # 0049 LATIN CAPITAL LETTER I -> LATIN SMALL LETTER L
    # confusables.txt has "rn" (0072 006E) -> "m" (006D); a map of single characters
    # takes it the other way round, which puts exactly the same names together.
    "m": "rn",
}


class BadName(ValueError):
    pass


def name_key(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold()


def _skeleton(text: str) -> str:
    text = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(_CONFUSABLES.get(c, c) for c in text))


def skeleton(name: str) -> str:
    """Case-blind: the skeleton before and after folding (`I` is `l` before folding makes
    it `i`; `M` is `m`, hence `rn`, only after)."""
    return _skeleton(_skeleton(unicodedata.normalize("NFKC", name)).casefold())


def check_name(name: str) -> str:
    """The name as it will be stored, or BadName saying what is wrong with it."""
    name = name.strip()
    if not NAME_PATTERN.match(name):
        raise BadName(_("A name has 3 to 24 letters, digits, '.', '_' or '-'."))
    if name_key(name).startswith(GUEST_PREFIX) or skeleton(name).startswith(skeleton(GUEST_PREFIX)):
        raise BadName(_("Names starting with 'guest-' are kept for guests."))
    return name
