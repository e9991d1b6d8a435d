"""A guest who played a game registers from the account page in Chromium and keeps the
account and the game; then downloads their data."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from .test_game_page import new_page, wait_game

pytestmark = pytest.mark.timeout(120)


def test_a_guest_registers_and_keeps_the_game(browser: Browser, server: str) -> None:
    page = new_page(browser)
    page.goto(server)
    page.select_option("#play-now-players", "2")
    page.select_option("#play-now-level", "easy")
    page.click("#play-now")
    page.wait_for_url(re.compile(r".*/games/\d+$"))
    game_url = page.url
    wait_game(page)
    page.goto(f"{server}/account")
    expect(page.locator("#guest-warning")).to_be_visible()
    page.fill("#upgrade-name", "dora")
    page.fill("#upgrade-password", "a good long password 9")
    page.click("#upgrade")
    page.wait_for_url(re.compile(r".*/account\?done=registered$"))
    expect(page.locator("#who")).to_have_text("dora")
    expect(page.locator("#guest-warning")).to_have_count(0)
    page.goto(f"{server}/lobby")
    game_path = game_url.removeprefix(server)
    expect(page.locator(f"#my-games a[href='{game_path}']")).to_have_count(1)
    page.goto(game_url)
    wait_game(page)
    assert page.evaluate("window.elgrande.state.seat") == 0
    page.goto(f"{server}/account")
    with page.expect_download() as download:
        page.click("#download-data")
    assert download.value.suggested_filename.startswith("elgrande-")
    assert not page.errors  # type: ignore[attr-defined]
