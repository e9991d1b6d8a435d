"""The expiry sweep, at an injected time: waiting games that did not start in time
expire, guests' games against computers left untouched are abandoned; twice (two
processes) is harmless; expired and abandoned games hold no place under the caps."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from elgrande.server.seats import Sweeper
from elgrande.server.security import SESSION_COOKIE
from elgrande.server.settings import Settings
from elgrande.server.tables import utcnow
from tests.apps import app_for

from .conftest import As, create_game, join_game, register, services, start_game

DAY = timedelta(days=1)


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[TestClient]:
    """One waiting game per user (so the cap shows whether an expired one counts)."""
    app: Any = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'e.db'}", secret_key="k" * 32,
                                bot_delay=0.0, waiting_games_per_user=1))
    with TestClient(app, follow_redirects=False) as c:
        yield c


def sweeper(client: TestClient) -> Sweeper:
    """As the app builds it (default settings), at whatever time the test says."""
    svc = services(client)
    settings = svc.settings
    return Sweeper(svc.sessions, utcnow, waiting=timedelta(days=settings.waiting_game_days),
                   idle_guest=timedelta(days=settings.idle_guest_game_days),
                   idle_solo=timedelta(days=settings.idle_solo_game_days), interval=60.0)


def my_games_list(user: As) -> str:
    return str(user.get("/lobby").text.split('id="my-games"')[1].split("</div>")[0])


def test_the_app_runs_a_sweeper_in_its_lifespan(client: TestClient) -> None:
    assert any(isinstance(getattr(start, "__self__", None), Sweeper)
               for start in services(client).starters)


def test_a_waiting_game_expires_after_seven_days(capped: TestClient) -> None:
    anna, bert = register(capped, "anna"), register(capped, "bert")
    game_id = create_game(anna, ["me", "open", "open"])
    join_game(bert, game_id)
    sweep = sweeper(capped)
    assert sweep.sweep_once(utcnow() + 6 * DAY) == {"expired": [], "abandoned": []}
    assert sweep.sweep_once(utcnow() + 8 * DAY) == {"expired": [game_id], "abandoned": []}
    # A second process sweeping the same moment changes nothing.
    assert sweeper(capped).sweep_once(utcnow() + 8 * DAY) == {"expired": [], "abandoned": []}
    svc = services(capped)
    assert svc.lobby.get(game_id).status == "expired"
    assert svc.lobby.open_games()[0] == []  # no longer listed
    assert "expired" in my_games_list(anna) and "expired" in my_games_list(bert)
    room = bert.get(f"/games/{game_id}")
    assert room.status_code == 200 and 'id="room-expired"' in room.text
    assert 'id="start"' not in anna.get(f"/games/{game_id}").text
    started = anna.post(f"/games/{game_id}/start", data={"csrf_token": anna.csrf(), "fill_with_bots": "1"})
    assert started.status_code == 409 and svc.lobby.get(game_id).status == "expired"
    carl = register(capped, "carl")
    assert carl.post(f"/games/{game_id}/join", data={"csrf_token": carl.csrf()}).status_code == 409
    assert bert.post(f"/games/{game_id}/leave", data={"csrf_token": bert.csrf()}).status_code == 409
    # The expired game holds no place under the cap of one waiting game.
    create_game(anna, ["me", "open"])


def test_a_started_game_never_expires(client: TestClient, anna: As) -> None:
    game_id = create_game(anna, ["me", "open"])
    start_game(anna, game_id, fill=True)
    assert sweeper(client).sweep_once(utcnow() + 80 * DAY)["expired"] == []
    assert services(client).lobby.get(game_id).status == "active"


def test_an_untouched_play_now_game_is_abandoned(client: TestClient, anna: As) -> None:
    guest = As(client, None)
    response = guest.post("/play-now", data={"csrf_token": guest.csrf()})
    assert response.status_code == 303
    guest = As(client, response.cookies.get(SESSION_COOKIE))
    game_id = int(response.headers["location"].rsplit("/", 1)[1])
    # A registered player's game against computers is kept longer (90 days), and a
    # table with another human at it is never abandoned for being idle.
    own = create_game(anna, ["me", "bot"], level1="random")
    start_game(anna, own)
    bert = register(client, "bert")
    shared = create_game(anna, ["me", "open"])
    join_game(bert, shared)
    start_game(anna, shared)
    sweep = sweeper(client)
    assert sweep.sweep_once(utcnow() + 29 * DAY)["abandoned"] == []
    assert sweep.sweep_once(utcnow() + 31 * DAY) == {"expired": [], "abandoned": [game_id]}
    assert sweep.sweep_once(utcnow() + 31 * DAY)["abandoned"] == []
    svc = services(client)
    assert svc.lobby.get(game_id).status == "abandoned"
    assert svc.lobby.get(own).status == "active"
    assert sweep.sweep_once(utcnow() + 89 * DAY)["abandoned"] == []
    assert sweep.sweep_once(utcnow() + 91 * DAY)["abandoned"] == [own]
    assert svc.lobby.get(own).status == "abandoned"
    assert svc.lobby.get(shared).status == "active"
    # "My games": no longer running; listed with the games that ended unfinished.
    mine = anna.get("/my-games").text
    assert f'data-game="{own}"' not in mine.split('id="running-games"')[1].split("</section>")[0]
    stopped = mine.split('id="stopped-games"')[1].split("</ul>")[0]
    assert f'data-game="{own}"' in stopped and "abandoned" in stopped
    assert f'data-game="{shared}"' not in stopped
    assert 'id="stopped-games"' not in anna.get("/my-games?show=running").text
    assert svc.play.bot_work(game_id) == []
    page = guest.get(f"/games/{game_id}")
    assert page.status_code == 200 and 'id="abandoned"' in page.text
