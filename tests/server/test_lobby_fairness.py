"""The list of open games is fair (issue 11, item 11): one player's games cannot push
everyone else's off it. At most a few games per creator are shown, newest first, in
pages."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from elgrande.server.lobby import OPEN_GAMES_PAGE, OPEN_GAMES_PER_CREATOR, SeatSpec
from elgrande.server.settings import Settings
from tests.apps import app_for
from tests.pg_server import postgres_server, postgres_url  # noqa: F401  (fixtures)

from .conftest import As, register, services

OPEN = [SeatSpec("me"), SeatSpec("open")]


@pytest.fixture
def app(tmp_path: Path) -> Any:
    """No caps on waiting games: the flood the caps now stop, made by hand."""
    return app_for(Settings(database_url=f"sqlite:///{tmp_path / 'test.db'}", secret_key="k" * 32,
                            waiting_games_per_user=0, waiting_games_per_client=0))


def open_ids(page: str) -> list[int]:
    listed = re.search(r'id="open-games">(.*?)</div>', page, re.S)
    return [int(i) for i in re.findall(r'href="/games/(\d+)"', listed.group(1))] if listed else []


def flood(svc: Any, games: int) -> list[int]:
    flooder = svc.accounts.guest()
    return [svc.lobby.create(flooder, 2, 9, OPEN, address="192.0.2.66").id for _ in range(games)]


def test_one_players_flood_does_not_hide_the_other_games(client: TestClient, anna: As) -> None:
    svc = services(client)
    first = svc.lobby.create(svc.accounts.guest(), 2, 9, OPEN).id
    flooded = flood(svc, 31)
    shown = open_ids(anna.get("/lobby").text)
    assert first in shown
    assert [g for g in shown if g in flooded] == flooded[::-1][:OPEN_GAMES_PER_CREATOR], \
        "the flooder's newest few, newest first"
    assert shown == sorted(shown, reverse=True)


def test_open_games_come_in_pages(client: TestClient, anna: As) -> None:
    svc = services(client)
    creators = OPEN_GAMES_PAGE // OPEN_GAMES_PER_CREATOR + 2
    made = [g for _ in range(creators) for g in flood(svc, OPEN_GAMES_PER_CREATOR)]
    first, more = svc.lobby.open_games(1)
    assert len(first) == OPEN_GAMES_PAGE and more
    second, more = svc.lobby.open_games(2)
    assert not more
    assert [g.id for g in first + second] == made[::-1], "every game once, newest first"
    page = anna.get("/lobby").text
    assert 'id="older-games"' in page and 'id="newer-games"' not in page
    older = anna.get("/lobby?page=2").text
    assert open_ids(older) == [g.id for g in second] and 'id="newer-games"' in older
    assert anna.get("/lobby?page=0").status_code == 422
    assert "No more open games" in anna.get("/lobby?page=99").text


def test_a_new_players_lobby_lists_the_open_games(client: TestClient) -> None:
    svc = services(client)
    game = svc.lobby.create(svc.accounts.guest(), 2, 9, OPEN)
    assert open_ids(register(client, "dora").get("/lobby").text) == [game.id]


def test_the_fair_list_on_postgresql(postgres_url: str) -> None:  # noqa: F811
    app = app_for(Settings(database_url=postgres_url, secret_key="k" * 32,
                           waiting_games_per_user=0, waiting_games_per_client=0))
    svc = app.state.services
    other = svc.lobby.create(svc.accounts.guest(), 2, 9, OPEN).id
    flooded = flood(svc, 5)
    games, more = svc.lobby.open_games()
    assert [g.id for g in games] == flooded[::-1][:OPEN_GAMES_PER_CREATOR] + [other]
    assert not more
    svc.engine.dispose()
