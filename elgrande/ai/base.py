"""The bot interface: every bot sees only what its seat may see.

``Bot.choose(state, seat)`` redacts the state itself before looking at it, so a caller that
passes the full state (with other seats' pending secret choices) still cannot leak them to
the bot. The order of the action stacks is never in a state at all. Whatever a bot cannot
see it fills in itself from a random source seeded by the bot's seed and the visible
position, so a choice depends only on (seed, budget, visible position, the bot's own
cached search tree).
"""

from __future__ import annotations

import hashlib
import json
import random

from elgrande.rules import Action, State, legal_actions, redact


def fingerprint(state: State) -> str:
    """A stable digest of a (redacted) state, used to seed per-decision randomness."""
    text = json.dumps(state.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class Bot:
    """Base class. Subclasses implement ``decide(visible, seat, legal, rng)``."""

    name = "bot"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.decisions = 0  # decisions that needed thought (more than one legal action)

    def choose(self, state: State, seat: int) -> Action:
        visible = redact(state, seat)
        legal = legal_actions(visible, seat)
        if not legal:
            raise ValueError(f"seat {seat} has no legal action in this position")
        if len(legal) == 1:
            return legal[0]
        self.decisions += 1
        rng = random.Random(f"{self.name}:{self.seed}:{fingerprint(visible)}")
        action = self.decide(visible, seat, legal, rng)
        assert action in legal, f"{self.name} chose an illegal action {action}"
        return action

    def decide(self, visible: State, seat: int, legal: list[Action],
               rng: random.Random) -> Action:
        raise NotImplementedError


class RandomBot(Bot):
    """Uniform over the legal atomic actions."""

    name = "random"

    def decide(self, visible: State, seat: int, legal: list[Action],
               rng: random.Random) -> Action:
        return rng.choice(legal)
