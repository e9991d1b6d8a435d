"""`elgrande bench spiel`: the speed of the OpenSpiel bridge (``elgrande.ai.spiel``) from
fixed positions of a 4-player game: clone(), information-state strings, resampling,
random playouts through the bridge against our own loop, and OpenSpiel's own MCTS and
ISMCTS bots. Needs the optional extra ``elgrande[openspiel]``.

``--bridge FILE`` measures another copy of the bridge module (say, an older one saved
aside) in this process instead of ``elgrande.ai.spiel``: the positions and the
measurements are the same, so two runs compare the bridges."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from . import positive_float, positive_int

PLAYERS = 4
# (name, seed, decisions): positions reached by seeded random play of the engine, so they
# never change. "secret" is the first secret step of seeded play (from its seed on) where
# two or more seats choose, after the first of them has chosen: the next seat cannot see
# that choice, so resampling has something to redraw.
POSITIONS = (("early", 1, 20), ("middle", 2, 120), ("secret", 3, -1))


def register(subparsers: argparse._SubParsersAction) -> None:
    """No top-level command of our own: `spiel` hangs under `elgrande bench` (made by the
    engine's module, which registers first)."""
    bench = subparsers.choices.get("bench")
    if bench is None:
        return
    for action in bench._actions:
        if isinstance(action, argparse._SubParsersAction):
            register_bench(action)


def register_bench(bench_sub: argparse._SubParsersAction) -> None:
    if "spiel" in bench_sub.choices:
        return
    parser = bench_sub.add_parser(
        "spiel", help="the OpenSpiel bridge: clone, information states, MCTS and ISMCTS",
        description="Measure the OpenSpiel bridge (elgrande.ai.spiel, extra "
        "elgrande[openspiel]) from three fixed positions of a seeded 4-player game (early, "
        "middle, and a secret step where one seat has chosen and the next has not), in "
        "CPU seconds of this process: clone() in microseconds; a first "
        "information_state_string() of every seat on 300 new states along random "
        "playouts, in microseconds; resample_from_infostate() in microseconds; uniformly "
        "random playouts to the end per second through the bridge and through our own "
        "loop on the engine; and the iterations per second of OpenSpiel's Python MCTS and "
        "ISMCTS bots with OpenSpiel's random rollouts (and with the bridge's "
        "RandomRollouts evaluator when it has one).")
    parser.add_argument("--seconds", type=positive_float, default=0.5, metavar="T",
                        help="CPU seconds for clone() and for resampling at each "
                        "position, twice that for the playouts (alternating between the "
                        "bridge and our own loop); above 0 (default 0.5)")
    parser.add_argument("--simulations", type=_two_or_more, default=40, metavar="N",
                        help="simulations of each MCTS or ISMCTS search, 2 or more "
                        "(default 40; OpenSpiel's MCTS fails with 1)")
    parser.add_argument("--no-search", action="store_true",
                        help="skip the MCTS and ISMCTS searches")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed of the playouts and the searches (default 0)")
    parser.add_argument("--bridge", type=Path, metavar="FILE",
                        help="measure this copy of the bridge module instead of "
                        "elgrande.ai.spiel (before/after comparisons)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=cmd_bench_spiel)


def _two_or_more(text: str) -> int:
    value = positive_int(text)
    if value < 2:
        raise argparse.ArgumentTypeError(f"{value} is not allowed; it takes a whole number "
                                          "of 2 or more")
    return value


# -- the bridge and the positions


def load_bridge(path: Path | None) -> ModuleType:
    """``elgrande.ai.spiel``, or the module in ``path`` (which registers the game)."""
    if path is None:
        return importlib.import_module("elgrande.ai.spiel")
    spec = importlib.util.spec_from_file_location("elgrande_spiel_bridge_under_test", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load a module from {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def position_log(seed: int, decisions: int) -> list[Any]:
    """The engine's actions of seeded random play: chance steps drawn with their
    probabilities, each decision by the first seat to act (as the bridge orders secret
    choices); ``decisions`` of them, or (-1) up to the first secret step with two or more
    seats to choose and one choice made."""
    from elgrande.rules import (
        GameConfig,
        apply,
        chance_outcomes,
        is_chance,
        is_terminal,
        legal_actions,
        new_game,
        to_act,
    )

    for attempt in range(seed, seed + (1 if decisions >= 0 else 1000)):
        rng = random.Random(attempt)
        state = new_game(GameConfig(players=PLAYERS))
        log: list[Any] = []
        done = 0
        while not is_terminal(state):
            secret_step = state.phase_name == "secret" and len(to_act(state)) >= 2
            if is_chance(state):
                outcomes, probs = zip(*chance_outcomes(state), strict=True)
                action = rng.choices(outcomes, probs)[0]
            else:
                options = legal_actions(state, to_act(state)[0])
                if 0 <= decisions <= done and len(options) > 1:
                    return log
                action = rng.choice(options)
                done += 1
            apply(state, action)
            log.append(action)
            if decisions < 0 and secret_step and len(legal_actions(state, to_act(state)[0])) > 1:
                return log
        if decisions >= 0:
            return log
    raise RuntimeError("no position found")


def bridge_state(bridge: ModuleType, game: Any, log: list[Any]) -> Any:
    state = game.new_initial_state()
    for a in log:
        state.apply_action(bridge.CHANCE_ID[a] if a.is_chance else bridge.PLAYER_ID[a])
    return state


# -- timing

# CPU seconds of this process, not wall-clock seconds: on a shared, loaded machine the
# figures then move less with the other work (which still slows the run itself).
_clock = time.process_time


def per_call(fn: Callable[[], Any], seconds: float, batch: int = 1) -> float:
    """Seconds per call of ``fn``, called in batches until ``seconds`` have passed."""
    calls = 0
    start = _clock()
    while True:
        for _ in range(batch):
            fn()
        calls += batch
        elapsed = _clock() - start
        if elapsed >= seconds:
            return elapsed / calls


def bridge_playout(state: Any, rng: random.Random) -> int:
    """A uniformly random playout to the end through the bridge; its number of actions."""
    s = state.clone()
    n = 0
    while not s.is_terminal():
        if s.is_chance_node():
            outcomes, probs = zip(*s.chance_outcomes(), strict=True)
            s.apply_action(rng.choices(outcomes, probs)[0])
        else:
            s.apply_action(rng.choice(s.legal_actions()))
        n += 1
    s.returns()
    return n


def engine_playout(state: Any, rng: random.Random) -> int:
    """The same playout with our own loop on the engine."""
    from elgrande.rules import (
        apply,
        chance_outcomes,
        is_chance,
        is_terminal,
        legal_actions,
        to_act,
        winners,
    )

    s = state.copy()
    n = 0
    while not is_terminal(s):
        if is_chance(s):
            outcomes, probs = zip(*chance_outcomes(s), strict=True)
            apply(s, rng.choices(outcomes, probs)[0])
        else:
            apply(s, rng.choice(legal_actions(s, to_act(s)[0])))
        n += 1
    winners(s)
    return n


def playouts(state: Any, seed: int, seconds: float) -> dict[str, float]:
    """Random playouts from ``state`` through the bridge and with our own loop, in
    alternating slices (so that a change in the machine's load hits both alike): playouts
    and actions per second of each, and how many times slower the bridge is."""
    counts = {"bridge": [0, 0, 0.0], "engine": [0, 0, 0.0]}  # playouts, actions, seconds
    plays = (("bridge", bridge_playout, state), ("engine", engine_playout, state.state))
    rngs = {name: random.Random(seed) for name, _, _ in plays}
    for _ in range(5):
        for name, play, start_state in plays:
            done = counts[name]
            start = _clock()
            while True:
                done[1] += play(start_state, rngs[name])
                done[0] += 1
                elapsed = _clock() - start
                if elapsed >= seconds / 5:
                    break
            done[2] += elapsed
    f: dict[str, float] = {}
    for name, (count, actions, elapsed) in counts.items():
        f[f"{name}_playouts_per_s"] = count / elapsed
        f[f"{name}_actions_per_s"] = actions / elapsed
    f["bridge_slowdown"] = f["engine_actions_per_s"] / f["bridge_actions_per_s"]
    return f


def information_state_us(state: Any, seed: int, states: int = 300) -> float:
    """Microseconds of a first information_state_string(p) of every seat on each state
    of random playouts from ``state`` (the states are clones made along the way, so
    nothing is cached yet: the cost of a new state, as in a search)."""
    rng = random.Random(seed)
    found: list[Any] = []
    while len(found) < states:
        s = state.clone()
        while not s.is_terminal() and len(found) < states:
            if s.is_chance_node():
                outcomes, probs = zip(*s.chance_outcomes(), strict=True)
                s.apply_action(rng.choices(outcomes, probs)[0])
                continue
            found.append(s.clone())
            s.apply_action(rng.choice(s.legal_actions()))
    start = _clock()
    for s in found:
        for p in range(PLAYERS):
            s.information_state_string(p)
    return (_clock() - start) / (len(found) * PLAYERS) * 1e6


@dataclass
class Measured:
    name: str
    seed: int
    plies: int
    phase: str
    to_act: int
    figures: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {"position": self.name, "seed": self.seed, "plies": self.plies,
                "phase": self.phase, "to_act": self.to_act,
                **{k: round(v, 2) for k, v in self.figures.items()}}


def measure(bridge: ModuleType, name: str, seed: int, decisions: int, seconds: float,
            simulations: int | None, run_seed: int) -> Measured:
    import pyspiel

    game = pyspiel.load_game(bridge.GAME_NAME, {"players": PLAYERS})
    log = position_log(seed, decisions)
    state = bridge_state(bridge, game, log)
    player = state.current_player()
    f: dict[str, float] = {}
    f["clone_us"] = per_call(state.clone, seconds, 20) * 1e6

    f["information_state_string_us"] = information_state_us(state, run_seed)
    sampler = pyspiel.UniformProbabilitySampler(run_seed, 0.0, 1.0)
    f["resample_us"] = per_call(lambda: state.resample_from_infostate(player, sampler),
                                seconds, 5) * 1e6
    f.update(playouts(state, run_seed, 2 * seconds))
    if simulations is not None:
        f.update(searches(bridge, game, state, simulations, run_seed))
    return Measured(name, seed, len(log), state.state.phase_name, player, f)


def searches(bridge: ModuleType, game: Any, state: Any, simulations: int,
             seed: int) -> dict[str, float]:
    """Iterations per second of OpenSpiel's Python MCTS and ISMCTS bots, one search of
    ``simulations`` each from ``state``, with OpenSpiel's random rollouts through the bridge
    and, when the bridge has it, with its ``RandomRollouts`` on the engine. Not OpenSpiel's
    C++ bots: its C++ MCTSBot crashes on any Python game (python_tic_tac_toe too), and its
    C++ ISMCTSBot cannot call a Python game's resample_from_infostate."""
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    evaluators: dict[str, Callable[[], Any]] = {
        "": lambda: mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))}
    if hasattr(bridge, "RandomRollouts"):
        evaluators["_engine_rollouts"] = lambda: bridge.RandomRollouts(1, seed)
    f: dict[str, float] = {}
    for suffix, evaluator in evaluators.items():
        bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=simulations,
                           evaluator=evaluator(), random_state=np.random.RandomState(seed))
        start = _clock()
        bot.step(state.clone())
        f[f"mcts{suffix}_iterations_per_s"] = simulations / (_clock() - start)
        ibot = ismcts.ISMCTSBot(game, evaluator(), 1.0, max_simulations=simulations,
                                random_state=np.random.RandomState(seed))
        start = _clock()
        ibot.step(state.clone())
        f[f"ismcts{suffix}_iterations_per_s"] = simulations / (_clock() - start)
    return f


def cmd_bench_spiel(args: argparse.Namespace) -> int:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("elgrande bench spiel needs OpenSpiel: pip install 'elgrande[openspiel]'",
              file=sys.stderr)
        return 1
    bridge = load_bridge(args.bridge)
    from elgrande.rules import ENGINE

    results = [measure(bridge, name, seed, decisions, args.seconds,
                       None if args.no_search else args.simulations, args.seed)
               for name, seed, decisions in POSITIONS]
    report: dict[str, Any] = {
        "bridge": str(args.bridge or "elgrande.ai.spiel"), "rules_engine": ENGINE,
        "players": PLAYERS, "seconds": args.seconds,
        "simulations": None if args.no_search else args.simulations, "seed": args.seed,
        "python": sys.version.split()[0], "positions": [r.to_dict() for r in results],
    }
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"OpenSpiel bridge {report['bridge']}, rules engine {ENGINE}, {PLAYERS} players; "
          "per CPU second of this process")
    keys = list(results[0].figures)
    width = max(len(k) for k in keys)
    print(f"{'':{width}}  " + "  ".join(f"{r.name:>12}" for r in results))
    print(f"{'plies (phase)':{width}}  "
          + "  ".join(f"{f'{r.plies} ({r.phase})':>12}" for r in results))
    for k in keys:
        print(f"{k:{width}}  " + "  ".join(f"{r.figures[k]:12.1f}" for r in results))
    return 0
