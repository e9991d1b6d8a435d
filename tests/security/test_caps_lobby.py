"""Lobby caps (issue 11, item 3): one guest cannot hold dozens of games or computer
opponents, nor can the players of one address together; a refusal is a 429 page naming
the cap and what to do, and changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from elgrande.server.lobby import SeatSpec
from elgrande.server.lobby_caps import CapReached, LobbyCaps
from elgrande.server.settings import Settings
from elgrande.server.tables import Game, User
from tests.server.conftest import As, create_game, register

from .conftest import make_app, services


def capped(tmp_path: Path, **caps: int) -> Iterator[TestClient]:
    with TestClient(make_app(tmp_path, **caps), follow_redirects=False) as client:
        yield client


@pytest.fixture
def client(tmp_path: Path, request: Any) -> Iterator[TestClient]:
    yield from capped(tmp_path, **request.param)


def game_count(client: TestClient, **where: Any) -> int:
    with services(client).sessions() as db:
        return int(db.scalar(select(func.count(Game.id)).filter_by(**where)) or 0)


def play_now(user: As) -> Any:
    return user.post("/play-now", data={"csrf_token": user.csrf()})


@pytest.mark.parametrize("client", [{"waiting_games_per_user": 2}], indirect=True)
def test_waiting_games_per_user(client: TestClient) -> None:
    anna = register(client, "anna")
    create_game(anna, ["me", "open"])
    create_game(anna, ["me", "open"])
    refused = anna.post("/games", data={"csrf_token": anna.csrf(), "players": "2",
                                        "seat0": "me", "seat1": "open"})
    assert refused.status_code == 429
    assert "at most 2 games waiting for players" in refused.text
    assert "Start one of them" in refused.text and "Traceback" not in refused.text
    assert game_count(client) == 2, "a refusal creates nothing"
    # Another player is not held back by anna's games.
    create_game(register(client, "bert"), ["me", "open"])


@pytest.mark.parametrize("client", [{"waiting_games_per_user": 2, "waiting_games_per_client": 3}],
                         indirect=True)
def test_waiting_games_per_address(client: TestClient) -> None:
    anna, bert = register(client, "anna"), register(client, "bert")
    create_game(anna, ["me", "open"])
    create_game(anna, ["me", "open"])
    create_game(bert, ["me", "open"])
    refused = bert.post("/games", data={"csrf_token": bert.csrf(), "players": "2",
                                        "seat0": "me", "seat1": "open"})
    assert refused.status_code == 429 and "your network address" in refused.text
    assert "at most 3 games waiting for players" in refused.text
    # From another address bert is under the cap of that address.
    svc = services(client)
    with svc.sessions() as db:
        user = db.scalar(select(User).where(User.name == "bert"))
    svc.lobby.create(user, 2, 9, [SeatSpec("me"), SeatSpec("open")], address="192.0.2.7")


@pytest.mark.parametrize("client", [{"active_games_per_user": 2}], indirect=True)
def test_running_games_per_user_play_now_counts(client: TestClient) -> None:
    anna = register(client, "anna")
    assert play_now(anna).status_code == 303
    assert play_now(anna).status_code == 303
    refused = play_now(anna)
    assert refused.status_code == 429 and "at most 2 running games" in refused.text
    assert "Finish one of your running games" in refused.text
    assert game_count(client) == 2, "a refused Play now leaves no waiting game behind"
    waiting = create_game(anna, ["me", "bot"])
    start = anna.post(f"/games/{waiting}/start", data={"csrf_token": anna.csrf()})
    assert start.status_code == 429 and "at most 2 running games" in start.text
    assert game_count(client, status="lobby") == 1, "the refused game still waits"



@pytest.mark.parametrize("client", [{"active_games_per_client": 1}], indirect=True)
def test_a_new_guest_is_held_by_the_cap_of_its_address(client: TestClient) -> None:
    anna = register(client, "anna")
    assert play_now(anna).status_code == 303
    stranger = As(client, None)
    refused = stranger.post("/play-now", data={"csrf_token": stranger.csrf()})
    assert refused.status_code == 429 and "your network address" in refused.text
    assert "at most 1 running game together" in refused.text
    assert game_count(client) == 1

@pytest.mark.parametrize("client", [{"bot_seats_per_user": 3}], indirect=True)
def test_computer_opponents_per_user(client: TestClient) -> None:
    anna = register(client, "anna")
    assert play_now(anna).status_code == 303  # two computer opponents
    game_id = create_game(anna, ["me", "open", "bot"])
    start = anna.post(f"/games/{game_id}/start", data={"csrf_token": anna.csrf(),
                                                       "fill_with_bots": "1"})
    assert start.status_code == 429 and "at most 3 computer opponents" in start.text
    assert "fewer computer opponents" in start.text
    seats = services(client).lobby.seats(game_id)
    assert [s["kind"] for s in seats] == ["human", "open", "bot"], "no seat was filled"
    # One computer opponent more fits.
    one = create_game(anna, ["me", "bot"])
    assert anna.post(f"/games/{one}/start", data={"csrf_token": anna.csrf()}).status_code == 303


def test_caps_per_address_count_every_player_of_it(tmp_path: Path) -> None:
    app = make_app(tmp_path, active_games_per_user=5, active_games_per_client=3)
    svc = app.state.services
    guests = [svc.accounts.guest() for _ in range(3)]
    bots = [SeatSpec("me"), SeatSpec("bot")]
    for guest in guests[:2]:
        svc.lobby.create(guest, 2, 9, bots, address="198.51.100.1", start_now=True)
    svc.lobby.create(guests[2], 2, 9, bots, address="198.51.100.1", start_now=True)
    with pytest.raises(CapReached, match="network address"):
        svc.lobby.create(guests[2], 2, 9, bots, address="198.51.100.1", start_now=True)
    # The same player from another address: that address's players hold one game.
    svc.lobby.create(guests[2], 2, 9, bots, address="203.0.113.5", start_now=True)


def test_caps_per_address_hold_across_processes_and_restarts(tmp_path: Path) -> None:
    """The address is kept on the game: another process (or this one restarted) on the
    same database counts the same games."""
    caps = {"active_games_per_user": 5, "active_games_per_client": 2}
    first = make_app(tmp_path, **caps).state.services
    bots = [SeatSpec("me"), SeatSpec("bot")]
    for guest in [first.accounts.guest() for _ in range(2)]:
        first.lobby.create(guest, 2, 9, bots, address="198.51.100.9", start_now=True)
    second = make_app(tmp_path, **caps).state.services
    newcomer = second.accounts.guest()  # never seen by either process before
    with pytest.raises(CapReached, match="network address"):
        second.lobby.create(newcomer, 2, 9, bots, address="198.51.100.9", start_now=True)
    with second.sessions() as db:
        assert set(db.scalars(select(Game.created_from))) == {"198.51.100.9"}


def test_zero_means_no_limit_and_the_settings_reach_the_lobby(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'x.db'}", secret_key="k" * 32,
                        waiting_games_per_user=0, bot_seats_per_client=7)
    caps = LobbyCaps.from_settings(settings)
    assert caps.waiting_games_per_user == 0 and caps.bot_seats_per_client == 7
    assert LobbyCaps() == LobbyCaps(5, 20, 40, 15, 60, 120)
    app = make_app(tmp_path, waiting_games_per_user=0, waiting_games_per_client=0)
    svc = app.state.services
    guest = svc.accounts.guest()
    for _ in range(8):
        svc.lobby.create(guest, 2, 9, [SeatSpec("me"), SeatSpec("open")])
