"""Golden data: perft counts from fixed positions and seeded playthroughs (tests/golden/).

Regenerate after an intended rules change with ``python -m tests.rules.golden --regen`` and
review the diff; the tests compare freshly computed data with the stored files.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from elgrande.rules import GameConfig, State, apply, is_terminal, legal_actions, new_game, winners
from elgrande.rules.engine import sample_chance

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
PLAYTHROUGHS = [(2, 9, 101), (3, 6, 202), (4, 9, 303), (5, 9, 404)]
# (players, seed, phase to stop at, occurrence) for the perft positions
PERFT_POSITIONS = [(4, 1, "bid", 1), (3, 2, "take", 3), (4, 3, "move", 1), (5, 4, "secret", 1),
                   (2, 5, "choose", 4)]
PERFT_DEPTH = 4


def perft(state: State, depth: int) -> int:
    """Number of action sequences of length ``depth`` (chance outcomes count as actions)."""
    if depth == 0 or is_terminal(state):
        return 1
    total = 0
    for action in legal_actions(state):
        child = state.copy()
        apply(child, action)
        total += perft(child, depth - 1)
    return total


def position(players: int, seed: int, phase: str, occurrence: int) -> State:
    rng = random.Random(seed)
    state = new_game(GameConfig(players=players))
    seen = 0
    while not is_terminal(state):
        if state.phase_name == phase:
            seen += 1
            if seen == occurrence:
                return state
        options = legal_actions(state)
        action = sample_chance(state, rng) if state.phase_name in ("setup", "reveal") \
            else options[rng.randrange(len(options))]
        apply(state, action)
    raise LookupError(f"seed {seed} never reaches {phase} #{occurrence}")


def perft_table() -> list[dict]:
    rows = []
    for players, seed, phase, occurrence in PERFT_POSITIONS:
        state = position(players, seed, phase, occurrence)
        rows.append({
            "players": players, "seed": seed, "phase": phase, "occurrence": occurrence,
            "state": state.to_dict(),
            "counts": [perft(state, d) for d in range(1, PERFT_DEPTH + 1)],
        })
    return rows


def playthrough(players: int, rounds: int, seed: int) -> str:
    """A seeded random game as notation, one action per line, scores after each scoring."""
    rng = random.Random(seed)
    state = new_game(GameConfig(players=players, rounds=rounds))
    lines = [f"# players {players} rounds {rounds} seed {seed}"]
    while not is_terminal(state):
        options = legal_actions(state)
        action = sample_chance(state, rng) if state.phase_name in ("setup", "reveal") \
            else options[rng.randrange(len(options))]
        before = state.scores[:]
        apply(state, action)
        line = str(action)
        if state.scores != before:
            line += f"    # scores {' '.join(map(str, state.scores))}"
        lines.append(line)
    lines.append(f"# final {' '.join(map(str, state.scores))} winners {' '.join(f'p{p}' for p in winners(state))}")
    return "\n".join(lines) + "\n"


def playthrough_path(players: int, rounds: int, seed: int) -> Path:
    return GOLDEN / f"playthrough_{players}p_{rounds}r_seed{seed}.txt"


def regenerate() -> None:
    GOLDEN.mkdir(exist_ok=True)
    (GOLDEN / "perft.json").write_text(json.dumps(perft_table(), indent=1) + "\n")
    for players, rounds, seed in PLAYTHROUGHS:
        playthrough_path(players, rounds, seed).write_text(playthrough(players, rounds, seed))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--regen", action="store_true", help="rewrite the files under tests/golden")
    if parser.parse_args().regen:
        regenerate()
        print(f"wrote {GOLDEN}")
