"""A small-budget tournament and the command-line front ends."""

from __future__ import annotations

import json

import pytest

from elgrande.ai.tournament import run_tournament, schedule
from elgrande.cli import main
from elgrande.rules import ENGINE


def test_schedule_rotates_seats_and_shares_chance_within_a_block() -> None:
    specs = schedule(["a", "b", "c"], 6, seed=5)
    assert [s.bots for s in specs[:3]] == [("a", "b", "c"), ("c", "a", "b"), ("b", "c", "a")]
    assert len({s.chance_seed for s in specs[:3]}) == 1
    assert specs[0].chance_seed != specs[3].chance_seed
    assert schedule(["a", "b", "c"], 6, seed=5) == specs


def test_small_tournament_runs_and_is_reproducible() -> None:
    bots = ["heuristic", "random", "ismcts:20"]
    first = run_tournament(bots, 3, seed=2, show_progress=False)
    assert [g.index for g in first] == [0, 1, 2]
    assert all(sorted(g.bots) == sorted(bots) for g in first)
    again = run_tournament(bots, 3, seed=2, show_progress=False)
    assert [g.scores for g in again] == [g.scores for g in first]


def test_tournament_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["tournament", "--players", "2", "--bots", "easy,random", "--games", "2",
                 "--seed", "4", "--json", "--no-progress"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert {row["bot"] for row in data["summary"]} == {"easy", "random"}
    assert len(data["results"]) == 2
    for row in data["summary"]:
        assert row["win_rate"]["low"] <= row["win_rate"]["mean"] <= row["win_rate"]["high"]
    # Head to head: per game here (one seat each), from the games' own scores.
    rows = {(r["bot"], r["other"]): r for r in data["head_to_head"]}
    assert set(rows) == {("easy", "random"), ("random", "easy")}
    seat_of = [g["bots"].index("easy") for g in data["results"]]
    ahead = sum(1.0 if g["scores"][e] > g["scores"][1 - e] else 0.5 if g["scores"][e] == g["scores"][1 - e]
                else 0.0 for g, e in zip(data["results"], seat_of, strict=True))
    assert rows[("easy", "random")]["comparisons"] == 2
    assert rows[("easy", "random")]["ahead"]["mean"] == ahead / 2
    assert rows[("random", "easy")]["ahead"]["mean"] == 1 - ahead / 2


def test_tournament_command_table_with_two_workers(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["tournament", "--players", "2", "--bots", "random,heuristic", "--games", "2",
                 "--workers", "2", "--no-progress"])
    assert code == 0
    out = capsys.readouterr().out
    assert "win rate" in out and "heuristic" in out and "Elo" in out and "ahead of" in out


def test_tournament_command_rejects_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["tournament", "--players", "3", "--bots", "random,nobody", "--games", "1"])
    assert code == 2
    err = capsys.readouterr().err
    assert "lists 2 bots for 3 players" in err and "unknown bot 'nobody'" in err


def test_bench_ai_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "ai", "--iterations", "10", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 5
    assert all(r["iterations"] >= 10 and r["iterations_per_second"] > 0 for r in rows)
    assert {r["engine"] for r in rows} == {ENGINE}
    assert main(["bench", "ai", "--iterations", "10"]) == 0
    assert f"engine and search: {ENGINE} (" in capsys.readouterr().out


def test_a_tournament_under_the_box_rules(capsys: pytest.CaptureFixture[str]) -> None:
    specs = schedule(["a", "b"], 2, seed=5, rules="box")
    assert {s.rules for s in specs} == {"box"}
    assert schedule(["a", "b"], 2, seed=5)[0].rules == "yucata"
    with pytest.raises(ValueError, match="unknown rule set"):
        schedule(["a", "b"], 2, seed=5, rules="bga")
    code = main(["tournament", "--players", "3", "--bots", "heuristic,random,random",
                 "--games", "3", "--seed", "1", "--rounds", "6", "--rules", "box",
                 "--json", "--no-progress"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rules"] == "box" and len(data["results"]) == 3
    # The same seeds under Yucata's rules play other games (11 cards in stack 2, ...).
    yucata = run_tournament(["heuristic", "random", "random"], 3, seed=1, rounds=6,
                            show_progress=False)
    assert [list(g.scores) for g in yucata] != [r["scores"] for r in data["results"]]


def test_the_tournament_command_refuses_an_unknown_rule_set(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["tournament", "--players", "2", "--bots", "random,random", "--games", "2",
              "--rules", "bga"])
    assert exited.value.code == 2
    assert "argument --rules: invalid choice: 'bga'" in capsys.readouterr().err.replace('"', "'")
