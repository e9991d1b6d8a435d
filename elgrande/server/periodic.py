"""A background thread that does one piece of work every ``interval`` seconds, backing
off while the database is away (``scale.leases.Outage``: one log line when it goes,
one when it is back). The sweepers are built on it."""

from __future__ import annotations

import threading

from elgrande.scale.leases import Outage


class Periodic:
    name = "periodic work"  # the thread's name and the log lines'

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def tick(self) -> None:
        """One round of the work (raises while the database is away)."""
        raise NotImplementedError

    def start(self) -> None:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _loop(self) -> None:
        outage = Outage(self.name, self.interval)
        while not self._stop.wait(outage.pause):
            outage.run(self.tick)
