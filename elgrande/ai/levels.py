"""Named bots and playing levels: each level is a bot plus a budget.

``make_bot(name, seed)`` accepts a level name (``easy``, ``medium``, ``hard``), a bot name
(``random``, ``heuristic``, ``ismcts``, ``learned``, ``hard-g``, ``hard-margin``,
``hard-bid``, ``hard-horizon``, ``hard-pbid``, ``hard-plan``, ``hard-turn``, ``hard-s``,
``hard-sk``, ``hard-skb``), a bot of ``BUDGETED`` with an iteration budget (``ismcts:500``,
``learned:500``, ``hard-s:3000``, ``hard-plan:4500``, ...), a frozen bot
(``baseline``, ``hard-2026-12``: elgrande/ai/frozen/, the yardstick of strength tests), or
``learned@FILE`` / ``learned:N@FILE`` (and ``hard-turn@FILE``): hard's search judged by
another fit of the learned evaluation (a model file written by ``elgrande train-value --out FILE``), to test a fit in a
duel before it ships. The web app offers only its levels (``server/bots.py``).
Budgets are counted in iterations, never in seconds, so games replay exactly.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .base import Bot, RandomBot
from .frozen import hard_2026_12
from .heuristic import HeuristicBot
from .ismcts import IsmctsBot
from .plans import PlanBot
from .value import ValueModel, load_model


@dataclass(frozen=True)
class Level:
    name: str
    title: str
    description: str
    factory: Callable[[int], Bot]


# The learned win chances spread about half as far as the squashed lead between playouts
# from the same position; halving the exploration constant to match lost a paired duel
# (docs/ai.md, "A learned evaluation"), so it explores as the
# squashed lead's search does.
LEARNED_EXPLORATION = 0.7
# hard-margin's reward: 80% the learned win chance, 20% sigmoid(points lead / 30) (a lead
# of 30 points is worth 0.73 of that share, a deficit of 30 still 0.27: a slope left).
MARGIN_SHARE = 0.2
MARGIN_SCALE = 30.0


def _learned(seed: int, iterations: int, model: ValueModel | None = None,
             **variant: Any) -> IsmctsBot:
    """The search judged by the learned evaluation (hard's, or ``model``), with a
    variant's options."""
    return IsmctsBot(seed, iterations=iterations, exploration=LEARNED_EXPLORATION,
                     value=model or load_model(), **variant)


@functools.lru_cache(maxsize=8)
def model_from_file(path: str) -> ValueModel:
    """A learned evaluation's model read from ``path`` (once per process and path);
    ``ValueError`` saying what is wrong with it."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as exc:
        raise ValueError(f"cannot read the value model {path!r}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"the value model {path!r} is not JSON: {exc}") from None
    try:
        return ValueModel.from_dict(data)
    except ValueError as exc:
        raise ValueError(f"the value model {path!r} is not usable: {exc}") from None
    except (AttributeError, KeyError, TypeError):
        raise ValueError(f"the value model {path!r} is not a model written by "
                         "`elgrande train-value`") from None


def _budget(name: str, budget: str) -> int:
    """The iteration budget after ``:`` in ``name``; ``ValueError`` if it is not one."""
    try:
        iterations = int(budget)
    except ValueError:
        raise ValueError(f"bad iteration budget in {name!r}") from None
    if iterations < 1:
        raise ValueError(f"the iteration budget in {name!r} must be at least 1")
    return iterations


def _with_model(name: str, seed: int) -> Bot:
    """``learned@FILE``, ``learned:N@FILE``, ``hard-turn@FILE`` or ``hard-turn:N@FILE``."""
    spec, _, path = name.partition("@")
    base, colon, budget = spec.partition(":")
    if base not in ("learned", "hard-turn") or not path:
        raise ValueError(f"bad bot {name!r}: a model file goes with learned, learned:N, "
                         "hard-turn or hard-turn:N only, as in learned@FILE or "
                         "learned:1500@FILE")
    iterations = _budget(name, budget) if colon else 1500
    bot = _learned(seed, iterations, model_from_file(path), turn_cut=base == "hard-turn")
    bot.name = name
    return bot


def _planned(seed: int, iterations: int) -> PlanBot:
    """hard's search and evaluation, its own turns chosen as whole plans (plans.py)."""
    return PlanBot(seed, iterations=iterations, exploration=LEARNED_EXPLORATION,
                   value=load_model())


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("easy", "Easy", "The heuristic bot with noisy judgement and a narrow search.",
              lambda seed: HeuristicBot(seed, beam=2, noise=3.0, samples=1)),
        Level("medium", "Medium", "The heuristic bot: the best whole turn by its evaluation.",
              lambda seed: HeuristicBot(seed)),
        Level("hard", "Hard", "ISMCTS, 1500 iterations per decision, heuristic playouts "
              "judged by the learned evaluation (usually under 1 s per turn, rarely over 2 s).",
              lambda seed: _learned(seed, 1500)),
    )
}

