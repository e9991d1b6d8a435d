"""The strict Content-Security-Policy does not break the pages: Debian's Chromium
(headless, via Playwright) loads the home page, a game against computers and a waiting
room from a hardened server, and reports no CSP violation and no script error."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import ConsoleMessage, Page, sync_playwright

from elgrande.loadgen.launch import ServerProcess
from tests.browser.driver import CHROMIUM

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def hardened_server(tmp_path: Path) -> Iterator[str]:
    server = ServerProcess(f"sqlite:///{tmp_path / 'csp.db'}", None, tmp_path).start()
    try:
        yield server.url
    finally:
        server.stop()


def test_pages_work_under_the_strict_csp(hardened_server: str) -> None:
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: run `make system` (scripts/system-packages.txt)")
    problems: list[str] = []

    def watch(page: Page) -> None:
        def on_console(message: ConsoleMessage) -> None:
            if "Content Security Policy" in message.text or message.type == "error":
                problems.append(f"{page.url}: {message.text}")

        page.on("console", on_console)
        page.on("pageerror", lambda error: problems.append(f"{page.url}: {error}"))

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            page = browser.new_page()
            watch(page)
            page.goto(hardened_server + "/")
            page.click("#play-now")  # a guest, a game against two computers
            page.wait_for_url("**/games/*")
            page.wait_for_selector("#area-GAL", timeout=20_000)  # the map is drawn by script
            # The WebSocket is up (connect-src 'self'). Predicates are functions: a bare
            # expression would be eval'd by Playwright, which the CSP rightly forbids.
            page.wait_for_function(
                "() => document.querySelector('#connection').classList.contains('text-bg-success')",
                timeout=20_000)
            page.goto(hardened_server + "/lobby")
            page.click("#create-game")  # 3 seats: me and two open ones -> the waiting room
            page.wait_for_url("**/games/*")
            page.wait_for_timeout(500)  # let the room's script run
        finally:
            browser.close()
    assert problems == []
