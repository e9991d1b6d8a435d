"""Turn clocks in Chromium, with the server's clock injected: a daily game between two
players; the one to act lets the clock run out, a computer plays the turn for them (the
log says so), both pages show it, and the player takes the seat back with one click."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from elgrande.server.settings import Settings
from tests.apps import app_for
from tests.clocks.conftest import FakeClock
from tests.server.liveserver import serving

from .test_game_page import new_page, register, wait_game

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def clocked(tmp_path: Path) -> Iterator[tuple[str, Any, FakeClock]]:
    clock = FakeClock()
    app = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'live.db'}",
                           secret_key="test-secret-key-0123456789", bot_delay=0.0,
                           bot_processes=1), now=clock)
    with serving(app) as url:
        yield url, app.state.services, clock


def test_a_clock_runs_out_a_computer_plays_and_the_player_takes_the_seat_back(
        browser: Browser, clocked: tuple[str, Any, FakeClock], artifacts: Path) -> None:
    server, svc, clock = clocked
    anna, bert = new_page(browser), new_page(browser)
    register(anna, server, "anna")
    register(bert, server, "bert")
    anna.select_option("#players", "2")
    anna.select_option("#rounds", "6")
    anna.select_option("#pace", "daily-1")
    expect(anna.locator("#hours_from")).to_be_visible()  # daily: playing hours offered
    anna.select_option("#stand_in", "random")
    anna.select_option("#seat1", "invited")
    anna.fill("#invite1", "bert")
    anna.click("#create-game")
    anna.wait_for_url(re.compile(r".*/games/\d+$"))
    game_id = int(anna.url.rsplit("/", 1)[1])
    bert.goto(anna.input_value("#invite-link"))
    bert.click("#join")
    expect(bert.locator("#seats")).to_contain_text("bert")
    anna.click("#start")
    wait_game(anna)
    bert.wait_for_function("() => window.elgrande && window.elgrande.state")
    pages = {0: anna, 1: bert}
    names = {0: "anna", 1: "bert"}
    for page in pages.values():
        expect(page.locator("#clocks li")).to_have_count(2)
        expect(page.locator("#clocks .clock-running")).to_have_count(1)
        expect(page.locator("#clock-pace")).to_contain_text("1 move a day")
    sleeper = anna.evaluate("window.elgrande.state.to_act[0]")
    mine = pages[sleeper]
    # 3 days: the day's move and the 2 days in the bank to start.
    running = mine.locator(f"#clocks li[data-seat='{sleeper}']")
    expect(running).to_contain_text(re.compile(r"(2d 23h|3d 0h) left"))
    expect(running).to_have_class(re.compile("clock-running"))
    expect(mine.locator("#take-back-form")).to_be_hidden()
    seq = mine.evaluate("window.elgrande.state.seq")
    # Three days and a bit later: the clock ran out.
    clock.advance(days=3, minutes=1)
    svc.clocks.wake.set()
    for page in pages.values():
        expect(page.locator(f"#clocks li[data-seat='{sleeper}']")).to_contain_text(
            "away, the computer plays", timeout=20_000)
    expect(mine.locator("#take-back-form")).to_be_visible()
    expect(pages[1 - sleeper].locator("#take-back-form")).to_be_hidden()
    # The computer played the turn, and the log says for whom.
    mine.wait_for_function(f"() => window.elgrande.state.seq > {seq}", timeout=30_000)
    for page in pages.values():
        expect(page.locator("#log .stand-in").first).to_contain_text(
            f"computer for {names[sleeper]}", timeout=10_000)
        expect(page.locator("#stand-in-summary")).to_contain_text(f"for {names[sleeper]}")
    mine.screenshot(path=str(artifacts / "clock-ran-out.png"), full_page=True)
    # One click and the seat is the player's again.
    mine.click("#take-back")
    mine.wait_for_load_state()
    wait_game(mine)
    expect(mine.locator("#take-back-form")).to_be_hidden()
    expect(mine.locator(f"#clocks li[data-seat='{sleeper}']")).not_to_contain_text("away")
    expect(pages[1 - sleeper].locator(f"#clocks li[data-seat='{sleeper}']")).not_to_contain_text(
        "away", timeout=10_000)
    assert not svc.clocks.is_away(game_id, sleeper)
    assert not anna.errors and not bert.errors  # type: ignore[attr-defined]
