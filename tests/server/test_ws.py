"""The game page's WebSocket: pushes, commands, errors, and who hears what."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tests.apps import app_for

from .conftest import As, create_game, services, start_game

pytestmark = pytest.mark.timeout(120)


def answer(ws: Any, message: dict[str, Any], ident: int) -> dict[str, Any]:
    """Sends a command with an id and returns the state that answers it (skipping pushes)."""
    ws.send_json({**message, "id": ident})
    while True:
        reply = ws.receive_json()
        if reply.get("ack") == ident:
            state: dict[str, Any] = reply["state"]
            return state


def roles(game_id: int, players: tuple[As, ...]) -> tuple[As, int, As, int]:
    view = players[0].get(f"/api/games/{game_id}").json()
    seat = view["to_act"][0]
    other_seat = (seat + 1) % len(players)
    return players[seat], seat, players[other_seat], other_seat


def test_commands_and_live_updates_reach_every_seat_and_spectator(
        client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    game_id, *players = three_humans
    mover, seat, other, other_seat = roles(game_id, tuple(players))
    with mover.ws(game_id) as mine, other.ws(game_id) as theirs, As(client, None).ws(game_id) as watcher:
        first = mine.receive_json()
        assert first["type"] == "state" and first["state"]["seat"] == seat
        seq = first["state"]["seq"]
        assert theirs.receive_json()["state"]["seat"] == other_seat
        assert watcher.receive_json()["state"]["spectator"]
        drafted = answer(mine, {"type": "step", "action": f"p{seat} bid 9", "seq": seq}, 1)
        assert drafted["draft"]["steps"] == [f"p{seat} bid 9"] and drafted["draft"]["can_finish"]
        assert answer(mine, {"type": "undo", "seq": seq}, 2)["draft"]["can_redo"]
        assert answer(mine, {"type": "redo", "seq": seq}, 3)["draft"]["steps"] == [f"p{seat} bid 9"]
        started = time.monotonic()
        assert answer(mine, {"type": "finish", "seq": seq}, 4)["seq"] == seq + 1
        # The other seat and the spectator hear of the commit, and never of the draft:
        # their next message is already the committed state.
        seen = theirs.receive_json()["state"]
        assert time.monotonic() - started < 1.0  # live: well within a second
        assert seen["seq"] == seq + 1 and seen["players"][seat]["bid"] == 9
        assert other_seat in seen["to_act"] and seen["legal"]
        watched = watcher.receive_json()["state"]
        assert watched["seq"] == seq + 1 and watched["legal"] == []


@pytest.mark.parametrize("message, code", [
    ("{not json", "bad_json"),
    ("[1, 2]", "bad_request"),
    ('{"type": "dance"}', "bad_request"),
    ('{"type": "step", "seq": 1}', "bad_request"),
    ('{"type": "undo", "seq": "x"}', "bad_request"),
    ('{"type": "step", "action": "p0 bid 1", "seq": 0}', "moved_on"),
    ('{"type": "finish"}', "nothing_to_finish"),
    ('{"type": "step", "action": "' + "x" * 3000 + '"}', "bad_request"),
])
def test_bad_messages_get_an_error_and_a_fresh_state(
        client: TestClient, three_humans: tuple[int, As, As, As], message: str, code: str) -> None:
    game_id, *players = three_humans
    mover, seat, _, _ = roles(game_id, tuple(players))
    message = message.replace("p0 bid", f"p{seat} bid")
    with mover.ws(game_id) as ws:
        before = ws.receive_json()["state"]
        ws.send_text(message)
        error = ws.receive_json()
        assert error["type"] == "error" and error["code"] == code and error["message"]
        assert ws.receive_json()["state"] == before


def test_a_seat_cannot_act_for_another_and_a_spectator_not_at_all(
        client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    game_id, *players = three_humans
    mover, seat, other, _ = roles(game_id, tuple(players))
    with other.ws(game_id) as ws:
        before = ws.receive_json()["state"]
        ws.send_json({"type": "step", "action": f"p{seat} bid 5", "seq": before["seq"]})
        error = ws.receive_json()
        assert error["type"] == "error" and error["code"] in ("illegal", "not_your_turn")
        assert ws.receive_json()["state"] == before
    with As(client, None).ws(game_id) as ws:
        ws.receive_json()
        ws.send_json({"type": "step", "action": f"p{seat} bid 5"})
        assert ws.receive_json()["code"] == "spectator"
    assert mover.get(f"/api/games/{game_id}").json()["seq"] == before["seq"]


def test_sync_resends_the_state(client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    game_id, anna, *_ = three_humans
    with anna.ws(game_id) as ws:
        first = ws.receive_json()
        ws.send_json({"type": "sync", "id": 7})
        assert ws.receive_json() == {**first, "ack": 7}


def test_a_command_is_answered_by_one_state_not_also_by_its_own_change_notice(
        client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    # The draft change a step makes reaches this page as a notice too; the page gets
    # the state once, as the answer (a 20 KB state sent twice was half a step's cost).
    game_id, *players = three_humans
    mover, seat, _other, _ = roles(game_id, tuple(players))
    with mover.ws(game_id) as ws:
        seq = ws.receive_json()["state"]["seq"]
        received = []
        for ident, message in enumerate([{"type": "step", "action": f"p{seat} bid 9", "seq": seq},
                                         {"type": "undo", "seq": seq},
                                         {"type": "redo", "seq": seq},
                                         {"type": "sync"}, {"type": "sync"}], start=1):
            ws.send_json({**message, "id": ident})
            while True:
                reply = ws.receive_json()
                received.append((reply["type"], reply.get("ack")))
                if reply.get("ack") == ident:
                    break
        assert received == [("state", ident) for ident in range(1, 6)]


def test_cross_origin_sockets_and_unknown_games_are_refused(
        client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    game_id, anna, *_ = three_humans
    with pytest.raises(WebSocketDisconnect) as refused:
        with anna.ws(game_id, headers={"origin": "http://evil.example"}) as ws:
            ws.receive_json()
    assert refused.value.code == 4403
    with anna.ws(game_id, headers={"origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "state"
    with pytest.raises(WebSocketDisconnect) as missing:
        with anna.ws(4242) as ws:
            ws.receive_json()
    assert missing.value.code == 4404


def test_a_waiting_room_hears_when_the_game_starts(client: TestClient, anna: As, bert: As) -> None:
    game_id = create_game(anna, ["me", "open"])
    with bert.ws(game_id) as ws:
        assert ws.receive_json() == {"type": "lobby"}
        start_game(anna, game_id, fill=True)
        assert ws.receive_json() == {"type": "lobby"}  # the page reloads into the game


def test_a_page_gets_only_the_new_lines_of_the_move_log_and_keeps_the_whole_log(
        client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    """After its first state a page receives "log_from" and the new lines only; put
    together as the page does (PageSocket, like net.js), its log is always the whole
    one the JSON API shows, line for line."""
    game_id, *players = three_humans  # seat i is players[i]
    pages = [p.ws(game_id) for p in players]
    sockets = [page.__enter__() for page in pages]
    try:
        states = [ws.receive_json()["state"] for ws in sockets]
        ident = 0
        for _ in range(6):  # six turns
            seq = states[0]["seq"]
            mover = states[0]["to_act"][0]
            current = states[mover]
            while current["seq"] == seq:  # a secret choice commits at once
                ident += 1
                if current["draft"]["can_finish"]:
                    current = answer(sockets[mover], {"type": "finish", "seq": seq}, ident)
                else:
                    current = answer(sockets[mover], {"type": "step", "seq": seq,
                                                      "action": current["legal"][0]["text"]}, ident)
            states[mover] = current
            for seat, ws in enumerate(sockets):  # every page catches up with the commit
                while states[seat]["seq"] < current["seq"]:
                    states[seat] = ws.receive_json()["state"]
        for seat, ws in enumerate(sockets):
            api = players[seat].get(f"/api/games/{game_id}").json()
            assert states[seat]["seq"] == api["seq"] and states[seat]["log"] == api["log"]
            raw = [m["state"] for m in ws.raw if m.get("type") == "state"]
            assert "log_from" not in raw[0], "a new page gets the whole log first"
            later = [s for s in raw[1:] if "log_from" in s]
            assert later and all(len(s["log"]) < len(api["log"]) for s in later)
    finally:
        for page in pages:
            page.__exit__(None, None, None)


def test_a_page_open_before_logout_cannot_act_after_it(
        client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    """Logging out ends the session in every open page too: the socket's next command
    is refused and the socket closed, nothing played."""
    game_id, *players = three_humans
    player, seat, _, _ = roles(game_id, tuple(players))
    with player.ws(game_id) as ws:
        state = ws.receive_json()["state"]
        out = player.post("/logout", data={"csrf_token": player.csrf()})
        assert out.status_code == 303
        ws.send_json({"type": "step", "action": state["legal"][0]["text"], "seq": state["seq"],
                      "id": 1})
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4401
    spectator = As(client, None)
    assert spectator.get(f"/api/games/{game_id}").json()["seq"] == state["seq"]
    svc = services(client)
    assert svc.store.view(svc.lobby.get(game_id).match_id, seat).draft["steps"] == []


def test_a_move_whose_notice_was_lost_reaches_the_other_pages_when_a_page_finds_it(
        client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    # A process that commits a move and is killed before telling the other processes:
    # here process A (the test's app) commits with no pub/sub between it and process B
    # on the same database, so B never hears. The mover's page then reconnects to B and
    # finds the move; B's other pages of the game are told, not left waiting for it.
    game_id, *players = three_humans
    mover, seat, other, other_seat = roles(game_id, tuple(players))
    settings = services(client).settings
    with TestClient(app_for(settings), follow_redirects=False) as on_b:
        other_on_b = As(on_b, other.cookie, other.name)
        with other_on_b.ws(game_id) as theirs:
            seq = theirs.receive_json()["state"]["seq"]
            assert mover.api(game_id, "step", {"seq": seq, "action": f"p{seat} bid 9"}).status_code == 200
            assert mover.api(game_id, "finish", {"seq": seq}).status_code == 200
            with As(on_b, mover.cookie, mover.name).ws(game_id) as mine:
                assert mine.receive_json()["state"]["seq"] == seq + 1
                seen = theirs.receive_json()["state"]
                assert seen["seq"] == seq + 1 and seen["players"][seat]["bid"] == 9
                assert other_seat in seen["to_act"]
