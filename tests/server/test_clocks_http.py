"""Turn clocks through the web app, with an injected clock: the pace chosen in the
new-game form (bad choices refused, nothing created), the clocks pushed to every page
and served by the API (public, no internal id), the page's take-back and holiday
forms, "My games" with the time left, and the account's time zone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from elgrande.server.settings import Settings
from elgrande.server.tables import Game
from tests.apps import app_for
from tests.clocks.conftest import FakeClock

from .conftest import As, create_game, join_game, register, services, start_game

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def app(tmp_path: Path, clock: FakeClock) -> Any:
    return app_for(Settings(database_url=f"sqlite:///{tmp_path / 'test.db'}",
                            secret_key="k" * 32, bot_delay=0.0), now=clock)


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with TestClient(app, follow_redirects=False) as c:
        yield c


def games(client: TestClient) -> int:
    with services(client).sessions() as db:
        return int(db.scalar(select(func.count(Game.id))) or 0)


def daily_game(anna: As, bert: As, **extra: str) -> int:
    game_id = create_game(anna, ["me", "open"], rounds=6, pace="daily-1", stand_in="random",
                          **extra)
    join_game(bert, game_id)
    start_game(anna, game_id)
    return game_id


def first_clocks(ws: Any) -> dict[str, Any]:
    """The page's first messages: its state, then (a clocked game) the clocks."""
    assert ws.receive_json()["type"] == "state"
    message = ws.receive_json()
    assert message["type"] == "clocks"
    return message["clocks"]  # type: ignore[no-any-return]


def test_clocks_and_chat_come_after_the_first_state(client: TestClient, anna: As,
                                                    bert: As) -> None:
    game_id = daily_game(anna, bert)
    with anna.ws(game_id) as page:
        page.receive_json()
        page.receive_json()
        page.send_json({"type": "chat", "text": "hi", "id": "chat-1"})
        page.receive_json()  # chat_ok or the line
        page.receive_json()
    with anna.ws(game_id) as page:
        kinds = [page.receive_json()["type"] for _ in range(3)]
    assert kinds == ["state", "clocks", "chat"]


@pytest.mark.parametrize("extra, words", [
    ({"pace": "fast"}, "Unknown pace"),
    ({"pace": "live", "hours_from": "8", "hours_to": "22"}, "daily tables only"),
    ({"pace": "daily-1", "hours_from": "20", "hours_to": "22"}, "at least 4 hours"),
    ({"pace": "daily-1", "holiday_days": "99"}, "0 to 30"),
    ({"pace": "daily-1", "holiday_days": "lots"}, "whole numbers"),
])
def test_a_bad_pace_is_refused_with_what_to_do_and_nothing_is_created(
        client: TestClient, anna: As, extra: dict[str, str], words: str) -> None:
    data = {"players": "2", "rounds": "6", "seat0": "me", "seat1": "open",
            "csrf_token": anna.csrf(), **extra}
    response = anna.post("/games", data=data)
    assert response.status_code == 400 and words in response.text
    assert "Traceback" not in response.text
    assert games(client) == 0


def test_every_page_gets_the_clocks_and_they_name_no_internal_id(
        client: TestClient, anna: As, bert: As, clock: FakeClock) -> None:
    game_id = daily_game(anna, bert)
    svc = services(client)
    game = svc.lobby.get(game_id)
    with anna.ws(game_id) as page, As(client, None).ws(game_id) as watcher:
        clocks = first_clocks(page)
        assert first_clocks(watcher) == clocks
        assert clocks["preset"] == "daily-1" and len(clocks["seats"]) == 2
        assert sum(1 for s in clocks["seats"] if s["running"]) == 1
        text = str(clocks) + client.get(f"/api/games/{game_id}/clocks").text
        match = svc.store.load(game.match_id)
        assert game.match_id not in text and match.seed not in text
        assert client.get(f"/api/games/{game_id}/clocks").json()["seats"] == clocks["seats"]
        # A timeout is pushed to every page at once.
        clock.advance(days=4)
        svc.clock_thread.keeper.wake.set()
        while True:
            message = page.receive_json()
            if message["type"] == "clocks" and any(s["away"] for s in message["clocks"]["seats"]):
                break


def test_an_unclocked_game_sends_no_clocks(client: TestClient, anna: As, bert: As) -> None:
    game_id = create_game(anna, ["me", "open"], rounds=6)
    join_game(bert, game_id)
    start_game(anna, game_id)
    assert client.get(f"/api/games/{game_id}/clocks").json() is None
    with anna.ws(game_id) as page:
        assert page.receive_json()["type"] == "state"
        page.send_json({"type": "sync", "id": 5})
        kinds = []
        while True:
            reply = page.receive_json()
            kinds.append(reply["type"])
            if reply.get("ack") == 5:
                break
        assert "clocks" not in kinds
    assert 'id="clock-panel"' not in anna.get(f"/games/{game_id}").text


