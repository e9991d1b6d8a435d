"""An extractor for ``pybabel extract`` (named in ``elgrande/locale/babel.cfg``): the
card names and texts of ``rules/cards.py``, which may hold no gettext calls (the rules
package imports the standard library only). The server shows them through
``card_name``/``card_text`` in ``present.py``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def extract_cards(fileobj: Any, keywords: Any, comment_tags: Any,
                  options: Any) -> Iterator[tuple[int, str, str, list[str]]]:
    from elgrande.rules.cards import ALL_CARDS

    source = fileobj.read().decode("utf-8")
    seen: set[str] = set()
    for card in ALL_CARDS:
        for text, what in ((card.name, "name"), (card.text, "text")):
            if text in seen:
                continue
            seen.add(text)
            line = next((n for n, row in enumerate(source.splitlines(), 1)
                         if text[:40] in row), 0)
            yield line, "gettext", text, [f"Action card {card.id}, its {what}"]
