"""Clock tests: the server's parts built from one ``Settings`` with an injected clock,
without starting them (no bot runner, no keeper thread), so each test decides when
commits are settled, deadlines looked at and computers play."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from elgrande.server.app import Services, build_services
from elgrande.server.bots import think
from elgrande.server.clocks import table_clock
from elgrande.server.lobby import SeatSpec
from elgrande.server.settings import Settings
from elgrande.server.tables import Game, User
from tests.apps import migrated
from tests.fakeclock import FakeClock
from tests.pg_server import postgres_server, postgres_url  # noqa: F401  (fixtures)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def services_for(url: str, clock: Callable[[], datetime], **settings: Any) -> Services:
    return build_services(Settings(database_url=migrated(url), secret_key="k" * 32,
                                   bot_delay=0.0, **settings), clock)


@pytest.fixture
def svc(tmp_path: Path, clock: FakeClock) -> Iterator[Services]:
    built = services_for(f"sqlite:///{tmp_path / 'clocks.db'}", clock)
    yield built
    built.accounts.close()
    built.engine.dispose()


@dataclass
class Table:
    game: Game
    players: list[User]  # by seat
    match_id: str


def clocked_game(svc: Services, pace: str = "daily-1", humans: int = 2, bots: int = 0,
                 **options: Any) -> Table:
    """A started game of ``humans`` guests (seat order) and ``bots`` computers."""
    users = [svc.accounts.guest() for _ in range(humans)]
    seats = [SeatSpec("me")] + [SeatSpec("open")] * (humans - 1) + [
        SeatSpec("bot", bot_level="random")] * bots
    rules = table_clock(pace, stand_in=options.pop("stand_in", "random"), **options)
    game = svc.lobby.create(users[0], humans + bots, 6, seats, clock=rules)
    for user in users[1:]:
        svc.lobby.join(game.id, user)
    match_id = svc.lobby.start(game.id, users[0])
    svc.clocks.settle_pending()
    svc.clocks.settle(game.id)
    started = svc.lobby.get(game.id)
    assert started is not None
    return Table(started, users, match_id)


def to_act(svc: Services, table: Table) -> list[int]:
    return list(svc.store.view(table.match_id, None).to_act)


def play_turn(svc: Services, table: Table, seat: int) -> None:
    """The seat's whole turn (random legal steps) committed as a player's would be."""
    match = svc.store.load(table.match_id)
    steps = think(match.redacted_state(seat).to_dict(), seat, "random", match.seq)
    svc.store.play_turn(table.match_id, seat, steps, base_seq=match.seq)
    svc.clocks.settle_pending()


def seat_clock(svc: Services, table: Table, seat: int) -> dict[str, Any]:
    public = svc.clocks.public(table.game.id)
    assert public is not None
    return next(s for s in public["seats"] if s["seat"] == seat)
