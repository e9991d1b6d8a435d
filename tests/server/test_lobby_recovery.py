"""Crashes between two transactions of the lobby (issue 11, items 14 and 15): a game
whose match ended but which is still "active", and a start cut short (game "starting",
its match created or not). The states are made by hand, as a crash leaves them; the app
started on them repairs them."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from elgrande.matches import Match
from elgrande.matches.tables import MatchRow
from elgrande.rules import GameConfig, is_terminal
from elgrande.server.errors import LobbyError
from elgrande.server.lobby import SeatSpec
from elgrande.server.settings import Settings
from elgrande.server.tables import Game
from tests.apps import app_for
from tests.matches.match_helpers import play_until


@cache
def _finished() -> Match:
    return play_until(Match.new(GameConfig(players=2, rounds=6), seed="crash"),
                      random.Random(3), is_terminal)


def settings(tmp_path: Path) -> Settings:
    return Settings(database_url=f"sqlite:///{tmp_path / 'crash.db'}", secret_key="k" * 32,
                    bot_delay=0.0)


def set_game(svc: Any, game_id: int, **values: Any) -> None:
    with svc.sessions.begin() as db:
        game = db.get(Game, game_id)
        for name, value in values.items():
            setattr(game, name, value)


def game_row(svc: Any, game_id: int) -> Game:
    with svc.sessions() as db:
        game = db.get(Game, game_id)
        assert game is not None
        return game


def ended_but_active(svc: Any) -> tuple[int, Any]:
    """A game whose match is over while the game still says "active": the crash fell
    between the match's last commit and the game's update."""
    anna, bert = svc.accounts.guest(), svc.accounts.guest()
    game = svc.lobby.create(anna, 2, 6, [SeatSpec("me"), SeatSpec("open")])
    svc.lobby.join(game.id, bert)
    finished = svc.store.add(_finished())
    set_game(svc, game.id, match_id=finished, status="active")
    return game.id, anna


def test_an_ended_game_left_active_is_finished_when_the_app_starts(tmp_path: Path) -> None:
    game_id, _ = ended_but_active(app_for(settings(tmp_path)).state.services)
    app = app_for(settings(tmp_path))  # the restart
    with TestClient(app) as client:
        assert game_row(app.state.services, game_id).status == "finished"
        record = client.get(f"/api/games/{game_id}/record")
        assert record.status_code == 200 and record.json()["seed"]
        assert client.get(f"/api/games/{game_id}/replay/1").status_code == 200


def test_an_ended_game_left_active_is_finished_when_it_is_read(tmp_path: Path) -> None:
    app = app_for(settings(tmp_path))
    with TestClient(app) as client:
        # Another process crashed: this one was running all along.
        game_id, _ = ended_but_active(app.state.services)
        assert client.get(f"/api/games/{game_id}/record").status_code == 200
        assert game_row(app.state.services, game_id).status == "finished"



def test_an_ended_game_left_active_is_neither_running_nor_held(tmp_path: Path) -> None:
    capped = settings(tmp_path).model_copy(update={"active_games_per_user": 1})
    svc = app_for(capped).state.services
    game_id, anna = ended_but_active(svc)
    assert [g["game"].status for g in svc.lobby.my_games(anna)] == ["finished"]
    assert game_row(svc, game_id).status == "finished"
    set_game(svc, game_id, status="active")  # the crash again: the caps look at the match
    svc.lobby.create(anna, 2, 6, [SeatSpec("me"), SeatSpec("bot")], start_now=True)

def stuck_start(svc: Any, *, match_created: bool) -> tuple[int, Any]:
    """A game left "starting" by a crash during its start, its match created or not."""
    anna = svc.accounts.guest()
    game = svc.lobby.create(anna, 2, 6, [SeatSpec("me"), SeatSpec("bot", bot_level="random")])
    set_game(svc, game.id, status="starting")
    if match_created:
        svc.store.add(Match.new(GameConfig(players=2, rounds=6), match_id=svc.lobby.match_id_for(game)))
    return game.id, anna


def match_count(svc: Any) -> int:
    with svc.sessions() as db:
        return int(db.scalar(select(func.count(MatchRow.id))) or 0)


def test_a_start_cut_short_is_finished_when_the_app_starts(tmp_path: Path) -> None:
    for match_created in (False, True):
        path = tmp_path / str(match_created)
        path.mkdir()
        game_id, _ = stuck_start(app_for(settings(path)).state.services,
                                 match_created=match_created)
        app = app_for(settings(path))
        svc = app.state.services
        with TestClient(app) as client:
            game = game_row(svc, game_id)
            assert game.status == "active" and game.match_id == svc.lobby.match_id_for(game)
            assert match_count(svc) == 1, "the match made before the crash is the game's"
            assert client.get(f"/api/games/{game_id}").json()["seq"] >= 0


def test_start_again_finishes_a_start_cut_short(tmp_path: Path) -> None:
    svc = app_for(settings(tmp_path)).state.services
    for match_created in (False, True):
        game_id, anna = stuck_start(svc, match_created=match_created)
        match_id = svc.lobby.start(game_id, anna)
        game = game_row(svc, game_id)
        assert game.status == "active" and game.match_id == match_id == svc.lobby.match_id_for(game)
    assert match_count(svc) == 2, "the match made before the crash is the game's"
    with pytest.raises(LobbyError, match="already started"):
        svc.lobby.start(game_id, anna)


def test_the_creator_finishes_a_start_cut_short_from_the_room(tmp_path: Path) -> None:
    from .conftest import create_game, register

    app = app_for(settings(tmp_path))
    with TestClient(app, follow_redirects=False) as client:
        anna = register(client, "anna")
        game_id = create_game(anna, ["me", "bot"])
        set_game(app.state.services, game_id, status="starting")
        assert 'id="room-starting"' in anna.get(f"/games/{game_id}").text
        started = anna.post(f"/games/{game_id}/start", data={"csrf_token": anna.csrf()})
        assert started.status_code == 303
        assert game_row(app.state.services, game_id).status == "active"
        assert 'id="map"' in anna.get(f"/games/{game_id}").text
