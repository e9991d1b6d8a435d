"""Perft counts and seeded playthroughs compared with the stored golden files."""

from __future__ import annotations

import difflib
import json

import pytest

from elgrande.rules import State

from .golden import GOLDEN, PLAYTHROUGHS, perft, playthrough, playthrough_path, position

STORED_PERFT = json.loads((GOLDEN / "perft.json").read_text())


@pytest.mark.parametrize("row", STORED_PERFT, ids=lambda r: f"{r['players']}p-{r['phase']}")
def test_perft_counts(row: dict) -> None:
    stored_state = State.from_dict(row["state"])
    # The stored position is still the one the seeded game reaches.
    assert position(row["players"], row["seed"], row["phase"], row["occurrence"]) == stored_state
    counts = [perft(stored_state, d) for d in range(1, len(row["counts"]) + 1)]
    assert counts == row["counts"]


@pytest.mark.parametrize("players,rounds,seed", PLAYTHROUGHS)
def test_playthrough_matches_golden_file(players: int, rounds: int, seed: int) -> None:
    expected = playthrough_path(players, rounds, seed).read_text()
    actual = playthrough(players, rounds, seed)
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            "golden", "now", n=2))
        pytest.fail(f"playthrough differs from the golden file:\n{diff[:4000]}")
