"""Tournament statistics: seat rotation, win shares, confidence intervals, Elo-style ratings,
think-time percentiles.

Pure functions over finished-game records, so they are easy to test without playing games.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054  # two-sided 95% normal quantile
ELO_SCALE = 400.0 / math.log(10.0)
ELO_MEAN = 1500.0


@dataclass(frozen=True)
class GameRecord:
    """One finished game: the bot name in each seat and the final scores."""

    index: int
    bots: tuple[str, ...]
    scores: tuple[int, ...]
    seconds: tuple[float, ...] = ()  # thinking time per seat
    decisions: tuple[int, ...] = ()  # searched decisions per seat
    # CPU seconds of each searched decision, and of each turn with one, per seat.
    decision_seconds: tuple[tuple[float, ...], ...] = ()
    turn_seconds: tuple[tuple[float, ...], ...] = ()

    @property
    def winners(self) -> tuple[int, ...]:
        best = max(self.scores)
        return tuple(s for s, v in enumerate(self.scores) if v == best)

    def win_share(self, seat: int) -> float:
        """1 for a sole winner, 1/k for each of k players sharing the win, else 0."""
        w = self.winners
        return 1.0 / len(w) if seat in w else 0.0

    def margin(self, seat: int) -> int:
        """Own score minus the best other score (positive: won by that much)."""
        return self.scores[seat] - max(v for s, v in enumerate(self.scores) if s != seat)


def seating(bots: Sequence[str], game: int) -> tuple[str, ...]:
    """Seat order for game ``game``: the bot list rotated by ``game`` places.

    Over any ``len(bots)`` consecutive games every listed bot sits in every seat once.
    """
    n = len(bots)
    k = game % n
    return tuple(bots[(seat - k) % n] for seat in range(n))


@dataclass(frozen=True)
class Estimate:
    """A mean with its 95% confidence interval [low, high]."""

    mean: float
    low: float
    high: float

    def to_dict(self) -> dict[str, float]:
        return {"mean": self.mean, "low": self.low, "high": self.high}


NO_ESTIMATE = Estimate(math.nan, math.nan, math.nan)


def mean_ci(values: Sequence[float]) -> Estimate:
    """Mean with a normal-approximation 95% interval (sample standard deviation)."""
    n = len(values)
    if n == 0:
        return NO_ESTIMATE
    mean = sum(values) / n
    if n == 1:
        return Estimate(mean, -math.inf, math.inf)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = Z95 * math.sqrt(var / n)
    return Estimate(mean, mean - half, mean + half)


def wilson_ci(successes: float, n: int) -> Estimate:
    """Observed rate with Wilson's 95% score interval (shared wins count fractionally)."""
    if n == 0:
        return NO_ESTIMATE
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half))


