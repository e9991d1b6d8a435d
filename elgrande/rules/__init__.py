"""The El Grande rules engine: standard library only, no I/O, no clock, no global random.

See docs/api.md. The public surface is re-exported here.

The same source also runs compiled (mypyc) when a fresh build is there: ``ENGINE`` says
which one this process runs, ``ENGINE_CHOICE`` why, and ``ELGRANDE_ENGINE`` (``auto``,
``pure``, ``compiled``) chooses; see ``compiled.py`` and docs/compiled-engine.md.
"""

# ruff: noqa: E402  (the engine is chosen before its modules are imported)
from pathlib import Path

from . import compiled as _compiled

# Before any other module of the package is imported: the compiled engine's folder goes
# first in __path__ when it is chosen.
ENGINE_CHOICE = _compiled.choose(__path__)
#: ``"pure"`` or ``"compiled"``: which engine this process runs.
ENGINE = ENGINE_CHOICE.engine

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
from .views import redact, view

# The JSON Schema every view() conforms to, shipped with the package (docs/api.md); next to
# this file, which is never compiled.
VIEW_SCHEMA_PATH = Path(__file__).with_name("view.schema.json")

__all__ = [
    "ALL_CARDS", "AREA_CODES", "CARDS", "ENGINE", "ENGINE_CHOICE", "RULE_SETS", "CHANCE", "ILLEGAL_CODES", "REGION_CODES", "VIEW_SCHEMA_PATH",
    "Action", "AutoLoss", "AutoRecall", "CastilloReleased", "Event", "GameConfig",
    "IllegalAction", "Kind", "Options", "Phase", "Revealed", "Scored", "SecretPurpose",
    "SecretsRevealed", "SetupDone", "Skipped", "State", "VetoExpired", "VetoState", "Vetoed",
    "all_actions", "apply", "chance_outcomes", "check_invariants", "is_chance", "is_terminal",
    "legal_actions", "new_game", "parse_action", "redact", "replay", "resolve_chance",
    "sample_chance", "to_act", "view", "why_illegal", "winners",
]
