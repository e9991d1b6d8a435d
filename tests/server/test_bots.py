"""Computer opponents: they move by themselves, also after a restart, in their own process."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import elgrande.server
from elgrande.matches import Match
from elgrande.rules import GameConfig, legal_actions, to_act
from elgrande.server.bots import BOT_LEVELS, LEVEL_NAMES, level_name, think
from elgrande.server.i18n import using
from elgrande.server.lobby import SeatSpec
from elgrande.server.settings import Settings
from tests.apps import app_for

from .conftest import As

pytestmark = pytest.mark.timeout(120)


def test_levels_come_from_the_ai_package() -> None:
    assert BOT_LEVELS[0] == "random" and {"easy", "medium", "hard"} <= set(BOT_LEVELS)


def test_every_level_has_a_shown_name_on_pages_and_in_the_game_script() -> None:
    assert set(LEVEL_NAMES) == set(BOT_LEVELS)
    script = (Path(elgrande.server.__file__).parent / "static/js/game.js").read_text()
    names = re.search(r"const LEVEL_NAMES = \{(.*?)\};", script)
    assert names is not None, "game.js no longer has LEVEL_NAMES"
    assert dict(re.findall(r'(\w+): t\("(\w+)"\)', names.group(1))) == LEVEL_NAMES


def test_a_level_name_is_translated_and_an_unknown_one_shown_as_it_is() -> None:
    with using("de"):
        assert level_name("hard") == "schwer" and level_name(None) == "zufällig"
        assert level_name("someday") == "someday"


def test_a_bot_turn_is_legal_and_stops_at_its_boundary() -> None:
    match = Match.new(GameConfig(players=3, start_player=1), seed="ab" * 32)
    steps = think(match.state.to_dict(), 1, "easy", 7)
    assert len(steps) == 1 and steps[0].startswith("p1 bid ")
    assert steps[0] in [str(a) for a in legal_actions(match.state, 1)]
    assert think(match.state.to_dict(), 1, "easy", 7) == steps  # seeded: the same again


def test_bots_due_when_the_server_stopped_move_when_it_starts(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'restart.db'}", secret_key="k" * 32, bot_delay=0.0)
    app: Any = app_for(settings)
    svc = app.state.services
    user = svc.accounts.register("anna", "long enough")
    # Without the app running, nothing moves the bots: find a game where a bot starts.
    for _ in range(20):
        game = svc.lobby.create(user, 2, 9, [SeatSpec("me"), SeatSpec("bot", bot_level="random")])
        svc.lobby.start(game.id, user)
        match = svc.store.load(svc.lobby.get(game.id).match_id)
        if to_act(match.state) == [1]:
            break
    else:
        pytest.fail("the bot never started")
    cookie = svc.signer.session_cookie(user.id)
    with TestClient(app) as client:  # starting the app
        anna = As(client, cookie)
        with anna.ws(game.id) as ws:
            state = ws.receive_json()["state"]
            while state["to_act"] != [0]:
                state = ws.receive_json()["state"]
        assert state["players"][1]["bid"] is not None and state["legal"]


def test_bots_think_in_another_process(tmp_path: Path) -> None:
    import os

    app: Any = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'p.db'}", secret_key="k" * 32))
    runner = app.state.services.bots
    try:
        assert runner._processes.submit(os.getpid).result(timeout=60) != os.getpid()
    finally:
        runner._processes.shutdown(wait=True)
