"""The keeper's background thread: settles the commits it was told of, expires the
seats past their deadline and sends the reminders that are due, then sleeps until the
earliest deadline or reminder of all games, or until woken (a commit, a change that may
bring a deadline forward). It looks at least every ``longest`` seconds anyway (for
deadlines set by another process) and backs off while the database is away."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from elgrande.scale.leases import Outage

from .keeper import ClockKeeper

if TYPE_CHECKING:
    from ..veto import VetoWatch

CATCH_UP_EVERY = 600.0  # seconds between looks for clocks behind their match
RETRY = 0.5  # seconds before a game still starting is looked at again


class ClockThread:
    name = "clock-keeper"

    def __init__(self, keeper: ClockKeeper, now: Callable[[], datetime], longest: float, *,
                 veto: VetoWatch | None = None) -> None:
        self.keeper = keeper
        self.veto = veto  # veto windows' own deadlines (server/veto.py), woken alike
        self.now = now
        self.longest = longest
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.rounds = 0  # how many times it woke up
        self._sleep: float | None = None  # what the last round asked for
        self._last_catch_up = -CATCH_UP_EVERY

    def tick(self) -> float:
        """One round; returns how long to sleep (seconds) before the next."""
        self.rounds += 1
        keeper = self.keeper
        keeper.wake.clear()
        keeper.settle_pending()
        now = self.now()
        keeper.expire_due(now)
        keeper.remind_due(now)
        due = keeper.next_due()
        if self.veto is not None:
            self.veto.settle_pending()
            self.veto.expire_due(now)
            found = [m for m in (due, self.veto.next_due()) if m is not None]
            due = min(found) if found else None
        # A new game still starting is looked at again soon (its clocks start with it).
        longest = RETRY if keeper.waiting() else self.longest
        sleep = longest if due is None else max(0.05, min(longest, (due - now).total_seconds()))
        keeper.planned = now + timedelta(seconds=sleep)
        return sleep

    def start(self) -> None:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.keeper.wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _loop(self) -> None:
        outage = Outage(self.name, 1.0, longest=60.0)
        pause = 0.0
        self._last_catch_up = -CATCH_UP_EVERY
        while not self._stop.is_set():
            if pause:
                self.keeper.wake.wait(pause)
            if self._stop.is_set():
                return
            self._sleep = None
            outage.run(self._round)
            pause = self._sleep if self._sleep is not None else outage.pause

    def _round(self) -> None:
        if time.monotonic() - self._last_catch_up >= CATCH_UP_EVERY:
            # Commits no process heard (all were down, or the pub/sub was away).
            self.keeper.catch_up()
            if self.veto is not None:
                self.veto.catch_up()  # windows opened while no process listened
            self._last_catch_up = time.monotonic()
        self._sleep = self.tick()
