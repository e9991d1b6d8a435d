"""Whole games through the page in Debian's Chromium."""

from __future__ import annotations

import hashlib
import random
import re
import time
from pathlib import Path
from urllib.parse import urljoin

import pytest
from playwright.sync_api import Browser, Page, expect

from .driver import click_action, command, pick, play_one, renders, state, wait_render
from .table import NO_WATCH

pytestmark = pytest.mark.timeout(300)


def new_page(browser: Browser, width: int = 1400, height: int = 1100) -> Page:
    context = browser.new_context(viewport={"width": width, "height": height})
    context.add_init_script(NO_WATCH)  # the others' moves at once: quick games
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    return page


def register(page: Page, server: str, name: str) -> None:
    page.goto(f"{server}/register")
    page.fill("#name", name)
    page.fill("#password", "a good password")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r".*/lobby$"))


def wait_game(page: Page) -> None:
    page.wait_for_function("() => window.elgrande && window.elgrande.state")


def test_register_log_out_and_log_in(browser: Browser, server: str) -> None:
    page = new_page(browser)
    register(page, server, "anna")
    expect(page.locator("#who")).to_have_text("anna")
    page.click("text=Log out")
    page.wait_for_url(f"{server}/")
    page.goto(f"{server}/login")
    page.fill("#name", "anna")
    page.fill("#password", "wrong password")
    page.click("button[type=submit]")
    expect(page.locator(".alert-danger")).to_contain_text("Wrong name or password")
    page.fill("#password", "a good password")
    page.click("button[type=submit]")
    page.wait_for_url(f"{server}/lobby")
    expect(page.locator("#who")).to_have_text("anna")
    assert page.context.cookies()[0]["httpOnly"]
    assert not page.errors  # type: ignore[attr-defined]


def test_a_full_game_against_two_computers(browser: Browser, server: str, artifacts: Path) -> None:
    page = new_page(browser)
    page.goto(server)
    page.click("#play-now")
    page.wait_for_url(re.compile(r".*/games/\d+$"))
    wait_game(page)
    page.screenshot(path=str(artifacts / "board-start.png"), full_page=True)
    rng = random.Random(11)
    used_undo_redo = answered_general_secret = shot_highlights = False
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        s, before = page.evaluate("[window.elgrande.state, window.elgrande.renders]")
        if s["finished"]:
            break
        if not shot_highlights and s["phase"] in ("deploy", "move", "move_drop") and s["legal"]:
            page.screenshot(path=str(artifacts / "board-highlights.png"))
            shot_highlights = True
        if not used_undo_redo and s["legal"] and len(s["draft"]["steps"]) >= 2:
            steps = s["draft"]["steps"]
            command(page, "#undo")
            assert state(page)["draft"]["steps"] == steps[:-1]
            assert page.is_enabled("#redo")
            command(page, "#redo")
            assert state(page)["draft"]["steps"] == steps
            used_undo_redo = True
            continue
        if s["legal"] and s["legal"][0]["kind"] == "secret" and s["secret"]["purpose"] == "general":
            expect(page.locator("#secret-dialog")).to_be_visible()
            expect(page.locator("#secret-who")).to_contain_text("choosing")
            if not answered_general_secret:
                page.screenshot(path=str(artifacts / "board-secret-choice.png"))
            click_action(page, pick(s["legal"], rng))
            answered_general_secret = True
            continue
        play_one(page, rng)
    final = state(page)
    assert final["finished"], "the game did not end in time"
    assert used_undo_redo and answered_general_secret
    expect(page.locator("#final-scores")).to_be_visible()
    scores = sorted((p["score"] for p in final["players"]), reverse=True)
    cells = page.locator("#final-scores tbody tr td:nth-child(3)").all_inner_texts()
    assert [int(c) for c in cells] == scores
    expect(page.locator("#status")).to_contain_text("The game is over")
    commitment = page.get_attribute("#game", "data-commitment") or ""
    assert len(commitment) == 64 and commitment in page.inner_text("#commitment")
    href = page.locator("#record-link").get_attribute("href") or ""
    record = page.request.get(urljoin(page.url, href)).json()
    assert hashlib.sha256(record["seed"].encode()).hexdigest() == commitment
    page.screenshot(path=str(artifacts / "board-final.png"), full_page=True)
    # Step back through the log on the finished game's page.
    page.click("#replay-prev")
    expect(page.locator("#replay-where")).to_have_text(f"move {final['seq'] - 1} of {final['seq']}")
    page.locator("#replay-slider").fill("0")
    page.locator("#replay-slider").dispatch_event("change")
    expect(page.locator("#replay-caption")).to_have_text("The start of the game.")
    assert not page.errors  # type: ignore[attr-defined]


