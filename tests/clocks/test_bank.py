"""A seat's time bank, with every moment handed in: top-ups and the cap, stopping and
starting at commits, playing hours in a player's zone (summer time included), holidays."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from elgrande.server.clocks import PRESETS, table_clock
from elgrande.server.clocks.bank import (
    SeatClock,
    after_playing,
    end_pause,
    pause,
    playing_seconds,
    remaining,
    settle,
    start,
)
from elgrande.server.clocks.rules import HOUR, MINUTE, ClockRules, duration
from elgrande.server.errors import LobbyError

UTC_ZONE = ZoneInfo("UTC")
BERLIN = ZoneInfo("Europe/Berlin")
LIVE = PRESETS["live"].rules
DAILY = PRESETS["daily-1"].rules
T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
assert LIVE is not None and DAILY is not None


def test_a_turn_tops_the_bank_up_and_the_cap_holds() -> None:
    clock = start(SeatClock(bank=LIVE.initial), T0, LIVE, UTC_ZONE)
    assert clock.bank == LIVE.initial + LIVE.per_turn == 8 * MINUTE
    assert clock.deadline == T0 + timedelta(minutes=8)
    full = start(SeatClock(bank=LIVE.cap), T0, LIVE, UTC_ZONE)
    assert full.bank == LIVE.cap  # never more than the cap


def test_the_time_taken_leaves_the_bank_and_the_next_turn_starts_with_the_rest() -> None:
    clock = start(SeatClock(bank=LIVE.initial), T0, LIVE, UTC_ZONE)
    moved = settle(clock, acted_at=T0 + timedelta(seconds=100), to_act=False,
                   at=T0 + timedelta(seconds=100), rules=LIVE, zone=UTC_ZONE)
    assert not moved.running and moved.bank == 8 * MINUTE - 100
    again = settle(moved, acted_at=None, to_act=True, at=T0 + timedelta(seconds=300),
                   rules=LIVE, zone=UTC_ZONE)
    assert again.bank == 8 * MINUTE - 100 + 3 * MINUTE
    assert again.deadline == T0 + timedelta(seconds=300 + again.bank)


def test_another_seats_commit_leaves_a_running_secret_choice_running() -> None:
    clock = start(SeatClock(bank=LIVE.initial), T0, LIVE, UTC_ZONE)
    same = settle(clock, acted_at=None, to_act=True, at=T0 + timedelta(seconds=30),
                  rules=LIVE, zone=UTC_ZONE)
    assert same == clock


def test_a_seat_that_commits_and_is_to_act_again_gets_a_new_turn() -> None:
    clock = start(SeatClock(bank=LIVE.initial), T0, LIVE, UTC_ZONE)
    at = T0 + timedelta(seconds=60)
    after = settle(clock, acted_at=at, to_act=True, at=at, rules=LIVE, zone=UTC_ZONE)
    assert after.started == at and after.bank == min(LIVE.cap, 8 * MINUTE - 60 + 3 * MINUTE)


def test_an_away_seat_has_no_clock() -> None:
    away = SeatClock(bank=0.0, away_since=T0)
    assert settle(away, acted_at=None, to_act=True, at=T0, rules=LIVE, zone=UTC_ZONE) == away


def test_playing_hours_count_only_within_them_in_the_players_zone() -> None:
    hours = (8, 22)
    # 21:00 to 09:00 Berlin time (summer: UTC+2) is one hour at night and one in the morning.
    start_at = datetime(2026, 6, 1, 19, 0, tzinfo=UTC)
    end_at = datetime(2026, 6, 2, 7, 0, tzinfo=UTC)
    assert playing_seconds(start_at, end_at, hours, BERLIN) == 2 * HOUR
    assert playing_seconds(start_at, end_at, None, BERLIN) == 12 * HOUR
    # 3 hours of playing time from 21:00 Berlin: 1 tonight, 2 from 08:00 -> 10:00 local.
    assert after_playing(start_at, 3 * HOUR, hours, BERLIN) == datetime(2026, 6, 2, 8, 0, tzinfo=UTC)
    # Started at night: the clock waits for 08:00.
    night = datetime(2026, 6, 1, 23, 0, tzinfo=UTC)  # 01:00 Berlin
    assert after_playing(night, 60, hours, BERLIN) == datetime(2026, 6, 2, 6, 1, tzinfo=UTC)


def test_playing_hours_follow_the_wall_clock_across_summer_time() -> None:
    # Europe/Berlin leaves summer time on 2026-10-25: 08:00 local is 06:00 UTC before,
    # 07:00 UTC after.
    before = datetime(2026, 10, 24, 21, 0, tzinfo=UTC)  # 23:00 local, after hours
    assert after_playing(before, 60, (8, 22), BERLIN) == datetime(2026, 10, 25, 7, 1, tzinfo=UTC)
    whole_day = playing_seconds(datetime(2026, 10, 25, 0, 0, tzinfo=UTC),
                                datetime(2026, 10, 26, 0, 0, tzinfo=UTC), (8, 22), BERLIN)
    assert whole_day == 14 * HOUR


def test_a_deadline_and_its_reminder() -> None:
    clock = start(SeatClock(bank=DAILY.initial), T0, DAILY, UTC_ZONE)
    assert clock.deadline == T0 + timedelta(days=3)
    assert clock.remind_at == clock.deadline - timedelta(hours=4)
    assert remaining(clock, T0 + timedelta(days=1), DAILY, UTC_ZONE) == 2 * 86400


def test_a_holiday_stops_a_running_turn_and_an_early_return_restarts_it() -> None:
    clock = start(SeatClock(bank=DAILY.initial), T0, DAILY, UTC_ZONE)
    now = T0 + timedelta(days=1)
    until = now + timedelta(days=5)
    paused = pause(clock, now, until, DAILY, UTC_ZONE)
    assert paused.bank == 2 * 86400 and paused.started == until
    assert paused.deadline == until + timedelta(days=2)
    assert remaining(paused, now + timedelta(days=2), DAILY, UTC_ZONE) == 2 * 86400
    back = end_pause(paused, now + timedelta(days=1), DAILY, UTC_ZONE)
    assert back.started == now + timedelta(days=1) and back.paused_until is None
    assert back.deadline == now + timedelta(days=3)


def test_a_turn_that_comes_during_a_holiday_starts_when_it_ends() -> None:
    until = T0 + timedelta(days=2)
    resting = pause(SeatClock(bank=DAILY.initial), T0, until, DAILY, UTC_ZONE)
    clock = settle(resting, acted_at=None, to_act=True, at=T0 + timedelta(hours=1),
                   rules=DAILY, zone=UTC_ZONE)
    assert clock.started == until and clock.deadline == until + timedelta(days=3)


def test_table_choices_are_checked_with_what_to_do() -> None:
    assert table_clock("none") is None
    daily = table_clock("daily-2", stand_in="easy", hours=(8, 22), holiday_days=10)
    assert isinstance(daily, ClockRules)
    assert daily.per_turn == 12 * HOUR and daily.hours == (8, 22) and daily.stand_in == "easy"
    assert ClockRules.from_dict(daily.to_dict()) == daily
    for bad, words in [(dict(pace="fast"), "Unknown pace"),
                       (dict(pace="live", hours=(8, 22)), "daily tables only"),
                       (dict(pace="daily-1", hours=(22, 8)), "at least 4 hours"),
                       (dict(pace="daily-1", holiday_days=31), "0 to 30"),
                       (dict(pace="daily-1", stand_in="genius"), "Unknown computer"),
                       (dict(pace="none", holiday_days=3), "need a clock")]:
        pace = bad.pop("pace")
        with pytest.raises(LobbyError, match=words):
            table_clock(str(pace), **bad)  # type: ignore[arg-type]


def test_durations_read_as_players_expect() -> None:
    assert duration(0) == "0:00" and duration(127) == "2:07"
    assert duration(3 * HOUR + 5 * MINUTE) == "3 h 05 min"
    assert duration(2 * 86400 + 4 * HOUR + 59) == "2 d 4 h"


def test_presets_are_what_their_descriptions_say() -> None:
    for name, moves in [("daily-1", 1), ("daily-2", 2), ("daily-3", 3)]:
        rules = PRESETS[name].rules
        assert rules is not None and rules.per_turn == 86400 // moves
        assert f"{24 // moves} hours per turn" in PRESETS[name].description
    assert replace(LIVE, stand_in="easy").per_turn == 3 * MINUTE
