"""scripts/pair_tournaments.py: two tournaments on the same deals paired game by game."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .scripts import load_script


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return load_script("pair_tournaments")


def tournament(bots: list[str], games: list[tuple[list[str], list[int]]],
               seed: int = 7) -> dict[str, Any]:
    return {"players": len(bots), "bots": bots, "games": len(games), "seed": seed,
            "rounds": 9, "rules": "yucata",
            "results": [{"game": i, "bots": b, "scores": s} for i, (b, s) in enumerate(games)]}


FIRST = tournament(["cand", "x", "y"], [
    (["cand", "x", "y"], [90, 80, 70]),  # sole win, ahead of both
    (["y", "cand", "x"], [90, 90, 60]),  # shared win, one tie
    (["x", "y", "cand"], [95, 70, 60]),  # last
])
SECOND = tournament(["ref", "x", "y"], [
    (["ref", "x", "y"], [70, 80, 75]),  # last
    (["y", "ref", "x"], [90, 85, 60]),  # second
    (["x", "y", "ref"], [95, 70, 96]),  # sole win
])


def test_pairs_the_differing_seat_game_by_game(script: ModuleType) -> None:
    out = script.pair(FIRST, SECOND)
    assert (out["first"], out["second"], out["games"]) == ("cand", "ref", 3)
    d = out["difference_per_game"]
    # win share: 1-0, 1/2-0, 0-1; ahead: 1-0, 3/4-1/2, 0-1; score: +20, +5, -36
    assert d["win_share"]["mean"] == pytest.approx((1 + 0.5 - 1) / 3, abs=1e-4)
    assert d["ahead"]["mean"] == pytest.approx((1 + 0.25 - 1) / 3, abs=1e-4)
    assert d["score"]["mean"] == pytest.approx((20 + 5 - 36) / 3, abs=1e-4)
    assert d["score"]["low"] < d["score"]["mean"] < d["score"]["high"]
    assert out["win_rate"]["cand"]["mean"] == pytest.approx(0.5)
    assert out["win_rate"]["ref"]["mean"] == pytest.approx(1 / 3, abs=1e-4)


@pytest.mark.parametrize("change, message", [
    (lambda t: t.update(seed=8), "differ in seed"),
    (lambda t: t.update(bots=["cand", "x", "y"]), "exactly one place, not 0"),
    (lambda t: t.update(bots=["ref", "z", "y"]), "exactly one place, not 2"),
    (lambda t: t["results"][1].update(bots=["ref", "y", "x"]), "seats do not pair"),
    (lambda t: t["results"].pop(), "missing from the second"),
])
def test_refuses_tournaments_that_do_not_pair(script: ModuleType, change: Any,
                                              message: str) -> None:
    second = json.loads(json.dumps(SECOND))
    change(second)
    with pytest.raises(script.PairingError, match=message):
        script.pair(FIRST, second)


def test_the_command_prints_a_clear_error_and_exits_2(script: ModuleType, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    first = tmp_path / "first.json"
    first.write_text(json.dumps(FIRST))
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    assert script.main([str(first), str(bad)]) == 2
    assert "is not the output of `elgrande tournament --json`" in capsys.readouterr().err
    second = tmp_path / "second.json"
    second.write_text(json.dumps(SECOND))
    assert script.main([str(first), str(second), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 3
