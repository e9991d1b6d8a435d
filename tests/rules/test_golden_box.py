"""Perft counts and seeded playthroughs under the box rules, compared with the stored golden
files tests/golden/box_* (regenerate: ``python -m tests.rules.golden_box --regen``)."""

from __future__ import annotations

import difflib
import json

import pytest

from elgrande.rules import State
from elgrande.rules.state import WINDOW_NEXT

from .golden import perft
from .golden_box import PERFT_FILE, PLAYTHROUGHS, playthrough, playthrough_path, position

STORED_PERFT = json.loads(PERFT_FILE.read_text())


@pytest.mark.parametrize("row", STORED_PERFT,
                         ids=lambda r: f"{r['players']}p-{r['veto_windows']}-{r['phase']}{r['occurrence']}")
def test_box_perft_counts(row: dict) -> None:
    stored_state = State.from_dict(row["state"])
    assert position(row["players"], row["seed"], row["veto_windows"], row["phase"],
                    row["occurrence"]) == stored_state
    counts = [perft(stored_state, d) for d in range(1, len(row["counts"]) + 1)]
    assert counts == row["counts"]


def test_the_perft_positions_cover_the_kinds_of_window() -> None:
    nexts = {WINDOW_NEXT[State.from_dict(r["state"]).veto.resume]  # type: ignore[union-attr]
             for r in STORED_PERFT if r["phase"] == "veto"}
    assert {"reveal", "score", "remove", "step", "begin"} <= nexts


@pytest.mark.parametrize("players,rounds,seed,windows", PLAYTHROUGHS)
def test_box_playthrough_matches_golden_file(players: int, rounds: int, seed: int, windows: str) -> None:
    expected = playthrough_path(players, rounds, seed, windows).read_text()
    actual = playthrough(players, rounds, seed, windows)
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            "golden", "now", n=2))
        pytest.fail(f"playthrough differs from the golden file:\n{diff[:4000]}")
    assert " veto" in actual or " pass" in actual
