"""The committed log kept compact: the same entries as a list, immutable and shared."""

from __future__ import annotations

import gc
from datetime import UTC, datetime, timedelta, timezone

import pytest

from elgrande.matches import LogEntry, Match, MatchStore
from elgrande.matches.log import CommittedLog
from elgrande.rules import GameConfig, legal_actions, to_act

T0 = datetime(2026, 12, 2, 21, 30, 5, 123457, tzinfo=UTC)


def _entries(match: Match) -> list[LogEntry]:
    base = [LogEntry(e.seq, e.action, e.base_seq, e.at) for e in match.log]
    later = T0 + timedelta(hours=5, microseconds=1)
    n = len(base)
    return base + [LogEntry(n + 1, base[0].action, n, later),
                   LogEntry(n + 2, base[1].action, n, later)]


def test_a_committed_log_gives_back_its_entries_exactly() -> None:
    match = Match.new(GameConfig(players=3), seed="log", now=T0)
    entries = _entries(match)
    log = CommittedLog(entries)
    assert len(log) == len(entries) and list(log) == entries and log == entries
    assert log[0] == entries[0] and log[-1] == entries[-1] and log[-2] == entries[-2]
    assert log[3:] == entries[3:] and log[:-1] == entries[:-1] and log[::2] == entries[::2]
    assert log[-1].at == T0 + timedelta(hours=5, microseconds=1)  # to the microsecond
    assert log[-1].at.tzinfo is not None
    assert log.actions == tuple(e.action for e in entries)
    with pytest.raises(IndexError):
        log[len(entries)]
    with pytest.raises(IndexError):
        log[-len(entries) - 1]


def test_times_in_another_zone_keep_their_instant() -> None:
    action = Match.new(GameConfig(players=3), seed="tz", now=T0).log[0].action
    paris = datetime(2026, 12, 2, 22, 30, 5, 7, tzinfo=timezone(timedelta(hours=1)))
    log = CommittedLog([LogEntry(1, action, 0, paris)])
    assert log[0].at == paris and log[0].at.utcoffset() == timedelta(0)


def test_extending_makes_a_new_log_and_refuses_a_gap() -> None:
    match = Match.new(GameConfig(players=3), seed="ext", now=T0)
    entries = _entries(match)
    head = CommittedLog(entries[:-2])
    longer = head.extended(entries[-2:])
    assert longer == entries and len(head) == len(entries) - 2  # the old one unchanged
    with pytest.raises(ValueError, match="found at position"):
        head.extended(entries[-1:])  # skips an entry
    with pytest.raises(ValueError, match="found at position"):
        CommittedLog(entries[1:])  # does not start at 1
    assert CommittedLog.of(longer) is longer


def test_the_collector_tracks_no_entry_and_no_number() -> None:
    match = Match.new(GameConfig(players=3), seed="gc", now=T0)
    log = CommittedLog(_entries(match))
    gc.collect()
    held = [o for o in gc.get_referents(log) if not isinstance(o, type)]
    # One tuple of actions and two arrays of numbers: no LogEntry, no datetime; what the
    # collector walks grows by one object (the action) per entry.
    assert sorted(type(o).__name__ for o in held) == ["array", "array", "tuple"]
    for numbers in (o for o in held if type(o).__name__ == "array"):
        assert all(isinstance(o, type) for o in gc.get_referents(numbers))
    assert all(type(a).__name__ == "Action" for a in log.actions)


def test_loads_of_a_match_share_its_log_and_a_commit_extends_it(db_url: str) -> None:
    store = MatchStore(db_url)
    match_id = store.create(GameConfig(players=3), seed="shared")
    first, second = store.load_seat(match_id, None), store.load_seat(match_id, None)
    assert first.log is second.log  # served from the cache without a copy
    seat = to_act(first.state)[0]
    action = legal_actions(first.state, seat)[0]
    store.step(match_id, seat, str(action), base_seq=first.seq)
    after = store.play(match_id, seat, "finish", base_seq=first.seq)
    assert after.log[: first.seq] == list(first.log) and after.seq == first.seq + 1
    assert store.load_seat(match_id, None).log is not first.log
    assert store.load_seat(match_id, None).log == after.log
    store.close()
