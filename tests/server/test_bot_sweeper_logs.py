"""The background loops of several processes (bot sweeper, lease renewal) stay quiet:
no warning each time a human thinks for a while, and while the database is away one
line when it goes and one when it is back, with back-off instead of a traceback every
second (issue 11); process identities for the leases (item 16)."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from elgrande.scale.leases import Identity, Outage
from elgrande.server.bot_sweeper import BotSweeper

pytestmark = pytest.mark.timeout(30)


def run_for(sweeper: BotSweeper, seconds: float) -> None:
    sweeper.start()
    time.sleep(seconds)  # the loop's own pace: a few rounds
    sweeper.stop()


def test_finding_games_to_look_at_is_no_warning(caplog: pytest.LogCaptureFixture) -> None:
    sweeper = BotSweeper(create_engine("sqlite://"), lambda game_id: None, interval=0.01)
    sweeper.sweep = lambda: [5]  # type: ignore[method-assign]  # a human thinking in game 5
    with caplog.at_level(logging.INFO):
        run_for(sweeper, 0.2)
    assert not caplog.records


def test_a_database_outage_is_logged_once_without_traceback(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    away = create_engine(f"sqlite:///{tmp_path / 'no' / 'such' / 'dir.db'}")
    sweeper = BotSweeper(away, lambda game_id: None, interval=0.01)
    with caplog.at_level(logging.INFO):
        run_for(sweeper, 0.3)
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "unavailable" in warnings[0].getMessage()
    assert warnings[0].exc_info is None


def test_outage_backs_off_and_says_when_the_database_is_back(
        caplog: pytest.LogCaptureFixture) -> None:
    outage = Outage("bot lease renewal", 1.0, longest=8.0)

    def fail() -> None:
        raise ConnectionError("database away")

    with caplog.at_level(logging.INFO):
        pauses = []
        for _ in range(5):
            assert not outage.run(fail)
            pauses.append(outage.pause)
        assert pauses == [2.0, 4.0, 8.0, 8.0, 8.0]
        assert outage.run(lambda: None) and outage.pause == 1.0
        assert outage.run(lambda: None)
    assert [r.getMessage().split(": ", 1)[1][:24] for r in caplog.records] == [
        "the database is unavaila", "the database is back"]


def test_identities_last_across_restarts_and_differ_between_live_processes(
        tmp_path: Path) -> None:
    first, second = Identity(tmp_path), Identity(tmp_path)
    assert first.owner != second.owner, "two live processes never share a name"
    owner = first.owner
    first.close()  # the process ended (the system drops its lock even when killed)
    successor = Identity(tmp_path)
    assert successor.owner == owner, "the next process takes the free name"
    assert Identity(tmp_path, "web-2").owner.endswith(":web-2")
    second.close()
    successor.close()
