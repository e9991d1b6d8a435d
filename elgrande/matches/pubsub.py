"""Notifications: "match X is now at sequence N" (and draft changes for the seat's
other windows). A small interface so the web layer can swap in Redis."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class MatchEvent:
    match_id: str
    seq: int
    # "created", "commit" (seq moved on), "draft" (only `seat`'s draft changed), or a
    # kind of the layers above (the web app's "clocks": a game's clocks changed)
    kind: str
    seat: int | None = None
    # (seat, draft_version) right after the event, for the seats it concerns (a draft
    # event: that seat; a commit: every seat), so a listener holding that draft already
    # need not read it again. Versions are not secret: only the server sees events.
    drafts: tuple[tuple[int, str], ...] = ()
    # A commit's new log entries (notation), the sequence they follow and when they were
    # committed: other processes extend their cached log with them instead of reading it.
    base: int | None = None
    added: tuple[str, ...] = ()
    at: str | None = None  # ISO 8601


Listener = Callable[[MatchEvent], None]


class Broker(Protocol):
    def publish(self, event: MatchEvent) -> None: ...

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Register ``listener``; returns a function that unsubscribes it."""
        ...


class InProcessBroker:
    """Calls listeners synchronously in the publishing thread, after the commit.
    A listener that raises does not stop the others."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def publish(self, event: MatchEvent) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:  # one bad listener must not break the others
                logging.getLogger(__name__).exception("match event listener failed")

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe
