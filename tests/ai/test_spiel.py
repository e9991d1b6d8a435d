"""The OpenSpiel bridge (optional extra elgrande[openspiel], installed with the dev extras)."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts as spiel_ismcts
from open_spiel.python.algorithms import mcts as spiel_mcts

import elgrande.ai.spiel  # noqa: F401  (registers python_elgrande)
from elgrande.ai import spiel
from elgrande.ai.spiel import GAME_NAME
from elgrande.cli import main
from elgrande.rules import (
    Action,
    GameConfig,
    Phase,
    check_invariants,
    legal_actions,
    new_game,
    redact,
    replay,
    to_act,
)


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


# -- the fast bridge against the plain definitions (what the first bridge computed)


def _log(state: Any) -> list[Action]:
    """The whole action history, from OpenSpiel's own record of it."""
    log = [spiel.CHANCE_ACTIONS[pa.action] if pa.player == pyspiel.PlayerId.CHANCE
           else spiel.PLAYER_ACTIONS[pa.action] for pa in state.full_history()]
    assert state.log == log
    return log


def _hidden(state: Any, player: int) -> list[int]:
    """Log indices of other seats' secret choices not yet revealed."""
    log, s = _log(state), state.state
    hidden = []
    for q in range(s.n):
        if q != player and s.secret[q] >= 0:
            hidden.append(max(i for i, a in enumerate(log) if a.is_secret and a.seat == q))
    return sorted(hidden)


def _reference_information_state(state: Any, player: int) -> str:
    hidden = set(_hidden(state, player))
    return "\n".join([f"seat p{player}"] + [
        f"p{a.seat} secret ?" if i in hidden else str(a) for i, a in enumerate(_log(state))])


def _reference_resample(state: Any, player: int, draw: Any) -> list[Action]:
    """The first bridge's resampling: redraw each hidden choice from the seat's legal
    choices in the redacted state, in log order; the log to replay."""
    log = _log(state)
    seen = redact(state.state, player)
    for i in _hidden(state, player):
        options = legal_actions(seen, log[i].seat)
        log[i] = options[min(int(draw() * len(options)), len(options) - 1)]
    return log


def _ids(log: list[Action]) -> list[int]:
    return [spiel.CHANCE_ID[a] if a.is_chance else spiel.PLAYER_ID[a] for a in log]


def _check_state(state: Any, rng: random.Random) -> None:
    s = state.state
    # Cached answers agree with OpenSpiel's C++ path and with the engine.
    assert state.current_player() == pyspiel.State.current_player(state)
    assert state.legal_actions() == pyspiel.State.legal_actions(state)
    assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
    if not state.is_chance_node() and not state.is_terminal():
        assert state.legal_actions() == [spiel.PLAYER_ID[a] for a in
                                         legal_actions(s, to_act(s)[0])]
    for p in range(s.n):
        info = state.information_state_string(p)
        assert info == _reference_information_state(state, p)
        assert info == pyspiel.State.information_state_string(state, p)
        # Never another seat's unrevealed choice: the same text in every world it allows.
        for q in range(s.n):
            if q != p and s.secret[q] >= 0:
                assert f"p{q} secret ?" in info.splitlines()
    if state.is_terminal() or state.is_chance_node():
        return
    player = state.current_player()
    if _hidden(state, player):
        for k in range(2):
            world = state.resample_from_infostate(player, random.Random(k).random)
            log = _reference_resample(state, player, random.Random(k).random)
            assert world.history() == _ids(log)
            assert world.state.to_dict() == replay(s.config, log).to_dict()
            assert world.information_state_string(player) == state.information_state_string(player)
            assert world.observation_string(player) == state.observation_string(player)
            assert redact(world.state, player).to_dict() == redact(s, player).to_dict()
            assert world.current_player() == player
            assert world.legal_actions() == state.legal_actions()
            check_invariants(world.state)
    if rng.random() < 0.1 or s.phase == Phase.SECRET:
        twin = state.clone()
        assert twin.history() == state.history() and str(twin) == str(state)
        assert twin.state.to_dict() == s.to_dict()
        for p in range(s.n):
            assert twin.information_state_string(p) == state.information_state_string(p)
            assert twin.observation_string(p) == state.observation_string(p)
        before = [state.information_state_string(p) for p in range(s.n)], state.history()
        while not twin.is_terminal() and len(twin.history()) < len(state.history()) + 20:
            twin.apply_action(rng.choice(twin.legal_actions()) if not twin.is_chance_node()
                              else twin.chance_outcomes()[0][0])
        assert ([state.information_state_string(p) for p in range(s.n)],
                state.history()) == before


