"""Chance from a secret per-match seed, with a public SHA-256 commitment.

Every chance step of a match is drawn with its own ``random.Random`` seeded from
``sha256(f"{seed}:{seq}")`` where ``seq`` is the 1-based log position the outcome
gets. So each draw can be re-derived on its own once the seed is revealed, and the
commitment ``sha256(seed)`` published at the start proves the seed was fixed then.
"""

from __future__ import annotations

import hashlib
import random
import secrets

from elgrande.rules import Action, State, chance_outcomes


def new_seed() -> str:
    """A fresh secret seed: 64 hex digits (256 bits)."""
    return secrets.token_hex(32)


def commitment(seed: str) -> str:
    """The public commitment to ``seed``: hex SHA-256 of its UTF-8 text."""
    return hashlib.sha256(seed.encode()).hexdigest()


def rng_for(seed: str, seq: int) -> random.Random:
    digest = hashlib.sha256(f"{seed}:{seq}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def draw(seed: str, seq: int, state: State) -> Action:
    """The outcome of the chance step ``state`` is at, for log position ``seq``."""
    outcomes = chance_outcomes(state)
    if not outcomes:
        raise ValueError("the state is not at a chance step")
    total = sum(p for _, p in outcomes)
    x = rng_for(seed, seq).random() * total
    acc = 0.0
    for action, p in outcomes:
        acc += p
        if x < acc:
            return action
    return outcomes[-1][0]  # float rounding at the very top end
