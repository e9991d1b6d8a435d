"""`elgrande ratings calibrate`: the computer levels rated in their own pool and stored
where the ranking page reads them; bad arguments refused before any game is played."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from elgrande.cli import main
from elgrande.cli.ratings import lineups, pool_ratings
from elgrande.db.engine import make_engine
from elgrande.server.ratings import display
from elgrande.server.tables import BotRating
from tests.apps import migrated


def test_lineups_cover_every_combination_with_rotated_seats() -> None:
    tables = lineups(["random", "easy", "medium"], 2, 6)
    assert {frozenset(t) for t in tables} == {frozenset(p) for p in
                                              (("random", "easy"), ("random", "medium"),
                                               ("easy", "medium"))}
    assert tables[0] == ("random", "easy") and tables[3] == ("easy", "random")


def test_the_pool_is_rated_like_players_games() -> None:
    found = pool_ratings([(("easy", "random"), (60, 40)), (("random", "easy"), (30, 50))])
    assert found["easy"][0] > 25 > found["random"][0] and found["easy"][2] == 2


def test_calibrate_stores_the_levels_ratings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = migrated(f"sqlite:///{tmp_path / 'c.db'}")
    assert main(["ratings", "calibrate", "--database-url", url, "--levels", "random,easy",
                 "--players", "2", "--games", "2", "--json"]) == 0
    assert '"easy"' in capsys.readouterr().out
    with Session(make_engine(url)) as db:
        rows = {r.level: r for r in db.scalars(select(BotRating))}
    assert set(rows) == {"random", "easy"} and all(r.games == 2 for r in rows.values())
    assert all(r.display == display(r.mu, r.sigma) for r in rows.values())


@pytest.mark.parametrize("args, message", [
    (["--levels", "random,genius"], "unknown level 'genius'"),
    (["--levels", "random"], "2 or more different levels"),
    (["--levels", "random,easy", "--players", "3"], "need as many levels"),
])
def test_bad_arguments_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   args: list[str], message: str) -> None:
    url = migrated(f"sqlite:///{tmp_path / 'c.db'}")
    assert main(["ratings", "calibrate", "--database-url", url, *args]) == 2
    assert message in capsys.readouterr().err


def test_a_database_without_the_schema_is_refused(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    assert main(["ratings", "calibrate", "--database-url", url, "--games", "1"]) == 2
    assert "upgrade" in capsys.readouterr().err.lower()
