"""The pseudo-language (docs/i18n.md): every text that goes through the catalogs comes
out accented and in brackets, so a page shown in it whose visible text still has plain
words has text that bypasses the catalogs. Pages and a game turn are walked in Chromium;
what may stay as it is: players' names, the board's Spanish region names, card ids,
numbers and the game's title."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from elgrande.rules.board import AREA_NAMES
from elgrande.server.i18n.pseudo import CLOSE, OPEN
from elgrande.server.settings import Settings
from tests.apps import app_for
from tests.browser.driver import click_action, play_one, shown_texts
from tests.server.liveserver import serving

pytestmark = pytest.mark.timeout(180)

BRACKETED = re.compile(re.escape(OPEN) + ".*?" + re.escape(CLOSE), re.S)
# Left as they are in every language: the title, the Spanish names on the board, and the
# rules' own abbreviations in card ids ("3a").
KEPT = sorted({"El Grande", *AREA_NAMES, "FRANCIA", "PORTUGAL", "MAR MEDITERRÁNEO",
               "EN", "DE", "FR", "Deutsch", "English", "Français"},
              key=len, reverse=True)


@pytest.fixture
def pseudo_server(tmp_path: Path) -> Iterator[str]:
    app = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'p.db'}",
                           secret_key="k" * 32, bot_delay=0.0, pseudo_locale=True))
    with serving(app) as url:
        yield url




def plain_words(page: Page, names: list[str]) -> list[str]:
    """The shown texts that still have words outside the pseudo-language's brackets."""
    found = []
    for text in shown_texts(page):
        rest = BRACKETED.sub(" ", text)
        # A message with markup in it spans several text nodes: its middle and end parts
        # come without the opening bracket, its start without the closing one.
        if CLOSE in rest:
            rest = rest[rest.rindex(CLOSE) + 1:]
        if OPEN in rest:
            rest = rest[:rest.index(OPEN)]
        for kept in [*names, *KEPT]:
            rest = rest.replace(kept, " ")
        rest = re.sub(r"\b\d+[a-z]?\b", " ", rest)  # numbers and card ids
        # The pseudo-language accents every a, c, e, i, n, o, u and y: a word that still
        # has one of them plain did not go through the catalogs.
        plain = [w for w in re.findall(r"[^\W\d_]{2,}", rest) if re.search("[aceinouyACEINOUY]", w)]
        if plain:
            found.append(f"{text!r} (plain: {' '.join(plain)!r})")
    return sorted(set(found))


def check(page: Page, where: str, names: list[str] | None = None) -> None:
    left = plain_words(page, names or [])
    assert not left, f"text outside the catalogs on {where}:\n" + "\n".join(left)


def test_every_text_goes_through_the_catalogs(browser: Browser, pseudo_server: str) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.add_cookies([{"name": "lang", "value": "qps", "url": pseudo_server}])
    page = context.new_page()
    for path in ("/", "/login", "/register", "/password/forgot", "/ranking", "/privacy"):
        page.goto(pseudo_server + path)
        check(page, path)
    page.goto(pseudo_server + "/register")
    page.fill("#name", "pia")
    page.fill("#password", "a good long password")
    page.click("form[action='/register'] button")
    page.wait_for_url(re.compile(r".*/lobby$"))
    for path in ("/lobby", "/account", "/my-games", "/players/pia"):
        page.goto(pseudo_server + path)
        check(page, path, ["pia"])
    page.goto(pseudo_server + "/lobby")
    page.click("#play-now")
    page.wait_for_url(re.compile(r".*/games/\d+$"))
    page.wait_for_function("() => window.elgrande && window.elgrande.state")
    names = page.evaluate("window.elgrande.state.players.map((p) => p.name)")
    rng = random.Random(7)
    phases, finished = set(), 0
    for _ in range(150):  # a few whole turns: bids, cards, deployments, special actions
        phase = page.evaluate("window.elgrande.state.phase")
        phases.add(phase)
        check(page, f"the game page ({phase})", names)
        legal = page.evaluate("window.elgrande.state.legal") or []
        deploy = [a for a in legal if a["kind"] == "deploy"]
        if deploy and "deploy" not in phases:  # a random pick may skip deploying for turns
            click_action(page, deploy[0])
            continue
        did = play_one(page, rng)
        finished += did == "finish"
        if finished >= 4 or did == "over":
            break
    assert {"bid", "take", "deploy"} <= phases, phases
    check(page, "the game page", names)
    context.close()
