"""Errors of the turn framework. Each has a short ``code`` the web layer can map to a response."""

from __future__ import annotations

from collections.abc import Mapping
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
    """The action is not legal here (or not valid notation).

    ``rule_code`` and ``params`` are the rules engine's reason (``IllegalAction.code`` and
    ``.params``, docs/api.md); the message is their neutral "code key=value" form. Wording
    it for people is the web layer's job (elgrande.server.rule_messages).
    """

    code = "illegal"

    def __init__(self, rule_code: str, params: Mapping[str, Any] | None = None) -> None:
        self.rule_code = rule_code
        self.params: dict[str, Any] = dict(params or {})
        super().__init__(" ".join([rule_code, *(f"{k}={v!r}" for k, v in self.params.items())]))


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

    ``match`` is the match as it is now, with the seat's draft (rebased onto the new
    log), so the caller can show the new state at once without reading it again;
    ``view`` is the seat's view of it (``SeatView.to_dict()``). The message names no
    internal id: it reaches players."""

    code = "moved_on"

    def __init__(self, match: Any, seat: int | None, expected_seq: int) -> None:
        super().__init__(f"the game moved on: it is at move {match.seq}, not {expected_seq}")
        self.match = match
        self.seat = seat
        self.expected_seq = expected_seq
        self.seq: int = match.seq

    @property
    def view(self) -> dict[str, Any]:
        found: dict[str, Any] = self.match.seat_view(self.seat).to_dict()
        return found


class TurnRefused(MatchError):
    """A caller's check inside a commit's transaction refused the turn (``within`` of
    ``MatchStore.play_turn``); ``code`` is the caller's."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
