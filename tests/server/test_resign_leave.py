"""Leaving a waiting game: the seat is open again (an invited one too); the creator
cancels instead; refusals change nothing."""

from __future__ import annotations

from fastapi.testclient import TestClient

from .conftest import As, create_game, join_game, services, start_game


def leave(user: As, game_id: int, csrf: str | None = None) -> object:
    return user.post(f"/games/{game_id}/leave",
                     data={"csrf_token": user.csrf() if csrf is None else csrf})


def kinds(client: TestClient, game_id: int) -> list[tuple[str, str | None]]:
    return [(s["kind"], s["name"]) for s in services(client).lobby.seats(game_id)]


def test_a_player_leaves_and_the_seat_is_open_again(client: TestClient, anna: As, bert: As,
                                                     carl: As) -> None:
    game_id = create_game(anna, ["me", "open", "invited"], invite2="carl")
    join_game(bert, game_id)
    join_game(carl, game_id)
    room = bert.get(f"/games/{game_id}").text
    assert 'id="leave"' in room and 'id="leave"' not in anna.get(f"/games/{game_id}").text
    response = leave(bert, game_id)
    assert response.status_code == 303 and response.headers["location"] == "/lobby"
    assert leave(carl, game_id).status_code == 303  # the invited seat goes back to open
    assert kinds(client, game_id) == [("human", "anna"), ("open", None), ("open", None)]
    assert services(client).lobby.my_games(services(client).accounts.get(2)) == []
    join_game(bert, game_id)  # and may be taken again


def test_refusals_are_clear_and_change_nothing(client: TestClient, anna: As, bert: As,
                                                carl: As) -> None:
    game_id = create_game(anna, ["me", "open", "open"])
    join_game(bert, game_id)
    before = kinds(client, game_id)
    creator = leave(anna, game_id)
    assert creator.status_code == 409 and "cancel it instead" in creator.text
    stranger = leave(carl, game_id)
    assert stranger.status_code == 409 and "You have no seat in this game." in stranger.text
    assert leave(bert, game_id, csrf="forged").status_code == 403
    assert leave(bert, 10_000).status_code == 404
    assert kinds(client, game_id) == before
    start_game(anna, game_id, fill=True)
    started = leave(bert, game_id)
    assert started.status_code == 409 and "This game has already started." in started.text
    assert "Traceback" not in started.text
