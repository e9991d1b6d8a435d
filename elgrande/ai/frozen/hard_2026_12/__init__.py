"""The ``hard`` bot as it was on 1 December 2026 (commit 0f2a14c): ISMCTS, 1500 iterations
per turn, that day's evaluation and playout policy. A frozen copy: never edit it
(elgrande/ai/frozen/__init__.py says why and how to add a newer one)."""

from __future__ import annotations

from .ismcts import IsmctsBot

ITERATIONS = 1500


def make(seed: int = 0) -> IsmctsBot:
    """A fresh frozen ``hard`` bot with the level's parameters of that day."""
    return IsmctsBot(seed, iterations=ITERATIONS)


__all__ = ["ITERATIONS", "IsmctsBot", "make"]
