"""Moving a started game along directly through the turn framework (fast, no HTTP)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from elgrande.matches import Match
from elgrande.rules import to_act
from elgrande.rules.state import GENERAL


def advance(svc: Any, game_id: int, until: Callable[[Match], bool], seed: int = 1,
            limit: int = 5000) -> Match:
    """Plays random legal turns (each seat: steps to its boundary, then finish) until
    `until(match)` holds for the committed match.

    Box rules: a step that opens a veto window, and the holder's ``veto`` / ``pass``, are
    committed at once (docs/matches.md, "Veto windows"): the seat then has nothing left to
    finish, and the next seat to act is the holder (not the active player), then the
    active player again, in a new draft."""
    game = svc.lobby.get(game_id)
    store = svc.store
    rng = random.Random(seed)
    for _ in range(limit):
        match = store.load(game.match_id)
        if until(match):
            return match
        if match.over:
            raise AssertionError("the game ended before the condition held")
        seat = to_act(match.state)[0]
        view = store.view(game.match_id, seat)
        while view.legal:
            view = store.step(game.match_id, seat, choose(view.legal, rng))
        if view.draft and view.draft["can_finish"]:
            store.finish(game.match_id, seat)
    raise AssertionError("condition not reached")


def choose(legal: list[str], rng: random.Random) -> str:
    """Random, except that Caballeros go into the Castillo whenever they may, so every
    seat has a Castillo destination to choose at the general scorings."""
    castillo = [a for a in legal if a.endswith(" place CAS")]
    return castillo[0] if castillo else rng.choice(legal)


def at_general_secret(match: Match) -> bool:
    """Several seats to choose a Castillo destination at once (a general scoring)."""
    state = match.state
    return state.phase_name == "secret" and state.secret_purpose == GENERAL and len(to_act(state)) >= 2
