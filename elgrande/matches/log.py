"""A match's committed log, kept compact.

A server holds the logs of its busy matches in memory (the store's cache) and hands the
same log to every load of a match. As a list of ``LogEntry`` objects each entry cost
about 200 bytes and two objects the garbage collector tracks (the entry and its action),
and every load copied the list: with thousands of open games the collector's pauses grew
with them (docs/bench.md, "Capacity"). Here the log is immutable and shared, the actions
are one tuple, the commits' bases and times two arrays of integers (an object each for
the collector, however long the log), and a ``LogEntry`` is made only when one is asked
for.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import overload

from elgrande.rules import Action

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


@dataclass(frozen=True)
class LogEntry:
    """One committed action. ``seq`` is its 1-based position in the log; ``base_seq``
    is the log length the commit that wrote it was based on (one commit = one
    transaction = the entries sharing a ``base_seq``)."""

    seq: int
    action: Action
    base_seq: int
    at: datetime

    @property
    def seat(self) -> int:
        return self.action.seat


def _micros(moment: datetime) -> int:
    return (moment - _EPOCH) // _MICROSECOND


class CommittedLog(Sequence[LogEntry]):
    """The committed actions in order (entry ``seq`` at index ``seq - 1``), each with the
    base of the commit that wrote it and that commit's time (UTC, to the microsecond).
    Immutable: ``extended`` makes a longer one."""

    __slots__ = ("_actions", "_bases", "_times")

    def __init__(self, entries: Iterable[LogEntry] = ()) -> None:
        self._actions, self._bases, self._times = _columns(list(entries), start=1)

    @classmethod
    def of(cls, entries: Iterable[LogEntry]) -> CommittedLog:
        """``entries`` as a committed log (itself, if it already is one)."""
        return entries if isinstance(entries, CommittedLog) else cls(entries)

    def extended(self, entries: Sequence[LogEntry]) -> CommittedLog:
        """This log with ``entries`` after it (their ``seq`` must follow on)."""
        actions, bases, times = _columns(entries, start=len(self) + 1)
        log = CommittedLog.__new__(CommittedLog)
        log._actions = self._actions + actions
        log._bases = self._bases + bases
        log._times = self._times + times
        return log

    @property
    def actions(self) -> tuple[Action, ...]:
        return self._actions

    def _entry(self, index: int) -> LogEntry:
        return LogEntry(index + 1, self._actions[index], self._bases[index],
                        _EPOCH + self._times[index] * _MICROSECOND)

    def __len__(self) -> int:
        return len(self._actions)

    @overload
    def __getitem__(self, index: int) -> LogEntry: ...

    @overload
    def __getitem__(self, index: slice) -> list[LogEntry]: ...

    def __getitem__(self, index: int | slice) -> LogEntry | list[LogEntry]:
        if isinstance(index, slice):
            return [self._entry(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("log index out of range")
        return self._entry(index)

    def __iter__(self) -> Iterator[LogEntry]:
        return map(self._entry, range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CommittedLog):
            return (self._actions == other._actions and self._bases == other._bases
                    and self._times == other._times)
        if isinstance(other, list | tuple):
            return list(self) == list(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._actions)

    def __repr__(self) -> str:
        return f"CommittedLog({len(self)} entries)"


def _columns(entries: Sequence[LogEntry], start: int
             ) -> tuple[tuple[Action, ...], array[int], array[int]]:
    """The actions, bases and times (microseconds since 1970, UTC) of ``entries``, which
    must be numbered on from ``start``."""
    for seq, entry in enumerate(entries, start=start):
        if entry.seq != seq:
            raise ValueError(f"log entry {entry.seq} found at position {seq}")
    return (tuple(e.action for e in entries), array("q", [e.base_seq for e in entries]),
            array("q", [_micros(e.at) for e in entries]))
