"""Two server processes on one PostgreSQL database (two sets of services, each with its
own keeper): a commit is settled once, a deadline hands the seat to a computer once and
one reminder goes out, whichever process looks first, even when both look at once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from elgrande.server.app import Services

from .conftest import FakeClock, clocked_game, play_turn, seat_clock, services_for, to_act


def at_once(*calls: Callable[[], Any]) -> list[Any]:
    """Runs the calls in threads released together; their results in order."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        barrier.wait()
        results[index] = calls[index]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results


def two_processes(url: str, clock: FakeClock) -> tuple[Services, Services]:
    return services_for(url, clock), services_for(url, clock)


def test_one_process_acts_on_each_commit_deadline_and_reminder(postgres_url: str) -> None:
    clock = FakeClock()
    one, two = two_processes(postgres_url, clock)
    try:
        table = clocked_game(one)
        seat = to_act(one, table)[0]
        clock.advance(hours=3)
        play_turn(one, table, seat)  # settled by "one" already
        assert two.clocks.settle(table.game.id) is False
        # A commit both hear: settled once.
        other = 1 - seat
        match = one.store.load(table.match_id)
        from elgrande.server.bots import think

        one.store.play_turn(table.match_id, other, think(
            match.redacted_state(other).to_dict(), other, "random", 3), base_seq=match.seq)
        settled = at_once(lambda: one.clocks.settle(table.game.id),
                          lambda: two.clocks.settle(table.game.id))
        assert sorted(settled) == [False, True]
        # The reminder and the deadline of the seat now to act: once each.
        now_to_act = to_act(one, table)[0]
        deadline = datetime.fromisoformat(seat_clock(one, table, now_to_act)["deadline"])
        clock.at = deadline - timedelta(hours=4, seconds=-1)
        reminded = at_once(lambda: one.clocks.remind_due(clock()),
                           lambda: two.clocks.remind_due(clock()))
        assert sorted(len(r) for r in reminded) == [0, 1]
        clock.at = deadline
        expired = at_once(lambda: one.clocks.expire_due(clock()),
                          lambda: two.clocks.expire_due(clock()))
        assert sorted(len(e) for e in expired) == [0, 1]
        assert [d.seat for e in expired for d in e] == [now_to_act]
        assert seat_clock(two, table, now_to_act)["away"]
    finally:
        for svc in (one, two):
            svc.accounts.close()
            svc.engine.dispose()
