"""With several processes, a process that restarts takes over its predecessor's bot
leases at once: its bots move right after the restart, not after the dead process's
leases have expired (issue 11, item 16). A real restart: the first process is killed
(SIGKILL: no release, no clean-up) while it holds a bot's lease."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from elgrande.rules import to_act
from elgrande.scale.leases import BotLeases
from elgrande.server.app import create_app
from elgrande.server.lobby import SeatSpec
from elgrande.server.settings import Settings
from tests.apps import app_for
from tests.scale.servers import RedisServer, redis_server  # noqa: F401  (fixture)

pytestmark = pytest.mark.timeout(60)

LEASE_SECONDS = 30.0  # far longer than the test waits for the bot

# The first server process: built like `serve` builds it, it takes the bot's lease (as
# when its bot starts thinking), says so, and waits to be killed.
FIRST_PROCESS = """
import sys, time
from elgrande.server.app import create_app
from elgrande.server.settings import Settings
services = create_app(Settings()).state.services
print("held" if services.bots.gate.take(sys.argv[1], 1) else "refused", flush=True)
time.sleep(60)
"""


def test_a_restarted_process_takes_over_its_own_leases_at_once(
        tmp_path: Path, redis_server: RedisServer) -> None:  # noqa: F811
    env = {"ELGRANDE_DATABASE_URL": f"sqlite:///{tmp_path / 'restart.db'}",
           "ELGRANDE_SECRET_KEY": "k" * 32,
           "ELGRANDE_SECRET_FILE": str(tmp_path / "var" / "elgrande.secret"),
           "ELGRANDE_BOT_DELAY": "0", "ELGRANDE_BOT_PROCESSES": "1",
           "ELGRANDE_BOT_LEASE_SECONDS": str(LEASE_SECONDS)}
    one_process = Settings(**{k.removeprefix("ELGRANDE_").lower(): v for k, v in env.items()})
    setup: Any = app_for(one_process)  # no Redis, no leases: just to set the game up
    svc = setup.state.services
    user = svc.accounts.register("anna", "long enough")
    for _ in range(30):  # a game where the bot acts first
        game = svc.lobby.create(user, 2, 6, [SeatSpec("me"), SeatSpec("bot", bot_level="random")])
        svc.lobby.start(game.id, user)
        match_id = svc.lobby.get(game.id).match_id
        if to_act(svc.store.load(match_id).state) == [1]:
            break
    else:
        pytest.fail("the bot never started")
    seq = svc.store.load(match_id).seq

    env["ELGRANDE_PUBSUB_URL"] = redis_server.url
    first = subprocess.Popen([sys.executable, "-c", FIRST_PROCESS, match_id],
                             env={**os.environ, **env}, stdout=subprocess.PIPE, text=True)
    try:
        assert first.stdout is not None and first.stdout.readline().strip() == "held"
    finally:
        first.kill()  # dies holding the lease
        first.wait()
    settings = one_process.model_copy(update={"pubsub_url": redis_server.url})
    assert BotLeases(svc.engine).owner_of(match_id, 1) is not None, "the dead one's lease"

    restarted: Any = create_app(settings)
    started = time.monotonic()
    with TestClient(restarted):
        while svc.store.load(match_id).seq == seq:
            assert time.monotonic() - started < LEASE_SECONDS / 3, \
                "the restarted process waited for its own old lease to expire"
            time.sleep(0.05)
    assert to_act(svc.store.load(match_id).state) == [0]
