"""Issue 11, item 8: a database that fails answers 503 "unavailable" over HTTP, an error
message over the WebSocket (which stays open), and stops a starting server with one
line, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from elgrande.server.app import create_app
from elgrande.server.security import SESSION_COOKIE
from elgrande.server.settings import Settings
from tests.server.conftest import CSRF_FIELD, As

KEY = "k" * 32


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[tuple[TestClient, int, As]]:
    """A started game on a database file, then a second server on that file opened
    read-only (as a full disk or a read-only mount would make it): the first seat's
    session there."""
    path = tmp_path / "game.db"
    writable = create_app_for(f"sqlite:///{path}", migrate=True)
    with TestClient(writable, follow_redirects=False) as client:
        cookie, game_id = play_now(client)
        wait_for_turn(As(client, cookie), game_id)
    ro = create_app_for(f"sqlite:///file:{path}?mode=ro&uri=true")
    with TestClient(ro, follow_redirects=False) as client:
        yield client, game_id, As(client, cookie, "guest")


def play_now(client: TestClient) -> tuple[str, int]:
    """A guest's session cookie and its new game against two bots."""
    client.cookies.clear()
    token = CSRF_FIELD.search(client.get("/login").text)
    assert token
    answer = client.post("/play-now", data={"csrf_token": token.group(1)})
    client.cookies.clear()
    assert answer.status_code == 303, answer.text
    return answer.cookies[SESSION_COOKIE], int(answer.headers["location"].rsplit("/", 1)[1])


def wait_for_turn(user: As, game_id: int) -> dict[str, Any]:
    """The guest's view once the bots have moved and the guest has something to do."""
    for _ in range(500):
        state: dict[str, Any] = user.get(f"/api/games/{game_id}").json()
        if state["legal"]:
            return state
        time.sleep(0.01)
    raise AssertionError("the guest never got a turn")


def create_app_for(url: str, migrate: bool = False) -> Any:
    from tests.apps import migrated

    if migrate:
        migrated(url)
    return create_app(Settings(database_url=url, secret_key=KEY, bot_delay=0.0))


def first_step(user: As, game_id: int) -> tuple[dict[str, Any], str]:
    state = user.get(f"/api/games/{game_id}").json()
    return state, state["legal"][0]["text"]


def test_a_step_on_a_read_only_database_answers_503(read_only: tuple[TestClient, int, As]
                                                    ) -> None:
    client, game_id, anna = read_only
    state, action = first_step(anna, game_id)
    response = anna.api(game_id, "step", {"action": action, "seq": state["seq"]})
    assert response.status_code == 503, response.text
    assert response.json()["error"]["code"] == "unavailable"
    assert "Traceback" not in response.text and "sqlite" not in response.text.lower()
    assert response.headers["retry-after"]
    # Nothing changed.
    assert anna.get(f"/api/games/{game_id}").json() == state


def test_a_step_over_the_websocket_gets_an_error_and_keeps_the_socket(
        read_only: tuple[TestClient, int, As]) -> None:
    client, game_id, anna = read_only
    state, action = first_step(anna, game_id)
    with anna.ws(game_id) as ws:
        ws.receive_json()
        ws.send_json({"type": "step", "action": action, "seq": state["seq"], "id": 1})
        error = ws.receive_json()
        assert error["type"] == "error" and error["code"] == "unavailable", error
        assert error["ack"] == 1
        ws.send_json({"type": "sync", "id": 2})  # the socket still answers
        answer = ws.receive_json()
        assert answer["ack"] == 2 and answer["state"]["seq"] == state["seq"]


@pytest.mark.parametrize("entry", ["serve", "asgi"])
def test_a_database_that_cannot_be_opened_stops_the_start_with_one_line(
        tmp_path: Path, entry: str) -> None:
    bad = tmp_path / "not-a-database.db"
    bad.write_text("this is no SQLite file\n")
    env = {"ELGRANDE_DATABASE_URL": f"sqlite:///{bad}", "ELGRANDE_SECRET_KEY": KEY,
           "PATH": "/usr/bin:/bin",
           **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}}
    command = ([sys.executable, "-m", "elgrande", "serve", "--port", "0"] if entry == "serve"
               else [sys.executable, "-c", "from elgrande.asgi import create_app; create_app()"])
    done = subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "the database cannot be used" in lines[0], done.stderr
