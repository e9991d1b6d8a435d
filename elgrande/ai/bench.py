"""ISMCTS speed from fixed positions: iterations per second (``elgrande bench ai``)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from elgrande.rules import (
    ENGINE,
    GameConfig,
    State,
    apply,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    resolve_chance,
    to_act,
)

from .ismcts import IsmctsBot

# (players, seed, plies): positions reached by seeded random play, so they never change.
POSITIONS = ((2, 1, 30), (3, 2, 120), (4, 3, 60), (4, 4, 150), (5, 5, 200))


def fixed_position(players: int, seed: int, plies: int) -> State:
    """The position after ``plies`` seeded random decisions (stops early at the end)."""
    rng = random.Random(seed)
    state = new_game(GameConfig(players=players))
    done = 0
    while not is_terminal(state):
        if is_chance(state):
            resolve_chance(state, rng)
            continue
        if done >= plies and len(legal_actions(state, to_act(state)[0])) > 1:
            break
        seat = to_act(state)[0]
        apply(state, rng.choice(legal_actions(state, seat)))
        done += 1
    return state


@dataclass(frozen=True)
class BenchResult:
    players: int
    seed: int
    plies: int
    phase: str
    iterations: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.iterations / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "players": self.players, "seed": self.seed, "plies": self.plies,
            "phase": self.phase, "iterations": self.iterations,
            "seconds": round(self.seconds, 4), "iterations_per_second": round(self.per_second, 1),
            # The engine and the bots' search run compiled or pure together.
            "engine": ENGINE,
        }


def run_bench(iterations: int = 200) -> list[BenchResult]:
    results = []
    for players, seed, plies in POSITIONS:
        state = fixed_position(players, seed, plies)
        seat = to_act(state)[0]
        bot = IsmctsBot(seed, iterations=iterations)
        start = time.perf_counter()
        bot.choose(state, seat)
        elapsed = time.perf_counter() - start
        results.append(BenchResult(players, seed, plies, state.phase_name,
                                   bot.iterations_done, elapsed))
    return results