def quantile(values: Sequence[float], q: float) -> float:
    """The q-quantile with linear interpolation between order statistics (numpy's default)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    x = q * (len(ordered) - 1)
    i = int(x)
    if i + 1 >= len(ordered):
        return ordered[-1]
    return ordered[i] + (x - i) * (ordered[i + 1] - ordered[i])


@dataclass(frozen=True)
class ThinkTimes:
    """How long a bot thought: count, median, 95th percentile and maximum, in seconds."""

    count: int
    p50: float
    p95: float
    max: float

    @classmethod
    def of(cls, values: Sequence[float]) -> ThinkTimes:
        if not values:
            return cls(0, math.nan, math.nan, math.nan)
        return cls(len(values), quantile(values, 0.5), quantile(values, 0.95), max(values))

    def to_dict(self) -> dict[str, float]:
        return {"count": self.count, "p50": self.p50, "p95": self.p95, "max": self.max}

    def format(self) -> str:
        return f"{self.p50:5.2f} {self.p95:5.2f} {self.max:5.2f}"


NO_TIMES = ThinkTimes.of(())


def pairwise_results(games: Sequence[GameRecord]) -> dict[tuple[str, str], float]:
    """Points of bot a against bot b over all seat pairs (1 per higher score, 1/2 per tie).

    Pairs of seats held by the same bot are skipped: they say nothing about relative strength.
    """
    points: dict[tuple[str, str], float] = {}
    for g in games:
        n = len(g.bots)
        for i in range(n):
            for j in range(n):
                a, b = g.bots[i], g.bots[j]
                if i == j or a == b:
                    continue
                si, sj = g.scores[i], g.scores[j]
                r = 1.0 if si > sj else 0.5 if si == sj else 0.0
                points[(a, b)] = points.get((a, b), 0.0) + r
    return points


@dataclass(frozen=True)
class HeadToHead:
    """How often bot ``a`` finished ahead of bot ``b`` (a tie counts 1/2), over every pair
    of seats they held in the same game; with one seat each that is per game."""

    a: str
    b: str
    comparisons: int
    ahead: Estimate

    def to_dict(self) -> dict[str, object]:
        return {"bot": self.a, "other": self.b, "comparisons": self.comparisons,
                "ahead": self.ahead.to_dict()}


def head_to_head(games: Sequence[GameRecord]) -> list[HeadToHead]:
    """Every ordered pair of distinct bots that met, with a Wilson 95% interval."""
    points = pairwise_results(games)
    met: dict[tuple[str, str], int] = {}
    for g in games:
        for i, a in enumerate(g.bots):
            for j, b in enumerate(g.bots):
                if i != j and a != b:
                    met[(a, b)] = met.get((a, b), 0) + 1
    return [HeadToHead(a, b, n, wilson_ci(points.get((a, b), 0.0), n))
            for (a, b), n in sorted(met.items())]


def elo_ratings(games: Sequence[GameRecord], prior_games: float = 1.0,
                iterations: int = 500) -> dict[str, float]:
    """Elo-style ratings from a Bradley-Terry fit to the pairwise results.

    Each pair of bots also gets ``prior_games`` virtual drawn games, so a bot that never
    loses still has a finite rating. Ratings are centred on 1500; a 400-point gap means
    10:1 odds of finishing ahead of the other in a game.
    """
    names = sorted({b for g in games for b in g.bots})
    if len(names) < 2:
        return {n: ELO_MEAN for n in names}
    points = pairwise_results(games)
    for a in names:
        for b in names:
            if a != b:
                points[(a, b)] = points.get((a, b), 0.0) + prior_games / 2
    strength = {n: 1.0 for n in names}
    for _ in range(iterations):  # Hunter's minorisation-maximisation updates
        new: dict[str, float] = {}
        for a in names:
            wins = sum(points.get((a, b), 0.0) for b in names if b != a)
            denom = 0.0
            for b in names:
                if b == a:
                    continue
                played = points.get((a, b), 0.0) + points.get((b, a), 0.0)
                denom += played / (strength[a] + strength[b])
            new[a] = wins / denom if denom > 0 else strength[a]
        geo = math.exp(sum(math.log(v) for v in new.values()) / len(new))
        strength = {n: v / geo for n, v in new.items()}
    return {n: ELO_MEAN + ELO_SCALE * math.log(strength[n]) for n in names}


@dataclass
class BotSummary:
    name: str
    games: int = 0
    win_rate: Estimate = NO_ESTIMATE
    score: Estimate = NO_ESTIMATE
    margin: Estimate = NO_ESTIMATE
    elo: float = ELO_MEAN
    seconds_per_decision: float = 0.0
    decision_times: ThinkTimes = NO_TIMES
    turn_times: ThinkTimes = NO_TIMES

    def to_dict(self) -> dict[str, object]:
        return {
            "bot": self.name,
            "games": self.games,
            "win_rate": self.win_rate.to_dict(),
            "score": self.score.to_dict(),
            "margin": self.margin.to_dict(),
            "elo": self.elo,
            "seconds_per_decision": self.seconds_per_decision,
            "decision_seconds": self.decision_times.to_dict(),
            "turn_seconds": self.turn_times.to_dict(),
        }


def summarise(games: Sequence[GameRecord]) -> list[BotSummary]:
    """One summary per distinct bot name; a bot in several seats counts each seat as a game."""
    shares: dict[str, list[float]] = {}
    scores: dict[str, list[float]] = {}
    margins: dict[str, list[float]] = {}
    secs: dict[str, float] = {}
    decisions: dict[str, int] = {}
    decision_secs: dict[str, list[float]] = {}
    turn_secs: dict[str, list[float]] = {}
    for g in games:
        for seat, name in enumerate(g.bots):
            if g.decision_seconds:
                decision_secs.setdefault(name, []).extend(g.decision_seconds[seat])
                turn_secs.setdefault(name, []).extend(g.turn_seconds[seat])
            shares.setdefault(name, []).append(g.win_share(seat))
            scores.setdefault(name, []).append(float(g.scores[seat]))
            margins.setdefault(name, []).append(float(g.margin(seat)))
            if g.seconds:
                secs[name] = secs.get(name, 0.0) + g.seconds[seat]
            if g.decisions:
                decisions[name] = decisions.get(name, 0) + g.decisions[seat]
    elo = elo_ratings(games)
    out = []
    for name in sorted(shares, key=lambda n: -elo[n]):
        sh = shares[name]
        out.append(BotSummary(
            name=name,
            games=len(sh),
            win_rate=wilson_ci(sum(sh), len(sh)),
            score=mean_ci(scores[name]),
            margin=mean_ci(margins[name]),
            elo=elo[name],
            seconds_per_decision=secs.get(name, 0.0) / max(1, decisions.get(name, 0)),
            decision_times=ThinkTimes.of(decision_secs.get(name, [])),
            turn_times=ThinkTimes.of(turn_secs.get(name, [])),
        ))
    return out


def format_table(summaries: Sequence[BotSummary]) -> str:
    header = (f"{'bot':<16} {'games':>5}  {'win rate [95% CI]':<22} {'score [95% CI]':<20} "
              f"{'margin [95% CI]':<21} {'Elo':>6} {'s/decision':>10}  "
              f"{'CPU s/turn p50 p95 max':>22}")
    lines = [header, "-" * len(header)]
    for s in summaries:
        lines.append(
            f"{s.name:<16} {s.games:>5}  "
            f"{s.win_rate.mean:6.1%} [{s.win_rate.low:5.1%},{s.win_rate.high:6.1%}]  "
            f"{s.score.mean:5.1f} [{s.score.low:5.1f},{s.score.high:5.1f}]  "
            f"{s.margin.mean:+5.1f} [{s.margin.low:+5.1f},{s.margin.high:+5.1f}]  "
            f"{s.elo:6.0f} {s.seconds_per_decision:10.3f}  {s.turn_times.format():>22}"
        )
    return "\n".join(lines)


def format_head_to_head(rows: Sequence[HeadToHead]) -> str:
    """One line per pair, the stronger-looking side first (each pair once)."""
    lines = [f"{'bot':<16} {'ahead of':<16} {'games':>5}  {'ahead [95% CI]':<22}"]
    lines.append("-" * len(lines[0]))
    for r in rows:
        if r.ahead.mean > 0.5 or (r.ahead.mean == 0.5 and r.a < r.b):
            lines.append(f"{r.a:<16} {r.b:<16} {r.comparisons:>5}  "
                         f"{r.ahead.mean:6.1%} [{r.ahead.low:5.1%},{r.ahead.high:6.1%}]")
    return "\n".join(lines)
