"""Issue 11, item 8 with PostgreSQL stopped mid-run under a real `elgrande serve`: a
step over HTTP answers 503 "unavailable", over the WebSocket an error message (the
socket stays), /readyz says the database is down while /healthz stays 200; when
PostgreSQL is back, the same step is accepted."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.ops.serve import Serve
from tests.scale.servers import RestartablePostgres


def test_postgres_stopped_mid_run(tmp_path: Path) -> None:
    postgres = RestartablePostgres()
    postgres.start()
    halted = False
    try:
        with Serve(tmp_path, postgres.create_database("outage")) as serve:
            client, game_id = serve.play_now()
            state = wait_for_turn(client, game_id)
            action = state["legal"][0]["text"]
            csrf = csrf_of(client, game_id)
            cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
            ws = connect(f"{serve.ws_url}/ws/games/{game_id}",
                         additional_headers={"cookie": cookie})
            ws.recv(timeout=20)  # the seat's view
            postgres.halt()
            halted = True

            assert httpx.get(serve.url + "/healthz").text == "ok"
            ready = httpx.get(serve.url + "/readyz")
            assert ready.status_code == 503 and ready.json()["database"] == "down"

            step = client.post(f"/api/games/{game_id}/step", headers={"x-csrf-token": csrf},
                               json={"action": action, "seq": state["seq"]})
            assert step.status_code == 503, step.text
            assert step.json()["error"]["code"] == "unavailable"

            # A page that was open before the outage.
            ws.send(json.dumps({"type": "step", "action": action, "seq": state["seq"],
                                "id": 1}))
            error = json.loads(ws.recv(timeout=20))
            assert error["type"] == "error" and error["code"] == "unavailable", error
            assert error["ack"] == 1
            ws.send(json.dumps({"type": "step", "action": action, "seq": state["seq"],
                                "id": 2}))
            assert json.loads(ws.recv(timeout=20))["code"] == "unavailable"  # still open

            # A page opening now is told to come back later.
            with pytest.raises(ConnectionClosed) as closed:
                with connect(f"{serve.ws_url}/ws/games/{game_id}") as late:
                    late.recv(timeout=20)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013

            postgres.resume()
            halted = False
            assert httpx.get(serve.url + "/readyz").status_code == 200
            step = client.post(f"/api/games/{game_id}/step", headers={"x-csrf-token": csrf},
                               json={"action": action, "seq": state["seq"]})
            assert step.status_code == 200, step.text
            ws.close()
            assert "Traceback" not in serve.log.read_text()
    finally:
        if halted:
            postgres.resume()
        postgres.stop()


def wait_for_turn(client: httpx.Client, game_id: int) -> dict[str, Any]:
    for _ in range(1000):
        state: dict[str, Any] = client.get(f"/api/games/{game_id}").json()
        if state["legal"]:
            return state
        time.sleep(0.01)
    raise AssertionError("the guest never got a turn")


def csrf_of(client: httpx.Client, game_id: int) -> str:
    from tests.ops.serve import CSRF

    page = client.get(f"/games/{game_id}").text
    found = CSRF.search(page) or re.search(r'data-csrf="([^"]+)"', page)
    assert found, "no CSRF token on the game page"
    return found.group(1)
