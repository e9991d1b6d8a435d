"""The load models of `elgrande bench server` (elgrande/loadgen/model.py): think times
drawn from the documented lognormal distributions, reproducibly from a seed."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from elgrande.loadgen.model import (
    DAILY,
    LIVE,
    MODELS,
    SECRET,
    STEP,
    TURN,
    LogNormal,
    stagger_target,
    think_kind,
)


def test_the_documented_live_parameters() -> None:
    """docs/bench.md states these; a change here is a change of the published figures."""
    assert LIVE.turn == LogNormal(15.0, 0.9)
    assert LIVE.step == LogNormal(3.0, 0.8)
    assert LIVE.secret == LogNormal(20.0, 0.8)
    assert DAILY.turn == LogNormal(4 * 3600.0, 1.0) and DAILY.step == LIVE.step
    live, daily, flat = MODELS["live"], MODELS["daily"], MODELS["flat"]
    assert (live.spectators, live.reconnects_per_hour, live.stagger) == (0.5, 4.0, True)
    assert (daily.live_fraction, daily.spectators, daily.idle_think) == (0.1, 0.1, DAILY)
    assert flat.think is None and flat.spectators == 0 and flat.reconnects_per_hour == 0
    assert not flat.stagger and flat.seconds == 20.0


def test_the_same_seed_draws_the_same_think_times() -> None:
    def draws(seed: int) -> list[float]:
        rng = random.Random(seed)
        return [LIVE.sample(kind, rng) for kind in (TURN, STEP, SECRET) * 20]

    assert draws(7) == draws(7)
    assert draws(7) != draws(8)


@pytest.mark.parametrize("kind", [TURN, STEP, SECRET])
def test_samples_follow_the_lognormal(kind: str) -> None:
    """The median and the spread of the logarithm of many draws are the parameters."""
    dist = LIVE.of(kind)
    rng = random.Random(1)
    draws = [LIVE.sample(kind, rng) for _ in range(20_000)]
    assert all(x > 0 for x in draws)
    assert statistics.median(draws) == pytest.approx(dist.median, rel=0.04)
    assert statistics.pstdev(math.log(x) for x in draws) == pytest.approx(dist.sigma, rel=0.03)
    assert statistics.fmean(draws) == pytest.approx(dist.mean, rel=0.05)
    below = sum(x <= dist.quantile(0.95) for x in draws) / len(draws)
    assert below == pytest.approx(0.95, abs=0.01)


def test_the_summary_of_a_distribution() -> None:
    turn = LIVE.turn.describe()
    assert turn["median_s"] == 15.0 and turn["sigma"] == 0.9
    assert turn["mean_s"] == pytest.approx(15 * math.exp(0.405), abs=0.01)
    assert turn["p95_s"] == pytest.approx(15 * math.exp(0.9 * 1.6449), abs=0.01)


def test_what_a_seat_thinks_over() -> None:
    assert think_kind({"phase": "bid"}, first=True) == TURN
    assert think_kind({"phase": "deploy"}, first=True) == TURN
    assert think_kind({"phase": "secret"}, first=True) == SECRET
    assert think_kind({"phase": "secret"}, first=False) == STEP
    assert think_kind({"phase": "deploy"}, first=False) == STEP


def test_the_command_line_overrides() -> None:
    live = MODELS["live"].with_options(spectators=2.0, reconnects_per_hour=0.0,
                                       think_scale=0.5, stagger=False)
    assert (live.spectators, live.reconnects_per_hour, live.stagger) == (2.0, 0.0, False)
    assert live.think is not None and live.think.turn == LogNormal(7.5, 0.9)
    assert MODELS["live"].with_options() == MODELS["live"]
    assert MODELS["flat"].with_options(think_scale=2.0).think is None


def test_daily_plays_the_live_fraction_of_games_live_spread_over_the_slots() -> None:
    daily = MODELS["daily"]
    live = [slot for slot in range(100) if daily.is_live(slot)]
    assert len(live) == 10 and live[:2] == [0, 10]
    assert [slot for slot in range(8) if daily.is_live(slot)] == [0]  # a few games: one live
    assert max(b - a for a, b in zip(live, live[1:], strict=False)) == 10  # evenly spread
    assert daily.think_of(live[0]) is LIVE and daily.think_of(live[0] + 1) is DAILY
    assert all(MODELS["live"].is_live(slot) for slot in range(50))
    assert not any(daily.with_options(live_fraction=0.0).is_live(slot) for slot in range(50))


def test_spectators_and_reconnects_per_game() -> None:
    rng = random.Random(3)
    counts = [MODELS["live"].spectators_for(rng) for _ in range(4000)]
    assert set(counts) == {0, 1} and statistics.fmean(counts) == pytest.approx(0.5, abs=0.03)
    assert {MODELS["flat"].with_options(spectators=2.0).spectators_for(rng)
            for _ in range(50)} == {2}
    gaps = [MODELS["live"].next_reconnect(rng) for _ in range(4000)]
    assert statistics.fmean(gaps) == pytest.approx(3600 / 4, rel=0.05)  # 4 per hour
    assert MODELS["flat"].next_reconnect(rng) == math.inf


def test_games_under_way_stand_anywhere_in_the_game() -> None:
    rng = random.Random(5)
    targets = [stagger_target(rng, rounds=9, players=3) for _ in range(2000)]
    assert {r for r, _ in targets} == set(range(9))
    assert {c for _, c in targets} == set(range(7))


def test_a_think_under_way_has_the_residual_of_a_length_biased_draw() -> None:
    """At a random moment a long think is likelier to be in progress than a short one, and
    part of it is over: the mean left is E[X^2] / 2E[X] = median e^(3 sigma^2 / 2) / 2."""
    turn = LIVE.turn
    rng = random.Random(2)
    left = [LIVE.sample(TURN, rng, under_way=True) for _ in range(40_000)]
    assert statistics.fmean(left) == pytest.approx(
        turn.median * math.exp(1.5 * turn.sigma**2) / 2, rel=0.05)
    assert statistics.fmean(left) > turn.mean / 2  # more than half an ordinary think's
