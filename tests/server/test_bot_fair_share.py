"""The bot workers are shared fairly between users: one user's many bot games do not
make another user's bot wait until they are all through (issue 11, item 3)."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import pytest

from elgrande.server.bot_runner import BotRunner, FairShare, LocalBotGate
from elgrande.server.play import BotTurn

pytestmark = pytest.mark.timeout(30)

GREEDY, OTHER = 1, 2  # user ids
GREEDY_GAMES = 20


class Games:
    """Lobby and play of fake games: game 100 is OTHER's, the rest GREEDY's; each has one
    bot turn to play."""

    def __init__(self) -> None:
        self.todo = set(range(GREEDY_GAMES)) | {100}
        self.played: list[int] = []
        self.done = threading.Event()
        self.lock = threading.Lock()

    def get(self, game_id: int) -> Any:
        return SimpleNamespace(id=game_id, match_id=f"m{game_id}")

    def bot_work(self, game_id: int) -> list[BotTurn]:
        with self.lock:
            if game_id not in self.todo:
                return []
        user = OTHER if game_id == 100 else GREEDY
        return [BotTurn(1, "easy", {"game": game_id}, 5, 0, user)]

    def play_bot_steps(self, game_id: int, seat: int, steps: list[str], seq: int) -> bool:
        with self.lock:
            self.todo.discard(game_id)
            self.played.append(game_id)
            if not self.todo:
                self.done.set()
        return True


def slow_think(state: dict[str, Any], seat: int, level: str, seed: int) -> list[str]:
    time.sleep(0.02)  # long enough that the greedy user's queue builds up
    return ["p1 pass"]


def run_games(per_user: int) -> list[int]:
    """Kicks the greedy user's games first and the other user's one last; the order in
    which their bots moved."""
    games = Games()
    runner = BotRunner(games, games, LocalBotGate(), 0.0, processes=2,  # type: ignore[arg-type]
                       per_user=per_user, think_fn=slow_think,
                       executor=ThreadPoolExecutor(max_workers=2))

    async def main() -> None:
        runner.loop = asyncio.get_running_loop()
        for game_id in [*range(GREEDY_GAMES), 100]:
            runner.kick(game_id)
        await asyncio.to_thread(games.done.wait, 20)
        await runner.close()

    asyncio.run(main())
    assert len(games.played) == GREEDY_GAMES + 1
    # Every move's wait for a worker is measured (the metrics' elgrande_bot_wait_seconds).
    waits = runner.metrics.registry.get_sample_value("elgrande_bot_wait_seconds_count")
    assert waits == GREEDY_GAMES + 1
    return games.played


def test_another_users_bot_moves_before_the_greedy_users_queue_is_through() -> None:
    played = run_games(per_user=1)
    assert played.index(100) <= 3, played


def test_fair_share_grants_round_robin_and_forgets_cancelled_waits() -> None:
    async def main() -> None:
        share = FairShare(slots=1, per_user=1)
        await share.acquire(GREEDY)
        waits = [asyncio.ensure_future(share.acquire(u)) for u in (GREEDY, GREEDY, OTHER)]
        await asyncio.sleep(0)
        waits[1].cancel()
        share.release(GREEDY)
        await asyncio.sleep(0)
        assert waits[0].done() and not waits[2].done()  # GREEDY asked first
        share.release(GREEDY)
        await asyncio.sleep(0)
        assert waits[2].done(), "OTHER's turn; GREEDY's cancelled wait is gone"
        share.release(OTHER)
        assert share.free == 1 and not share.waiting and not share.busy

    asyncio.run(main())
