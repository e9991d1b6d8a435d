"""Joins and starts at the same moment on PostgreSQL (issue 11): the game row is locked
(SELECT ... FOR UPDATE), so two joins never take one seat and two starts make one match.
(SQLite serialises writers with BEGIN IMMEDIATE already.)"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from sqlalchemy import func, select

from elgrande.matches.tables import MatchRow
from elgrande.server.errors import LobbyError
from elgrande.server.lobby import SeatSpec
from elgrande.server.settings import Settings
from tests.apps import app_for
from tests.pg_server import postgres_server, postgres_url  # noqa: F401  (fixtures)

pytestmark = pytest.mark.timeout(120)
ROUNDS = 8  # races per test: one may miss the window, not all


@pytest.fixture
def svc(postgres_url: str) -> Any:  # noqa: F811
    app = app_for(Settings(database_url=postgres_url, secret_key="k" * 32, bot_delay=0.0))
    services = app.state.services
    yield services
    services.engine.dispose()


def at_once(*calls: Callable[[], Any]) -> list[Any]:
    """Runs the calls in threads released together; each result or LobbyError."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = calls[index]()
        except LobbyError as exc:
            results[index] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def test_two_players_never_take_one_seat(svc: Any) -> None:
    for _ in range(ROUNDS):
        anna, bert, carl = (svc.accounts.guest() for _ in range(3))
        game = svc.lobby.create(anna, 2, 6, [SeatSpec("me"), SeatSpec("open")])
        results = at_once(partial(svc.lobby.join, game.id, bert),
                          partial(svc.lobby.join, game.id, carl))
        assert sorted(isinstance(r, LobbyError) for r in results) == [False, True], results
        seat = svc.lobby.seats(game.id)[1]
        winner = bert if results[0] == 1 else carl
        assert seat["user_id"] == winner.id


def test_one_player_joining_twice_takes_one_seat(svc: Any) -> None:
    for _ in range(ROUNDS):
        anna, bert = svc.accounts.guest(), svc.accounts.guest()
        game = svc.lobby.create(anna, 3, 6, [SeatSpec("me"), SeatSpec("open"), SeatSpec("open")])
        at_once(partial(svc.lobby.join, game.id, bert), partial(svc.lobby.join, game.id, bert))
        assert [s["user_id"] for s in svc.lobby.seats(game.id)].count(bert.id) == 1


def test_two_starts_make_one_match(svc: Any) -> None:
    for _ in range(ROUNDS):
        anna, bert = svc.accounts.guest(), svc.accounts.guest()
        game = svc.lobby.create(anna, 2, 6, [SeatSpec("me"), SeatSpec("open")])
        svc.lobby.join(game.id, bert)
        results = at_once(partial(svc.lobby.start, game.id, anna),
                          partial(svc.lobby.start, game.id, anna))
        started = [r for r in results if isinstance(r, str)]
        assert started and set(started) == {svc.lobby.get(game.id).match_id}, results
    with svc.sessions() as db:
        assert db.scalar(select(func.count(MatchRow.id))) == ROUNDS, "one match per game"
