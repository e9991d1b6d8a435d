"""Nothing a client receives names the internal match id or the match's secret seed
(issue 11, item 1): the bots' randomness comes from that seed, so knowing it (or the
id, from which bots' seeds used to be derived) would let a player run a bot locally
and learn its secret choices before they are revealed.

Searched: every 4xx answer of every API route given bad input (as the seated player,
a stranger and nobody), and every WebSocket message of a whole 2-player 6-round game
against an easy bot, played with stale commands, malformed messages and another
seat's actions mixed in."""

from __future__ import annotations

import itertools
import json
import random
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from elgrande.server.lobby import SeatSpec

from .conftest import Player, anonymous, guest, services

pytestmark = pytest.mark.timeout(120)


def seated_guest(client: TestClient) -> tuple[Player, Any]:
    svc = services(client)
    user = svc.accounts.guest()
    return Player(client, svc.signer.session_cookie(user.id), user_id=user.id), user


def bad_inputs(client: TestClient, me: Player, game_id: int, stale: int
               ) -> list[tuple[str, str]]:
    """Every /api route with bad input, as the seated player, a stranger and nobody:
    (what, body) of each 4xx answer."""
    players = [me, guest(client), anonymous(client)]
    game_ids = [game_id, 987654, "abc"]
    bodies: list[Any] = [b"not json", {}, {"seq": "x"}, {"seq": stale, "action": "p1 bid 1"},
                         {"seq": stale}, {"action": "p0 fly XYZ"}, {"action": "x" * 200},
                         {"seq": 10 ** 30}, [1, 2]]
    answers = []
    schema = client.get("/openapi.json").json()["paths"]
    routes = [(path, method) for path, methods in schema.items() if path.startswith("/api/")
              for method in methods]
    assert len(routes) >= 7
    for (path, method), who, gid in itertools.product(routes, players, game_ids):
        for seq in ([-1, 10 ** 6, "x"] if "{seq}" in path else [None]):
            url = path.replace("{game_id}", str(gid)).replace("{seq}", str(seq))
            if method == "get":
                sent = [who.get(url)]
            else:
                headers = {"x-csrf-token": who.csrf() if who.cookie else "none",
                           "content-type": "application/json"}
                sent = [who.post(url, content=b if isinstance(b, bytes) else json.dumps(b),
                                 headers=headers) for b in bodies]
                sent.append(who.post(url, json={"seq": stale}))  # no CSRF token
            answers += [(f"{url} {r.status_code}", r.text) for r in sent
                        if 400 <= r.status_code < 500]
    return answers


def play_whole_game(client: TestClient, me: Player, game_id: int) -> list[str]:
    """Plays seat 0 to the end over the WebSocket, with bad messages mixed in; every
    message received, as text."""
    rng = random.Random(3)
    received: list[str] = []
    ids = itertools.count(1)

    def receive(ws: Any) -> dict[str, Any]:
        message: dict[str, Any] = ws.receive_json()
        received.append(json.dumps(ws.raw[-1]))
        return message

    def send(ws: Any, message: Any) -> dict[str, Any]:
        """Sends one message and reads up to the state that answers it."""
        ack = next(ids) if isinstance(message, dict) else None  # raw text carries no id
        ws.send_text(json.dumps({**message, "id": ack}) if ack else message)
        while True:
            answer = receive(ws)
            if answer["type"] == "state" and answer.get("ack") == ack:
                return answer["state"]

    with me.ws(game_id) as ws:
        state = receive(ws)["state"]
        for turn in range(3000):
            seq, draft = state["seq"], state["draft"]
            legal = [choice["text"] for choice in state["legal"]]
            if state["finished"]:
                return received
            if turn % 5 == 0:  # bad messages: none may change anything
                for bad in ({"type": "step", "action": legal[0] if legal else "p0 bid 1",
                             "seq": seq - 1},  # stale
                            {"type": "finish", "seq": seq - 1},
                            {"type": "step", "action": "p1 bid 13", "seq": seq},  # not my seat
                            {"type": "step", "action": "p0 teleport", "seq": seq},
                            {"type": "jump", "seq": seq}, {"type": "undo", "seq": "x"}):
                    send(ws, bad)
                send(ws, "{not json")
                state = send(ws, {"type": "sync"})
            elif draft["can_finish"]:  # my turn is entered
                state = send(ws, {"type": "finish", "seq": seq})
            elif legal:
                state = send(ws, {"type": "step", "action": rng.choice(legal), "seq": seq})
            else:
                state = receive(ws)["state"]  # the bot's move
    raise AssertionError("the game did not end")


def test_no_client_ever_sees_the_match_id_or_the_secret_seed(client: TestClient) -> None:
    svc = services(client)
    me, user = seated_guest(client)
    game = svc.lobby.create(user, 2, 6, [SeatSpec("me"), SeatSpec("bot", bot_level="easy")])
    svc.lobby.start(game.id, user)
    svc.bots.kick(game.id)  # as the start page does
    match_id = svc.lobby.get(game.id).match_id
    seed = svc.store.load(match_id).seed
    secrets = {"match id": match_id, "secret seed": seed}

    errors = bad_inputs(client, me, game.id, stale=0)
    assert any(" 409" in what for what, _ in errors) and any(" 403" in w for w, _ in errors)
    messages = play_whole_game(client, me, game.id)
    assert svc.store.load(match_id).over
    deadline = time.monotonic() + 10  # the lobby learns it just after the last commit
    while svc.lobby.get(game.id).status != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert any('"moved_on"' in m for m in messages) and any('"spectator"' not in m
                                                            for m in messages)
    errors += bad_inputs(client, me, game.id, stale=1)  # and once the game is over
    for name, secret in secrets.items():
        for what, body in errors:
            assert secret not in body, f"the {name} in the answer to {what}"
        for message in messages:
            assert secret not in message, f"the {name} in a WebSocket message: {message[:300]}"
