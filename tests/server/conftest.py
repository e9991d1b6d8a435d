"""In-process HTTP and WebSocket tests: one app on a temporary SQLite file per test.

Several users share one TestClient (one event loop, so the live-update hub works):
each request carries its user's session cookie explicitly."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from elgrande.server.security import BROWSER_COOKIE, SESSION_COOKIE
from elgrande.server.settings import Settings
from tests.apps import app_for

CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')


@dataclass
class As:
    """Requests made as one user (or anonymously, cookie None)."""

    client: TestClient
    cookie: str | None
    name: str = ""
    browser: str | None = None  # the browser-id cookie logged-out CSRF tokens are tied to

    def headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = dict(extra or {})
        cookies = [f"{SESSION_COOKIE}={self.cookie}"] if self.cookie else []
        if self.browser:
            cookies.append(f"{BROWSER_COOKIE}={self.browser}")
        if cookies:
            headers["cookie"] = "; ".join(cookies)
        return headers

    def remember_browser(self, response: Any) -> Any:
        """Keeps the browser id a page set (as a browser would)."""
        self.browser = response.cookies.get(BROWSER_COOKIE) or self.browser
        return response

    def get(self, url: str, **kw: Any) -> Any:
        self.client.cookies.clear()
        return self.client.get(url, headers=self.headers(kw.pop("headers", None)), **kw)

    def post(self, url: str, **kw: Any) -> Any:
        self.client.cookies.clear()
        return self.client.post(url, headers=self.headers(kw.pop("headers", None)), **kw)

    def csrf(self) -> str:
        page = self.remember_browser(self.get("/register" if self.cookie is None else "/lobby"))
        match = CSRF_FIELD.search(page.text)
        assert match, page.text[:500]
        return match.group(1)

    def api(self, game_id: int, command: str, body: dict[str, Any]) -> Any:
        return self.post(f"/api/games/{game_id}/{command}", json=body,
                         headers={"x-csrf-token": self.csrf()})

    def ws(self, game_id: int, **kw: Any) -> Any:
        self.client.cookies.clear()
        return PageSocket(self.client.websocket_connect(
            f"/ws/games/{game_id}", headers=self.headers(kw.pop("headers", None))))


class PageSocket:
    """A game page's WebSocket as the page sees it: a state carrying "log_from" brings
    only the new lines of the move log, completed from those received before (net.js)."""

    def __init__(self, connecting: Any) -> None:
        self._connecting = connecting
        self._log: list[Any] = []
        self.raw: list[dict[str, Any]] = []  # every message as it arrived

    def __enter__(self) -> PageSocket:
        self._ws = self._connecting.__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        return self._connecting.__exit__(*exc)

    def receive_json(self) -> Any:
        message = self._ws.receive_json()
        self.raw.append(message)
        if isinstance(message, dict) and message.get("type") == "state":
            state = dict(message["state"])
            if "log_from" in state:
                start = state.pop("log_from")
                assert 0 <= start <= len(self._log), "log_from beyond the lines received"
                state["log"] = self._log[:start] + state["log"]
            self._log = state["log"]
            message = {**message, "state": state}
        return message

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ws, name)


@pytest.fixture
def app(tmp_path: Path) -> Any:
    return app_for(Settings(database_url=f"sqlite:///{tmp_path / 'test.db'}", secret_key="k" * 32,
                               bot_delay=0.0))


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with TestClient(app, follow_redirects=False) as c:
        yield c


def register(client: TestClient, name: str, password: str = "correct horse") -> As:
    anon = As(client, None)
    response = anon.post("/register", data={"name": name, "password": password, "csrf_token": anon.csrf()})
    assert response.status_code == 303, response.text
    cookie = response.cookies.get(SESSION_COOKIE)
    assert cookie
    client.cookies.clear()
    return As(client, cookie, name)


@pytest.fixture
def anna(client: TestClient) -> As:
    return register(client, "anna")


@pytest.fixture
def bert(client: TestClient) -> As:
    return register(client, "bert")


@pytest.fixture
def carl(client: TestClient) -> As:
    return register(client, "carl")


def create_game(user: As, seats: list[str], rounds: int = 9, **extra: str) -> int:
    data = {"players": str(len(seats)), "rounds": str(rounds), "csrf_token": user.csrf()}
    for i, kind in enumerate(seats):
        data[f"seat{i}"] = kind
    data.update(extra)
    response = user.post("/games", data=data)
    assert response.status_code == 303, response.text
    return int(response.headers["location"].rsplit("/", 1)[1])


def start_game(user: As, game_id: int, fill: bool = False) -> None:
    data = {"csrf_token": user.csrf()}
    if fill:
        data["fill_with_bots"] = "1"
    response = user.post(f"/games/{game_id}/start", data=data)
    assert response.status_code == 303, response.text


def join_game(user: As, game_id: int) -> None:
    response = user.post(f"/games/{game_id}/join", data={"csrf_token": user.csrf()})
    assert response.status_code == 303, response.text


@pytest.fixture
def three_humans(client: TestClient, anna: As, bert: As, carl: As) -> tuple[int, As, As, As]:
    """A started 3-player game: anna seat 0, bert seat 1, carl seat 2 (no bots)."""
    game_id = create_game(anna, ["me", "open", "open"])
    join_game(bert, game_id)
    join_game(carl, game_id)
    start_game(anna, game_id)
    return game_id, anna, bert, carl


def services(client: TestClient) -> Any:
    return client.app.state.services  # type: ignore[attr-defined]