def _with_budget(factory: Callable[[int, int], Bot], iterations: int) -> Callable[[int], Bot]:
    return lambda seed: factory(seed, iterations)


# Bots that take an iteration budget after a colon (``hard-s:3000``), by name: a factory
# of (seed, iterations). Without a budget each plays hard's 1500 (``BOTS`` below).
BUDGETED: dict[str, Callable[[int, int], Bot]] = {
    # The search judged by the learned evaluation (value.py): hard since 1 December 2026,
    # under the name its duels were run with.
    "learned": lambda seed, n: _learned(seed, n),
    # Opt-in variant under test (issue 18): hard with greedy secret choices in its
    # playouts (PlayoutPolicy(greedy_secrets=True)); hard itself is unchanged until a duel
    # says otherwise (docs/ai.md, "Greedy secret choices in the playouts").
    "learned-g": lambda seed, n: _learned(seed, n, greedy_secrets=True),
    "hard-g": lambda seed, n: _learned(seed, n, greedy_secrets=True),
    # On trial (docs/ai.md, "Whole-turn plans"): hard whose own turns are chosen among
    # the heuristic's best few whole turns by sequential halving over its playouts.
    "hard-plan": _planned,
    # Not adopted (docs/ai.md, "Playouts cut at the next turn": it lost to hard): hard
    # whose playouts stop where the next turn or bid begins, judged there by the learned
    # evaluation.
    "hard-turn": lambda seed, n: _learned(seed, n, turn_cut=True),
    # On trial (docs/ai.md, "Greedy special actions in the playouts"): hard whose playouts
    # make the special actions' steps (moves, placements, removals, scorings) greedily.
    "hard-s": lambda seed, n: _learned(seed, n, greedy_specials=True),
    # On trial (docs/ai.md, "Greedy King's moves in the playouts"): hard-s whose playouts
    # also move the King greedily.
    "hard-sk": lambda seed, n: _learned(seed, n, greedy_specials=True, greedy_king=True),
    # Not adopted (docs/ai.md, "The Grande and the scoreboards in the playouts": no gain
    # over hard-sk): hard-sk whose playouts also move the Grande (4b) and the mobile
    # scoreboards (4e) greedily.
    "hard-skb": lambda seed, n: _learned(seed, n, greedy_specials=True, greedy_king=True,
                                         greedy_board=True),
    # The plain search judged by the squashed lead (no learned evaluation).
    "ismcts": lambda seed, n: IsmctsBot(seed, iterations=n),
}

BOTS: dict[str, Callable[[int], Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "ismcts": IsmctsBot,  # its own default budget (300), not hard's
    **{name: _with_budget(factory, 1500) for name, factory in BUDGETED.items()
       if name != "ismcts"},
    # On trial (docs/ai.md, "A reward that keeps a slope"): hard with a fifth of its reward
    # the points lead, so that far behind it still tells its options apart.
    "hard-margin": lambda seed: _learned(seed, 1500, margin=MARGIN_SHARE,
                                         margin_scale=MARGIN_SCALE),
    # On trial (docs/ai.md, "Bids guided by the heuristic"): hard whose bid nodes offer
    # the heuristic's best few bids, more as their visits grow (progressive widening).
    "hard-bid": lambda seed: _learned(seed, 1500, bid_widening=True),
    # Not adopted (docs/ai.md, "Bids judged at the next general scoring": it lost to hard):
    # hard-bid whose bid playouts run on to the next general scoring.
    "hard-horizon": lambda seed: _learned(seed, 1500, bid_widening=True, bid_horizon=True),
    # Not adopted (docs/ai.md, "Playouts that bid as the heuristic does": undecided and too
    # slow): hard whose playouts bid as the heuristic bot would, instead of at random.
    "hard-pbid": lambda seed: _learned(seed, 1500, greedy_bids=True),
    # Frozen copies of past bots (never edited); ``baseline`` is the current yardstick.
    "hard-2026-12": hard_2026_12.make,
    "baseline": hard_2026_12.make,
}


def bot_names() -> list[str]:
    return list(BOTS) + list(LEVELS)


def make_bot(name: str, seed: int = 0) -> Bot:
    """A fresh bot for one seat; ``ValueError`` for an unknown name."""
    if "@" in name:
        return _with_model(name, seed)
    base, _, budget = name.partition(":")
    if base in LEVELS and not budget:
        bot = LEVELS[base].factory(seed)
    elif base in BUDGETED and budget:
        bot = BUDGETED[base](seed, _budget(name, budget))
    elif base in BOTS and not budget:
        bot = BOTS[base](seed)
    else:
        raise ValueError(f"unknown bot {name!r}; expected one of {', '.join(bot_names())}, "
                         f"{', '.join(b + ':ITERATIONS' for b in BUDGETED)}, "
                         "learned[:ITERATIONS]@MODEL_FILE "
                         "or hard-turn[:ITERATIONS]@MODEL_FILE")
    bot.name = name
    return bot
