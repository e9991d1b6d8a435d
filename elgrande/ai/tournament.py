"""Play bots against each other: one game, or a seat-rotated tournament over worker processes.

Games come in blocks of ``players`` consecutive games that share one chance seed (same
homes, King, start player and, as far as play allows, the same card reveals) while the
seating rotates, so every bot plays every seat equally and luck largely cancels out.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

from elgrande.rules import (
    Action,
    GameConfig,
    Options,
    State,
    apply,
    is_chance,
    is_terminal,
    new_game,
    resolve_chance,
    to_act,
)
from elgrande.rules.state import BID

from .levels import make_bot
from .stats import GameRecord, seating


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any printable parts (stable across runs and processes)."""
    return random.Random(":".join(map(str, parts))).getrandbits(63)


@dataclass(frozen=True)
class GameSpec:
    index: int
    bots: tuple[str, ...]  # bot (or level) name per seat
    chance_seed: int
    bot_seeds: tuple[int, ...]
    rounds: int = 9
    rules: str = "yucata"  # rule set: "yucata" or "box" (Options.preset)


def play_game(spec: GameSpec,
              observe: Callable[[State, int, Action], None] | None = None) -> GameRecord:
    """Play one whole game; each seat's bot sees only its own redacted view. ``observe``
    is shown each bot's choice (the state, the seat, the action) before it is applied."""
    players = len(spec.bots)
    config = GameConfig(players=players, rounds=spec.rounds, options=Options.preset(spec.rules))
    bots = [make_bot(name, seed) for name, seed in zip(spec.bots, spec.bot_seeds, strict=True)]
    chance_rng = random.Random(spec.chance_seed)
    seconds = [0.0] * players
    times = _ThinkClock(players)
    state = new_game(config)
    while not is_terminal(state):
        if is_chance(state):
            resolve_chance(state, chance_rng)
            continue
        seat = to_act(state)[0]
        searched = bots[seat].decisions
        turn = (seat, state.round_index, state.phase == BID, state.turn)
        start, cpu = time.perf_counter(), time.process_time()
        action = bots[seat].choose(state, seat)
        seconds[seat] += time.perf_counter() - start
        times.add(turn, time.process_time() - cpu, bots[seat].decisions > searched)
        if observe is not None:
            observe(state, seat, action)
        apply(state, action)
    return GameRecord(
        index=spec.index,
        bots=spec.bots,
        scores=tuple(state.scores),
        seconds=tuple(seconds),
        decisions=tuple(b.decisions for b in bots),
        decision_seconds=tuple(tuple(d) for d in times.decisions),
        turn_seconds=times.turns(),
    )


class _ThinkClock:
    """CPU seconds per searched decision and per turn of each seat.

    CPU time rather than wall time, so that figures from a shared machine still say what a
    free core would take. A seat's turn is all its actions in one turn of the round (its
    recruits, card, deployment and special action, even if other seats answer a secret step
    or a veto in between); a bid is a turn of its own, and so are a seat's actions during
    another seat's turn. Turns with only forced actions are not counted.
    """

    def __init__(self, players: int) -> None:
        self.decisions: list[list[float]] = [[] for _ in range(players)]
        self._turns: dict[tuple[int, int, bool, int], tuple[float, bool]] = {}

    def add(self, turn: tuple[int, int, bool, int], cpu: float, searched: bool) -> None:
        if searched:
            self.decisions[turn[0]].append(cpu)
        total, any_searched = self._turns.get(turn, (0.0, False))
        self._turns[turn] = (total + cpu, any_searched or searched)

    def turns(self) -> tuple[tuple[float, ...], ...]:
        per_seat: list[list[float]] = [[] for _ in self.decisions]
        for (seat, *_rest), (total, searched) in self._turns.items():
            if searched:
                per_seat[seat].append(total)
        return tuple(tuple(t) for t in per_seat)


def schedule(bots: Sequence[str], games: int, seed: int, rounds: int = 9,
             rules: str = "yucata") -> list[GameSpec]:
    """The games of a tournament: rotated seatings, a shared chance seed per rotation block,
    under the rule set ``rules``."""
    Options.preset(rules)  # ValueError for an unknown rule set
    n = len(bots)
    specs = []
    for g in range(games):
        block = g // n
        seats = seating(bots, g)
        specs.append(GameSpec(
            index=g,
            bots=seats,
            chance_seed=derive_seed("chance", seed, block),
            bot_seeds=tuple(derive_seed("bot", seed, g, s) for s in range(n)),
            rounds=rounds,
            rules=rules,
        ))
    return specs


def run_games(specs: Sequence[GameSpec], workers: int = 1,
              progress: Callable[[GameRecord], None] | None = None) -> list[GameRecord]:
    """Play the games (in ``workers`` processes when > 1); results in game order."""
    results: list[GameRecord] = []
    for record in _iterate(specs, workers):
        results.append(record)
        if progress is not None:
            progress(record)
    results.sort(key=lambda r: r.index)
    return results


def _iterate(specs: Sequence[GameSpec], workers: int) -> Iterator[GameRecord]:
    if workers <= 1:
        for spec in specs:
            yield play_game(spec)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(play_game, spec) for spec in specs]
        for future in as_completed(futures):
            yield future.result()


def run_tournament(bots: Sequence[str], games: int, seed: int, workers: int = 1,
                   rounds: int = 9, show_progress: bool = True,
                   rules: str = "yucata") -> list[GameRecord]:
    specs = schedule(bots, games, seed, rounds, rules)
    if not show_progress:
        return run_games(specs, workers)
    from tqdm import tqdm

    with tqdm(total=len(specs), unit="game", file=sys.stderr, dynamic_ncols=True) as bar:
        return run_games(specs, workers, progress=lambda _r: bar.update(1))
