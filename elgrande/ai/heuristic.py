"""The heuristic bot: a one-ply greedy choice over whole turns, judged by ``evaluate``.

A turn is several atomic engine actions by the same seat (recruit, take a card, deploy
Caballeros one by one, the special action step by step, finish). The bot runs a beam
search over those atomic sequences on copies of its redacted state, evaluates every way the
turn can end, and then plays the best sequence one action at a time, re-planning only if the
position is not the one it expected. Secret choices (simultaneous with other seats) are
judged by sampling the other seats' choices, which the bot cannot see.
"""

from __future__ import annotations

import random

from elgrande.rules import (
    Action,
    State,
    apply,
    is_chance,
    is_terminal,
    legal_actions,
    to_act,
)
from elgrande.rules.state import SECRET

from .base import Bot
from .evaluate import DEFAULT_WEIGHTS, Weights, evaluate, utility

MAX_TURN_DEPTH = 48


def turn_over(s: State, seat: int) -> bool:
    """True once the seat no longer acts alone (someone else, chance, a secret step, the end)."""
    if is_terminal(s) or is_chance(s):
        return True
    return to_act(s) != [seat]


def settle_secrets(s: State, rng: random.Random, observer: int) -> None:
    """Fill pending secret choices of seats other than ``observer`` at random, in place.

    Used to judge a position that waits on choices the observer cannot know.
    """
    while not is_terminal(s) and not is_chance(s) and s.phase == SECRET:
        seats = [p for p in to_act(s) if p != observer]
        if not seats:
            return
        p = seats[0]
        apply(s, rng.choice(legal_actions(s, p)))


def state_key(s: State) -> tuple:
    """What distinguishes two positions inside one turn (transpositions are merged)."""
    return (
        s.phase, s.card, s.parts_done, s.deploy_left, s.count_left, s.own_left, s.opp_left,
        s.any_left, s.source, s.picked, s.king, s.active,
        tuple(s.cab), tuple(s.court), tuple(s.provinces), tuple(s.scores), tuple(s.grande),
        tuple(s.tiles), tuple(s.hand), tuple(s.arrived), tuple(s.available), tuple(s.secret),
        tuple(s.queue),
    )


class TurnEnd:
    """One way to end a turn: its value to the seat, its actions, the position after."""

    __slots__ = ("value", "actions", "state")

    def __init__(self, value: float, actions: list[Action], state: State) -> None:
        self.value = value
        self.actions = actions
        self.state = state


class HeuristicBot(Bot):
    name = "heuristic"

    def __init__(self, seed: int = 0, beam: int = 4, noise: float = 0.0, samples: int = 3,
                 weights: Weights = DEFAULT_WEIGHTS) -> None:
        super().__init__(seed)
        self.beam = beam
        self.noise = noise
        self.samples = samples
        self.weights = weights
        self._plan: list[tuple[State, Action]] = []

    def decide(self, visible: State, seat: int, legal: list[Action],
               rng: random.Random) -> Action:
        if len(to_act(visible)) > 1 or visible.phase == SECRET:
            return self.secret_choice(visible, seat, legal, rng)
        while self._plan:
            expected, action = self._plan.pop(0)
            if expected == visible and action in legal:
                return action
            self._plan = []
        actions = self.plan_turn(visible, seat, rng)
        # Remember the rest of the plan with the positions in which to play it.
        s = visible.copy()
        plan = []
        for a in actions:
            plan.append((s.copy(), a))
            apply(s, a)
        self._plan = plan[1:]
        return actions[0]

    def value(self, s: State, seat: int) -> float:
        return utility(evaluate(s, self.weights), seat)

    def final_value(self, s: State, seat: int, rng: random.Random) -> float:
        """Value of a position at the end of a turn, averaging over unknown secret choices."""
        if not is_terminal(s) and not is_chance(s) and s.phase == SECRET \
                and any(p != seat for p in to_act(s)):
            total = 0.0
            for _ in range(self.samples):
                c = s.copy()
                settle_secrets(c, rng, seat)
                total += self.value(c, seat)
            return total / self.samples
        return self.value(s, seat)

    def plan_turn(self, root: State, seat: int, rng: random.Random) -> list[Action]:
        """The best atomic action sequence from here to the end of the seat's turn."""
        ends, unfinished = self.turn_ends(root, seat, rng)
        best: TurnEnd | None = None
        for end in ends:  # the first of the best, in the order the search met them
            if best is None or end.value > best.value:
                best = end
        if best is None:  # the turn did not end within the depth limit: follow the beam
            return unfinished if unfinished else [legal_actions(root, seat)[0]]
        return best.actions

    def turn_ends(self, root: State, seat: int, rng: random.Random
                  ) -> tuple[list[TurnEnd], list[Action]]:
        """Every way the beam search found to end the seat's turn, valued, in the order
        met; and the beam's best unfinished sequence (for a turn longer than the depth
        limit)."""
        beam: list[tuple[State, list[Action]]] = [(root, [])]
        ends: list[TurnEnd] = []
        seen: set[tuple] = set()
        for _depth in range(MAX_TURN_DEPTH):
            children: list[tuple[float, State, list[Action]]] = []
            for s, actions in beam:
                for a in legal_actions(s, seat):
                    c = s.copy()
                    apply(c, a)
                    seq = actions + [a]
                    if turn_over(c, seat):
                        v = self.final_value(c, seat, rng)
                        if self.noise:
                            v += rng.gauss(0.0, self.noise)
                        ends.append(TurnEnd(v, seq, c))
                        continue
                    key = state_key(c)
                    if key in seen:
                        continue
                    seen.add(key)
                    children.append((self.value(c, seat), c, seq))
            if not children:
                break
            children.sort(key=lambda t: -t[0])
            beam = [(c, seq) for _v, c, seq in children[: self.beam]]
        return ends, beam[0][1]

    def secret_choice(self, visible: State, seat: int, legal: list[Action],
                      rng: random.Random) -> Action:
        """Pick the secret region that does best against sampled choices of the others."""
        scored = []
        for a in legal:
            total = 0.0
            for _ in range(self.samples):
                c = visible.copy()
                apply(c, a)
                settle_secrets(c, rng, seat)
                total += self.value(c, seat)
            v = total / self.samples
            if self.noise:
                v += rng.gauss(0.0, self.noise)
            scored.append((v, a))
        return max(scored, key=lambda t: t[0])[1]
