"""A server that dies in the middle of a computer's turn leaves its steps as a draft:
after the restart the bot still moves (its unfinished turn is dropped and played
again), instead of waiting for good (issue 11, item 13)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from elgrande.rules import to_act
from elgrande.server.lobby import SeatSpec
from elgrande.server.settings import Settings
from tests.apps import app_for

pytestmark = pytest.mark.timeout(60)


def test_a_bot_turn_left_half_done_by_a_crash_is_played_after_the_restart(
        tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'crash.db'}", secret_key="k" * 32,
                        bot_delay=0.0, bot_processes=1)
    app: Any = app_for(settings)  # not started: nothing moves the bots yet
    svc = app.state.services
    user = svc.accounts.register("anna", "long enough")
    for _ in range(30):  # a game where the bot acts first
        game = svc.lobby.create(user, 2, 6, [SeatSpec("me"), SeatSpec("bot", bot_level="random")])
        svc.lobby.start(game.id, user)
        match_id = svc.lobby.get(game.id).match_id
        match = svc.store.load(match_id)
        if to_act(match.state) == [1]:
            break
    else:
        pytest.fail("the bot never started")
    # What a crash between the bot's steps and its finish leaves behind.
    svc.store.step(match_id, 1, svc.store.view(match_id, 1).legal[0])
    assert svc.store.load(match_id).drafts[1].steps
    seq = match.seq

    with TestClient(app):  # the restart: due bots are kicked at start
        deadline = time.monotonic() + 20
        while svc.store.load(match_id).seq == seq:
            assert time.monotonic() < deadline, "the bot never moved after the restart"
            time.sleep(0.05)
    after = svc.store.load(match_id)
    assert after.log[seq].seat == 1 and 1 not in after.drafts
    assert to_act(after.state) == [0]
