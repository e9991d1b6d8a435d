"""Cross-site login, in a real browser (issue 11, item 4): a page of another origin that
submits a login form (with the attacker's own valid CSRF token) to our server cannot
log its visitor into the attacker's account, nor replace a guest's session through
"Play now". Debian's Chromium visits a real server started as a separate process and a
foreign page served from another port of 127.0.0.1 (another origin; same site, so the
browser sends its cookies: only our checks stand in the way)."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import sync_playwright

from elgrande.loadgen.launch import ServerProcess
from tests.browser.driver import CHROMIUM

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')
PASSWORD = "amber tractor ninety"

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    process = ServerProcess(f"sqlite:///{tmp_path / 'xsite.db'}", None, tmp_path).start()
    try:
        yield process.url
    finally:
        process.stop()


def attacker_token(url: str) -> str:
    """The attacker registers an account and fetches a logged-out CSRF token with its own
    client (its own cookies), as anyone can."""
    with httpx.Client(base_url=url, follow_redirects=False) as attacker:
        page = attacker.get("/register")
        token = CSRF_FIELD.search(page.text)
        assert token
        made = attacker.post("/register", data={"name": "mallory", "password": PASSWORD,
                                                "csrf_token": token.group(1)})
        assert made.status_code == 303, made.text
        attacker.cookies.clear()
        login_page = attacker.get("/login")
        found = CSRF_FIELD.search(login_page.text)
        assert found
        return found.group(1)


def foreign_site(html: str) -> tuple[ThreadingHTTPServer, str]:
    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            body = html.encode()
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    site = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    return site, f"http://127.0.0.1:{site.server_address[1]}/"


def auto_submit(action: str, fields: dict[str, str]) -> str:
    inputs = "".join(f'<input type="hidden" name="{k}" value="{v}">' for k, v in fields.items())
    return (f'<html><body><form id="f" method="post" action="{action}">{inputs}</form>'
            '<script>document.getElementById("f").submit()</script></body></html>')


def test_a_foreign_page_cannot_log_a_visitor_in_or_replace_a_guest(server: str) -> None:
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: run `make system` (scripts/system-packages.txt)")
    token = attacker_token(server)
    login_site, login_url = foreign_site(auto_submit(
        f"{server}/login", {"name": "mallory", "password": PASSWORD, "csrf_token": token}))
    play_site, play_url = foreign_site(auto_submit(f"{server}/play-now", {"csrf_token": token}))
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                 args=ARGS)
            try:
                page = browser.new_context().new_page()
                page.goto(server + "/")  # the visitor has been to our site before
                answer = page.goto(login_url)
                page.wait_for_load_state()
                assert answer is not None
                page.goto(server + "/lobby")
                assert "/login" in page.url, "the visitor must not be logged in as mallory"
                assert "mallory" not in page.content()

                # A guest playing: a forged "Play now" must not start games in its name
                # or replace its session.
                page.goto(server + "/")
                page.click("#play-now")
                page.wait_for_url("**/games/*")
                own_game = page.url
                page.goto(play_url)
                page.wait_for_load_state()
                assert "Refused" in page.content() or "another site" in page.content()
                page.goto(server + "/lobby")
                games = re.findall(r'href="/games/(\d+)"', page.content())
                assert len(set(games)) == 1 and own_game.endswith(f"/games/{games[0]}")
            finally:
                browser.close()
    finally:
        login_site.shutdown()
        play_site.shutdown()
