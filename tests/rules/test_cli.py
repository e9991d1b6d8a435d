"""The engine's command-line commands, run as a user would."""

from __future__ import annotations

import json
import subprocess
import sys

ELGRANDE = [sys.executable, "-m", "elgrande"]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ELGRANDE, *args], input=stdin, capture_output=True, text=True, timeout=120)


def test_simulate_prints_games_and_summary() -> None:
    result = run("simulate", "--players", "3", "--games", "4", "--seed", "7")
    assert result.returncode == 0, result.stderr
    games = [line for line in result.stdout.splitlines() if line.startswith("game ")]
    assert len(games) == 4 and "(seed 7)" in games[0] and "winner" in games[0]
    assert "mean score" in result.stdout


def test_simulate_json_is_deterministic() -> None:
    first = run("simulate", "--players", "5", "--games", "3", "--seed", "11", "--rounds", "6", "--json")
    second = run("simulate", "--players", "5", "--games", "3", "--seed", "11", "--rounds", "6", "--json")
    assert first.returncode == 0, first.stderr
    records = [json.loads(line) for line in first.stdout.splitlines()]
    assert [r.get("game") for r in records[:3]] == [0, 1, 2]
    assert records[-1]["summary"] is True and records[-1]["games"] == 3
    assert all(len(r["scores"]) == 5 and r["winners"] for r in records[:3])
    assert first.stdout.split('"seconds"')[0] == second.stdout.split('"seconds"')[0]


def test_bench_engine_json() -> None:
    result = run("bench", "engine", "--players", "2", "--seconds", "0.3", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["engine"][0]["players"] == 2 and report["engine"][0]["games"] >= 1
    assert report["copy_microseconds"] > 0


def test_play_a_whole_game_from_the_terminal() -> None:
    # Always answer the first listed action; the game must reach its end.
    result = run("play", "--players", "2", "--seat", "1", "--seed", "3", "--rounds", "6", stdin="1\n" * 2000)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Game over." in result.stdout
    assert "your choice>" in result.stdout and "King in" in result.stdout


def test_play_refuses_bad_answers_and_quits() -> None:
    result = run("play", "--players", "3", "--seed", "1", stdin="banana\n99\np4 bid 1\nq\n")
    assert result.returncode == 1
    assert result.stdout.count("not possible") == 3


def test_help_describes_commands() -> None:
    result = run("--help")
    assert result.returncode == 0
    for command in ("simulate", "bench", "play"):
        assert command in result.stdout
