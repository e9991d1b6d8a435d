"""Refusals of the web app, and the one mapping from the turn framework's errors to
what a client is told: the same code and message over HTTP and over the WebSocket."""

from __future__ import annotations

from typing import TYPE_CHECKING

from elgrande.matches import GameMovedOn, IllegalStep, MatchError

from .i18n import N_, _
from .rule_messages import illegal_action_text

if TYPE_CHECKING:
    from .seat_views import SeatState


class LobbyError(ValueError):
    """A lobby request that cannot be done (the message says why, for the player)."""


class PlayError(Exception):
    """A refused play command: ``code`` as in elgrande.matches.errors plus a few of our
    own (bad_request, not_started, spectator). ``shown`` is the seat's view after the
    refusal when it is already at hand (a ``moved_on`` carries the new state)."""

    def __init__(self, code: str, message: str, shown: SeatState | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.shown = shown

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


# HTTP status of each code; anything else is 409 (not allowed now).
HTTP_STATUS = {"bad_request": 400, "bad_json": 400, "not_found": 404, "spectator": 403}


def http_status(code: str) -> int:
    return HTTP_STATUS.get(code, 409)


# The turn framework's refusals in words, by code (it speaks no language to players: its
# own messages are for logs). A code not listed keeps the framework's message.
MATCH_ERROR_TEXTS = {
    "not_found": N_("There is no such game."),
    "not_your_turn": N_("You may not act now."),
    "boundary": N_("Your turn has reached a point where others must see it first: undo a "
                   "step or finish the turn."),
    "nothing_to_undo": N_("There is no step to undo."),
    "nothing_to_redo": N_("There is no step to redo."),
    "nothing_to_finish": N_("There is nothing to finish yet."),
    "export_refused": N_("A running game cannot be exported with its seed."),
}


def match_error_text(exc: MatchError) -> str:
    """The player-facing text of a turn-framework refusal (the rules and the turn
    framework speak no language: an illegal step is a code and its parameters)."""
    if isinstance(exc, IllegalStep):
        return illegal_action_text(exc.rule_code, exc.params)
    if isinstance(exc, GameMovedOn):
        return _("The game moved on: it is at move %(seq)s, not %(expected)s.",
                 seq=exc.seq, expected=exc.expected_seq)
    if exc.code in MATCH_ERROR_TEXTS:
        return _(MATCH_ERROR_TEXTS[exc.code])
    return str(exc)


def from_match_error(exc: MatchError, shown: SeatState | None = None) -> PlayError:
    """``shown``: the seat's view after the refusal, when the caller has it (for
    ``GameMovedOn`` it is built from the match the error carries)."""
    return PlayError(exc.code, match_error_text(exc), shown)


__all__ = ["GameMovedOn", "LobbyError", "PlayError", "from_match_error", "http_status"]
