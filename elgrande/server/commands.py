"""A seat's command (step, undo, redo, finish), parsed once at the edge (the HTTP
routes and the WebSocket) into one typed value that is passed down as it is."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, cast

from elgrande.rules import Action, parse_action

from .errors import PlayError

CommandKind = Literal["step", "undo", "redo", "finish"]
COMMANDS: tuple[CommandKind, ...] = ("step", "undo", "redo", "finish")
MAX_ACTION = 60  # characters of an action's notation


@dataclass(frozen=True, slots=True)
class Command:
    kind: CommandKind
    seq: int | None = None  # the committed log length the page is based on
    action: Action | None = None  # a step's action

    @property
    def commits_at_once(self) -> bool:
        """Confirming a secret choice in its dialog is the whole turn: it is committed
        with the step; so is answering a veto window (box rules). (The step that opens
        a window is committed with it too, by the turn framework: docs/matches.md.)"""
        return self.action is not None and (self.action.is_secret
                                            or self.action.kind in ("veto", "pass"))


def parse_command(kind: Any, seq: Any = None, action: Any = None) -> Command:
    """Raises PlayError("bad_request" or "illegal") for anything malformed."""
    if kind not in COMMANDS:
        raise PlayError("bad_request", f"unknown command {kind!r}")
    if seq is not None and (not isinstance(seq, int) or isinstance(seq, bool)):
        raise PlayError("bad_request", "'seq' must be an integer")
    if kind != "step":
        return Command(cast(CommandKind, kind), seq)
    if not isinstance(action, str):
        raise PlayError("bad_request", "a step needs an 'action' string")
    if len(action) > MAX_ACTION:
        raise PlayError("bad_request", f"an action has at most {MAX_ACTION} characters")
    try:
        parsed = parse_action(action)
    except ValueError as exc:
        raise PlayError("illegal", f"not an action: {action!r} ({exc})") from None
    return Command("step", seq, parsed)
