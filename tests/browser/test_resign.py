"""Resigning from the game page in Chromium: a 2-player 6-round game against an easy
computer; the human resigns (after confirming); with no human left at the table the game
is stopped as abandoned, and the page says who resigned when. (A computer playing a
resigned seat to the end next to other humans, and the ranking: test_resign_http.py.)"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from .test_game_page import new_page, register, wait_game

pytestmark = pytest.mark.timeout(120)


def test_resign_from_the_page(browser: Browser, server: str) -> None:
    page = new_page(browser)
    register(page, server, "anna")
    page.select_option("#players", "2")
    page.select_option("#rounds", "6")
    page.select_option("#seat1", "bot")
    page.select_option("#level1", "easy")
    page.click("#create-game")
    page.wait_for_url(re.compile(r".*/games/\d+$"))
    page.click("#start")
    wait_game(page)
    # Asked first: keeping on playing changes nothing.
    page.click("#resign")
    expect(page.locator("#resign-dialog")).to_be_visible()
    page.click("#resign-keep")
    expect(page.locator("#resign-dialog")).to_be_hidden()
    assert page.evaluate("window.elgrande.state.seat") == 0
    page.click("#resign")
    page.click("#resign-confirm")
    page.wait_for_load_state()
    wait_game(page)
    expect(page.locator("#spectator-badge")).to_be_visible()
    expect(page.locator("#resignations")).to_contain_text("anna resigned in round 2")
    expect(page.locator("#abandoned")).to_be_visible()
    expect(page.locator("#resign")).to_have_count(0)
    assert not page.errors  # type: ignore[attr-defined]
