"""A game turn played in German and one in French: no English text remains on the page
(docs/i18n.md). Every visible text and every accessible name is checked against the
English of the catalogs: a text a reader sees that is one of our English messages means
something bypassed the translation."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from playwright.sync_api import Browser, Page

from elgrande.server.i18n.catalogs import LOCALE_DIR
from tests.browser.driver import play_one, shown_texts

# Short words that are the same in English and the other language (names on the board,
# codes, the game's title) or too short to tell.
SAME = {"El Grande", "Castillo", "Grande", "Veto", "Lobby", "Profil", "Profile", "Prov", "Cast",
        "Caballero", "Caballeros", "Caballeros in", "Partie", "Action", "Invitations", "Table",
        "Date", "Places", "orange"}  # (the colour: the same word in German and French)


def _english() -> set[str]:
    """Every English message of the catalogs that has words in it."""
    texts: set[str] = set()
    for domain in ("messages", "js"):
        with (LOCALE_DIR / f"{domain}.pot").open("rb") as pot:
            for message in read_po(pot):
                for text in message.id if isinstance(message.id, tuple) else [message.id]:
                    # The fixed parts between placeholders, each long enough to tell.
                    for part in re.split(r"%\(\w+\)s|<[^>]*>", text or ""):
                        part = part.strip(" .,:;()·–-")
                        if len(part) >= 4 and re.search(r"[a-z]{3}", part) and part not in SAME:
                            texts.add(part)
    return texts


ENGLISH = _english()


def _shown_texts(page: Page) -> list[str]:
    return shown_texts(page, "script, style, #log, #chat-lines")


# English messages that are also words of the language ("place" is French for "places").
ALSO = {"de": set(), "fr": {"place", "Place", "Score", "scores", "Province", "point", "points", "places"}}


def _english_pattern(language: str) -> re.Pattern[str]:
    """Any of our English messages as whole words, in one pattern (a text has a match
    exactly when one of them is in it; one search per text, not one per message)."""
    messages = sorted(ENGLISH - ALSO[language], key=len, reverse=True)
    return re.compile(rf"(?<!\w)(?:{'|'.join(map(re.escape, messages))})(?!\w)")


PATTERNS = {language: _english_pattern(language) for language in ALSO}


def _english_left(page: Page, language: str) -> list[str]:
    """Our English messages (as whole words) in what the page shows; the players' names
    are theirs, in any language, and left out."""
    names = page.evaluate("window.elgrande.state.players.map((p) => p.name)")
    found = []
    for text in _shown_texts(page):
        for name in names:
            text = text.replace(name, "")
        found += [f"{english!r} in {text!r}" for english in PATTERNS[language].findall(text)]
    return sorted(set(found))


@pytest.mark.parametrize(("language", "sure"), [("de", "Zug beenden"), ("fr", "Finir le tour")])
def test_a_turn_in_german_and_in_french_has_no_english_left(
        browser: Browser, server: str, artifacts: Path, language: str, sure: str) -> None:
    context = browser.new_context(locale=language, extra_http_headers={"accept-language": language})
    page = context.new_page()
    page.goto(server)
    page.click("#play-now")
    page.wait_for_url(re.compile(r".*/games/\d+$"))
    page.wait_for_function("() => window.elgrande && window.elgrande.state")
    assert sure in page.content()
    rng = random.Random(5)
    checked = 0
    for _ in range(60):
        left = _english_left(page, language)
        assert not left, "English left on the page:\n" + "\n".join(left)
        did = play_one(page, rng)
        checked += 1
        if did in ("finish", "over"):
            break
    page.screenshot(path=str(artifacts / f"board-{language}.png"), full_page=True)
    assert checked, "no move was made"
    left = _english_left(page, language)
    assert not left, "English left on the page:\n" + "\n".join(left)
    assert page.evaluate("document.documentElement.lang") == language
    context.close()
