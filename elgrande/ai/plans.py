"""Search over whole-turn plans (issue 18, item 2; ``hard-plan``, docs/ai.md).

hard's tree spreads a turn's iterations over the turn's atomic steps (the card, the
recruits, each Caballero placed, each step of the special action), so the lines that
finish a turn well share their visits with every half-finished one. The plan search
judges whole turns instead: the heuristic bot's beam search lists the distinct ways to
end the turn, the best few by its evaluation become the candidates, and the playout budget
is split among them by sequential halving (Karnin, Koren and Somekh 2013): in each round
every plan still in the race gets the same number of playouts, from the same random draws
(the stacks' order and the others' play are drawn alike for every plan, so their
differences are not noise of the draws), and the better half goes on. The chosen plan is
then played step by step, re-planned if the position is not the one expected.

Bids and secret choices stay with the tree (``IsmctsBot``): they are one decision each,
with other seats' choices in between.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from elgrande.rules import Action, State, apply, to_act
from elgrande.rules.actions import TAKE
from elgrande.rules.state import BID, SECRET

from .base import Bot
from .heuristic import HeuristicBot, TurnEnd, state_key
from .ismcts import IsmctsBot

PLANS = 8  # candidate whole turns per planned decision
PLAN_BEAM = 6  # the beam width that lists them (the heuristic bot's is 4)


def sequential_halving(arms: int, budget: int, sample: Callable[[int, int], float]) -> int:
    """The arm with the best mean after sequential halving: ceil(log2(arms)) rounds, each
    giving every remaining arm an equal share of the round's part of ``budget`` (at least
    one sample), then keeping the better half. ``sample(arm, j)`` is the arm's j-th
    sample; every remaining arm gets the same indices j, so samples can share their draws.
    Ties go to the lower arm."""
    if arms < 1:
        raise ValueError("sequential halving needs at least one arm")
    alive = list(range(arms))
    totals = [0.0] * arms
    done = 0  # samples each remaining arm has had
    rounds = max(1, math.ceil(math.log2(arms)))
    while len(alive) > 1:
        per_arm = max(1, budget // (rounds * len(alive)))
        for arm in alive:
            for j in range(done, done + per_arm):
                totals[arm] += sample(arm, j)
        done += per_arm
        alive.sort(key=lambda arm: (-totals[arm], arm))
        alive = sorted(alive[: (len(alive) + 1) // 2])
    return alive[0]


def candidate_plans(planner: HeuristicBot, root: State, seat: int, rng: random.Random,
                    count: int) -> list[TurnEnd]:
    """Up to ``count`` distinct ways to end the turn (one per end position), best first by
    the planner's evaluation: first the best plan for each action card taken (the turn's
    main choice, which the evaluation just after taking a card judges worst), then the
    best of the rest."""
    ends, _unfinished = planner.turn_ends(root, seat, rng)
    best: dict[tuple, TurnEnd] = {}
    for end in ends:
        key = state_key(end.state)
        kept = best.get(key)
        if kept is None or end.value > kept.value:
            best[key] = end
    ranked = sorted(best.values(), key=lambda end: -end.value)
    chosen: list[TurnEnd] = []
    cards: set[int] = set()
    for end in ranked:
        card = _card_taken(end.actions)
        if card not in cards:
            cards.add(card)
            chosen.append(end)
    chosen = chosen[:count]
    for end in ranked:
        if len(chosen) >= count:
            break
        if end not in chosen:
            chosen.append(end)
    return sorted(chosen, key=lambda end: -end.value)


def _card_taken(actions: list[Action]) -> int:
    """The action card a plan takes (-1: none, the card was taken before)."""
    for a in actions:
        if a.kind_id == TAKE:
            return int(a.arg)
    return -1


class PlanBot(Bot):
    """A search (``IsmctsBot``, its options in ``search``) whose own turns are judged as
    whole plans with its playouts and reward (``hard-plan``)."""

    name = "plan"

    def __init__(self, seed: int = 0, plans: int = PLANS, beam: int = PLAN_BEAM,
                 **search: Any) -> None:
        super().__init__(seed)
        # (a part, not a base class: the compiled search cannot be subclassed)
        self.search = IsmctsBot(seed, **search)
        self.plans = plans
        self.planner = HeuristicBot(seed, beam=beam, weights=self.search.weights)
        self._plan: list[tuple[State, Action]] = []
        self.iterations_done = 0  # playouts of plans, for benchmarks

    def decide(self, visible: State, seat: int, legal: list[Action],
               rng: random.Random) -> Action:
        if visible.phase == BID or visible.phase == SECRET or len(to_act(visible)) > 1:
            self._plan = []
            return self.search.decide(visible, seat, legal, rng)
        while self._plan:
            expected, action = self._plan.pop(0)
            if expected == visible and action in legal:
                return action
            self._plan = []
        plans = candidate_plans(self.planner, visible, seat, rng, self.plans)
        if not plans:  # a turn longer than the planner's depth: the tree decides
            return self.search.decide(visible, seat, legal, rng)
        chosen = plans[self._best(plans, seat, rng)] if len(plans) > 1 else plans[0]
        self._remember(visible, chosen.actions)
        return chosen.actions[0]

    def _best(self, plans: list[TurnEnd], seat: int, rng: random.Random) -> int:
        """Sequential halving over the plans: each sample a playout from the plan's end
        position, its j-th draws the same for every plan; the reward the seat's."""
        seeds: list[int] = []

        def sample(arm: int, j: int) -> float:
            while len(seeds) <= j:
                seeds.append(rng.getrandbits(64))
            self.iterations_done += 1
            playout = self.search.playout(plans[arm].state.copy(), random.Random(seeds[j]))
            return playout[seat]

        return sequential_halving(len(plans), self.search.iterations, sample)

    def _remember(self, visible: State, actions: list[Action]) -> None:
        """The rest of the plan, each action with the position it is meant for."""
        s = visible.copy()
        plan: list[tuple[State, Action]] = []
        for a in actions:
            plan.append((s.copy(), a))
            apply(s, a)
        self._plan = plan[1:]
