"""The El Grande rules engine: standard library only, no I/O, no clock, no global random.

See docs/api.md. The public surface is re-exported here.
"""

from .actions import CHANCE, Action, all_actions, parse_action
from .board import AREA_CODES, REGION_CODES
from .cards import CARDS
from .engine import (
    IllegalAction,
    apply,
    chance_outcomes,
    check_invariants,
    explain_illegal,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    replay,
    resolve_chance,
    sample_chance,
    to_act,
    winners,
)
from .state import GameConfig, Options, State
from .views import redact, view

__all__ = [
    "AREA_CODES", "CARDS", "CHANCE", "REGION_CODES", "Action", "GameConfig", "IllegalAction",
    "Options", "State", "all_actions", "apply", "chance_outcomes", "check_invariants",
    "explain_illegal", "is_chance", "is_terminal", "legal_actions", "new_game", "parse_action",
    "redact", "replay", "resolve_chance", "sample_chance", "to_act", "view", "winners",
]
