"""scripts/duel_checkpoint.py: a duel stopped and resumed ends as one run would."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from .scripts import load_script

DUEL = ["--candidate", "heuristic", "--baseline", "easy", "--players", "2", "--rounds", "6",
        "--seed", "3"]


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return load_script("duel_checkpoint")


def test_a_resumed_duel_has_the_pairs_and_figures_of_one_run(script: ModuleType,
                                                            tmp_path: Path) -> None:
    whole, part = tmp_path / "whole.json", tmp_path / "part.json"
    assert script.main([str(whole), *DUEL, "--max-games", "6"]) == 0
    assert script.main([str(part), *DUEL, "--max-games", "2"]) == 0
    kept = json.loads(part.read_text())
    assert kept["pairs"] == 1
    # Marked, to see that the kept pair is taken over and not played again.
    kept["checkpoint"][0]["cpu_seconds"] = 12345.0
    part.write_text(json.dumps(kept))
    assert script.main([str(part), "--resume", *DUEL, "--max-games", "6"]) == 0
    a, b = json.loads(whole.read_text()), json.loads(part.read_text())
    assert a["pairs"] == b["pairs"] == 3
    assert b["checkpoint"][0]["cpu_seconds"] == 12345.0
    assert b["checkpoint"][0]["candidate"] == a["checkpoint"][0]["candidate"] | {
        "seconds": b["checkpoint"][0]["candidate"]["seconds"],
        "decision_seconds": b["checkpoint"][0]["candidate"]["decision_seconds"],
        "turn_seconds": b["checkpoint"][0]["candidate"]["turn_seconds"]}
    for key in ("results", "llr", "verdict", "share_difference", "win_rate", "court",
                "finished"):
        assert a[key] == b[key], key
    for role in ("candidate", "baseline"):
        assert a["think_seconds"][role]["turn"]["count"] == \
            b["think_seconds"][role]["turn"]["count"]
    # a finished duel is not played further
    assert script.main([str(part), "--resume", *DUEL, "--max-games", "6"]) == 0
    assert json.loads(part.read_text())["pairs"] == 3


def test_resuming_refuses_another_duel_or_a_file_without_games(
        script: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "duel.json"
    assert script.main([str(out), *DUEL, "--max-games", "2"]) == 0
    before = out.read_text()
    other = [*DUEL[:-1], "4", "--max-games", "4"]
    assert script.main([str(out), "--resume", *other]) == 2
    assert "its seed is 3, these options give 4" in capsys.readouterr().err
    assert out.read_text() == before
    old = tmp_path / "old.json"
    data = json.loads(before)
    del data["checkpoint"]
    old.write_text(json.dumps(data))
    assert script.main([str(old), "--resume", *DUEL, "--max-games", "4"]) == 2
    assert "keeps no games to resume from" in capsys.readouterr().err
    assert script.main([str(tmp_path / "none.json"), "--resume", *DUEL]) == 2
    assert "cannot read" in capsys.readouterr().err
