"""The server's time in tests: injected, moved on by the test only, never slept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class FakeClock:
    """What time it is for the server; starts now (commits are stamped with it too)."""

    def __init__(self) -> None:
        self.at = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.at

    def advance(self, **delta: float) -> datetime:
        self.at += timedelta(**delta)
        return self.at
