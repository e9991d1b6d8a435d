"""Computer opponents for El Grande: random, heuristic and ISMCTS bots (docs/ai.md).

Imports the rules engine only. A bot sees what its seat may see (``redact``) and nothing else.
"""

from .base import Bot, RandomBot
from .heuristic import HeuristicBot
from .ismcts import IsmctsBot
from .levels import LEVELS, bot_names, make_bot

__all__ = ["Bot", "RandomBot", "HeuristicBot", "IsmctsBot", "LEVELS", "bot_names", "make_bot"]