@pytest.mark.parametrize(("players", "rounds", "seed"), [(4, 9, 3), (3, 9, 11), (5, 6, 7)])
def test_fast_bridge_agrees_with_the_plain_definitions(players: int, rounds: int,
                                                      seed: int) -> None:
    """A whole random game: at every state the cached player and actions, the incremental
    information-state strings and the resampling without replay equal what the first
    bridge computed from the whole log; clones are equal and independent."""
    game = pyspiel.load_game(GAME_NAME, {"players": players, "rounds": rounds})
    rng = random.Random(seed)
    state = game.new_initial_state()
    hidden_seen = 0
    while not state.is_terminal():
        _check_state(state, rng)
        if not state.is_chance_node() and _hidden(state, state.current_player()):
            hidden_seen += 1
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    _check_state(state, rng)
    assert hidden_seen > 0
    assert str(state) == "\n".join(str(a) for a in _log(state))
    assert state.returns() == spiel.win_shares(replay(state.state.config, _log(state)))


def test_new_initial_states_share_nothing_they_change() -> None:
    game = pyspiel.load_game(GAME_NAME, {"players": 3})
    first, second = game.new_initial_state(), game.new_initial_state()
    fresh = new_game(GameConfig(players=3)).to_dict()
    first.apply_action(first.legal_actions()[0])
    assert second.state.to_dict() == fresh and second.history() == []
    assert second.information_state_string(0) == "seat p0"
    assert game.new_initial_state().state.to_dict() == fresh
    assert first.state.to_dict() != fresh


def test_clone_is_fast() -> None:
    """The point of the bridge's core: a clone is a few microseconds (OpenSpiel's deep
    copy took some 400); generous, for a loaded machine."""
    state, _ = _to_multi_secret_step(4, seed=3)
    start = time.process_time()
    for _ in range(2000):
        state.clone()
    assert (time.process_time() - start) / 2000 < 100e-6


def test_random_rollouts_evaluator_for_openspiel_mcts() -> None:
    game = pyspiel.load_game(GAME_NAME, {"players": 3})
    state, _ = _to_multi_secret_step(3, seed=5)
    evaluator = spiel.RandomRollouts(n_rollouts=2, seed=1)
    value = evaluator.evaluate(state)
    assert value.shape == (3,) and abs(value.sum() - 1.0) < 1e-9
    prior = evaluator.prior(state)
    assert [a for a, _ in prior] == state.legal_actions()
    assert abs(sum(p for _, p in prior) - 1.0) < 1e-9
    bot = spiel_mcts.MCTSBot(game, 2.0, 10, evaluator, random_state=np.random.RandomState(1))
    assert bot.step(state) in state.legal_actions()
    ismcts_bot = spiel_ismcts.ISMCTSBot(game, evaluator, 1.0, max_simulations=10,
                                        random_state=np.random.RandomState(1))
    assert ismcts_bot.step(state) in state.legal_actions()


def test_bench_spiel_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "spiel", "--seconds", "0.01", "--simulations", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [p["position"] for p in report["positions"]] == ["early", "middle", "secret"]
    secret = report["positions"][2]
    assert secret["phase"] == "secret" and secret["clone_us"] > 0
    assert secret["ismcts_engine_rollouts_iterations_per_s"] > 0
