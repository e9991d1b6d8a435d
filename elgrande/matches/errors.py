"""Errors of the turn framework. Each has a short ``code`` the web layer can map to a response."""

from __future__ import annotations

from typing import Any


class MatchError(Exception):
    """Base class: the request was refused and nothing changed."""

    code = "match_error"


class MatchNotFound(MatchError):
    code = "not_found"


class NotYourTurn(MatchError):
    """The seat may not act in its draft now (someone else is to act, or the game is over)."""

    code = "not_your_turn"


class BoundaryReached(MatchError):
    """The draft ended on an information boundary: only Undo or Finish are possible."""

    code = "boundary"


class IllegalStep(MatchError):
    """The action is not legal here (or not valid notation); the reason is in the message."""

    code = "illegal"


class NothingToUndo(MatchError):
    code = "nothing_to_undo"


class NothingToRedo(MatchError):
    code = "nothing_to_redo"


class NothingToFinish(MatchError):
    code = "nothing_to_finish"


class ExportRefused(MatchError):
    """A running game cannot be exported with its seed (that would reveal future draws)."""

    code = "export_refused"


class GameMovedOn(MatchError):
    """The committed log is no longer at the sequence number the request was based on.

    ``view`` is the seat's fresh view (the same dict as ``SeatView.to_dict()``), so the
    caller can show the new state at once; the seat's draft has been rebased onto it.
    """

    code = "moved_on"

    def __init__(self, match_id: str, expected_seq: int, seq: int, view: dict[str, Any]) -> None:
        super().__init__(
            f"the game moved on: match {match_id} is at sequence {seq}, not {expected_seq}"
        )
        self.match_id = match_id
        self.expected_seq = expected_seq
        self.seq = seq
        self.view = view
