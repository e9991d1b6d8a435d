"""A sequential probability ratio test on paired results (docs/ai.md, "Paired duels").

Each observation is a score in [0, 1] (a pair of games in ``elgrande duel``: 1 if the
candidate won its game and the baseline lost the same deal, 1/2 if they did equally well,
...). H0 says its mean is ``mu0``, H1 that it is ``mu1``. Nothing else is assumed about the
distribution: like fishtest's GSPRT (Michel Van den Bergh, "A generalized sequential
probability ratio test"), each hypothesis is fitted by maximum likelihood as a multinomial
over the observed score values whose mean is fixed, and the log-likelihood ratio of the two
fits is compared with Wald's bounds. With only the values 0 and 1 it is Wald's binomial SPRT.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

# Pseudo-count given to a missing extreme score, so that any mean in (0, 1) can be fitted
# (fishtest regularises its pentanomial counts the same way).
PSEUDO_COUNT = 1e-3

H0, H1, CONTINUE = "H0", "H1", "continue"


def elo_to_score(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger (logistic, 400 points = 10:1)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass(frozen=True)
class Bounds:
    """Wald's bounds on the log-likelihood ratio for error rates alpha (false H1) and beta
    (false H0)."""

    lower: float
    upper: float

    @classmethod
    def of(cls, alpha: float, beta: float) -> Bounds:
        if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
            raise ValueError("alpha and beta must be in (0, 1) with alpha + beta < 1")
        return cls(math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha))

    def verdict(self, llr: float) -> str:
        if llr >= self.upper:
            return H1
        if llr <= self.lower:
            return H0
        return CONTINUE


def fitted_probabilities(counts: dict[float, float], mu: float) -> dict[float, float]:
    """The maximum-likelihood probabilities of the score values given their counts, under
    the constraint that the mean score is ``mu``.

    The solution is p_i = f_i / (1 + lam (x_i - mu)) with f_i the observed frequencies and
    lam the root of sum f_i (x_i - mu) / (1 + lam (x_i - mu)) = 0, which decreases in lam:
    bisection on the interval where every p_i stays positive.
    """
    total = sum(counts.values())
    freq = {x: n / total for x, n in counts.items()}
    low_x, high_x = min(freq), max(freq)
    if not low_x < mu < high_x:
        raise ValueError(f"mean {mu} is outside the observed range [{low_x}, {high_x}]")

    def slope(lam: float) -> float:
        return sum(f * (x - mu) / (1.0 + lam * (x - mu)) for x, f in freq.items())

    lo, hi = -1.0 / (high_x - mu), 1.0 / (mu - low_x)
    for _ in range(200):
        mid = (lo + hi) / 2
        if slope(mid) > 0:
            lo = mid
        else:
            hi = mid
    lam = (lo + hi) / 2
    p = {x: f / (1.0 + lam * (x - mu)) for x, f in freq.items()}
    norm = sum(p.values())  # 1 up to rounding
    return {x: v / norm for x, v in p.items()}


def llr(scores: Iterable[float], mu0: float, mu1: float) -> float:
    """Generalised log-likelihood ratio of H1 (mean ``mu1``) against H0 (mean ``mu0``)."""
    counts: dict[float, float] = dict(Counter(scores))
    if not counts:
        return 0.0
    for extreme in (0.0, 1.0):
        counts.setdefault(extreme, PSEUDO_COUNT)
    p0 = fitted_probabilities(counts, mu0)
    p1 = fitted_probabilities(counts, mu1)
    return sum(n * math.log(p1[x] / p0[x]) for x, n in counts.items())
