"""The arithmetic of one seat's clock, with no database and no clock of its own: every
moment is handed in, so tests decide what time it is.

Playing hours: the clock runs only between two local hours of the player's time zone
(the windows are built day by day in that zone, so a change to or from summer time
counts the hours the wall clock shows)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from .rules import ClockRules

Hours = tuple[int, int] | None


def _local(day: date, hour: int, zone: ZoneInfo) -> datetime:
    if hour == 24:
        return _local(day + timedelta(days=1), 0, zone)
    return datetime(day.year, day.month, day.day, hour, tzinfo=zone).astimezone(UTC)


def _windows(after: datetime, hours: tuple[int, int], zone: ZoneInfo) -> Iterator[tuple[datetime, datetime]]:
    """The playing windows (UTC) that end after ``after``, in order, without end."""
    day = after.astimezone(zone).date() - timedelta(days=1)
    while True:
        start, end = _local(day, hours[0], zone), _local(day, hours[1], zone)
        if end > after:
            yield start, end
        day += timedelta(days=1)


def playing_seconds(start: datetime, end: datetime, hours: Hours, zone: ZoneInfo) -> float:
    """Seconds of playing time between two moments."""
    if end <= start:
        return 0.0
    if hours is None:
        return (end - start).total_seconds()
    total = 0.0
    for w_start, w_end in _windows(start, hours, zone):
        if w_start >= end:
            break
        total += (min(w_end, end) - max(w_start, start)).total_seconds()
    return total


def after_playing(start: datetime, seconds: float, hours: Hours, zone: ZoneInfo) -> datetime:
    """The moment ``seconds`` of playing time after ``start``."""
    if hours is None:
        return start + timedelta(seconds=seconds)
    left = max(0.0, seconds)
    for w_start, w_end in _windows(start, hours, zone):
        begin = max(w_start, start)
        room = (w_end - begin).total_seconds()
        if left <= room:
            return begin + timedelta(seconds=left)
        left -= room
    raise AssertionError("unreachable: playing windows never end")


@dataclass(frozen=True)
class SeatClock:
    """One seat's clock. Running while ``started`` is set: the turn began then (or will,
    after a holiday) and ends at ``deadline``; ``bank`` is what the seat had at its start.
    ``away``: its time ran out and a computer plays the seat until the player is back."""

    bank: float
    started: datetime | None = None
    deadline: datetime | None = None
    remind_at: datetime | None = None
    away_since: datetime | None = None
    paused_until: datetime | None = None

    @property
    def running(self) -> bool:
        return self.started is not None


def stop(clock: SeatClock, at: datetime, hours: Hours, zone: ZoneInfo) -> SeatClock:
    """The turn ended at ``at``: the playing time it took leaves the bank."""
    if clock.started is None:
        return clock
    used = playing_seconds(clock.started, at, hours, zone)
    return replace(clock, bank=max(0.0, clock.bank - used), started=None, deadline=None,
                   remind_at=None)


def start(clock: SeatClock, at: datetime, rules: ClockRules, zone: ZoneInfo) -> SeatClock:
    """A turn begins at ``at`` (or when the player's holiday ends): the bank gets its
    top-up, and the deadline is when it would be spent."""
    begin = max(at, clock.paused_until) if clock.paused_until else at
    bank = min(float(rules.cap), clock.bank + rules.per_turn)
    deadline = after_playing(begin, bank, rules.hours, zone)
    remind_at = None
    if rules.remind_before and bank > 2 * rules.remind_before:
        remind_at = deadline - timedelta(seconds=rules.remind_before)
    return replace(clock, bank=bank, started=begin, deadline=deadline, remind_at=remind_at)


def settle(clock: SeatClock, *, acted_at: datetime | None, to_act: bool, at: datetime,
           rules: ClockRules, zone: ZoneInfo) -> SeatClock:
    """The clock after a commit at ``at``: ``acted_at`` when this seat committed (its
    turn ended then), ``to_act`` whether it is to act now. A seat still to act that did
    not commit keeps its running turn (another seat's secret choice came in)."""
    if clock.away_since is not None:
        return clock  # a computer plays it; no clock runs
    if clock.running and (acted_at is not None or not to_act):
        clock = stop(clock, acted_at or at, rules.hours, zone)
    if to_act and not clock.running:
        clock = start(clock, at, rules, zone)
    return clock


def remaining(clock: SeatClock, now: datetime, rules: ClockRules, zone: ZoneInfo) -> float:
    """Seconds of playing time left in the bank at ``now``."""
    if clock.started is None or clock.deadline is None:
        return clock.bank
    if now <= clock.started:
        return clock.bank
    return playing_seconds(now, clock.deadline, rules.hours, zone)


def pause(clock: SeatClock, now: datetime, until: datetime, rules: ClockRules,
          zone: ZoneInfo) -> SeatClock:
    """A holiday from ``now`` to ``until``: a running turn stops now and goes on then,
    with the bank it had left (no new top-up)."""
    if clock.started is not None and clock.started < now:
        left = stop(clock, now, rules.hours, zone)
        deadline = after_playing(until, left.bank, rules.hours, zone)
        remind_at = (deadline - timedelta(seconds=rules.remind_before)
                     if rules.remind_before and left.bank > 2 * rules.remind_before else None)
        return replace(left, started=until, deadline=deadline, remind_at=remind_at,
                       paused_until=until)
    if clock.started is not None:  # already waiting for a holiday to end: move it
        deadline = after_playing(until, clock.bank, rules.hours, zone)
        shift = deadline - (clock.deadline or deadline)
        return replace(clock, started=until, deadline=deadline, paused_until=until,
                       remind_at=clock.remind_at + shift if clock.remind_at else None)
    return replace(clock, paused_until=until)


def end_pause(clock: SeatClock, now: datetime, rules: ClockRules, zone: ZoneInfo) -> SeatClock:
    """Back before the holiday's end: the turn (if one waits) starts now."""
    if clock.paused_until is None or clock.paused_until <= now:
        return replace(clock, paused_until=None)
    if clock.started is None:
        return replace(clock, paused_until=None)
    deadline = after_playing(now, clock.bank, rules.hours, zone)
    shift = deadline - (clock.deadline or deadline)
    return replace(clock, started=now, deadline=deadline, paused_until=None,
                   remind_at=clock.remind_at + shift if clock.remind_at else None)