def test_taking_the_seat_back_with_one_click(client: TestClient, anna: As, bert: As,
                                             clock: FakeClock) -> None:
    game_id = daily_game(anna, bert)
    svc = services(client)
    seat = svc.store.view(svc.lobby.get(game_id).match_id, None).to_act[0]
    player = (anna, bert)[seat]
    page = player.get(f"/games/{game_id}").text
    assert 'id="take-back-form"' in page and 'id="clock-panel"' in page
    clock.advance(days=4)
    svc.clocks.expire_due(clock())
    assert svc.clocks.is_away(game_id, seat)
    assert player.post(f"/games/{game_id}/back", data={"csrf_token": "forged"}).status_code == 403
    assert svc.clocks.is_away(game_id, seat)
    other = (anna, bert)[1 - seat]
    assert other.post(f"/games/{game_id}/back", data={"csrf_token": other.csrf()}).status_code == 303
    assert svc.clocks.is_away(game_id, seat)  # only the player takes their own seat back
    response = player.post(f"/games/{game_id}/back", data={"csrf_token": player.csrf()})
    assert response.status_code == 303 and response.headers["location"] == f"/games/{game_id}"
    assert not svc.clocks.is_away(game_id, seat)
    stranger = register(client, "dora")
    refused = stranger.post(f"/games/{game_id}/back", data={"csrf_token": stranger.csrf()})
    assert refused.status_code == 403 and "no seat" in refused.text


def test_holidays_from_the_page(client: TestClient, anna: As, bert: As) -> None:
    game_id = daily_game(anna, bert, holiday_days="3")
    assert 'id="holiday-form"' in anna.get(f"/games/{game_id}").text
    too_long = anna.post(f"/games/{game_id}/holiday", data={"csrf_token": anna.csrf(), "days": "4"})
    assert too_long.status_code == 409 and "3 days of holiday left" in too_long.text
    german = anna.post(f"/games/{game_id}/holiday", headers={"accept-language": "de"},
                       data={"csrf_token": anna.csrf(), "days": "4"})
    assert german.status_code == 409 and "Du hast in dieser Partie noch 3 Tage Urlaub." in german.text
    bad = anna.post(f"/games/{game_id}/holiday", data={"csrf_token": anna.csrf(), "days": "x"})
    assert bad.status_code == 409 and "whole number" in bad.text
    ok = anna.post(f"/games/{game_id}/holiday", data={"csrf_token": anna.csrf(), "days": "2"})
    assert ok.status_code == 303
    svc = services(client)
    mine = next(s for s in svc.clocks.public(game_id)["seats"] if s["seat"] == 0)
    assert mine["holiday_until"] is not None and mine["holiday_left_days"] == 1
    assert anna.post(f"/games/{game_id}/holiday/end",
                     data={"csrf_token": anna.csrf()}).status_code == 303
    mine = next(s for s in svc.clocks.public(game_id)["seats"] if s["seat"] == 0)
    assert mine["holiday_until"] is None and mine["holiday_left_days"] == 3


def test_my_games_show_the_time_left(client: TestClient, anna: As, bert: As) -> None:
    game_id = daily_game(anna, bert)
    svc = services(client)
    seat = svc.store.view(svc.lobby.get(game_id).match_id, None).to_act[0]
    lobby = (anna, bert)[seat].get("/lobby").text
    assert "your time: 3 d 0 h left, running" in lobby
    assert "your time: 2 d 0 h" in (anna, bert)[1 - seat].get("/lobby").text


def test_the_time_zone_is_kept_in_the_account(client: TestClient, anna: As) -> None:
    page = anna.get("/account").text
    assert 'id="time_zone"' in page and "Europe/Berlin" in page
    refused = anna.post("/account/time-zone", data={"csrf_token": anna.csrf(),
                                                     "time_zone": "Mars/Olympus"})
    assert refused.status_code == 400 and "Choose a time zone" in refused.text
    saved = anna.post("/account/time-zone", data={"csrf_token": anna.csrf(),
                                                   "time_zone": "Europe/Berlin"})
    assert saved.status_code == 200 and "Time zone saved" in saved.text
    user = services(client).accounts.get(1)
    assert user is not None and user.time_zone == "Europe/Berlin"
