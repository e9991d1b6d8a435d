"""Positions for bot tests: reached by seeded random play, one per decision phase."""

from __future__ import annotations

import random
from typing import Any

from elgrande.rules import (
    GameConfig,
    Options,
    State,
    apply,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    resolve_chance,
    to_act,
)
from elgrande.rules.state import CHANCE_PHASES, GAME_OVER, PHASE_NAMES, SOURCE, VETO

DECISION_PHASES = frozenset(
    name for i, name in enumerate(PHASE_NAMES) if i not in CHANCE_PHASES and i != GAME_OVER
)
# Phases only the box rules have (rules.md §12: the Veto's windows, 1g's declaration).
BOX_PHASES = frozenset({PHASE_NAMES[VETO], PHASE_NAMES[SOURCE]})


def positions_by_phase(players: int, seed: int = 0, max_games: int = 400) -> dict[str, State]:
    """The first position met in each decision phase, with a genuine choice to make: Yucata's
    phases in Yucata's games, then the box rules' own phases in box games."""
    found: dict[str, State] = {}
    for options, phases, label in ((Options(), DECISION_PHASES - BOX_PHASES, "positions"),
                                   (Options.preset("box"), DECISION_PHASES, "box positions")):
        rng = random.Random(f"{label}:{players}:{seed}")
        for _ in range(max_games):
            if set(found) >= phases:
                break
            state = new_game(GameConfig(players=players, options=options))
            while not is_terminal(state):
                if is_chance(state):
                    resolve_chance(state, rng)
                    continue
                seat = to_act(state)[0]
                legal = legal_actions(state, seat)
                if state.phase_name not in found and state.phase_name in phases and len(legal) > 1:
                    found[state.phase_name] = state.copy()
                apply(state, rng.choice(legal))
    return found


def multi_secret_position(players: int, seed: int = 0) -> State:
    """A secret step where at least two seats still choose (none has chosen yet)."""
    rng = random.Random(f"secret:{players}:{seed}")
    for _ in range(500):
        state = new_game(GameConfig(players=players))
        while not is_terminal(state):
            if is_chance(state):
                resolve_chance(state, rng)
                continue
            seats = to_act(state)
            if state.phase_name == "secret" and len(seats) >= 2:
                return state
            seat = seats[0]
            apply(state, rng.choice(legal_actions(state, seat)))
    raise AssertionError("no multi-seat secret step found")


def finished_game(players: int, seed: int = 0, rounds: int = 6) -> State:
    """A whole game of seeded random play, at its end."""
    rng = random.Random(f"finished:{players}:{seed}")
    state = new_game(GameConfig(players=players, rounds=rounds))
    while not is_terminal(state):
        if is_chance(state):
            resolve_chance(state, rng)
            continue
        apply(state, rng.choice(legal_actions(state, to_act(state)[0])))
    return state


def replayed_choices(name: str, state: State, seat: int, iterations: int) -> set[Any]:
    """The choices two fresh bots of that name make in ``state`` with that budget: one
    choice, if the bot replays exactly."""
    from elgrande.ai import make_bot
    from elgrande.ai.ismcts import IsmctsBot

    choices = set()
    for _ in range(2):
        bot = make_bot(name, 3)
        assert isinstance(bot, IsmctsBot)
        bot.iterations = iterations
        choices.add(bot.choose(state, seat))
    return choices


def root_totals(bot: Any, state: State, seat: int, iterations: int = 40,
                seed: int = 2) -> dict[Any, float]:
    """The reward totals of the root's children after ``iterations`` of ``bot``'s search
    from ``state`` (redacted for ``seat``) with seeded draws: two search variants given the
    same draws differ here exactly when their judgements do."""
    from elgrande.ai.ismcts import Node
    from elgrande.rules import redact

    seen = redact(state, seat)
    root = Node(-1)
    rng = random.Random(seed)
    for _ in range(iterations):
        bot.iterate(seen, seat, root, rng)
    return {a: round(c.total, 6) for a, c in root.children.items()}
