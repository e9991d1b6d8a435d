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

from elgrande.rules import ENGINE_CHOICE
from elgrande.rules.compiled import load_package

# A frozen copy's own __init__ never changes, so its compiled search (when the engine
# runs compiled, docs/compiled-engine.md) is attached from here, before that __init__ runs.
load_package(f"{__name__}.hard_2026_12", ENGINE_CHOICE)

from . import hard_2026_12  # noqa: E402  (loaded just above)

__all__ = ["hard_2026_12"]
