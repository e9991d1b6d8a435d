"""The table chat over the game page's socket: players write, everyone at the table
(and spectators, if the table lets them) reads at once; bad lines are refused with a
reason and store nothing; lines are limited per player; a mute hides a player's lines
from the one who muted; reports reach the moderators; the game's record has no chat."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from elgrande.server.tables import ChatMessage, Report

from .conftest import As, create_game, join_game, register, services, start_game
from .helpers import advance

pytestmark = pytest.mark.timeout(120)


def two_player_game(anna: As, bert: As, **extra: str) -> int:
    game_id = create_game(anna, ["me", "open"], rounds=6, **extra)
    join_game(bert, game_id)
    start_game(anna, game_id)
    return game_id


def _pending(ws: Any) -> list[dict[str, Any]]:
    if not hasattr(ws, "_chat_pending"):
        ws._chat_pending = []
    return ws._chat_pending  # type: ignore[no-any-return]


def next_of(ws: Any, kind: str) -> dict[str, Any]:
    """The next message of ``kind`` (those read past while waiting for an answer first)."""
    pending = _pending(ws)
    for index, message in enumerate(pending):
        if message["type"] == kind:
            return pending.pop(index)
    while True:
        found: dict[str, Any] = ws.receive_json()
        if found["type"] == kind:
            return found


def chat(ws: Any, text: str, ident: str = "chat-1") -> dict[str, Any]:
    """Writes a line; the answer to it (other messages are kept for ``next_of``)."""
    ws.send_json({"type": "chat", "text": text, "id": ident})
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message.get("ack") == ident:
            return message
        _pending(ws).append(message)


def stored(client: TestClient) -> list[str]:
    with services(client).sessions() as db:
        return list(db.scalars(select(ChatMessage.text)))


def test_players_write_and_everyone_reads_at_once(client: TestClient, anna: As, bert: As) -> None:
    game_id = two_player_game(anna, bert)
    with anna.ws(game_id) as mine, bert.ws(game_id) as theirs, As(client, None).ws(game_id) as watcher:
        for ws in (mine, theirs, watcher):
            assert ws.receive_json()["type"] == "state"  # no chat lines yet: no chat message
        assert chat(mine, "  Hello <b>Bert</b>\x07 ")["type"] == "chat_ok"
        for ws in (mine, theirs, watcher):
            [line] = next_of(ws, "chat")["lines"]
            assert line["text"] == "Hello <b>Bert</b>" and line["name"] == "anna"
            assert line["seat"] == 0
        refused = chat(watcher, "I am only watching", "chat-2")
        assert refused["type"] == "error" and refused["code"] == "spectator"
        for text, code in [("", "empty"), ("   ", "empty"), ("x" * 501, "too_long")]:
            answer = chat(mine, text, "chat-3")
            assert answer["type"] == "error" and answer["code"] == code and "Traceback" not in answer["message"]
    assert stored(client) == ["Hello <b>Bert</b>"]
    # A page opened later gets the history.
    with bert.ws(game_id) as later:
        assert [line["text"] for line in next_of(later, "chat")["lines"]] == ["Hello <b>Bert</b>"]


def test_a_table_for_players_only_sends_spectators_no_chat(client: TestClient, anna: As,
                                                           bert: As) -> None:
    game_id = two_player_game(anna, bert, chat="players")
    with anna.ws(game_id) as mine, As(client, None).ws(game_id) as watcher:
        mine.receive_json()
        assert chat(mine, "secret plans")["type"] == "chat_ok"
        next_of(mine, "chat")
        watcher.send_json({"type": "sync", "id": 9})
        seen = []
        while True:
            message = watcher.receive_json()
            seen.append(message["type"])
            if message.get("ack") == 9:
                break
        assert "chat" not in seen
    # The form refuses an unknown chat setting.
    response = anna.post("/games", data={"players": "2", "rounds": "6", "seat0": "me",
                                         "seat1": "open", "chat": "everybody",
                                         "csrf_token": anna.csrf()})
    assert response.status_code == 400 and "players only" in response.text


def test_lines_are_limited_per_player(client: TestClient, anna: As, bert: As) -> None:
    game_id = two_player_game(anna, bert)
    limit = services(client).settings.chat_lines_per_minute
    with anna.ws(game_id) as mine:
        for number in range(limit):
            assert chat(mine, f"line {number}", f"chat-{number}")["type"] == "chat_ok"
        refused = chat(mine, "one too many", "chat-x")
        assert refused["type"] == "error" and refused["code"] == "too_fast"
    assert len(stored(client)) == limit
    with bert.ws(game_id) as theirs:  # another player is not slowed down
        assert chat(theirs, "my turn to speak")["type"] == "chat_ok"


def test_a_mute_hides_a_players_lines_from_the_one_who_muted(client: TestClient, anna: As,
                                                              bert: As) -> None:
    game_id = two_player_game(anna, bert)
    with bert.ws(game_id) as theirs:
        chat(theirs, "something rude")
    headers = {"x-csrf-token": anna.csrf()}
    assert anna.post("/api/chat/mute", json={"name": "bert"}, headers=headers).json() == {"muted": ["bert"]}
    assert anna.post("/api/chat/mute", json={"name": "anna"}, headers=headers).status_code == 409
    assert anna.post("/api/chat/mute", json={"name": "nobody"}, headers=headers).status_code == 404
    assert anna.post("/api/chat/mute", json={"name": "bert"}).status_code == 403  # no CSRF token
    with anna.ws(game_id) as mine:  # the only line is bert's: no chat message at all
        mine.receive_json()
        mine.send_json({"type": "sync", "id": 4})
        kinds = []
        while True:
            message = mine.receive_json()
            kinds.append(message["type"])
            if message.get("ack") == 4:
                break
        assert "chat" not in kinds
    with bert.ws(game_id) as theirs:
        assert len(next_of(theirs, "chat")["lines"]) == 1  # only for anna
    anna.post("/api/chat/unmute", json={"name": "bert"}, headers={"x-csrf-token": anna.csrf()})
    with anna.ws(game_id) as mine:
        assert [x["text"] for x in next_of(mine, "chat")["lines"]] == ["something rude"]


def test_reports_reach_the_moderators_and_the_record_has_no_chat(client: TestClient, anna: As,
                                                                  bert: As) -> None:
    game_id = two_player_game(anna, bert)
    with bert.ws(game_id) as theirs:
        chat(theirs, "an offensive remark")
        [line] = next_of(theirs, "chat")["lines"]
    carl = register(client, "carl")
    stranger = carl.post("/api/chat/report", json={"message_id": line["id"], "reason": "x"},
                         headers={"x-csrf-token": carl.csrf()})
    assert stranger.status_code == 404  # not a line of carl's games
    headers = {"x-csrf-token": anna.csrf()}
    assert anna.post("/api/chat/report", json={"message_id": line["id"], "reason": "rude"},
                     headers=headers).status_code == 200
    assert anna.post("/api/chat/report", json={"name": "bert", "reason": "that name"},
                     headers={"x-csrf-token": anna.csrf()}).status_code == 200
    assert anna.post("/api/chat/report", json={"reason": "?"},
                     headers={"x-csrf-token": anna.csrf()}).status_code == 400
    with services(client).sessions() as db:
        assert sorted(r.kind for r in db.scalars(select(Report))) == ["message", "name"]
    svc = services(client)
    advance(svc, game_id, lambda m: m.over)
    svc.lobby.mark_finished(svc.lobby.get(game_id).match_id)
    record = anna.get(f"/api/games/{game_id}/record")
    assert record.status_code == 200 and "offensive" not in record.text
