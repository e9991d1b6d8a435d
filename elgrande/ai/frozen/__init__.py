"""Frozen bots: fixed yardsticks that later work on the live bots cannot move.

Each sub-package is a verbatim copy of the code one bot needed on the day it was frozen
(evaluation, search, playout policy, parameters, the seeding of its randomness); only the
rules engine (``elgrande.rules``) and the ``Bot`` interface type are shared with the live
code. They are copies on purpose: never edit them, not even for a rename or a lint rule in
the live code, or every strength figure measured against them loses its meaning. To move
the yardstick, add a new frozen version next to the old one (docs/ai.md, "The frozen
baseline") and point ``baseline`` in elgrande/ai/levels.py at it.

``tests/ai/test_frozen.py`` checks against a stored list of moves that a frozen bot never
changes its play.
"""

from __future__ import annotations

from . import hard_2026_12

__all__ = ["hard_2026_12"]
