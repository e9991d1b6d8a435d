"""Tournament statistics: rotation, shared wins, intervals, Elo-style ratings."""

from __future__ import annotations

import math

import pytest

from elgrande.ai.stats import (
    GameRecord,
    elo_ratings,
    format_head_to_head,
    head_to_head,
    mean_ci,
    pairwise_results,
    seating,
    summarise,
    wilson_ci,
)


def test_rotation_puts_every_bot_in_every_seat_once_per_block() -> None:
    bots = ["a", "b", "c", "d"]
    for seat in range(4):
        assert sorted(seating(bots, g)[seat] for g in range(4)) == bots
    assert seating(bots, 0) == ("a", "b", "c", "d")
    assert seating(bots, 1) == ("d", "a", "b", "c")


def test_shared_wins_are_split_and_margins_use_the_best_other() -> None:
    g = GameRecord(0, ("a", "b", "c"), (50, 50, 40))
    assert g.winners == (0, 1)
    assert [g.win_share(s) for s in range(3)] == [0.5, 0.5, 0.0]
    assert [g.margin(s) for s in range(3)] == [0, 0, -10]


def test_intervals() -> None:
    e = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert e.mean == 2.5 and e.low < 2.5 < e.high
    w = wilson_ci(8, 10)
    assert w.mean == 0.8 and 0.4 < w.low < 0.8 < w.high < 1.0
    assert wilson_ci(0, 10).low == 0.0 and wilson_ci(10, 10).high == pytest.approx(1.0)
    assert math.isnan(mean_ci([]).mean)


def test_pairwise_results_skip_seats_of_the_same_bot() -> None:
    g = GameRecord(0, ("x", "y", "y"), (10, 20, 5))
    points = pairwise_results([g])
    assert points == {("x", "y"): 1.0, ("y", "x"): 1.0}


def test_head_to_head_counts_per_game_ties_half_and_each_seat_of_a_repeated_bot() -> None:
    games = [
        GameRecord(0, ("easy", "medium", "hard"), (50, 60, 70)),
        GameRecord(1, ("hard", "easy", "medium"), (80, 80, 60)),  # hard ties easy
        GameRecord(2, ("medium", "hard", "easy"), (90, 70, 40)),
        GameRecord(3, ("hard", "medium", "medium"), (70, 75, 60)),  # two medium seats
    ]
    rows = {(r.a, r.b): r for r in head_to_head(games)}
    assert set(rows) == {(a, b) for a in ("easy", "medium", "hard")
                         for b in ("easy", "medium", "hard") if a != b}
    hard_medium = rows[("hard", "medium")]
    assert hard_medium.comparisons == 5  # one per game, two in game 3
    assert hard_medium.ahead.mean == pytest.approx(3 / 5)  # games 0, 1 and one medium in 3
    assert rows[("medium", "hard")].ahead.mean == pytest.approx(2 / 5)
    assert rows[("hard", "easy")].ahead.mean == pytest.approx(2.5 / 3)
    assert rows[("easy", "hard")].ahead.mean == pytest.approx(0.5 / 3)
    assert 0 < rows[("hard", "easy")].ahead.low < 2.5 / 3 < rows[("hard", "easy")].ahead.high <= 1
    # The printed table shows each pair once, from the side ahead more often.
    lines = format_head_to_head(list(rows.values())).splitlines()[2:]
    assert [line.split()[:2] for line in lines] == [["hard", "easy"], ["hard", "medium"], ["medium", "easy"]]


def test_elo_orders_bots_by_strength_and_is_centred() -> None:
    games = []
    for i in range(60):
        # strong beats medium beats weak, with some upsets
        s, m, w = 30, 20, 10
        if i % 5 == 0:
            s, m = m, s
        if i % 7 == 0:
            m, w = w, m
        games.append(GameRecord(i, ("strong", "medium", "weak"), (s, m, w)))
    elo = elo_ratings(games)
    assert elo["strong"] > elo["medium"] > elo["weak"]
    assert abs(sum(elo.values()) / 3 - 1500) < 1e-6
    # Never losing still gives a finite rating (virtual draws).
    perfect = [GameRecord(i, ("a", "b"), (10, 0)) for i in range(20)]
    r = elo_ratings(perfect)
    assert math.isfinite(r["a"]) and r["a"] > r["b"]


def test_summary_counts_each_seat_of_a_bot() -> None:
    games = [GameRecord(i, ("h", "r", "r"), (30, 10 + i, 5)) for i in range(4)]
    rows = {s.name: s for s in summarise(games)}
    assert rows["h"].games == 4 and rows["r"].games == 8
    assert rows["h"].win_rate.mean == 1.0
    assert rows["r"].win_rate.mean == 0.0
    assert rows["h"].elo > rows["r"].elo
