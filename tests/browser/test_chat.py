"""The table chat in Chromium, two players in two browser contexts: a line written by
one appears on the other's page at once, as text (markup shown, never run); a too long
line is refused with the reason; the other player mutes the writer."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from .test_game_page import new_page, register, wait_game

pytestmark = pytest.mark.timeout(120)


def test_two_players_chat(browser: Browser, server: str) -> None:
    anna, bert = new_page(browser), new_page(browser)
    register(anna, server, "anna")
    register(bert, server, "bert")
    anna.select_option("#players", "2")
    anna.select_option("#rounds", "6")
    anna.select_option("#seat1", "invited")
    anna.fill("#invite1", "bert")
    anna.click("#create-game")
    anna.wait_for_url(re.compile(r".*/games/\d+$"))
    bert.goto(anna.input_value("#invite-link"))
    bert.click("#join")
    expect(bert.locator("#seats")).to_contain_text("bert")
    anna.click("#start")
    wait_game(anna)
    bert.wait_for_function("() => window.elgrande && window.elgrande.state")
    expect(anna.locator("#chat-form")).to_be_visible()
    anna.fill("#chat-input", "Hola <img src=x onerror=alert(1)> bert!")
    anna.press("#chat-input", "Enter")
    line = bert.locator("#chat-lines li").first
    expect(line.locator(".chat-text")).to_have_text("Hola <img src=x onerror=alert(1)> bert!")
    expect(line.locator("strong")).to_have_text("anna:")
    expect(bert.locator("#chat-lines img")).to_have_count(0)  # text, not markup
    expect(anna.locator("#chat-input")).to_have_value("")
    anna.fill("#chat-input", "x" * 500 + "yz")  # the field stops at 500 characters
    assert len(anna.input_value("#chat-input")) == 500
    anna.evaluate("document.getElementById('chat-input').removeAttribute('maxlength')")
    anna.fill("#chat-input", "x" * 501)
    anna.press("#chat-input", "Enter")
    expect(anna.locator("#chat-error")).to_contain_text("at most 500 characters")
    bert.locator("#chat-lines .chat-mute").first.click()
    expect(bert.locator("#chat-error")).to_contain_text("no longer read anna")
    expect(bert.locator("#chat-lines li")).to_have_count(0)
    assert not anna.errors and not bert.errors  # type: ignore[attr-defined]
