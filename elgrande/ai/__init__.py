"""Computer opponents for El Grande: random, heuristic and ISMCTS bots (docs/ai.md).

Imports the rules engine only. A bot sees what its seat may see (``redact``) and nothing else.
"""

# ruff: noqa: E402  (the compiled modules' folder is chosen before any module is imported)
from elgrande.rules import ENGINE_CHOICE
from elgrande.rules import compiled as _compiled

# The bots' search runs compiled when the rules engine does (one build:
# docs/compiled-engine.md).
_compiled.attach(__path__, ENGINE_CHOICE, __name__)

from .base import Bot, RandomBot
from .heuristic import HeuristicBot
from .ismcts import IsmctsBot
from .levels import LEVELS, bot_names, make_bot

__all__ = ["Bot", "RandomBot", "HeuristicBot", "IsmctsBot", "LEVELS", "bot_names", "make_bot"]
