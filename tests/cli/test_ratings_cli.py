"""`elgrande ratings calibrate`: the computer levels rated in their own pool and stored
where the ranking page reads them; bad arguments refused before any game is played."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from elgrande.cli import main
from elgrande.cli.ratings import lineups, pool_ratings
from elgrande.db.engine import make_engine
from elgrande.server.ratings import anchor_offset, anchor_results, display
from elgrande.server.tables import BotRating, Game, GameResult, PlayerRating, User
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


# -- the pool anchored on players' results against computers

def test_the_anchor_shifts_the_pool_towards_the_players_results() -> None:
    pool = {"easy": (25.0, 2.0, 40), "medium": (28.0, 2.0, 40)}
    strong, weak = (35.0, 1.5), (15.0, 1.5)
    # A strong player (35) loses to "easy" again and again: easy is above 25 among players.
    games: list[list[tuple[str | int, int]]] = [[(1, 2), ("easy", 1)] for _ in range(20)]
    shift, used = anchor_offset(pool, games, {1: strong, 2: weak})
    assert used == 20 and shift > 5
    # A weak player (15) beats "medium" every time: the levels go down.
    shift, _ = anchor_offset(pool, [[(2, 1), ("medium", 2)] for _ in range(20)], {1: strong, 2: weak})
    assert shift < -5
    assert anchor_offset(pool, [], {}) == (0.0, 0)


def _finished_game(db: Session, seats: list[tuple[str, int | str, int]]) -> None:
    """A finished game's results: per seat (kind, user id or level, place)."""
    creator = next(who for kind, who, _ in seats if kind != "bot")
    game = Game(invite_token=f"t{random.random()}", creator_id=creator, players=len(seats),
                rounds=6, status="finished")
    db.add(game)
    db.flush()
    for seat, (kind, who, place) in enumerate(seats):
        db.add(GameResult(game_id=game.id, seat=seat, kind=kind,
                          user_id=who if isinstance(who, int) else None,
                          bot_level=who if isinstance(who, str) else None, place=place,
                          score=50 - place, margin=0, won=place == 1, players=len(seats)))


def test_anchor_results_keep_only_games_that_place_every_seat(tmp_path: Path) -> None:
    url = migrated(f"sqlite:///{tmp_path / 'a.db'}")
    with Session(make_engine(url)) as db, db.begin():
        for index, name in enumerate(["rita", "ravi", "gus"]):
            db.add(User(id=index + 1, name=name, name_key=name, name_skeleton=name,
                        password_hash=None if name == "gus" else "x", is_guest=name == "gus"))
        db.flush()
        for user_id in (1, 2):  # gus, a guest, has no rating
            db.add(PlayerRating(user_id=user_id, mu=30.0, sigma=2.0, display=0, rated_games=3))
        _finished_game(db, [("human", 1, 1), ("bot", "easy", 2)])      # kept
        _finished_game(db, [("human", 2, 2), ("bot", "easy", 1), ("bot", "medium", 3)])  # kept
        _finished_game(db, [("human", 3, 1), ("bot", "easy", 2)])      # a guest
        _finished_game(db, [("resigned", 1, 2), ("bot", "easy", 1)])   # resigned
        _finished_game(db, [("human", 1, 1), ("human", 2, 2)])         # no computer
        _finished_game(db, [("human", 1, 1), ("bot", "hard", 2)])      # another level
    sessions = sessionmaker(make_engine(url))
    found = anchor_results(sessions, ["easy", "medium"])
    assert found == [[(1, 1), ("easy", 2)], [(2, 2), ("easy", 1), ("medium", 3)]]
    assert len(anchor_results(sessions, ["easy", "medium"], limit=1)) == 1


def test_calibrate_reports_its_anchor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = migrated(f"sqlite:///{tmp_path / 'c.db'}")
    assert main(["ratings", "calibrate", "--database-url", url, "--levels", "random,easy",
                 "--players", "2", "--games", "2"]) == 0
    assert "not anchored: no finished games" in capsys.readouterr().out
    with Session(make_engine(url)) as db, db.begin():
        db.add(User(id=1, name="rita", name_key="rita", name_skeleton="rita", password_hash="x"))
        db.flush()
        db.add(PlayerRating(user_id=1, mu=40.0, sigma=1.0, display=0, rated_games=30))
        for _ in range(10):  # a strong player keeps losing to "random": the pool goes up
            _finished_game(db, [("human", 1, 2), ("bot", "random", 1)])
    assert main(["ratings", "calibrate", "--database-url", url, "--levels", "random,easy",
                 "--players", "2", "--games", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["anchor"]["games"] == 10 and report["anchor"]["shift_mu"] > 3
    with Session(make_engine(url)) as db:
        random_level = db.get(BotRating, "random")
    assert random_level is not None
    assert random_level.mu == pytest.approx(report["levels"]["random"]["mu"])
