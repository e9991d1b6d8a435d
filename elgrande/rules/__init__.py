"""The El Grande rules engine: standard library only, no I/O, no clock, no global random.

See docs/api.md. The public surface is re-exported here.
"""

from .actions import CHANCE, Action, Kind, all_actions, parse_action
from .board import AREA_CODES, REGION_CODES
from .cards import ALL_CARDS, CARDS
from .engine import (
    ILLEGAL_CODES,
    IllegalAction,
    apply,
    chance_outcomes,
    check_invariants,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    replay,
    resolve_chance,
    sample_chance,
    to_act,
    why_illegal,
    winners,
)
from .events import (
    AutoLoss,
    AutoRecall,
    CastilloReleased,
    Event,
    Revealed,
    Scored,
    SecretsRevealed,
    SetupDone,
    Skipped,
    Vetoed,
    VetoExpired,
)
from .state import RULE_SETS, GameConfig, Options, Phase, SecretPurpose, State, VetoState
from .views import VIEW_SCHEMA_PATH, redact, view

__all__ = [
    "ALL_CARDS", "AREA_CODES", "CARDS", "RULE_SETS", "CHANCE", "ILLEGAL_CODES", "REGION_CODES", "VIEW_SCHEMA_PATH",
    "Action", "AutoLoss", "AutoRecall", "CastilloReleased", "Event", "GameConfig",
    "IllegalAction", "Kind", "Options", "Phase", "Revealed", "Scored", "SecretPurpose",
    "SecretsRevealed", "SetupDone", "Skipped", "State", "VetoExpired", "VetoState", "Vetoed",
    "all_actions", "apply", "chance_outcomes", "check_invariants", "is_chance", "is_terminal",
    "legal_actions", "new_game", "parse_action", "redact", "replay", "resolve_chance",
    "sample_chance", "to_act", "view", "why_illegal", "winners",
]
