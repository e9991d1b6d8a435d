"""Cancelling a game still waiting for players: only its creator, only before the start;
it frees a place under the cap on waiting games."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from .conftest import As, create_game, join_game, start_game


def cancel(user: As, game_id: int) -> Any:
    return user.post(f"/games/{game_id}/cancel", data={"csrf_token": user.csrf()})


def test_the_creator_cancels_a_waiting_game(client: TestClient, anna: As, bert: As) -> None:
    game_id = create_game(anna, ["me", "open", "open"])
    join_game(bert, game_id)
    assert 'id="cancel"' in anna.get(f"/games/{game_id}").text
    assert 'id="cancel"' not in bert.get(f"/games/{game_id}").text
    refused = cancel(bert, game_id)
    assert refused.status_code == 409 and "created the game can cancel" in refused.text
    done = cancel(anna, game_id)
    assert done.status_code == 303 and done.headers["location"] == "/lobby"
    assert anna.get(f"/games/{game_id}").status_code == 404
    assert f'data-game="{game_id}"' not in bert.get("/lobby").text
    assert cancel(anna, game_id).status_code == 404


def test_a_started_game_cannot_be_cancelled(client: TestClient, anna: As) -> None:
    game_id = create_game(anna, ["me", "bot"])
    start_game(anna, game_id)
    refused = cancel(anna, game_id)
    assert refused.status_code == 409 and "already started" in refused.text
    assert anna.get(f"/api/games/{game_id}").status_code == 200


def test_cancelling_frees_a_place_under_the_cap(client: TestClient, anna: As) -> None:
    games = [create_game(anna, ["me", "open"]) for _ in range(5)]  # the default cap
    full = anna.post("/games", data={"csrf_token": anna.csrf(), "players": "2",
                                     "seat0": "me", "seat1": "open"})
    assert full.status_code == 429 and "cancel one you no longer need" in full.text
    assert cancel(anna, games[0]).status_code == 303
    create_game(anna, ["me", "open"])
