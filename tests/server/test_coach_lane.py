"""The coach's low-priority lane of the bot workers (server/bot_runner.py FairShare): a
review's piece of work waits while any bot move that could run waits, and never holds
more than half the workers."""

from __future__ import annotations

import asyncio

import pytest

from elgrande.server.bot_runner import FairShare

pytestmark = pytest.mark.timeout(30)


def test_reviews_go_behind_every_game_move() -> None:
    async def scenario() -> None:
        share = FairShare(slots=1, per_user=2)
        await share.acquire(1)  # a bot move thinks
        low = asyncio.ensure_future(share.acquire_low())
        await asyncio.sleep(0)
        move = asyncio.ensure_future(share.acquire(2))  # another move comes in after it
        await asyncio.sleep(0)
        assert not low.done() and not move.done()
        share.release(1)
        await asyncio.sleep(0.01)
        assert move.done() and not low.done()  # the later move overtook the review
        share.release(2)
        await asyncio.sleep(0.01)
        assert low.done() and share.low_busy == 1 and share.free == 0
        share.release_low()
        assert share.free == 1 and share.low_busy == 0

    asyncio.run(scenario())


def test_reviews_take_at_most_half_the_workers() -> None:
    async def scenario() -> None:
        share = FairShare(slots=4, per_user=2)
        for _ in range(2):
            await share.acquire_low()
        third = asyncio.ensure_future(share.acquire_low())
        await asyncio.sleep(0)
        assert not third.done() and share.free == 2 and share.low_busy == 2
        await share.acquire(1)  # game moves still find workers at once
        await share.acquire(2)
        assert share.free == 0
        third.cancel()
        await asyncio.sleep(0)
        assert not share.low_waiting
        share.release_low()
        assert share.free == 1 and share.low_busy == 1

    asyncio.run(scenario())
