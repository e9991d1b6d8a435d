"""Browser tests: Playwright for Python driving Debian's Chromium against a live server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright, sync_playwright

from tests.browser.driver import CHROMIUM
from tests.server.liveserver import live_server

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


# Module scope: Playwright's sync API keeps an event loop running in this thread while it
# is open, which other test packages that start their own Playwright must not inherit.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: run `make system` (scripts/system-packages.txt lists it)")
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    # launch() gives Chromium a fresh temporary user-data directory of its own.
    b = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
    yield b
    b.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with live_server(tmp_path, bot_delay=0.0) as url:
        yield url


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
