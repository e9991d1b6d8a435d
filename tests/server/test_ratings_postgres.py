"""Ratings on PostgreSQL when games finish at the same moment: two games with a player in
common each update that player once (neither update is lost), and one game whose finish
two server processes see at once is recorded and rated once."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import func, select, update

from elgrande.server.ratings import placements
from elgrande.server.settings import Settings
from elgrande.server.tables import Game, GameOutcome, GameResult, PlayerRating, RatingHistory
from tests.apps import app_for
from tests.pg_server import postgres_server, postgres_url  # noqa: F401  (fixtures)

from .helpers import advance
from .test_ratings import player, table

pytestmark = pytest.mark.timeout(180)
ROUNDS = 3  # races per test: one may miss the window, not all


def services_on(url: str) -> Any:
    return app_for(Settings(database_url=url, secret_key="k" * 32, bot_delay=0.0)).state.services


@pytest.fixture
def two(postgres_url: str) -> Iterator[tuple[Any, Any]]:  # noqa: F811
    """Two server processes' services on one database."""
    first, second = services_on(postgres_url), services_on(postgres_url)
    yield first, second
    for svc in (first, second):
        svc.accounts.close()
        svc.engine.dispose()


def at_once(*calls: Callable[[], Any]) -> list[Any]:
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        barrier.wait()
        results[index] = calls[index]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def test_two_games_finishing_at_once_update_a_shared_player_twice(two: tuple[Any, Any]) -> None:
    first, second = two
    model = PlackettLuce()
    for round_ in range(ROUNDS):
        shared = player(first, f"shared{round_}")
        others = [player(first, f"other{round_}x{i}") for i in range(2)]
        games = [table(first, [shared, others[0]]), table(first, [others[1], shared])]
        matches = [advance(first, g.id, lambda m: m.over, seed=round_ * 2 + i)
                   for i, g in enumerate(games)]
        # Each game's finish is heard by a different process, at the same moment.
        at_once(partial(first.lobby.mark_finished, games[0].match_id),
                partial(second.lobby.mark_finished, games[1].match_id))
        with first.sessions() as db:
            row = db.get(PlayerRating, shared.id)
            history = db.scalar(select(func.count()).select_from(RatingHistory)
                                .where(RatingHistory.user_id == shared.id))
            assert row is not None and row.rated_games == 2 and history == 2
            assert db.scalar(select(func.count()).select_from(GameOutcome).where(
                GameOutcome.game_id.in_([g.id for g in games]))) == 2
        # Whichever went first, the second built on the first's result: the shared
        # player's rating is one of the two orders' (a lost update would be neither).
        p0 = placements(list(matches[0].state.scores), set())
        p1 = placements(list(matches[1].state.scores), set())

        def game0(s: Any, p0: list[int] = p0) -> Any:
            return model.rate([[s], [model.rating()]], ranks=[float(p) for p in p0])[0][0]

        def game1(s: Any, p1: list[int] = p1) -> Any:
            return model.rate([[model.rating()], [s]], ranks=[float(p) for p in p1])[1][0]

        orders = [game1(game0(model.rating())).mu, game0(game1(model.rating())).mu]
        assert any(row.mu == pytest.approx(mu) for mu in orders), (row.mu, orders)


def test_one_finish_seen_by_two_processes_is_recorded_once(two: tuple[Any, Any]) -> None:
    first, second = two
    for round_ in range(ROUNDS):
        anna, bert = player(first, f"anna{round_}"), player(first, f"bert{round_}")
        game = table(first, [anna, bert])
        advance(first, game.id, lambda m: m.over, seed=round_)
        with first.sessions.begin() as db:  # finished; both processes record it at once
            db.execute(update(Game).where(Game.id == game.id).values(status="finished"))
        done = at_once(partial(first.ratings.record, game.id),
                       partial(second.ratings.record, game.id),
                       partial(second.ratings.record, game.id))
        assert sorted(done) == [False, False, True]
        with first.sessions() as db:
            assert [r.rated_games for r in db.scalars(select(PlayerRating).where(
                PlayerRating.user_id.in_([anna.id, bert.id])))] == [1, 1]
            assert db.scalar(select(func.count()).select_from(GameResult).where(
                GameResult.game_id == game.id)) == 2
