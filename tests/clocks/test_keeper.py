"""Clocks kept in the database, with an injected clock: a turn's time leaves the bank at
the commit's stamped time, a deadline passes and a computer plays the seat from its own
view until the player is back (by acting, or by one click), reminders go once, holidays
stop a clock, and the keeper sleeps until the next deadline."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from elgrande.matches import MatchError
from elgrande.server.app import Services
from elgrande.server.clocks import ClockRefused, ClockThread
from elgrande.server.clocks.rules import DAY, HOUR
from elgrande.server.commands import parse_command
from elgrande.server.errors import PlayError
from elgrande.server.tables import SeatClockRow, StandInTurn

from .conftest import FakeClock, clocked_game, play_turn, seat_clock, services_for, to_act


def test_the_clock_runs_for_the_seat_to_act_and_stops_at_its_commit(svc: Services,
                                                                      clock: FakeClock) -> None:
    table = clocked_game(svc)
    first = to_act(svc, table)[0]
    other = 1 - first
    running = seat_clock(svc, table, first)
    assert running["running"] and running["left"] == pytest.approx(3 * DAY, abs=1)
    waiting = seat_clock(svc, table, other)
    assert not waiting["running"] and waiting["left"] == 2 * DAY  # no top-up before its turn
    clock.advance(hours=5)
    assert seat_clock(svc, table, first)["left"] == pytest.approx(3 * DAY - 5 * HOUR, abs=1)
    play_turn(svc, table, first)
    after = seat_clock(svc, table, first)
    assert not after["running"] and after["left"] == pytest.approx(3 * DAY - 5 * HOUR, abs=1)
    assert to_act(svc, table) == [other]
    started = seat_clock(svc, table, other)
    assert started["running"] and started["left"] == pytest.approx(3 * DAY, abs=1)


def test_settling_once_per_commit_whoever_hears_it(svc: Services, clock: FakeClock) -> None:
    table = clocked_game(svc)
    seat = to_act(svc, table)[0]
    clock.advance(hours=1)
    play_turn(svc, table, seat)
    before = seat_clock(svc, table, seat)
    assert svc.clocks.settle(table.game.id) is False  # already settled: nothing twice
    assert svc.clocks.catch_up() == 0
    assert seat_clock(svc, table, seat) == before


def test_a_clock_that_runs_out_hands_the_seat_to_a_computer_until_the_player_acts(
        svc: Services, clock: FakeClock) -> None:
    table = clocked_game(svc)
    sleeper = to_act(svc, table)[0]
    awake = 1 - sleeper
    clock.advance(days=3, seconds=-1)
    assert svc.clocks.expire_due(clock()) == []  # one second left
    clock.advance(seconds=2)
    [due] = svc.clocks.expire_due(clock())
    assert (due.game_id, due.seat, due.user_id) == (table.game.id, sleeper,
                                                     table.players[sleeper].id)
    assert svc.clocks.expire_due(clock()) == []  # once
    assert seat_clock(svc, table, sleeper)["away"]
    # The computer plays the sleeper's turn, from the sleeper's view only.
    [turn] = svc.play.bot_work(table.game.id)
    assert turn.seat == sleeper and turn.level == "random"
    match = svc.store.load(table.match_id)
    assert turn.state == match.redacted_state(sleeper).to_dict()
    from elgrande.server.bots import think

    steps = think(turn.state, turn.seat, turn.level, turn.seed)
    assert svc.play.play_bot_steps(table.game.id, sleeper, steps, turn.seq)
    svc.clocks.settle_pending()
    played = svc.clocks.stand_in_turns(table.game.id)
    assert [t["seat"] for t in played] == [sleeper]
    assert played[0]["to"] - played[0]["from"] == len(steps) or played[0]["to"] > played[0]["from"]
    # The other player plays on; the computer keeps playing the sleeper's turns.
    while sleeper not in to_act(svc, table):
        play_turn(svc, table, awake)
    assert [t.seat for t in svc.play.bot_work(table.game.id)] == [sleeper]
    # The sleeper comes back by acting: the seat is theirs again, their turn starts now
    # with a fresh top-up (the bank was spent). A step that is a whole decision (a bid, a
    # secret choice) commits at once: that turn ends there, and if the seat is to act
    # again, the next one starts with another top-up. (Which it is depends on the deal.)
    view = svc.store.view(table.match_id, sleeper)
    command = parse_command("step", view.seq, view.legal[0])
    svc.play.act(table.game, sleeper, command)
    back = seat_clock(svc, table, sleeper)
    committed = svc.store.view(table.match_id, None).seq > view.seq
    still_to_act = sleeper in to_act(svc, table)
    assert not back["away"] and back["running"] == still_to_act
    top_ups = 2 if committed and still_to_act else 1
    assert back["left"] == pytest.approx(top_ups * DAY, abs=1)
    assert svc.play.bot_work(table.game.id) == []
    with svc.sessions() as db:
        assert db.get(SeatClockRow, (table.game.id, sleeper)).timeouts == 1  # type: ignore[union-attr]


def test_coming_back_while_the_computer_thinks_refuses_its_turn(svc: Services,
                                                                 clock: FakeClock) -> None:
    table = clocked_game(svc)
    sleeper = to_act(svc, table)[0]
    clock.advance(days=4)
    svc.clocks.expire_due(clock())
    [turn] = svc.play.bot_work(table.game.id)
    from elgrande.server.bots import think

    steps = think(turn.state, turn.seat, turn.level, turn.seed)
    assert svc.play.take_back(table.game, sleeper)  # the one click, while it thinks
    assert not svc.play.take_back(table.game, sleeper)  # already back
    seq = svc.store.view(table.match_id, None).seq
    assert not svc.play.play_bot_steps(table.game.id, sleeper, steps, turn.seq)
    assert svc.store.view(table.match_id, None).seq == seq  # nothing committed
    with svc.sessions() as db:
        assert db.scalars(select(StandInTurn)).all() == []
    # The guard refuses inside the commit's transaction, as a MatchError.
    guard = svc.clocks.stand_in_guard(table.game.id, sleeper)
    with pytest.raises(MatchError, match="took the seat back"):
        svc.store.play_turn(table.match_id, sleeper, steps, base_seq=turn.seq, within=guard)
    assert svc.store.view(table.match_id, None).seq == seq


def test_a_computers_turn_that_landed_first_stands_and_the_player_is_told(
        svc: Services, clock: FakeClock) -> None:
    table = clocked_game(svc)
    sleeper = to_act(svc, table)[0]
    stale = svc.store.view(table.match_id, sleeper)
    clock.advance(days=4)
    svc.clocks.expire_due(clock())
    [turn] = svc.play.bot_work(table.game.id)
    from elgrande.server.bots import think

    assert svc.play.play_bot_steps(table.game.id, sleeper,
                                   think(turn.state, sleeper, turn.level, turn.seed), turn.seq)
    with pytest.raises(PlayError) as refused:
        svc.play.act(table.game, sleeper, parse_command("step", stale.seq, stale.legal[0]))
    assert refused.value.code in ("moved_on", "not_your_turn")
    assert not seat_clock(svc, table, sleeper)["away"]  # and the seat is theirs again


def test_nobody_left_at_the_table_means_no_computer_plays(svc: Services, clock: FakeClock) -> None:
    table = clocked_game(svc, humans=1, bots=1)
    seat = 0
    while seat not in to_act(svc, table):
        match = svc.store.load(table.match_id)
        from elgrande.server.bots import think

        bot = to_act(svc, table)[0]
        svc.store.play_turn(table.match_id, bot, think(
            match.redacted_state(bot).to_dict(), bot, "random", 1), base_seq=match.seq)
        svc.clocks.settle_pending()
    clock.advance(days=4)
    [due] = svc.clocks.expire_due(clock())
    assert due.seat == seat
    assert svc.play.bot_work(table.game.id) == []  # a game of absent players waits
    # ... and is abandoned after the set time (away_abandon_days, 3 by default).
    assert svc.clocks.absent_games(clock(), timedelta(days=3)) == []
    clock.advance(days=3, seconds=1)
    assert svc.clocks.absent_games(clock(), timedelta(days=3)) == [table.game.id]


def test_a_reminder_goes_once_before_the_deadline(svc: Services, clock: FakeClock) -> None:
    table = clocked_game(svc)
    seat = to_act(svc, table)[0]
    clock.advance(days=3, hours=-4, seconds=-1)
    assert svc.clocks.remind_due(clock()) == []
    clock.advance(seconds=2)
    [due] = svc.clocks.remind_due(clock())
    assert due.seat == seat and due.deadline - clock() < timedelta(hours=4)
    assert svc.clocks.remind_due(clock()) == []


def test_the_keeper_sleeps_until_the_next_deadline_or_reminder(tmp_path, clock: FakeClock) -> None:  # noqa: ANN001
    svc = services_for(f"sqlite:///{tmp_path / 'sleep.db'}", clock, clock_wake_seconds=10 * DAY)
    thread = ClockThread(svc.clocks, clock, svc.settings.clock_wake_seconds)
    assert thread.tick() == 10 * DAY  # no clock runs anywhere: the longest sleep
    clocked_game(svc)
    # daily-1: a 3-day deadline, its reminder 4 hours before: that is the next wake.
    assert thread.tick() == pytest.approx(3 * DAY - 4 * HOUR, abs=1)
    live = clocked_game(svc, pace="live")
    assert thread.tick() == pytest.approx(8 * 60, abs=1)
    assert live.game.id


def test_holidays_stop_the_clock_within_the_tables_limit(svc: Services, clock: FakeClock) -> None:
    table = clocked_game(svc, holiday_days=5)
    seat = to_act(svc, table)[0]
    clock.advance(days=1)
    with pytest.raises(ClockRefused, match="5 day"):
        svc.clocks.pause(table.game.id, seat, 6)
    until = svc.clocks.pause(table.game.id, seat, 4)
    assert until == clock() + timedelta(days=4)
    clock.advance(days=3)
    resting = seat_clock(svc, table, seat)
    assert resting["holiday_until"] is not None and resting["left"] == pytest.approx(2 * DAY, abs=1)
    assert svc.clocks.expire_due(clock() + timedelta(days=2, hours=12)) == []
    with pytest.raises(ClockRefused, match="already on holiday"):
        svc.clocks.pause(table.game.id, seat, 1)
    assert svc.clocks.end_holiday(table.game.id, seat)  # back a day early
    back = seat_clock(svc, table, seat)
    assert back["holiday_until"] is None and back["holiday_left_days"] == 2
    assert back["running"] and back["left"] == pytest.approx(2 * DAY, abs=1)


def test_a_table_without_holidays_refuses_them(svc: Services) -> None:
    table = clocked_game(svc, pace="live")
    with pytest.raises(ClockRefused, match="no holidays"):
        svc.clocks.pause(table.game.id, 0, 1)


def test_the_clocks_survive_a_restart(tmp_path, clock: FakeClock) -> None:  # noqa: ANN001
    url = f"sqlite:///{tmp_path / 'restart.db'}"
    first = services_for(url, clock)
    table = clocked_game(first)
    seat = to_act(first, table)[0]
    clock.advance(hours=7)
    before = first.clocks.public(table.game.id)
    first.engine.dispose()
    second = services_for(url, clock)
    assert second.clocks.public(table.game.id) == before
    clock.advance(days=3)
    assert [d.seat for d in second.clocks.expire_due(clock())] == [seat]


def test_playing_hours_count_in_each_players_zone(svc: Services, clock: FakeClock) -> None:
    from datetime import datetime
    from zoneinfo import ZoneInfo

    table = clocked_game(svc, hours=(8, 22))
    first = to_act(svc, table)[0]
    other = 1 - first
    # A zone applies from the player's next turn (a running deadline stays as it is).
    svc.accounts.set_time_zone(table.players[other].id, "Pacific/Auckland")
    play_turn(svc, table, first)
    running = seat_clock(svc, table, other)
    assert running["running"]
    # 3 days of playing time at 14 hours a day end later than 5 calendar days, and the
    # deadline falls within 08:00-22:00 in Auckland.
    deadline = datetime.fromisoformat(running["deadline"])
    assert deadline > clock() + timedelta(days=5)
    local = deadline.astimezone(ZoneInfo("Pacific/Auckland"))
    assert 8 <= local.hour + local.minute / 60 <= 22
    assert svc.clocks.expire_due(deadline - timedelta(seconds=1)) == []
    assert [d.seat for d in svc.clocks.expire_due(deadline)] == [other]


def test_the_record_and_the_abandonment_say_what_the_computer_did(svc: Services,
                                                                  clock: FakeClock) -> None:
    from elgrande.server.bots import think
    from elgrande.server.seats import Sweeper
    from tests.server.helpers import advance

    table = clocked_game(svc)
    sleeper = to_act(svc, table)[0]
    clock.advance(days=4)
    svc.clocks.expire_due(clock())
    assert seat_clock(svc, table, sleeper)["away"]  # (what pages are shown is now kept)
    [turn] = svc.play.bot_work(table.game.id)
    svc.play.play_bot_steps(table.game.id, sleeper, think(turn.state, sleeper, turn.level,
                                                          turn.seed), turn.seq)
    # What the pages are shown follows at once (the clocks were settled in the commit).
    shown = svc.clocks.public(table.game.id)
    assert [t["seat"] for t in shown["stand_in_turns"]] == [sleeper]
    assert [s["seat"] for s in shown["seats"] if s["running"]] == to_act(svc, table)
    assert svc.play.take_back(table.game, sleeper)
    played = svc.clocks.stand_in_turns(table.game.id)
    assert [t["seat"] for t in played] == [sleeper]
    log = svc.store.load(table.match_id).log
    assert all(log[i].action.seat == sleeper for i in range(played[0]["from"], played[0]["to"])
               if not log[i].action.is_chance)
    # Played to the end: the record keeps the turns the computer played, by seat.
    advance(svc, table.game.id, lambda m: m.over)
    svc.lobby.mark_finished(table.match_id)
    svc.clocks.settle(table.game.id)
    assert all(not s["running"] for s in svc.clocks.public(table.game.id)["seats"])
    assert svc.clocks.stand_in_turns(table.game.id) == played
    # Another game whose players both ran out of time: stopped as abandoned by the sweep.
    other = clocked_game(svc)
    for _ in range(2):
        clock.advance(days=6)
        svc.clocks.expire_due(clock())
        if all(s["away"] for s in svc.clocks.public(other.game.id)["seats"]):
            break
        seat = to_act(svc, other)[0]
        [turn] = svc.play.bot_work(other.game.id)
        svc.play.play_bot_steps(other.game.id, seat, think(turn.state, seat, turn.level,
                                                           turn.seed), turn.seq)
        svc.clocks.settle_pending()
    assert all(s["away"] for s in svc.clocks.public(other.game.id)["seats"])
    sweep = Sweeper(svc.sessions, clock, waiting=timedelta(days=7), idle_guest=timedelta(days=30),
                    interval=60, on_change=lambda game_id: svc.clocks.settle(game_id, force=True),
                    absent=lambda at: svc.clocks.absent_games(at, timedelta(days=3)))
    assert sweep.sweep_once(clock())["abandoned"] == []
    clock.advance(days=3, seconds=1)
    assert sweep.sweep_once(clock())["abandoned"] == [other.game.id]
    assert svc.lobby.get(other.game.id).status == "abandoned"
