"""Open WebSockets counted over every server process in a real Redis (issue 11, item 7,
with several processes): the limits per client address and per user hold across two
apps, and a process that dies stops counting once its deadline has passed (the clock is
injected: no waiting)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from elgrande.scale.sockets import SharedSocketCounts
from elgrande.server.app import create_app
from elgrande.server.settings import Settings
from tests.apps import migrated
from tests.scale.servers import RedisServer
from tests.server.conftest import As, create_game, register

pytestmark = pytest.mark.timeout(60)

TTL = 30.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def counts(redis_server: RedisServer, process: str, clock: Clock, limit: int = 3
           ) -> SharedSocketCounts:
    return SharedSocketCounts(redis_server.url, "client", limit, process=process, ttl=TTL,
                              clock=clock)


def test_the_limit_holds_across_processes_until_a_dead_ones_deadline(
        redis_server: RedisServer) -> None:
    clock = Clock()
    a, b = counts(redis_server, "a", clock), counts(redis_server, "b", clock)
    a.refresh()
    b.refresh()
    assert a.admit("1.2.3.4") and a.admit("1.2.3.4") and b.admit("1.2.3.4")
    assert not b.admit("1.2.3.4") and not a.admit("1.2.3.4"), "3 open over both processes"
    assert b.admit("5.6.7.8"), "another address has its own count"
    a.release("1.2.3.4")
    assert b.admit("1.2.3.4"), "a closed socket frees its place in every process"
    assert not a.admit("1.2.3.4")
    # a renews its deadline; b stops (as if killed): b's two sockets count until its
    # deadline, then no longer.
    clock.now += TTL * 2 / 3
    a.refresh()
    assert not a.admit("1.2.3.4")
    clock.now += TTL * 2 / 3
    assert a.admit("1.2.3.4") and a.admit("1.2.3.4"), "b's sockets stopped counting"
    assert not a.admit("1.2.3.4"), "a's own three still count"
    assert a.open == {"1.2.3.4": 3}


def test_a_restarted_process_drops_its_predecessors_counts_at_once(
        redis_server: RedisServer) -> None:
    clock = Clock()
    old, other = counts(redis_server, "host:slot0", clock), counts(redis_server, "b", clock)
    for _ in range(3):
        assert old.admit("1.2.3.4")
    assert not other.admit("1.2.3.4")
    new = counts(redis_server, "host:slot0", clock)  # the same lasting name, no sockets yet
    new.refresh()
    assert other.admit("1.2.3.4")


def test_without_redis_each_process_counts_its_own(redis_server: RedisServer) -> None:
    clock = Clock()
    a = counts(redis_server, "a", clock, limit=2)
    redis_server.stop()
    assert a.admit("1.2.3.4") and a.admit("1.2.3.4")
    assert not a.admit("1.2.3.4")
    a.release("1.2.3.4")  # not fatal either
    assert a.admit("1.2.3.4")


def test_two_apps_share_the_limits_per_address_and_per_user(
        redis_server: RedisServer, tmp_path: Path) -> None:
    url = migrated(f"sqlite:///{tmp_path / 'shared.db'}")

    def settings(name: str) -> Settings:
        return Settings(database_url=url, secret_key="k" * 32, bot_delay=0.0,
                        pubsub_url=redis_server.url, instance_name=name, ws_per_client=3,
                        alert_sockets_per_user=2)

    with TestClient(create_app(settings("one")), follow_redirects=False) as one, \
            TestClient(create_app(settings("two")), follow_redirects=False) as two:
        anna_one = register(one, "anna")
        anna_two = As(two, anna_one.cookie, "anna")  # the same session on the other app
        game_id = create_game(anna_one, ["me", "open"])
        with me(anna_one) as first, me(anna_two) as second:
            first.receive_json(), second.receive_json()
            assert refusal(lambda: me(anna_one)) == (4429, "too many open pages")
            assert refusal(lambda: me(anna_two)) == (4429, "too many open pages")
            sockets_two = two.app.state.services.sockets
            # The server releases a socket's place as its handler ends, after the
            # client's side has closed (the page refused above too): wait for that (a
            # condition, not a fixed time). Then app two holds `second` only.
            released(sockets_two, 1)
            with game(anna_two, game_id) as third:  # the address's third socket
                third.receive_json()
                assert sum(sockets_two.open.values()) == 2
                assert refusal(lambda: game(anna_one, game_id)) == (
                    4429, "too many connections")
            released(sockets_two, 1)
            with game(anna_one, game_id) as again:  # the closed one made room
                assert again.receive_json()["type"] == "lobby"


def released(sockets: Any, left: int, within: float = 10.0) -> None:
    """Until this process holds ``left`` sockets of the address in all."""
    deadline = time.monotonic() + within
    while sum(sockets.open.values()) != left:
        assert time.monotonic() < deadline, dict(sockets.open)
        time.sleep(0.01)


def me(user: As) -> Any:
    user.client.cookies.clear()
    return user.client.websocket_connect("/ws/me", headers=user.headers(None))


def game(user: As, game_id: int) -> Any:
    user.client.cookies.clear()
    return user.client.websocket_connect(f"/ws/games/{game_id}", headers=user.headers(None))


def refusal(connect: Any) -> tuple[int, str]:
    with pytest.raises(WebSocketDisconnect) as refused:
        with connect() as ws:
            ws.receive_json()
    reason = refused.value.reason
    return refused.value.code, "too many open pages" if "open pages" in reason else (
        "too many connections" if "too many connections" in reason else reason)
