"""Random play-outs driven by a caller-supplied random.Random (for simulation and benchmarks)."""

from __future__ import annotations

import random

from .actions import Action
from .engine import apply, is_terminal, legal_actions, new_game, sample_chance
from .state import REVEAL, SETUP, VETO, GameConfig, State


def play_random_game(config: GameConfig, rng: random.Random) -> tuple[State, list[Action]]:
    """Play one whole game with uniformly random decisions; returns the final state and log."""
    s = new_game(config)
    log: list[Action] = []
    return play_out(s, rng, log), log


def play_out(s: State, rng: random.Random, log: list[Action] | None = None,
             pass_probability: float | None = None) -> State:
    """Continue ``s`` in place with uniformly random decisions until the game ends.
    ``pass_probability``: at a veto window (box rules) pass with this probability instead
    of choosing uniformly between ``veto`` and ``pass``."""
    if pass_probability is not None:
        return _play_out_passing(s, rng, log, pass_probability)
    randrange = rng.randrange
    while not is_terminal(s):
        if s.phase == SETUP or s.phase == REVEAL:
            action = sample_chance(s, rng)
        else:
            options = legal_actions(s)
            action = options[randrange(len(options))]
        apply(s, action)
        if log is not None:
            log.append(action)
    return s


def _play_out_passing(s: State, rng: random.Random, log: list[Action] | None,
                      pass_probability: float) -> State:
    randrange, random_ = rng.randrange, rng.random
    while not is_terminal(s):
        phase = s.phase
        if phase == SETUP or phase == REVEAL:
            action = sample_chance(s, rng)
        elif phase == VETO:  # [veto, pass]
            options = legal_actions(s)
            action = options[1] if random_() < pass_probability else options[0]
        else:
            options = legal_actions(s)
            action = options[randrange(len(options))]
        apply(s, action)
        if log is not None:
            log.append(action)
    return s
