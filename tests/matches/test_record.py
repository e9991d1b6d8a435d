"""Exported game records: replay to the identical state; `elgrande verify` re-derives every
chance outcome and checks the seed commitment; `elgrande replay` lists the moves."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from elgrande.cli import main
from elgrande.matches import Match, VerifyError, export, verify
from elgrande.rules import (
    CHANCE,
    GameConfig,
    State,
    chance_outcomes,
    is_terminal,
    parse_action,
    replay,
)

from .match_helpers import play_until


@cache
def finished() -> Match:
    match = Match.new(GameConfig(players=3, rounds=6), seed="record")
    return play_until(match, random.Random(2), is_terminal)


def _record() -> dict[str, Any]:
    return json.loads(json.dumps(export(finished())))  # through JSON, as a file would be


def _write(tmp_path: Path, record: dict[str, Any]) -> str:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    return str(path)


def test_the_record_replays_to_the_identical_final_state() -> None:
    record = _record()
    actions = [parse_action(e["action"]) for e in record["log"]]
    state = replay(GameConfig.from_dict(record["config"]), actions)
    assert state == finished().state == State.from_dict(record["final_state"])
    assert record["seed"] == "record" and record["over"] is True
    assert all(e["at"] for e in record["log"])


def test_verify_accepts_the_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", _write(tmp_path, _record())]) == 0
    out = capsys.readouterr().out
    assert "matches the seed" in out and out.rstrip().endswith("OK")


def _tamper_chance(record: dict[str, Any]) -> dict[str, Any]:
    """Replace the first chance outcome that had alternatives with another outcome."""
    config = GameConfig.from_dict(record["config"])
    actions = [parse_action(e["action"]) for e in record["log"]]
    for i, action in enumerate(actions):
        if action.seat != CHANCE:
            continue
        others = [a for a, _ in chance_outcomes(replay(config, actions[:i])) if a != action]
        if others:
            bad = copy.deepcopy(record)
            bad["log"][i]["action"] = str(others[0])
            return bad
    raise AssertionError("no chance step with alternatives")


def _drop_player_move(record: dict[str, Any]) -> dict[str, Any]:
    """Delete one player's move and renumber: the log no longer replays."""
    bad = copy.deepcopy(record)
    i = next(i for i, e in enumerate(bad["log"]) if e["seat"] != CHANCE and i > 20)
    del bad["log"][i]
    for seq, entry in enumerate(bad["log"], start=1):
        entry["seq"] = seq
    return bad


@pytest.mark.parametrize(
    ("tamper", "reason"),
    [
        (_tamper_chance, "the seed draws"),
        (lambda r: {**r, "seed": "0" * 64}, "commitment"),
        (lambda r: {**r, "seed": None}, "no seed"),
        (lambda r: {**r, "log": r["log"][:-1]}, "final state"),
        (lambda r: {**r, "log": [*r["log"][:20], *r["log"][21:]]}, "sequence number"),
        (_drop_player_move, "move|seed draws"),
    ],
)
def test_verify_rejects_a_tampered_record(
    tamper: Any, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tamper(_record())
    with pytest.raises(VerifyError, match=reason):
        verify(record)
    assert main(["verify", _write(tmp_path, record)]) == 1
    assert "FAILED" in capsys.readouterr().err


def test_replay_prints_the_game_move_by_move(tmp_path: Path) -> None:
    record = _record()
    result = subprocess.run(
        [sys.executable, "-m", "elgrande", "replay", _write(tmp_path, record)],
        capture_output=True, text=True, check=True,
    )
    lines = result.stdout.splitlines()
    moves = [line for line in lines if line[:5].strip().isdigit()]
    assert [line.split("  ")[-1] for line in moves] == [e["action"] for e in record["log"]]
    assert lines[-1] == f"final scores: {finished().state.scores}"
