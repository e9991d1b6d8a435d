"""The per-user "your turn" channel, /ws/me, over a real app (in-process websockets):
the waiting games on connect, a notice to the right players only after a commit,
nothing for others, and refusals (logged out, other origin, too many pages)."""

from __future__ import annotations

import random
import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from elgrande.rules import to_act
from elgrande.server.settings import Settings
from tests.apps import app_for
from tests.server.conftest import As, create_game, join_game, register, services, start_game
from tests.server.helpers import choose


def me(user: As, **headers: str) -> Any:
    user.client.cookies.clear()
    return user.client.websocket_connect("/ws/me", headers=user.headers(headers))


def acting(client: TestClient, game_id: int) -> list[int]:
    svc = services(client)
    return to_act(svc.store.load(svc.lobby.get(game_id).match_id).state)


def play_turn(client: TestClient, game_id: int, seed: int = 1) -> int:
    """The first seat to act plays a whole turn and finishes it (one commit); its seat."""
    svc = services(client)
    match_id = svc.lobby.get(game_id).match_id
    seat = acting(client, game_id)[0]
    rng = random.Random(seed)
    view = svc.store.view(match_id, seat)
    while view.legal:
        view = svc.store.step(match_id, seat, choose(view.legal, rng))
    svc.store.finish(match_id, seat)
    return seat


def test_a_notice_reaches_the_players_whose_turn_it_becomes_and_nobody_else(
        client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    game_id, anna, bert, carl = three_humans
    dora = register(client, "dora")  # in no game of theirs
    users = {0: anna, 1: bert, 2: carl}
    first = acting(client, game_id)[0]
    with me(anna) as a, me(bert) as b, me(carl) as c, me(dora) as d:
        sockets = {0: a, 1: b, 2: c}
        for seat, ws in sockets.items():
            waiting = ws.receive_json()
            assert waiting == {"type": "waiting", "games": [game_id] if seat == first else []}
        assert d.receive_json() == {"type": "waiting", "games": []}
        mover = play_turn(client, game_id)
        now = acting(client, game_id)
        assert mover not in now
        for seat, ws in sockets.items():
            # Only the game's number and whose turn: no state, no match id.
            assert ws.receive_json() == {"type": "turn", "game": game_id,
                                         "your_turn": seat in now}, users[seat].name
        # dora heard nothing of that game: her next notice is about her own game.
        own = create_game(dora, ["me", "open"])
        join_game(anna, own)
        start_game(dora, own)
        notice = d.receive_json()
        assert notice["game"] == own


def test_a_spectators_page_hears_nothing_and_the_list_counts_every_waiting_game(
        client: TestClient, anna: As, bert: As) -> None:
    games = []
    for _ in range(2):
        game_id = create_game(anna, ["me", "open"])
        join_game(bert, game_id)
        start_game(anna, game_id)
        games.append(game_id)
    expected = {name: sorted(g for g in games if acting(client, g)[0] == seat)
                for seat, name in enumerate(["anna", "bert"])}
    for user in (anna, bert):
        with me(user) as ws:
            message = ws.receive_json()
            assert message["type"] == "waiting"
            assert sorted(message["games"]) == expected[user.name]


def test_a_game_that_starts_tells_the_first_player(client: TestClient, anna: As, bert: As
                                                   ) -> None:
    game_id = create_game(anna, ["me", "open"])
    join_game(bert, game_id)
    with me(anna) as a, me(bert) as b:
        assert a.receive_json()["games"] == [] and b.receive_json()["games"] == []
        start_game(anna, game_id)
        first = {0: a, 1: b}[acting(client, game_id)[0]]
        assert first.receive_json() == {"type": "turn", "game": game_id, "your_turn": True}


def test_logged_out_and_cross_origin_sessions_are_refused(client: TestClient, anna: As) -> None:
    for who, headers, code in ((As(client, None), {}, 4401),
                               (As(client, "forged-cookie"), {}, 4401),
                               (anna, {"origin": "http://evil.example"}, 4403)):
        with pytest.raises(WebSocketDisconnect) as refused:
            with me(who, **headers) as ws:
                ws.receive_json()
        assert refused.value.code == code
    old = anna.cookie
    response = anna.post("/logout", data={"csrf_token": anna.csrf()})
    assert response.status_code == 303
    with pytest.raises(WebSocketDisconnect) as refused:
        with me(As(client, old)) as ws:
            ws.receive_json()
    assert refused.value.code == 4401


def test_nobody_watching_costs_no_lookup(client: TestClient, three_humans: tuple[int, As, As, As],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A commit of a game none of whose players has a page open is not looked into (the
    game's players are known from memory after the first time)."""
    game_id = three_humans[0]
    svc = services(client)
    looked = threading.Semaphore(0)
    turns = svc.alerts._turns

    def counting(match_id: str) -> Any:
        try:
            return turns(match_id)
        finally:
            looked.release()

    monkeypatch.setattr(svc.alerts, "_turns", counting)
    play_turn(client, game_id)  # no page open at all
    with me(register(client, "dora")) as d:  # a page, of a player not in the game
        d.receive_json()
        play_turn(client, game_id, seed=2)
        assert looked.acquire(timeout=10)  # the first time: who plays this game
        play_turn(client, game_id, seed=3)
        play_turn(client, game_id, seed=4)
    assert not looked.acquire(timeout=0.2)


def test_too_many_pages_for_one_user_are_refused(tmp_path: Path) -> None:
    app = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'test.db'}",
                           secret_key="k" * 32, alert_sockets_per_user=2))
    with TestClient(app, follow_redirects=False) as client:
        anna = register(client, "anna")
        with me(anna) as one, me(anna) as two:
            one.receive_json(), two.receive_json()
            with pytest.raises(WebSocketDisconnect) as refused:
                with me(anna) as three:
                    three.receive_json()
            assert refused.value.code == 4429
        with me(anna) as again:  # the closed pages made room
            assert again.receive_json()["type"] == "waiting"


def test_my_games_says_whose_turn_it_is_and_the_round(
        client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    game_id, anna, bert, carl = three_humans
    names = {0: "anna", 1: "bert", 2: "carl"}
    mover = names[acting(client, game_id)[0]]
    page = anna.get("/lobby").text
    assert f"Round 1 · to play: {mover}" in page
    assert (f'data-game="{game_id}" data-my-turn="1"' in page) == (mover == "anna")
