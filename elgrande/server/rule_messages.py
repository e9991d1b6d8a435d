"""English wording of the rules engine's refusals (``IllegalAction.code`` and ``.params``,
carried by the turn framework as ``IllegalStep.rule_code`` and ``.params``; docs/api.md).

The rules package holds no human language; this module is where its reasons become
sentences. Standard library only, so any front end may use it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any


def _seat(seat: Any) -> str:
    return "chance" if seat == -1 else f"p{seat}"


def _listing(texts: Sequence[str] | None) -> str:
    return ", ".join(texts) if texts else "none"


def _not_an_action(p: Mapping[str, Any]) -> str:
    return f"{str(p.get('action', ''))!r} is not an action (see the action notation)."


def _game_over(p: Mapping[str, Any]) -> str:
    return f"{p.get('action', 'This action')} is not legal: the game is over."


def _not_your_decision(p: Mapping[str, Any]) -> str:
    waiting = ", ".join(_seat(q) for q in p.get("to_act") or []) or "nobody"
    phase = f", phase {p['phase']}" if p.get("phase") else ""
    if p.get("seat") == -1:
        return f"{p.get('action')} is not legal: no chance step is due now (waiting for {waiting}{phase})."
    return (f"{p.get('action')} is not legal: it is not {_seat(p.get('seat'))}'s decision now "
            f"(waiting for {waiting}{phase}).")


def _not_legal_now(p: Mapping[str, Any]) -> str:
    if p.get("same_kind"):
        return (f"{p.get('action')} is not legal now; possible {p.get('kind')} actions: "
                f"{_listing(p['same_kind'])}.")
    return (f"{p.get('action')} is not legal in phase {p.get('phase')}; legal actions: "
            f"{_listing(p.get('legal'))}.")


def _bad_log_entry(p: Mapping[str, Any]) -> str:
    cause = illegal_action_text(p.get("cause", ""), p.get("cause_params") or {})
    return f"Log entry {p.get('index')} ({p.get('entry')}) cannot be played: {cause}"


_TEXTS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "not_an_action": _not_an_action,
    "game_over": _game_over,
    "not_your_decision": _not_your_decision,
    "not_legal_now": _not_legal_now,
    "bad_log_entry": _bad_log_entry,
}


def illegal_action_text(code: str, params: Mapping[str, Any]) -> str:
    """A sentence saying why an action was refused, for the player who sent it."""
    render = _TEXTS.get(code)
    if render is None:  # a code newer than this module: still say something useful
        action = params.get("action")
        return f"{action} is not possible now." if action else "This action is not possible now."
    return render(params)
