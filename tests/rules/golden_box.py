"""Golden data for the box rules (rules.md §12): perft counts from positions at veto windows
and seeded playthroughs, in tests/golden/box_*. Yucata's golden files (tests/rules/golden.py)
are untouched by the box rules.

Regenerate after an intended change of the box rules with
``python -m tests.rules.golden_box --regen`` and review the diff.
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import replace
from pathlib import Path

from elgrande.rules import (
    GameConfig,
    Options,
    State,
    apply,
    is_terminal,
    legal_actions,
    new_game,
    winners,
)
from elgrande.rules.engine import sample_chance

from .golden import GOLDEN, perft

PASS_PROBABILITY = 0.9  # random play at a veto window, as `elgrande bench engine --rules box`
# (players, rounds, seed, veto_windows)
PLAYTHROUGHS = [(2, 9, 111, "parts"), (4, 9, 313, "parts"), (5, 6, 515, "every_step")]
# (players, seed, veto_windows, phase to stop at, occurrence)
# The windows: before a reveal (4p), a scoring (3p), a removal of 2b (4p), between moved
# Caballeros (3p, every_step), an announcement (2p); and 1g declaring its region.
PERFT_POSITIONS = [(4, 4, "parts", "veto", 7), (3, 10, "parts", "veto", 3),
                   (4, 36, "parts", "veto", 3), (3, 7, "every_step", "veto", 2),
                   (2, 1, "announcement", "veto", 1), (4, 2, "parts", "source", 1)]
PERFT_DEPTH = 4
PERFT_FILE = GOLDEN / "box_perft.json"


def config(players: int, rounds: int, windows: str) -> GameConfig:
    return GameConfig(players=players, rounds=rounds,
                      options=replace(Options.preset("box"), veto_windows=windows))


def _step(state: State, rng: random.Random):
    if state.phase_name in ("setup", "reveal"):
        return sample_chance(state, rng)
    options = legal_actions(state)
    if state.phase_name == "veto":
        return options[1] if rng.random() < PASS_PROBABILITY else options[0]
    return options[rng.randrange(len(options))]


def position(players: int, seed: int, windows: str, phase: str, occurrence: int) -> State:
    rng = random.Random(seed)
    state = new_game(config(players, 9, windows))
    seen = 0
    while not is_terminal(state):
        if state.phase_name == phase:
            seen += 1
            if seen == occurrence:
                return state
        apply(state, _step(state, rng))
    raise LookupError(f"seed {seed} never reaches {phase} #{occurrence}")


def perft_table() -> list[dict]:
    rows = []
    for players, seed, windows, phase, occurrence in PERFT_POSITIONS:
        state = position(players, seed, windows, phase, occurrence)
        rows.append({
            "players": players, "seed": seed, "veto_windows": windows, "phase": phase,
            "occurrence": occurrence, "state": state.to_dict(),
            "counts": [perft(state, d) for d in range(1, PERFT_DEPTH + 1)],
        })
    return rows


def playthrough(players: int, rounds: int, seed: int, windows: str) -> str:
    """A seeded random box game as notation, one action per line, scores after each scoring."""
    rng = random.Random(seed)
    state = new_game(config(players, rounds, windows))
    lines = [f"# box rules, veto_windows {windows}; players {players} rounds {rounds} seed {seed}"]
    while not is_terminal(state):
        action = _step(state, rng)
        before = state.scores[:]
        apply(state, action)
        line = str(action)
        if state.scores != before:
            line += f"    # scores {' '.join(map(str, state.scores))}"
        lines.append(line)
    lines.append(f"# final {' '.join(map(str, state.scores))} winners {' '.join(f'p{p}' for p in winners(state))}")
    return "\n".join(lines) + "\n"


def playthrough_path(players: int, rounds: int, seed: int, windows: str) -> Path:
    return GOLDEN / f"box_playthrough_{players}p_{rounds}r_seed{seed}_{windows}.txt"


def regenerate() -> None:
    PERFT_FILE.write_text(json.dumps(perft_table(), indent=1) + "\n")
    for players, rounds, seed, windows in PLAYTHROUGHS:
        playthrough_path(players, rounds, seed, windows).write_text(
            playthrough(players, rounds, seed, windows))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--regen", action="store_true", help="rewrite the tests/golden/box_* files")
    if parser.parse_args().regen:
        regenerate()
        print(f"wrote {GOLDEN}/box_*")
