"""Where a game's commands run (server/threads.py, ``ELGRANDE_GAME_WORK``): on an SQLite
file served by one process, on the event loop itself while no thread writes to the
database (holding its write lock for the whole command); in a worker thread of the
games' pool when a thread holds the lock, and always with ``game_work=threads``."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from elgrande.db.engine import make_engine, write_lock, writer
from elgrande.server.settings import Settings
from tests.apps import app_for

from .conftest import As, create_game, join_game, register, services, start_game
from .test_ws import answer, roles

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Any]:
    made = make_engine(f"sqlite:///{tmp_path / 'lock.db'}")
    with made.begin() as conn:
        conn.execute(text("CREATE TABLE t (x INTEGER)"))
    yield made
    made.dispose()


def _insert(engine: Any, x: int) -> None:
    with writer(engine).begin() as conn:
        conn.execute(text("INSERT INTO t VALUES (:x)"), {"x": x})


def test_a_call_holding_the_write_lock_writes_without_taking_it_again(engine: Any) -> None:
    lock = write_lock(engine)
    assert lock is not None and write_lock(writer(engine)) is lock
    with lock.try_hold() as held:
        assert held and lock.lock.locked()
        _insert(engine, 1)  # would wait for ever (30 s) if it took the lock again
        _insert(engine, 2)
        assert lock.lock.locked()  # a transaction's end does not give the hold away
        with lock.try_hold() as again:
            assert not again  # (nested: the outer hold goes on)
    assert not lock.lock.locked()
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM t")).scalar_one() == 2


def test_no_hold_while_a_thread_is_writing(engine: Any) -> None:
    lock = write_lock(engine)
    assert lock is not None
    writing, done = threading.Event(), threading.Event()

    def slow_writer() -> None:
        with writer(engine).begin() as conn:
            conn.execute(text("INSERT INTO t VALUES (1)"))
            writing.set()
            done.wait(10)

    thread = threading.Thread(target=slow_writer)
    thread.start()
    assert writing.wait(10)
    with lock.try_hold() as held:
        assert not held  # the loop never waits: the command goes to a thread
    done.set()
    thread.join(10)
    with lock.try_hold() as held:
        assert held


def test_an_engine_not_made_by_make_engine_has_no_lock() -> None:
    from sqlalchemy import create_engine
    assert write_lock(create_engine("sqlite://")) is None  # (PostgreSQL's have none either)


def _game(tmp_path: Path, work: str) -> tuple[TestClient, Any]:
    app = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'test.db'}",
                           secret_key="k" * 32, bot_delay=0.0, game_work=work))
    return TestClient(app, follow_redirects=False), app


def _three_players(client: TestClient) -> tuple[int, tuple[As, ...]]:
    players = tuple(register(client, name) for name in ("anna", "bert", "carl"))
    game_id = create_game(players[0], ["me", "open", "open"])
    for player in players[1:]:
        join_game(player, game_id)
    start_game(players[0], game_id)
    return game_id, players


class _Spy:
    """Records the thread each of the app's ``Play.act`` calls runs on."""

    def __init__(self, svc: Any) -> None:
        self.threads: list[int] = []
        self.entered = threading.Event()
        act = svc.play.act

        def spied(*args: Any, **kwargs: Any) -> Any:
            self.threads.append(threading.get_ident())
            self.entered.set()
            return act(*args, **kwargs)

        svc.play.act = spied


@pytest.mark.parametrize("work", ["auto", "threads"])
def test_a_command_runs_on_the_event_loop_only_with_auto(tmp_path: Path, work: str) -> None:
    client, app = _game(tmp_path, work)
    with client:
        game_id, players = _three_players(client)
        mover, seat, other, _ = roles(game_id, players)
        svc = services(client)
        spy = _Spy(svc)
        loop_thread = client.portal.call(threading.get_ident)
        with mover.ws(game_id) as mine, other.ws(game_id) as theirs:
            seq = mine.receive_json()["state"]["seq"]
            theirs.receive_json()
            answer(mine, {"type": "step", "action": f"p{seat} bid 9", "seq": seq}, 1)
            assert answer(mine, {"type": "finish", "seq": seq}, 2)["seq"] == seq + 1
            seen = theirs.receive_json()["state"]
            assert seen["seq"] == seq + 1 and seen["players"][seat]["bid"] == 9
        assert len(spy.threads) == 2
        on_loop = [ident == loop_thread for ident in spy.threads]
        assert on_loop == ([True, True] if work == "auto" else [False, False])


def test_a_command_goes_to_a_thread_while_another_writes(tmp_path: Path) -> None:
    client, app = _game(tmp_path, "auto")
    with client:
        game_id, players = _three_players(client)
        mover, seat, other, _ = roles(game_id, players)
        svc = services(client)
        lock = write_lock(svc.engine)
        assert lock is not None
        spy = _Spy(svc)
        loop_thread = client.portal.call(threading.get_ident)
        with mover.ws(game_id) as mine, other.ws(game_id) as theirs:
            seq = mine.receive_json()["state"]["seq"]
            theirs.receive_json()
            lock.lock.acquire()  # as a thread does for its write transaction
            try:
                mine.send_json({"type": "step", "action": f"p{seat} bid 9", "seq": seq,
                                "id": 1})
                assert spy.entered.wait(10)  # the command is under way, in a thread...
            finally:
                lock.lock.release()  # ... and goes on once the writer is done
            reply = mine.receive_json()
            assert reply["ack"] == 1 and reply["state"]["draft"]["steps"] == [f"p{seat} bid 9"]
            # Nothing holds the lock now: the next command is on the loop again.
            assert answer(mine, {"type": "finish", "seq": seq}, 2)["seq"] == seq + 1
            assert theirs.receive_json()["state"]["seq"] == seq + 1
        assert [ident == loop_thread for ident in spy.threads] == [False, True]
