"""OpenSpiel bridge: El Grande as a Python game for OpenSpiel's algorithms.

Needs the optional extra ``pip install elgrande[openspiel]``. Importing this module registers
the game ``python_elgrande`` (parameters ``players`` 2-5, ``rounds`` 9 or 6)::

    import pyspiel
    import elgrande.ai.spiel  # registers the game
    game = pyspiel.load_game("python_elgrande", {"players": 4})

* Chance nodes are the engine's chance steps (set-up draws, round-card reveals) with their
  listed probabilities; the stack order is never part of a state.
* Simultaneous secret choices are played one seat after another (lowest seat first); a
  seat's information state never contains another seat's choice before it is revealed.
* ``information_state_string(p)``: seat p's action history with other seats' unrevealed
  secret choices masked; ``observation_string(p)``: the engine's ``view`` for p as JSON.
* ``resample_from_infostate(p, sampler)``: a state consistent with p's information: the
  other seats' unrevealed secret choices are redrawn from their legal choices.
* Returns: each seat's share of the victory (1/k for each of k tied winners, else 0).

Action ids: player actions are numbered in the engine's sort order of all non-chance
actions; chance outcomes in the sort order of all chance actions.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from elgrande.rules import (
    Action,
    GameConfig,
    all_actions,
    apply,
    chance_outcomes,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    redact,
    to_act,
    view,
    winners,
)

GAME_NAME = "python_elgrande"
MAX_GAME_LENGTH = 5000  # atomic actions incl. chance; real games use a few hundred

PLAYER_ACTIONS: list[Action] = [a for a in all_actions() if not a.is_chance]
CHANCE_ACTIONS: list[Action] = [a for a in all_actions() if a.is_chance]
PLAYER_ID = {a: i for i, a in enumerate(PLAYER_ACTIONS)}
CHANCE_ID = {a: i for i, a in enumerate(CHANCE_ACTIONS)}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="El Grande (elgrande.rules)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=5,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=False,
    parameter_specification={"players": 4, "rounds": 9},
)


class ElGrandeGame(pyspiel.Game):
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.config = GameConfig(players=int(params.get("players", 4)),
                                 rounds=int(params.get("rounds", 9)))
        info = pyspiel.GameInfo(
            num_distinct_actions=len(PLAYER_ACTIONS),
            max_chance_outcomes=len(CHANCE_ACTIONS),
            num_players=self.config.players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> ElGrandeState:
        return ElGrandeState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ElGrandeObserver:
        if params:
            raise ValueError(f"observation parameters not supported: {params}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return ElGrandeObserver(perfect_recall)


class ElGrandeState(pyspiel.State):
    def __init__(self, game: ElGrandeGame) -> None:
        super().__init__(game)
        self.state = new_game(game.config)
        self.log: list[Action] = []

    # -- the OpenSpiel contract
    def current_player(self) -> int:
        s = self.state
        if is_terminal(s):
            return int(pyspiel.PlayerId.TERMINAL)
        if is_chance(s):
            return int(pyspiel.PlayerId.CHANCE)
        return to_act(s)[0]

    def _legal_actions(self, player: int) -> list[int]:
        return [PLAYER_ID[a] for a in legal_actions(self.state, player)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(CHANCE_ID[a], p) for a, p in chance_outcomes(self.state)]

    def _apply_action(self, action: int) -> None:
        a = CHANCE_ACTIONS[action] if is_chance(self.state) else PLAYER_ACTIONS[action]
        apply(self.state, a)
        self.log.append(a)

    def _action_to_string(self, player: int, action: int) -> str:
        table = CHANCE_ACTIONS if player == pyspiel.PlayerId.CHANCE else PLAYER_ACTIONS
        return str(table[action])

    def is_terminal(self) -> bool:
        return is_terminal(self.state)

    def returns(self) -> list[float]:
        s = self.state
        if not is_terminal(s):
            return [0.0] * s.n
        win = winners(s)
        return [1.0 / len(win) if p in win else 0.0 for p in range(s.n)]

    def __str__(self) -> str:
        return "\n".join(str(a) for a in self.log)

    # -- hidden information
    def hidden_from(self, player: int) -> set[int]:
        """Log indices of other seats' secret choices that are not yet revealed."""
        s = self.state
        hidden: set[int] = set()
        for q in range(s.n):
            if q == player or s.secret[q] < 0:
                continue
            for i in range(len(self.log) - 1, -1, -1):
                a = self.log[i]
                if a.is_secret and a.seat == q:
                    hidden.add(i)
                    break
        return hidden

    def information_state_text(self, player: int) -> str:
        hidden = self.hidden_from(player)
        lines = [f"seat p{player}"]
        for i, a in enumerate(self.log):
            lines.append(f"p{a.seat} secret ?" if i in hidden else str(a))
        return "\n".join(lines)

    def observation_text(self, player: int) -> str:
        return json.dumps(view(self.state, player), sort_keys=True)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> ElGrandeState:
        """A state the seat cannot tell from this one: others' hidden choices redrawn."""
        hidden = self.hidden_from(player_id)
        seen = redact(self.state, player_id)
        log = list(self.log)
        for i in sorted(hidden):
            q = log[i].seat
            options = legal_actions(seen, q)
            pick = min(int(probability_sampler() * len(options)), len(options) - 1)
            log[i] = options[pick]
        game = self.get_game()
        clone = game.new_initial_state()
        for a in log:
            clone.apply_action(CHANCE_ID[a] if a.is_chance else PLAYER_ID[a])
        return clone


class ElGrandeObserver:
    """String-only observer: information states (perfect recall) or the seat's view."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, Any] = {}

    def set_from(self, state: ElGrandeState, player: int) -> None:
        pass

    def string_from(self, state: ElGrandeState, player: int) -> str:
        if self.perfect_recall:
            return state.information_state_text(player)
        return state.observation_text(player)


if GAME_NAME not in {g.short_name for g in pyspiel.registered_games()}:
    pyspiel.register_game(_GAME_TYPE, ElGrandeGame)
