"""The web app with its hardening installed (``elgrande.server.hardening.install``), on a
temporary SQLite file, driven in-process over HTTP and WebSocket. Users are created
through the accounts service and identified by their signed session cookie."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from elgrande.server.settings import Settings
from tests.apps import app_for
from tests.server.conftest import As

SECRET_KEY = "security-test-secret-key-0123456789"
CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')


@dataclass
class Player(As):
    """Requests as one user, as in the web tests (``tests/server/conftest.py``), plus the
    account id."""

    user_id: int | None = None

    def csrf(self) -> str:
        page = self.remember_browser(self.get("/login" if self.cookie is None else "/lobby"))
        found = CSRF_FIELD.search(page.text)
        assert found
        return found.group(1)

    def api(self, game_id: int, command: str, body: Any, **kw: Any) -> Any:
        return self.post(f"/api/games/{game_id}/{command}", json=body,
                         headers={"x-csrf-token": self.csrf()}, **kw)


def make_app(tmp_path: Path, **settings: Any) -> Any:
    config = Settings(database_url=f"sqlite:///{tmp_path / 'security.db'}", secret_key=SECRET_KEY,
                      bot_delay=0.0, **settings)
    app = app_for(config)
    return app


@pytest.fixture
def app(tmp_path: Path) -> Any:
    return make_app(tmp_path)


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with TestClient(app, follow_redirects=False) as c:
        yield c


def services(client: TestClient) -> Any:
    return client.app.state.services  # type: ignore[attr-defined]


def guest(client: TestClient) -> Player:
    svc = services(client)
    user = svc.accounts.guest()
    return Player(client, svc.signer.session_cookie(user.id), user_id=user.id)


def anonymous(client: TestClient) -> Player:
    return Player(client, None)