def test_two_players_see_each_others_turns_live(browser: Browser, server: str, artifacts: Path) -> None:
    anna, bert = new_page(browser), new_page(browser)
    register(anna, server, "anna")
    register(bert, server, "bert")
    anna.select_option("#players", "2")
    anna.select_option("#seat1", "invited")
    anna.fill("#invite1", "bert")
    anna.click("#create-game")
    anna.wait_for_url(re.compile(r".*/games/\d+$"))
    invite = anna.input_value("#invite-link")
    bert.goto(invite)
    bert.click("#join")
    expect(bert.locator("#seats")).to_contain_text("bert")
    anna.click("#start")
    wait_game(anna)
    bert.wait_for_function("() => window.elgrande && window.elgrande.state")  # reloaded by itself
    # Each action card explains itself in a popover.
    anna.locator("#cards .card-info").first.click()
    expect(anna.locator(".popover")).to_be_visible()
    expect(anna.locator(".popover")).to_contain_text("Deploys up to")
    anna.click("#status")  # clicking elsewhere closes it
    expect(anna.locator(".popover")).to_have_count(0)
    pages = {0: anna, 1: bert}
    rng = random.Random(3)
    for _ in range(4):  # a few finished turns each way
        s = state(anna)
        mover_seat = s["to_act"][0]
        mover, watcher = pages[mover_seat], pages[1 - mover_seat]
        seq_before = state(watcher)["seq"]
        while True:
            m = state(mover)
            if not m["legal"]:
                break
            click_action(mover, pick(m["legal"], rng))
        assert state(watcher)["seq"] == seq_before  # drafts stay private
        command(mover, "#finish")
        watcher.wait_for_function(f"() => window.elgrande.state.seq > {seq_before}", timeout=5000)
        committed = state(mover)["seq"]
        assert state(watcher)["seq"] == committed
        expect(watcher.locator("#log li").last).to_have_text(state(mover)["log"][-1]["text"])
    watcher.screenshot(path=str(artifacts / "board-two-players.png"), full_page=True)
    assert not anna.errors and not bert.errors  # type: ignore[attr-defined]


def test_reload_and_reconnect_keep_the_draft(browser: Browser, server: str) -> None:
    page = new_page(browser)
    page.goto(server)
    page.click("#play-now")
    page.wait_for_url(re.compile(r".*/games/\d+$"))
    wait_game(page)
    rng = random.Random(5)
    # Play until the middle of an action turn: two steps taken, more to come.
    for _ in range(200):
        s = state(page)
        if s["legal"] and s["phase"] not in ("bid", "secret") and len(s["draft"]["steps"]) >= 2:
            break
        play_one(page, rng)
    draft = state(page)["draft"]
    legal = state(page)["legal"]
    assert len(draft["steps"]) >= 2 and legal
    page.reload()
    wait_game(page)
    again = state(page)
    assert again["draft"] == draft and again["legal"] == legal
    expect(page.locator("#undo")).to_be_enabled()
    # A dropped connection comes back by itself, in sync.
    before = renders(page)
    page.evaluate("window.elgrande.connection.drop()")
    wait_render(page, before)
    expect(page.locator("#connection")).to_have_text("live")
    assert state(page)["draft"] == draft


def test_phone_sized_screen_and_spectator(browser: Browser, server: str, artifacts: Path) -> None:
    player = new_page(browser)
    player.goto(server)
    player.click("#play-now")
    player.wait_for_url(re.compile(r".*/games/\d+$"))
    url = player.url
    phone = new_page(browser, 390, 844)
    phone.goto(url)  # not logged in: a spectator
    wait_game(phone)
    expect(phone.locator("#spectator-badge")).to_be_visible()
    assert state(phone)["legal"] == [] and state(phone)["spectator"]
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    box = phone.locator("#map").bounding_box()
    assert box is not None and box["width"] <= 390  # the whole map fits the width
    phone.screenshot(path=str(artifacts / "board-phone-spectator.png"), full_page=True)
    assert not phone.errors  # type: ignore[attr-defined]


def test_a_page_whose_session_ended_says_so_and_stops(browser: Browser, server: str) -> None:
    """Logged out in another tab: the game page's next move is refused (4401), and the
    page says why instead of reconnecting as a spectator in silence."""
    page = new_page(browser)
    register(page, server, "lena")
    page.goto(f"{server}/lobby")
    page.click("#play-now")
    page.wait_for_url(re.compile(r".*/games/\d+$"))
    wait_game(page)
    page.wait_for_function("() => window.elgrande.state.legal.length > 0")
    other = page.context.new_page()
    other.goto(f"{server}/lobby")
    other.click("text=Log out")
    other.wait_for_url(f"{server}/")
    opened = []
    page.on("websocket", lambda ws: opened.append(ws))
    page.evaluate("""() => {
        const s = window.elgrande.state;
        document.dispatchEvent(new CustomEvent("elgrande:send", {detail:
            {type: "step", action: s.legal[0].text, seq: s.seq, id: 99}}));
    }""")
    expect(page.locator("#error")).to_contain_text("You were logged out")
    expect(page.locator("#connection")).to_have_text("offline")
    page.wait_for_timeout(1000)  # a reconnect would come after 250 ms
    assert opened == []
    assert not page.errors  # type: ignore[attr-defined]
