"""Bot-move leases on SQLite and PostgreSQL: one winner among racing processes, renewal,
take-over after expiry, and the sweeper finding abandoned bot moves."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import inspect, update
from sqlalchemy.orm import Session

from elgrande.db.engine import make_engine, writer
from elgrande.matches import MatchStore
from elgrande.matches.tables import MatchRow
from elgrande.migrations import heads
from elgrande.rules import GameConfig
from elgrande.scale.leases import BotLeases, utcnow
from elgrande.server.bot_sweeper import BotSweeper
from elgrande.server.tables import Game, Seat, User
from tests.apps import migrated


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MatchStore]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'leases.db'}"
    else:
        url = str(request.getfixturevalue("postgres_url"))
    store = MatchStore(migrated(url))
    yield store
    store.close()


def test_the_migration_creates_the_lease_table(store: MatchStore) -> None:
    assert len(heads()) == 1, "0003_bot_leases continues the one chain of revisions"
    columns = {c["name"] for c in inspect(store.engine).get_columns("bot_leases")}
    assert columns == {"match_id", "seat", "owner", "expires_at"}


def test_only_one_process_gets_the_lease(store: MatchStore) -> None:
    match_id = store.create(GameConfig(players=3))
    processes = [BotLeases(store.engine, ttl=30) for _ in range(6)]
    results: list[bool] = []
    barrier = threading.Barrier(len(processes))

    def race(leases: BotLeases) -> None:
        barrier.wait()
        results.append(leases.take(match_id, 1))

    threads = [threading.Thread(target=race, args=(p,)) for p in processes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False] * 5 + [True]
    winner = next(p for p in processes if (match_id, 1) in p.held())
    assert winner.owner_of(match_id, 1) == winner.owner
    assert winner.take(match_id, 1), "taking one's own lease again succeeds"
    assert winner.take(match_id, 2), "another seat is another lease"
    winner.release(match_id, 1)
    loser = next(p for p in processes if p is not winner)
    assert loser.take(match_id, 1), "a released lease is free"


def test_renewal_keeps_and_expiry_frees_a_lease(store: MatchStore) -> None:
    match_id = store.create(GameConfig(players=2))
    alive = BotLeases(store.engine, ttl=0.6)
    other = BotLeases(store.engine, ttl=0.6)
    assert alive.take(match_id, 0)
    alive.start()  # renews every ttl/3
    try:
        time.sleep(1.0)
        assert not other.take(match_id, 0), "a renewed lease stays with its owner"
    finally:
        alive.stop(release=False)  # the process "dies": no release, no renewal
    deadline = time.monotonic() + 3
    while not other.take(match_id, 0):
        assert time.monotonic() < deadline, "an expired lease must be taken over"
        time.sleep(0.05)
    assert not alive.renew(match_id, 0), "the old owner learns it lost the lease"
    assert (match_id, 0) not in alive.held()


def test_sweeper_hands_over_abandoned_bot_games(store: MatchStore) -> None:
    engine = store.engine
    match_id = store.create(GameConfig(players=2))
    human_id = store.create(GameConfig(players=2))
    with Session(writer(engine)) as db, db.begin():
        user = User(name="sweeper", name_key="sweeper", name_skeleton="sweeper", is_guest=True)
        db.add(user)
        db.flush()
        ids = []
        for index, (mid, second) in enumerate(((match_id, "bot"), (human_id, "human"))):
            game = Game(invite_token=f"t{index}", creator_id=user.id, players=2, rounds=6,
                        status="active", match_id=mid)
            db.add(game)
            db.flush()
            db.add(Seat(game_id=game.id, seat=0, kind="human", user_id=user.id))
            db.add(Seat(game_id=game.id, seat=1, kind=second))
            ids.append(game.id)
        db.execute(update(MatchRow).values(updated_at=utcnow() - timedelta(seconds=60)))
    kicked: list[int] = []
    sweeper = BotSweeper(engine, kicked.append, stale=5)
    leases = BotLeases(engine, ttl=30)
    assert leases.take(match_id, 1)
    assert sweeper.sweep() == [], "a live lease means someone is on it"
    leases.release(match_id, 1)
    assert sweeper.sweep() == [ids[0]], "only the game with a computer seat"
    assert sweeper.sweep() == [], "handed over once per position"
    engine2 = make_engine(str(engine.url))
    assert BotSweeper(engine2, kicked.append, stale=5).sweep() == [ids[0]]
    engine2.dispose()
