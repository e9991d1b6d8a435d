"""Malformed, oversized and out-of-order WebSocket messages, and actions for another
seat (over WebSocket and HTTP), are refused with a clear error and change nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from elgrande.rules import to_act

from .conftest import Player, guest, services

pytestmark = pytest.mark.timeout(60)


def two_player_game(client: TestClient) -> tuple[int, list[Player], str]:
    """A started 2-player game between two guests (seat 0, seat 1); its match id."""
    svc = services(client)
    players = [guest(client), guest(client)]
    users = [svc.accounts.get(p.user_id) for p in players]
    from elgrande.server.lobby import SeatSpec

    game = svc.lobby.create(users[0], 2, 6, [SeatSpec("me"), SeatSpec("open")])
    svc.lobby.join(game.id, users[1])
    match_id = svc.lobby.start(game.id, users[0])
    return game.id, players, match_id


def everything(client: TestClient, match_id: str) -> dict[str, Any]:
    """The whole stored match, drafts included: what must not change."""
    match = services(client).store.load(match_id)
    return {"log": [(e.seq, str(e.action)) for e in match.log],
            "drafts": {s: ([str(a) for a in d.steps], [str(a) for a in d.redo_stack])
                       for s, d in match.drafts.items()}}


def test_bad_websocket_messages_are_refused_and_change_nothing(client: TestClient) -> None:
    game_id, players, match_id = two_player_game(client)
    store = services(client).store
    mover = to_act(store.load(match_id).state)[0]
    waiter = 1 - mover
    # The mover takes one step, so there is a draft that must survive all of this.
    with players[mover].ws(game_id) as ws:
        state = ws.receive_json()["state"]
        ws.send_json({"type": "step", "action": state["legal"][0]["text"], "seq": state["seq"]})
        state = ws.receive_json()["state"]
        assert state["draft"]["steps"]
    before = everything(client, match_id)
    seq = state["seq"]
    other = f"p{waiter}"
    cases: list[tuple[int, str, str | None]] = [
        # (seat sending, message, expected error code)
        (mover, "this is not json", "bad_json"),
        (mover, "[1, 2, 3]", "bad_request"),
        (mover, '{"type": 5}', "bad_request"),
        (mover, '{"type": "launch_missiles"}', "bad_request"),
        (mover, '{"type": "step", "seq": 1}', "bad_request"),  # no action
        (mover, '{"type": "step", "action": 7, "seq": 1}', "bad_request"),
        (mover, '{"type": "finish", "seq": "soon"}', "bad_request"),
        (mover, json.dumps({"type": "step", "action": "p0 launch 99", "seq": seq}), "illegal"),
        (mover, "x" * 3000, "bad_request"),  # long, below the transport bound
        (mover, "x" * 100_000, "too_large"),  # oversized: dropped before the app
        # out of order: a stale sequence number, redo with nothing undone, step at a
        # boundary or out of turn, finish with no draft
        (mover, json.dumps({"type": "finish", "seq": seq - 1}), "moved_on"),
        (mover, json.dumps({"type": "redo", "seq": seq}), "nothing_to_redo"),
        (waiter, json.dumps({"type": "finish", "seq": seq}), "nothing_to_finish"),
        (waiter, json.dumps({"type": "undo", "seq": seq}), "nothing_to_undo"),
        # actions for another seat
        (waiter, json.dumps({"type": "step", "action": state["legal"][0]["text"] if state["legal"]
                             else f"p{mover} bid 1", "seq": seq}), None),
        (mover, json.dumps({"type": "step", "action": f"{other} bid 13", "seq": seq}), None),
    ]
    for sender, message, code in cases:
        with players[sender].ws(game_id) as ws:
            ws.receive_json()
            ws.send_text(message)
            reply = ws.receive_json()
            assert reply["type"] == "error", (message[:60], reply)
            assert reply["message"], "a clear error says what was wrong"
            if code is not None:
                assert reply["code"] == code, (message[:60], reply)
            else:  # another seat's action: refused, whichever reason is given first
                assert reply["code"] in ("illegal", "not_your_turn", "boundary"), reply
            if reply["code"] != "too_large":  # the page gets a fresh state to carry on
                assert ws.receive_json()["type"] == "state"
        assert everything(client, match_id) == before, message[:60]


def test_spectators_and_strangers_cannot_act(client: TestClient) -> None:
    game_id, players, match_id = two_player_game(client)
    stranger = guest(client)
    before = everything(client, match_id)
    seq = services(client).store.load(match_id).seq
    with stranger.ws(game_id) as ws:
        assert ws.receive_json()["state"]["spectator"] is True
        ws.send_json({"type": "step", "action": "p0 bid 1", "seq": seq})
        reply = ws.receive_json()
        assert reply["type"] == "error" and reply["code"] == "spectator"
    response = stranger.api(game_id, "step", {"action": "p0 bid 1", "seq": seq})
    assert response.status_code == 403
    assert everything(client, match_id) == before


def test_http_actions_for_another_seat_are_refused(client: TestClient) -> None:
    game_id, players, match_id = two_player_game(client)
    store = services(client).store
    mover = to_act(store.load(match_id).state)[0]
    waiter = 1 - mover
    before = everything(client, match_id)
    seq = store.load(match_id).seq
    legal = store.view(match_id, mover).legal
    # the waiting seat sends the mover's action; the mover sends one in the other's name
    refused = players[waiter].api(game_id, "step", {"action": legal[0], "seq": seq})
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] in ("illegal", "not_your_turn")
    forged = players[mover].api(game_id, "step", {"action": f"p{waiter} bid 13", "seq": seq})
    assert forged.status_code == 409 and forged.json()["error"]["message"]
    # malformed bodies
    for body in ("not json", {"action": 5, "seq": seq}, {"seq": "x"}, [1, 2]):
        kwargs: dict[str, Any] = {"content": body} if isinstance(body, str) else {}
        response = (players[mover].post(f"/api/games/{game_id}/step", headers={
            "x-csrf-token": players[mover].csrf(), "content-type": "application/json"}, **kwargs)
            if kwargs else players[mover].api(game_id, "step", body))
        assert response.status_code in (400, 422), (body, response.status_code)
    missing_csrf = players[mover].post(f"/api/games/{game_id}/step",
                                       json={"action": legal[0], "seq": seq})
    assert missing_csrf.status_code == 403
    assert everything(client, match_id) == before
