"""Paired sequential comparison of two bots (``elgrande duel``, docs/ai.md).

Every deal (a chance seed and the seat of the tested bot) is played twice: once with the
candidate in that seat and once with the baseline, the other seats held by the same
opponents with the same seeds. The pair's score is ``(1 + candidate's win share - baseline's
win share) / 2``, and a sequential test (``sprt``) on the pair scores stops as soon as the
result is clear. The test is evaluated on pairs in their index order, so a duel stops after
the same pairs, with the same games, for any number of worker processes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass

from . import sprt
from .stats import Estimate, GameRecord, ThinkTimes, mean_ci, wilson_ci
from .tournament import GameSpec, derive_seed, play_game

CANDIDATE, BASELINE = 0, 1  # the two games of a pair


@dataclass(frozen=True)
class DuelConfig:
    candidate: str
    baseline: str
    opponents: str
    players: int
    mu0: float  # mean pair score under H0 (0.5: equal strength)
    mu1: float  # ... and under H1
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 400
    seed: int = 0
    rounds: int = 9
    rules: str = "yucata"
    # The two bots of the tested seat share its seed unless asked otherwise (then a bot
    # against itself plays two different games: a check of the test's noise).
    independent_seeds: bool = False

    @property
    def max_pairs(self) -> int:
        return self.max_games // 2


def pair_specs(config: DuelConfig, pair: int) -> tuple[GameSpec, GameSpec]:
    """The pair's two games: same chance seed and seats, only the tested seat's bot differs.

    The tested seat rotates with the pair index, so every seat is tested equally often.
    """
    n = config.players
    seat = pair % n
    seeds = [derive_seed("duel-bot", config.seed, pair, s) for s in range(n)]
    chance = derive_seed("duel-chance", config.seed, pair)
    specs = []
    for role, bot in ((CANDIDATE, config.candidate), (BASELINE, config.baseline)):
        bots = [config.opponents] * n
        bots[seat] = bot
        own = list(seeds)
        if config.independent_seeds and role == BASELINE:
            own[seat] = derive_seed("duel-bot", config.seed, pair, seat, "baseline")
        specs.append(GameSpec(index=2 * pair + role, bots=tuple(bots), chance_seed=chance,
                              bot_seeds=tuple(own), rounds=config.rounds, rules=config.rules))
    return specs[0], specs[1]


@dataclass(frozen=True)
class PairResult:
    pair: int
    seat: int
    candidate: GameRecord
    baseline: GameRecord
    cpu_seconds: float  # both games, whole processes' CPU

    @property
    def share_difference(self) -> float:
        return self.candidate.win_share(self.seat) - self.baseline.win_share(self.seat)

    @property
    def score(self) -> float:
        """The pair's score in [0, 1] for the sequential test."""
        return (1.0 + self.share_difference) / 2.0

    @property
    def points_difference(self) -> int:
        return self.candidate.scores[self.seat] - self.baseline.scores[self.seat]


def _play_timed(spec: GameSpec) -> tuple[GameRecord, float]:
    start = time.process_time()
    record = play_game(spec)
    return record, time.process_time() - start


def _games(config: DuelConfig,
           workers: int) -> Generator[tuple[GameRecord, float], None, None]:
    """The duel's games in completion order, at most ``2 * workers`` games ahead of the
    consumer, who stops the generator when the test is decided."""
    specs = (spec for pair in range(config.max_pairs) for spec in pair_specs(config, pair))
    if workers <= 1:
        for spec in specs:
            yield _play_timed(spec)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        running: set[Future[tuple[GameRecord, float]]] = set()
        try:
            while True:
                for spec in specs:
                    running.add(pool.submit(_play_timed, spec))
                    if len(running) >= 2 * workers:
                        break
                if not running:
                    return
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
        finally:
            for future in running:
                future.cancel()


@dataclass(frozen=True)
class DuelResult:
    config: DuelConfig
    pairs: tuple[PairResult, ...]
    llr: float
    bounds: sprt.Bounds
    verdict: str  # sprt.H0, sprt.H1 or sprt.CONTINUE (stopped at --max-games)

    @property
    def games(self) -> int:
        return 2 * len(self.pairs)

    @property
    def cpu_seconds(self) -> float:
        return sum(p.cpu_seconds for p in self.pairs)

    def win_rate(self, role: int) -> Estimate:
        shares = [(p.candidate if role == CANDIDATE else p.baseline).win_share(p.seat)
                  for p in self.pairs]
        return wilson_ci(sum(shares), len(shares))

    def share_difference(self) -> Estimate:
        return mean_ci([p.share_difference for p in self.pairs])

    def points_difference(self) -> Estimate:
        return mean_ci([float(p.points_difference) for p in self.pairs])

    def elo(self) -> Estimate:
        """The pair score's mean and interval read as an Elo difference."""
        d = self.share_difference()
        return Estimate(*(sprt.score_to_elo(min(1.0, max(0.0, (1 + v) / 2)))
                          for v in (d.mean, d.low, d.high)))

    def think_times(self, who: str) -> tuple[ThinkTimes, ThinkTimes]:
        """(per decision, per turn) CPU seconds of "candidate", "baseline" (in the tested
        seat) or "opponents" (every other seat of both games)."""
        decisions: list[float] = []
        turns: list[float] = []
        for p in self.pairs:
            for tested, game in (("candidate", p.candidate), ("baseline", p.baseline)):
                for seat in range(len(game.bots)):
                    if who == (tested if seat == p.seat else "opponents"):
                        decisions.extend(game.decision_seconds[seat])
                        turns.extend(game.turn_seconds[seat])
        return ThinkTimes.of(decisions), ThinkTimes.of(turns)


def run_duel(config: DuelConfig, workers: int = 1,
             progress: Callable[[int, float], None] | None = None) -> DuelResult:
    """Play pairs until the test decides or ``max_games`` is reached; ``progress`` gets
    (games counted so far, LLR) after every counted pair."""
    bounds = sprt.Bounds.of(config.alpha, config.beta)
    finished: dict[int, tuple[GameRecord, float]] = {}
    pairs: list[PairResult] = []
    value, verdict = 0.0, sprt.CONTINUE
    games = _games(config, workers)
    try:
        for record, cpu in games:
            finished[record.index] = (record, cpu)
            # Count pairs strictly in index order: the same stop for any --workers.
            while 2 * len(pairs) in finished and 2 * len(pairs) + 1 in finished:
                k = len(pairs)
                (cand, c_cpu), (base, b_cpu) = finished.pop(2 * k), finished.pop(2 * k + 1)
                pairs.append(PairResult(k, k % config.players, cand, base, c_cpu + b_cpu))
                value = sprt.llr((p.score for p in pairs), config.mu0, config.mu1)
                verdict = bounds.verdict(value)
                if progress is not None:
                    progress(2 * len(pairs), value)
                if verdict != sprt.CONTINUE:
                    break
            if verdict != sprt.CONTINUE:
                break
    finally:
        games.close()
    return DuelResult(config, tuple(pairs), value, bounds, verdict)
