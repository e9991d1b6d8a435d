"""The OpenSpiel bridge (optional extra elgrande[openspiel], installed with the dev extras)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts as spiel_ismcts
from open_spiel.python.algorithms import mcts as spiel_mcts

import elgrande.ai.spiel  # noqa: F401  (registers python_elgrande)
from elgrande.ai.spiel import GAME_NAME


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_openspiel_random_simulation_check(players: int) -> None:
    game = pyspiel.load_game(GAME_NAME, {"players": players})
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def _to_multi_secret_step(players: int, seed: int) -> tuple[Any, list[int]]:
    """Play at random until a secret step where two or more seats still choose."""
    game = pyspiel.load_game(GAME_NAME, {"players": players})
    rng = random.Random(seed)
    for _ in range(200):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            pending = elgrande.ai.spiel.to_act(state.state)
            if state.state.phase_name == "secret" and len(pending) >= 2:
                return state, pending
            state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError("no multi-seat secret step")


def test_information_states_hide_and_resampling_redraws_secret_choices() -> None:
    state, pending = _to_multi_secret_step(4, seed=3)
    first, second = pending[0], pending[1]
    options = len(state.legal_actions())
    assert options >= 2
    state.apply_action(state.legal_actions()[-1])  # the first seat chooses
    info = state.information_state_string(second)
    assert "secret ?" in info  # the first seat's choice is masked for the second
    assert state.information_state_string(first).count("secret ?") == 0
    assert state.observation_string(second) != state.observation_string(first)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    worlds = [state.resample_from_infostate(second, sampler) for _ in range(20)]
    for w in worlds:
        assert w.information_state_string(second) == info
        assert w.current_player() == state.current_player()
    choices = {w.state.secret[first] for w in worlds}
    assert all(c >= 0 for c in choices)
    assert len(choices) >= 2  # 20 uniform redraws of at least 2 options


def test_openspiel_ismcts_and_mcts_can_play_the_game() -> None:
    game = pyspiel.load_game(GAME_NAME, {"players": 3})
    rng = np.random.RandomState(1)
    evaluator = spiel_mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = spiel_ismcts.ISMCTSBot(game, evaluator, uct_c=1.0, max_simulations=8,
                                 random_state=rng)
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal() and moves < 12:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        moves += 1
    assert moves == 12
