"""The wording of the rules engine's refusals (``IllegalAction.code`` and ``.params``,
carried by the turn framework as ``IllegalStep.rule_code`` and ``.params``; docs/api.md),
in the reader's language (server/i18n/).

The rules package holds no human language; this module is where its reasons become
sentences."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .i18n import _


def _seat(seat: Any) -> str:
    return _("chance") if seat == -1 else f"p{seat}"


def _listing(texts: Sequence[str] | None) -> str:
    return ", ".join(texts) if texts else _("none")


def _not_an_action(p: Mapping[str, Any]) -> str:
    return _("%(text)s is not an action (see the action notation).",
             text=repr(str(p.get("action", ""))))


def _game_over(p: Mapping[str, Any]) -> str:
    if p.get("action"):
        return _("%(action)s is not legal: the game is over.", action=p["action"])
    return _("This action is not legal: the game is over.")


def _not_your_decision(p: Mapping[str, Any]) -> str:
    waiting = ", ".join(_seat(q) for q in p.get("to_act") or []) or _("nobody")
    if p.get("phase"):
        waiting = _("%(seats)s, phase %(phase)s", seats=waiting, phase=p["phase"])
    if p.get("seat") == -1:
        return _("%(action)s is not legal: no chance step is due now (waiting for "
                 "%(waiting)s).", action=p.get("action"), waiting=waiting)
    return _("%(action)s is not legal: it is not %(seat)s's decision now (waiting for "
             "%(waiting)s).", action=p.get("action"), seat=_seat(p.get("seat")),
             waiting=waiting)


def _not_legal_now(p: Mapping[str, Any]) -> str:
    if p.get("same_kind"):
        return _("%(action)s is not legal now; possible %(kind)s actions: %(listing)s.",
                 action=p.get("action"), kind=p.get("kind"), listing=_listing(p["same_kind"]))
    return _("%(action)s is not legal in phase %(phase)s; legal actions: %(listing)s.",
             action=p.get("action"), phase=p.get("phase"), listing=_listing(p.get("legal")))


def _bad_log_entry(p: Mapping[str, Any]) -> str:
    cause = illegal_action_text(p.get("cause", ""), p.get("cause_params") or {})
    return _("Log entry %(index)s (%(entry)s) cannot be played: %(cause)s",
             index=p.get("index"), entry=p.get("entry"), cause=cause)


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
        return (_("%(action)s is not possible now.", action=action) if action
                else _("This action is not possible now."))
    return render(params)
