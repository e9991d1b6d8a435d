"""The web app on a real PostgreSQL server: accounts, lobby and play, same as on SQLite."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from elgrande.server.settings import Settings
from tests.apps import app_for
from tests.pg_server import postgres_server, postgres_url  # noqa: F401  (fixtures)

from .conftest import create_game, join_game, register, start_game

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def pg_client(postgres_url: str) -> Iterator[TestClient]:  # noqa: F811
    app: Any = app_for(Settings(database_url=postgres_url, secret_key="k" * 32, bot_delay=0.0))
    with TestClient(app, follow_redirects=False) as client:
        yield client


def test_accounts_lobby_and_play_on_postgresql(pg_client: TestClient) -> None:
    anna, bert = register(pg_client, "anna"), register(pg_client, "bert")
    game_id = create_game(anna, ["me", "open"])
    join_game(bert, game_id)
    start_game(anna, game_id)
    view = anna.get(f"/api/games/{game_id}").json()
    mover = (anna, bert)[view["to_act"][0]]
    seat = view["to_act"][0]
    seq = view["seq"]
    assert mover.api(game_id, "step", {"action": f"p{seat} bid 4", "seq": seq}).status_code == 200
    assert mover.api(game_id, "finish", {"seq": seq}).status_code == 200
    other = bert if mover is anna else anna
    after = other.get(f"/api/games/{game_id}").json()
    assert after["seq"] == seq + 1 and after["players"][seat]["bid"] == 4
    stale = mover.api(game_id, "undo", {"seq": seq})
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "moved_on"
