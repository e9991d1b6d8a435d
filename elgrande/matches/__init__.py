"""The turn framework: committed log, per-seat drafts with undo/redo, information
boundaries, chance from a secret seed, storage. See docs/matches.md."""

from .chance import commitment, new_seed
from .draft import Draft, draft_version
from .errors import (
    BoundaryReached,
    ExportRefused,
    GameMovedOn,
    IllegalStep,
    MatchError,
    MatchNotFound,
    NothingToFinish,
    NothingToRedo,
    NothingToUndo,
    NotYourTurn,
    TurnRefused,
)
from .match import LogEntry, Match, SeatView
from .pubsub import Broker, InProcessBroker, MatchEvent
from .record import VerifyError, export, listing, verify
from .store import Check, MatchStore, Within

__all__ = [
    "BoundaryReached", "Broker", "Check", "Draft", "ExportRefused", "GameMovedOn", "IllegalStep",
    "InProcessBroker", "LogEntry", "Match", "MatchError", "MatchEvent", "MatchNotFound",
    "MatchStore", "NotYourTurn", "NothingToFinish", "NothingToRedo", "NothingToUndo",
    "SeatView", "TurnRefused", "VerifyError", "Within", "commitment", "draft_version", "export", "listing", "new_seed", "verify",
]
