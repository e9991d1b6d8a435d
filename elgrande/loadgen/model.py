"""Load models of ``elgrande bench server``: how the scripted players behave.

- ``flat``: players who never think (the standard run since the benchmark began): every
  seat acts the moment its page shows it may; it measures the most the server can take.
- ``live``: people playing a live game: a think time before every command, drawn from a
  lognormal distribution per kind of decision (a turn's first step, each further click,
  a secret choice); spectators; pages that reconnect; games already under way when the
  measurement starts, so that some finish and new ones start during it.
- ``daily``: a site of mostly correspondence games: most games idle (their players think
  for hours, so nothing happens in them during a run but open pages), a few are live.

Every draw comes from a ``random.Random`` the caller seeds, so a run's decisions and
think times are reproducible (not the server's chance steps nor the exact timings).
The numbers and why they were chosen: docs/bench.md.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class LogNormal:
    """Seconds whose logarithm is normal: ``median`` = e^mu, ``sigma`` the standard
    deviation of the logarithm (p95 / median = e^(1.645 sigma))."""

    median: float
    sigma: float

    def sample(self, rng: random.Random) -> float:
        return rng.lognormvariate(math.log(self.median), self.sigma)

    def residual(self, rng: random.Random) -> float:
        """What is left of a think under way at a random moment (where a game stands when
        measuring starts): a uniform part of a length-biased draw, whose distribution for
        a lognormal is lognormal with mu + sigma^2. Its mean is E[X^2] / 2E[X]."""
        return rng.random() * rng.lognormvariate(math.log(self.median) + self.sigma**2,
                                                 self.sigma)

    @property
    def mean(self) -> float:
        return self.median * math.exp(self.sigma**2 / 2)

    def quantile(self, q: float) -> float:
        """The q-quantile (0 < q < 1), e.g. 0.95."""
        from statistics import NormalDist

        return self.median * math.exp(self.sigma * NormalDist().inv_cdf(q))

    def scaled(self, factor: float) -> LogNormal:
        return LogNormal(self.median * factor, self.sigma)

    def describe(self) -> dict[str, float]:
        return {"median_s": _figures(self.median), "sigma": self.sigma,
                "mean_s": _figures(self.mean), "p95_s": _figures(self.quantile(0.95))}


def _figures(seconds: float) -> float:
    return float(f"{seconds:.4g}")  # four significant figures, also for scaled-down times


# The kinds of decision a player thinks over (``think_kind``).
TURN = "turn"  # the first command of a turn: the decision itself (a bid, a card and where)
STEP = "step"  # every further command of the turn: a caballero placed, a region, "finish"
SECRET = "secret"  # the first command of a secret choice (the Castillo's region)


@dataclass(frozen=True)
class ThinkTimes:
    turn: LogNormal
    step: LogNormal
    secret: LogNormal

    def of(self, kind: str) -> LogNormal:
        return {TURN: self.turn, STEP: self.step, SECRET: self.secret}[kind]

    def sample(self, kind: str, rng: random.Random, *, under_way: bool = False) -> float:
        """A think time; ``under_way``: what is left of one that began before now."""
        dist = self.of(kind)
        return dist.residual(rng) if under_way else dist.sample(rng)

    def scaled(self, factor: float) -> ThinkTimes:
        return ThinkTimes(self.turn.scaled(factor), self.step.scaled(factor),
                          self.secret.scaled(factor))

    def describe(self) -> dict[str, dict[str, float]]:
        return {TURN: self.turn.describe(), STEP: self.step.describe(),
                SECRET: self.secret.describe()}


def think_kind(state: dict[str, Any], first: bool) -> str:
    """What a seat thinks over before its next command on ``state`` (its page's view):
    the first command of its turn is the decision (a secret choice weighs differently),
    every later one a click."""
    if not first:
        return STEP
    return SECRET if state.get("phase") == "secret" else TURN


# A live game (docs/bench.md "Think times"): a turn's decision takes a quarter of a
# minute at the median with a tail of minutes, each further click a few seconds, the
# Castillo's secret region longer than a turn. A 3-seat 9-round game then lasts about 35
# minutes (about 53 turns, 120 further clicks, 3 secret choices of all seats), 4 seats 48.
LIVE = ThinkTimes(turn=LogNormal(15.0, 0.9), step=LogNormal(3.0, 0.8),
                  secret=LogNormal(20.0, 0.8))
# A correspondence (daily) game: hours between a seat's turns; a player who opens the
# page plays the turn through at live speed.
DAILY = ThinkTimes(turn=LogNormal(4 * 3600.0, 1.0), step=LIVE.step,
                   secret=LogNormal(4 * 3600.0, 1.0))


@dataclass(frozen=True)
class LoadModel:
    name: str
    think: ThinkTimes | None  # the live games' players; None: they never think (flat)
    idle_think: ThinkTimes | None = None  # the other games' players (daily)
    live_fraction: float = 1.0  # the share of games played with ``think`` (live)
    spectators: float = 0.0  # spectators per game, on average
    reconnects_per_hour: float = 0.0  # per open page (a seat's or a spectator's)
    stagger: bool = False  # games already under way at random stages when measuring starts
    seconds: float = 20.0  # the default length of a run

    def with_options(self, *, spectators: float | None = None,
                     reconnects_per_hour: float | None = None,
                     live_fraction: float | None = None, think_scale: float | None = None,
                     stagger: bool | None = None) -> LoadModel:
        """The model with the command line's overrides (None: the model's own)."""
        model = self
        if spectators is not None:
            model = replace(model, spectators=spectators)
        if reconnects_per_hour is not None:
            model = replace(model, reconnects_per_hour=reconnects_per_hour)
        if live_fraction is not None:
            model = replace(model, live_fraction=live_fraction)
        if stagger is not None:
            model = replace(model, stagger=stagger)
        if think_scale is not None and think_scale != 1.0:
            model = replace(
                model, think=model.think.scaled(think_scale) if model.think else None,
                idle_think=model.idle_think.scaled(think_scale) if model.idle_think else None)
        return model

    def is_live(self, slot: int) -> bool:
        """Whether game slot ``slot`` is played live: the live fraction spread evenly over
        the slots, the first one live (slot g is live when ceil((g+1)f) > ceil(gf): with
        0.1, slots 0, 10, 20, ...), so that every client process gets its share."""
        f = self.live_fraction
        return math.ceil((slot + 1) * f - 1e-9) > math.ceil(slot * f - 1e-9)

    def think_of(self, slot: int) -> ThinkTimes | None:
        return self.think if self.is_live(slot) else self.idle_think

    def spectators_for(self, rng: random.Random) -> int:
        """Spectators of one game: the whole part of the average, plus one more with the
        fractional part's probability (0.3: 30% of the games have one)."""
        whole = math.floor(self.spectators)
        return whole + (1 if rng.random() < self.spectators - whole else 0)

    def next_reconnect(self, rng: random.Random) -> float:
        """Seconds until a page's next reconnect (exponential: drops and reloads come
        independently of each other), ``inf`` with no reconnects."""
        if self.reconnects_per_hour <= 0:
            return math.inf
        return rng.expovariate(self.reconnects_per_hour / 3600.0)

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "think": self.think.describe() if self.think else None,
            "idle_think": self.idle_think.describe() if self.idle_think else None,
            "live_fraction": self.live_fraction,
            "spectators_per_game": self.spectators,
            "reconnects_per_hour": self.reconnects_per_hour,
            "stagger": self.stagger,
        }


MODELS: dict[str, LoadModel] = {
    "flat": LoadModel("flat", think=None),
    "live": LoadModel("live", think=LIVE, spectators=0.5, reconnects_per_hour=4.0,
                      stagger=True, seconds=60.0),
    "daily": LoadModel("daily", think=LIVE, idle_think=DAILY, live_fraction=0.1,
                       spectators=0.1, reconnects_per_hour=4.0, stagger=True, seconds=60.0),
}


def stagger_target(rng: random.Random, rounds: int, players: int) -> tuple[int, int]:
    """Where a game already under way stands when measuring starts: (round index 0-based,
    commits into that round), the round drawn uniformly over the game and the commits
    over a round's usual 2 per seat (a bid and an action turn)."""
    return rng.randrange(rounds), rng.randrange(2 * players + 1)
