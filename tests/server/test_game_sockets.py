"""Game pages' sockets taken straight from uvicorn's connection (server/game_sockets.py),
as `elgrande serve` serves them: a real uvicorn server on loopback and real WebSocket
clients. The page's behaviour itself (page.GamePage) is tested through the ASGI path
in test_ws.py; here, what this path does on its own: the handshake and its checks, the
hand-over of every other socket to uvicorn, frames, bounds, closing, keepalive, and
that a closed page leaves nothing behind."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import gc
import json
import os
import socket
import time
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.server import ServerProtocol
from websockets.sync.client import ClientConnection, connect

from elgrande.server import game_sockets
from elgrande.server.settings import Settings
from tests.apps import app_for

from .conftest import As, create_game, join_game, register, start_game
from .liveserver import serving

pytestmark = pytest.mark.timeout(120)


class Live:
    def __init__(self, url: str, app: Any) -> None:
        self.url = url
        self.ws_url = url.replace("http://", "ws://")
        self.app = app
        self.http = httpx.Client(base_url=url, follow_redirects=False, timeout=30)

    @property
    def svc(self) -> Any:
        return self.app.state.services

    def page(self, game_id: int, user: As | None = None, **headers: str) -> ClientConnection:
        found = dict(headers)
        if user is not None:
            found.update(user.headers())
        return connect(f"{self.ws_url}/ws/games/{game_id}", additional_headers=found,
                       open_timeout=30)


@pytest.fixture
def live(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Live]:
    extra = getattr(request, "param", {})
    app = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'live.db'}",
                           secret_key="k" * 32, bot_delay=0.0, **extra))
    with serving(app) as url:
        served = Live(url, app)
        yield served
        served.http.close()


def _game(live: Live) -> tuple[int, tuple[As, ...]]:
    players = tuple(register(live.http, name) for name in ("anna", "bert", "carl"))  # type: ignore[arg-type]
    game_id = create_game(players[0], ["me", "open", "open"])
    for player in players[1:]:
        join_game(player, game_id)
    start_game(players[0], game_id)
    return game_id, players


def _state(ws: ClientConnection, ack: int | None = None) -> dict[str, Any]:
    """The next state (the one answering ``ack``, if given), skipping other messages."""
    while True:
        message = json.loads(ws.recv(timeout=30))
        if message["type"] == "state" and (ack is None or message.get("ack") == ack):
            return message["state"]  # type: ignore[no-any-return]


def _roles(live: Live, game_id: int, players: tuple[As, ...]) -> tuple[As, int, As]:
    view = players[0].get(f"/api/games/{game_id}").json()
    seat = view["to_act"][0]
    return players[seat], seat, players[(seat + 1) % 3]


def test_moves_reach_the_other_seats_and_spectators(live: Live) -> None:
    game_id, players = _game(live)
    mover, seat, other = _roles(live, game_id, players)
    with live.page(game_id, mover) as mine, live.page(game_id, other) as theirs, \
            live.page(game_id) as watcher:
        assert mine.response is not None and mine.response.headers["x-request-id"]
        seq = _state(mine)["seq"]
        assert _state(theirs)["seat"] != seat and _state(watcher)["spectator"]
        mine.send(json.dumps({"type": "step", "action": f"p{seat} bid 9", "seq": seq, "id": 1}))
        assert _state(mine, 1)["draft"]["steps"] == [f"p{seat} bid 9"]
        mine.send(json.dumps({"type": "finish", "seq": seq, "id": 2}))
        assert _state(mine, 2)["seq"] == seq + 1
        seen = _state(theirs)  # never the draft: the committed state
        assert seen["seq"] == seq + 1 and seen["players"][seat]["bid"] == 9
        assert _state(watcher)["seq"] == seq + 1
        # A sync is answered from memory; the language follows the page's cookie.
        mine.send(json.dumps({"type": "sync", "id": 3}))
        assert _state(mine, 3)["seq"] == seq + 1
    with live.page(game_id, mover, Cookie="lang=de") as german:  # (a second Cookie header)
        assert _state(german)["players"][0]["colour"]["name"] == "blau"


def test_the_notice_socket_and_other_paths_are_served_by_uvicorn(live: Live) -> None:
    anna = register(live.http, "anna")  # type: ignore[arg-type]
    with connect(f"{live.ws_url}/ws/me", additional_headers=anna.headers()) as me:
        assert json.loads(me.recv(timeout=30))["type"] == "waiting"
    with pytest.raises(InvalidStatus) as refused:  # no such route: the app's own answer
        connect(f"{live.ws_url}/ws/nowhere", open_timeout=30)
    assert refused.value.response.status_code == 403


def test_refusals_say_why(live: Live) -> None:
    game_id, players = _game(live)
    with pytest.raises(InvalidStatus) as refused:
        live.page(game_id, players[0], Origin="http://evil.example")
    assert refused.value.response.status_code == 403
    for missing in (game_id + 1000, 10**30):  # no such game; an id no game has
        with live.page(missing) as ws, pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=30)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404


@pytest.mark.parametrize("live", [{"ws_per_client": 2}], indirect=True)
def test_too_many_sockets_from_one_address(live: Live) -> None:
    game_id, _ = _game(live)
    with live.page(game_id) as one, live.page(game_id) as two:
        _state(one), _state(two)
        with live.page(game_id) as three, pytest.raises(ConnectionClosed) as closed:
            three.recv(timeout=30)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
    # Closed pages count no more (their places are given back as they go).
    deadline = time.monotonic() + 20
    while sum(live.svc.sockets.open.values()) and time.monotonic() < deadline:
        time.sleep(0.02)
    with live.page(game_id) as again:
        assert _state(again)["spectator"]


def test_bad_frames_get_an_error_and_the_socket_stays(live: Live) -> None:
    game_id, players = _game(live)
    mover, seat, _ = _roles(live, game_id, players)
    with live.page(game_id, mover) as ws:
        seq = _state(ws)["seq"]
        ws.send("x" * 5000)  # over the hardening's bound (4096), under the frame limit
        error = json.loads(ws.recv(timeout=30))
        assert error["type"] == "error" and error["code"] == "too_large"
        ws.send(b"\x00\x01")
        error = json.loads(ws.recv(timeout=30))
        assert error["type"] == "error" and error["code"] == "bad_request"
        ws.send("{not json")
        assert json.loads(ws.recv(timeout=30))["code"] == "bad_json"
        ws.send(json.dumps({"type": "step", "action": f"p{seat} bid 9", "seq": seq, "id": 7}))
        assert _state(ws, 7)["draft"]["steps"] == [f"p{seat} bid 9"]


def test_a_page_whose_session_ended_is_closed(live: Live) -> None:
    game_id, players = _game(live)
    mover, seat, _ = _roles(live, game_id, players)
    with live.page(game_id, mover) as ws:
        seq = _state(ws)["seq"]
        assert mover.post("/logout", data={"csrf_token": mover.csrf()}).status_code in (200, 303)
        ws.send(json.dumps({"type": "step", "action": f"p{seat} bid 9", "seq": seq, "id": 1}))
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ws.recv(timeout=30)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401


def test_a_closed_page_leaves_nothing_behind(live: Live) -> None:
    game_id, players = _game(live)
    hub = live.svc.hub
    with contextlib.ExitStack() as pages:
        for user in (*players, None):
            _state(pages.enter_context(live.page(game_id, user)))
        assert sum(len(found) for found in hub._subscribers.values()) == 4
    deadline = time.monotonic() + 20
    while (hub._subscribers or sum(live.svc.sockets.open.values())) and \
            time.monotonic() < deadline:
        time.sleep(0.02)
    assert not hub._subscribers and not sum(live.svc.sockets.open.values())


def _server_protocols() -> list[ServerProtocol]:
    """Every websockets server-side protocol in this process (the server's: the clients
    here are websockets' client protocols), whether still reachable or not."""
    return [found for found in gc.get_objects() if isinstance(found, ServerProtocol)]


def _left_after_waiting(made: list[weakref.ref[ServerProtocol]]) -> list[ServerProtocol]:
    """Those of ``made`` still alive after the server had time to let them go."""
    deadline = time.monotonic() + 20
    while any(ref() is not None for ref in made) and time.monotonic() < deadline:
        time.sleep(0.02)
    return [found for ref in made if (found := ref()) is not None]


def _wait_until_unsubscribed(live: Live) -> None:
    deadline = time.monotonic() + 20
    while live.svc.hub._subscribers and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not live.svc.hub._subscribers


def test_a_closed_pages_connection_is_freed_without_the_collector(live: Live) -> None:
    # Held by nothing but their own reference cycles, a connection's protocols would wait
    # for a collection, by then mostly in the oldest generation (game_sockets._let_go).
    game_id, players = _game(live)
    gc.collect()
    gc.disable()  # only reference counting may free them
    try:
        with live.page(game_id, players[0]) as ws:
            _state(ws)
            ws.send(json.dumps({"type": "sync", "id": 1}))
            _state(ws, 1)
            # The page's protocol alone: the handshake's went once the page's took over.
            made = [weakref.ref(found) for found in _server_protocols()]
            assert len(made) == 1
        _wait_until_unsubscribed(live)
        assert _left_after_waiting(made) == []
    finally:
        gc.enable()


def test_a_closed_notice_socket_is_freed_without_the_collector(live: Live) -> None:
    # Another path's socket, handed to uvicorn's own protocol: neither the protocol that
    # read its request first nor uvicorn's waits for a collection.
    anna = register(live.http, "anna")  # type: ignore[arg-type]
    gc.collect()
    gc.disable()
    try:
        with connect(f"{live.ws_url}/ws/me", additional_headers=anna.headers()) as me:
            assert json.loads(me.recv(timeout=30))["type"] == "waiting"
            made = [weakref.ref(found) for found in _server_protocols()]
            assert len(made) == 1  # uvicorn's
        assert _left_after_waiting(made) == []
    finally:
        gc.enable()


def test_messages_leave_no_new_lists_in_a_held_protocol(live: Live) -> None:
    # websockets' events_received() and data_to_send() would replace these lists with new
    # ones at every message, keepalive pongs included: objects that live as long as the
    # page is quiet, promoted past the young collections of an idle server each time.
    game_id, players = _game(live)
    with live.page(game_id, players[0]) as ws:
        _state(ws)
        ws.send(json.dumps({"type": "sync", "id": 1}))
        _state(ws, 1)
        (page,) = [found.ws for found in gc.get_objects()
                   if isinstance(found, game_sockets.GameSocketProtocol) and found.page]
        events, writes = page.events, page.writes
        ws.send(json.dumps({"type": "sync", "id": 2}))
        _state(ws, 2)
        ws.ping().wait(timeout=30)  # (its pong is the server's: answered by its parser)
        _keepalive_round()
        _keepalive_round()  # a ping to the page, quiet since the round before
        ws.send(json.dumps({"type": "sync", "id": 3}))
        assert _state(ws, 3)
        assert page.events is events and page.writes is writes
        assert not events and not writes


def _raw_page(live: Live, game_id: int) -> socket.socket:
    """A client that opens a page and then never reads nor answers anything."""
    host, port = live.url.removeprefix("http://").split(":")
    raw = socket.create_connection((host, int(port)), timeout=30)
    key = base64.b64encode(os.urandom(16)).decode()
    raw.sendall(f"GET /ws/games/{game_id} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n".encode())
    assert raw.recv(12) == b"HTTP/1.1 101"
    return raw


def _keepalive_round() -> None:
    """One round of the keepalive, on the server's loop (instead of waiting for its
    timer)."""
    (keepalive,) = [found for loop, found in game_sockets._KEEPALIVES.items()
                    if loop.is_running()]
    done = asyncio.run_coroutine_threadsafe(_call(keepalive._round), keepalive.loop)
    done.result(timeout=30)


async def _call(function: Any) -> None:
    function()


def test_a_page_that_answers_no_ping_is_closed(live: Live) -> None:
    game_id, _ = _game(live)
    with live.page(game_id) as answering:  # (websockets' client answers pings itself)
        _state(answering)
        raw = _raw_page(live, game_id)
        deadline = time.monotonic() + 20
        while len(live.svc.hub._subscribers.get(f"room:{game_id}", ())) + sum(
                map(len, live.svc.hub._subscribers.values())) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)  # (until the raw page is served: it reads nothing to tell)
        _keepalive_round()  # what each page sent since its opening counts as heard
        _keepalive_round()  # a ping to each page quiet since
        # The answering page's client answered its ping; its sync's answer shows that the
        # server has read that pong.
        answering.send(json.dumps({"type": "sync", "id": 1}))
        assert _state(answering, 1)["spectator"]
        _keepalive_round()  # the raw page did not answer its ping: closed
        raw.settimeout(30)
        received = b""
        while True:
            chunk = raw.recv(65536)
            if not chunk:
                break
            received += chunk
        assert b"\x89" in received  # the ping it did not answer
        assert b"keepalive ping timeout" in received  # the close frame's reason
        raw.close()
        answering.send(json.dumps({"type": "sync", "id": 2}))
        assert _state(answering, 2)["spectator"]  # the answering page is still open


def test_pages_are_told_when_the_server_stops(tmp_path: Path) -> None:
    app = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'live.db'}",
                           secret_key="k" * 32, bot_delay=0.0))
    with serving(app) as url:
        live = Live(url, app)
        game_id, _ = _game(live)
        with contextlib.ExitStack() as stack:
            ws = stack.enter_context(live.page(game_id))
            _state(ws)
            stack.pop_all()  # (kept open past the server's stop)
    with ws, pytest.raises(ConnectionClosed) as closed:
        while True:
            ws.recv(timeout=30)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012


def test_the_load_generator_starts_servers_with_this_path() -> None:
    from elgrande.loadgen.launch import GAME_SOCKETS, WS_PATHS  # (named there, not imported)

    assert GAME_SOCKETS == game_sockets.GAME_SOCKETS == WS_PATHS["game"]
