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
* ``RandomRollouts``: an evaluator for OpenSpiel's MCTS and ISMCTS bots that plays its
  random rollouts on the engine itself (what ``mcts.RandomRolloutEvaluator`` does through
  the bridge, several times faster).

Action ids: player actions are numbered in the engine's sort order of all non-chance
actions; chance outcomes in the sort order of all chance actions.

Speed (docs/ai.md, ``elgrande bench spiel``): everything a state holds is one ``_Core``
object, the only entry of the state's ``__dict__``, which OpenSpiel's ``Clone`` deep-copies
(``_Core.__deepcopy__``: ``State.copy()``); a new initial state shares the game's core
until its first action. The current player, the legal actions and the chance outcomes
are cached until the next action; the history's text is kept joined as it grows; the
hot OpenSpiel methods (``legal_actions``, ``is_chance_node``, the information-state and
observation strings) are answered in Python without a round trip through C++.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from elgrande.rules import (
    Action,
    GameConfig,
    Phase,
    State,
    all_actions,
    apply,
    chance_outcomes,
    legal_actions,
    new_game,
    sample_chance,
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
_TEXT = {a: str(a) for a in all_actions()}

_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_SETUP, _REVEAL, _SECRET, _GAME_OVER = (
    int(Phase.SETUP), int(Phase.REVEAL), int(Phase.SECRET), int(Phase.GAME_OVER))
_PENDING = -1  # State.secret[p] of a seat still to choose
# History lines kept as actions before they are joined into the text (bounds the list a
# clone copies).
_FOLD_AT = 64

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
        # Every new initial state starts from this one (never changed: shared = True).
        self.initial_core = _Core(new_game(self.config), shared=True)

    def new_initial_state(self) -> ElGrandeState:
        return ElGrandeState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ElGrandeObserver:
        if params:
            raise ValueError(f"observation parameters not supported: {params}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return ElGrandeObserver(perfect_recall)


class _Core:
    """What one bridge state holds. OpenSpiel clones a Python state by making a new
    initial state and deep-copying each entry of the old one's ``__dict__``: this is the
    only entry, and ``__deepcopy__`` copies it with ``State.copy()``.

    The history is kept for the information-state strings: ``text``, the older lines
    joined (all public), then ``lines``, the later actions. While a secret step is not
    revealed, ``lines[hidden_at:]`` are its actions so far (the choices some seat may not
    see) and ``before`` is the bridge state just before its first choice, which
    resampling replays them from."""

    __slots__ = ("state", "shared", "player", "legal", "chance", "infos", "text", "lines",
                 "hidden_at", "before")

    def __init__(self, state: State, shared: bool = False) -> None:
        self.state = state
        #: The game's core of the initial state: copied before any change.
        self.shared = shared
        # Caches of this version of the state (None: not computed); never changed in place.
        self.player: int | None = None
        self.legal: list[int] | None = None
        self.chance: list[tuple[int, float]] | None = None
        self.infos: dict[int, str] | None = None  # information-state strings per seat
        self.text = ""
        self.lines: list[Action] = []
        self.hidden_at = -1
        self.before: ElGrandeState | None = None

    def __deepcopy__(self, memo: Any) -> _Core:
        c = _Core.__new__(_Core)
        c.state = self.state.copy()
        c.shared = False
        c.player = self.player
        c.legal = self.legal
        c.chance = self.chance
        c.infos = self.infos
        c.text = self.text
        c.lines = self.lines[:]
        c.hidden_at = self.hidden_at
        c.before = self.before  # never changed once taken
        return c

    def fold(self, k: int) -> None:
        """Join the first ``k`` lines (public ones) into the text."""
        if k <= 0:
            return
        part = "\n".join([_TEXT[a] for a in self.lines[:k]])
        self.text = f"{self.text}\n{part}" if self.text else part
        del self.lines[:k]
        if self.hidden_at > 0:
            self.hidden_at -= k


class ElGrandeState(pyspiel.State):
    def __init__(self, game: ElGrandeGame) -> None:
        super().__init__(game)
        self._c = game.initial_core

    @property
    def state(self) -> State:
        """The engine state (read it, never change it: the bridge caches what it gives)."""
        c = self._c
        if c.shared:
            c = self._c = _Core.__deepcopy__(c, None)
        return c.state

    @property
    def log(self) -> list[Action]:
        """The engine's actions so far (from OpenSpiel's history of this state)."""
        return [CHANCE_ACTIONS[pa.action] if pa.player == _CHANCE else PLAYER_ACTIONS[pa.action]
                for pa in self.full_history()]

    # -- the OpenSpiel contract
    def current_player(self) -> int:
        c = self._c
        p = c.player
        if p is None:
            s = c.state
            phase = s.phase
            if phase == _GAME_OVER:
                p = _TERMINAL
            elif phase == _SETUP or phase == _REVEAL:
                p = _CHANCE
            else:
                p = to_act(s)[0]
            c.player = p
        return p

    def _player_ids(self) -> list[int]:
        """The current player's legal action ids (cached; never change the list)."""
        c = self._c
        legal = c.legal
        if legal is None:
            s = c.state
            # Only at a secret step may several seats act: the others' actions are left out.
            actions = (legal_actions(s, self.current_player()) if s.phase == _SECRET
                       else legal_actions(s))
            legal = c.legal = [PLAYER_ID[a] for a in actions]
        return legal

    def _legal_actions(self, player: int) -> list[int]:
        # OpenSpiel calls this for the current player of a player node only.
        return self._player_ids()

    def legal_actions(self, player: int | None = None) -> list[int]:
        """As OpenSpiel's ``State.legal_actions``, without the round trip through C++."""
        current = self._c.player
        if current is None:
            current = self.current_player()
        if current == _TERMINAL:
            return []
        if current == _CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        if player is None or player == current:
            return self._player_ids()[:]
        if player < 0:
            raise pyspiel.SpielError(f"Called LegalActions for pseudo-player {player}")
        return []

    def is_chance_node(self) -> bool:
        phase = self._c.state.phase
        return phase == _SETUP or phase == _REVEAL

    def chance_outcomes(self) -> list[tuple[int, float]]:
        c = self._c
        outcomes = c.chance
        if outcomes is None:
            outcomes = c.chance = [(CHANCE_ID[a], p) for a, p in chance_outcomes(c.state)]
        return outcomes[:]

    def _apply_action(self, action: int) -> None:
        c = self._c
        if c.shared:
            c = self._c = _Core.__deepcopy__(c, None)
        s = c.state
        phase = s.phase
        if phase == _SETUP or phase == _REVEAL:
            a = CHANCE_ACTIONS[action]
        else:
            a = PLAYER_ACTIONS[action]
        secret = phase == _SECRET
        if (secret and c.hidden_at < 0 and c.before is None
                and (s.secret.count(_PENDING) > 1 or s.veto is not None)):
            # The first choice of a secret step that others may not see (after it, another
            # seat chooses, or a veto window may open before the reveal): keep the state
            # before it for resampling (OpenSpiel's history is not yet extended here).
            c.before = self.clone()
        apply(s, a)
        c.player = c.legal = c.chance = c.infos = None
        lines = c.lines
        lines.append(a)
        if c.hidden_at < 0:
            if secret and max(s.secret) >= 0:  # a choice some seat may not see
                c.hidden_at = len(lines) - 1
            else:
                c.before = None
                if len(lines) >= _FOLD_AT:
                    c.fold(len(lines))
        elif max(s.secret) < 0:  # the step's choices are revealed
            c.hidden_at = -1
            c.before = None

    def _action_to_string(self, player: int, action: int) -> str:
        table = CHANCE_ACTIONS if player == pyspiel.PlayerId.CHANCE else PLAYER_ACTIONS
        return str(table[action])

    def is_terminal(self) -> bool:
        return self._c.state.phase == _GAME_OVER

    def returns(self) -> list[float]:
        return win_shares(self._c.state)

    def __str__(self) -> str:
        c = self._c
        return "\n".join(([c.text] if c.text else []) + [_TEXT[a] for a in c.lines])

    # -- hidden information
    def information_state_string(self, player: int | None = None) -> str:
        """As OpenSpiel's, without the round trip through C++ (same text)."""
        if player is None:
            player = self.current_player()
        if not 0 <= player < self._c.state.n:
            raise pyspiel.SpielError(f"information_state_string: no seat {player}")
        return self.information_state_text(player)

    def observation_string(self, player: int | None = None) -> str:
        if player is None:
            player = self.current_player()
        if not 0 <= player < self._c.state.n:
            raise pyspiel.SpielError(f"observation_string: no seat {player}")
        return self.observation_text(player)

    def information_state_text(self, player: int) -> str:
        """``seat pN``, then one line per action so far, other seats' unrevealed secret
        choices as ``pK secret ?``."""
        c = self._c
        infos = c.infos
        if infos is None:
            infos = c.infos = {}
        else:
            known = infos.get(player)
            if known is not None:
                return known
        if c.hidden_at < 0:
            c.fold(len(c.lines))
            tail = ""
        else:
            c.fold(c.hidden_at)
            secret = c.state.secret
            tail = "\n".join([
                f"p{a.seat} secret ?"
                if a.is_secret and a.seat != player and secret[a.seat] >= 0 else _TEXT[a]
                for a in c.lines])
        text = f"seat p{player}"
        if c.text:
            text = f"{text}\n{c.text}"
        if tail:
            text = f"{text}\n{tail}"
        infos[player] = text
        return text

    def observation_text(self, player: int) -> str:
        return json.dumps(view(self._c.state, player), sort_keys=True)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> ElGrandeState:
        """A state the seat cannot tell from this one: others' hidden choices redrawn
        uniformly from their legal choices (one ``probability_sampler()`` draw each, in the
        order they were made), replayed from just before the first of them."""
        c = self._c
        if c.hidden_at < 0:
            return self.clone()
        secret = c.state.secret
        tail = c.lines[c.hidden_at:]
        redraw = [a.is_secret and a.seat != player_id and secret[a.seat] >= 0 for a in tail]
        if not any(redraw):
            return self.clone()
        assert c.before is not None  # taken at the step's first choice
        world = c.before.clone()
        world._c.before = c.before  # the same state before the step's first choice
        for a, again in zip(tail, redraw, strict=True):
            if again:
                options = legal_actions(world._c.state, a.seat)
                pick = min(int(probability_sampler() * len(options)), len(options) - 1)
                a = options[pick]
            world.apply_action(PLAYER_ID[a])
        return world


def win_shares(s: State) -> list[float]:
    """Each seat's share of the victory at the end (1/k for k tied winners), else zeros."""
    if s.phase != _GAME_OVER:
        return [0.0] * s.n
    win = winners(s)
    return [1.0 / len(win) if p in win else 0.0 for p in range(s.n)]


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


class RandomRollouts(mcts.Evaluator):
    """OpenSpiel's ``mcts.RandomRolloutEvaluator`` on the engine: each rollout copies the
    engine state and plays it out, each decision uniformly among the legal actions of the
    seat OpenSpiel would ask (the lowest pending one at a secret step), chance steps with
    their probabilities; the value is the win shares, averaged over ``n_rollouts``. The
    prior is uniform over the legal actions (chance outcomes at a chance node)."""

    def __init__(self, n_rollouts: int = 1, seed: int | None = None) -> None:
        self.n_rollouts = n_rollouts
        self.rng = random.Random(seed)

    def evaluate(self, state: ElGrandeState) -> np.ndarray:
        rng = self.rng
        start = state._c.state
        total = np.zeros(start.n)
        for _ in range(self.n_rollouts):
            s = start.copy()
            while True:
                phase = s.phase
                if phase == _GAME_OVER:
                    break
                if phase == _SETUP or phase == _REVEAL:
                    apply(s, sample_chance(s, rng))
                else:
                    apply(s, rng.choice(legal_actions(s, to_act(s)[0])))
            total += win_shares(s)
        return total / self.n_rollouts

    def prior(self, state: ElGrandeState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]


if GAME_NAME not in {g.short_name for g in pyspiel.registered_games()}:
    pyspiel.register_game(_GAME_TYPE, ElGrandeGame)
