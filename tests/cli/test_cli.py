"""The `elgrande` command as people use it: --version, argparse-style errors for bad
values (no traceback), quiet exit when the reader of the output goes away, progress bars
only on a terminal, a description for every sub-command, JSON from verify and replay."""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import random
import struct
import subprocess
import sys
import termios
from pathlib import Path
from typing import Any

import pytest

import elgrande
from elgrande.cli import build_parser, main
from elgrande.matches import Match, export
from elgrande.rules import GameConfig, is_terminal
from tests.matches.match_helpers import play_until

# The installed console script beside this interpreter (.venv/bin/elgrande), as typed.
SCRIPT = Path(sys.executable).with_name("elgrande")
ELGRANDE = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "elgrande"]


def run(*args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ELGRANDE, *args], capture_output=True, text=True, timeout=120, **kw)


def test_version() -> None:
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"elgrande {elgrande.__version__}"


BAD_ARGUMENTS = [
    (["simulate", "--games", "-3"], "--games", "1 or more"),
    (["simulate", "--games", "many"], "--games", "not a whole number"),
    (["simulate", "--players", "7"], "--players", "choose from"),
    (["bench", "engine", "--seconds", "-1"], "--seconds", "above 0"),
    (["bench", "engine", "--seconds", "nan"], "--seconds", "above 0"),
    (["bench", "ai", "--iterations", "0"], "--iterations", "1 or more"),
    (["bench", "server", "--games", "0"], "--games", "1 or more"),
    (["bench", "server", "--seconds", "-2.5"], "--seconds", "above 0"),
    (["bench", "server", "--clients", "0"], "--clients", "1 or more"),
    (["tournament", "--players", "3", "--bots", "random,random,random", "--games", "-1"],
     "--games", "1 or more"),
    (["tournament", "--players", "3", "--bots", "random,random,random", "--games", "3",
      "--workers", "0"], "--workers", "1 or more"),
    (["tournament", "--players", "3", "--bots", "random,random", "--games", "3"],
     "--bots", "2 bots for 3 players"),
    (["tournament", "--players", "2", "--bots", "random,grandmaster", "--games", "2"],
     "--bots", "grandmaster"),
    (["play", "--players", "3", "--seat", "3"], "--seat", "0 to 2"),
]


@pytest.mark.parametrize(("argv", "option", "accepts"), BAD_ARGUMENTS,
                         ids=[" ".join(a[0]) for a in BAD_ARGUMENTS])
def test_bad_arguments_are_usage_errors(argv: list[str], option: str, accepts: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    # argparse's own checks exit; those made by the command after parsing return.
    try:
        status: object = main(argv)
    except SystemExit as exit_:
        status = exit_.code
    assert status == 2
    out, err = capsys.readouterr()
    assert out == ""
    last = err.strip().splitlines()[-1]
    assert last.startswith("elgrande ") and ": error: argument " + option in last, err
    assert accepts in last, err


def test_a_bad_value_from_the_real_command_has_no_traceback() -> None:
    result = run("bench", "engine", "--seconds", "-1")
    assert result.returncode == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("usage: elgrande bench engine")
    assert "argument --seconds: -1 is not allowed" in result.stderr


@pytest.mark.parametrize("argv", [
    ["simulate", "--players", "2", "--rounds", "6", "--games", "3"],
    ["simulate", "--players", "2", "--rounds", "6", "--games", "3", "--json"],
    ["tournament", "--players", "2", "--bots", "random,random", "--games", "2", "--json"],
])
def test_a_closed_pipe_ends_the_command_quietly(argv: list[str]) -> None:
    """`elgrande ... | head -1`: the reader is gone before the output is flushed."""
    process = subprocess.Popen([*ELGRANDE, *argv], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    process.stdout.close()  # no reader any more: the first flush meets a closed pipe
    _, err = process.communicate(timeout=120)
    assert err == ""
    assert process.returncode == 1


def test_head_in_a_shell_pipeline_sees_no_traceback() -> None:
    command = " ".join(ELGRANDE) + " simulate --players 2 --rounds 6 --games 300 --json | head -1"
    result = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
    assert json.loads(result.stdout)["game"] == 0
    assert result.stderr == ""


def test_no_progress_bar_when_stderr_is_not_a_terminal() -> None:
    result = run("simulate", "--players", "2", "--rounds", "6", "--games", "3")
    assert result.returncode == 0 and result.stderr == ""
    result = run("bench", "engine", "--seconds", "0.05", "--json")
    assert result.returncode == 0 and result.stderr == ""
    json.loads(result.stdout)


def test_progress_bar_on_a_terminal() -> None:
    leader, follower = pty.openpty()
    # A terminal 80 columns wide (a new pseudo-terminal has 0, and tqdm draws nothing).
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    try:
        result = subprocess.run([*ELGRANDE, "simulate", "--players", "2", "--rounds", "6",
                                 "--games", "3", "--json"], stdout=subprocess.PIPE,
                                stderr=follower, timeout=120)
        os.close(follower)
        follower = -1
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: everything written has been read
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)
    assert result.returncode == 0
    assert b"games: 100%" in shown
    assert b"games" not in result.stdout.replace(b'"games"', b"")  # the bar is not in stdout


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += _parsers(sub)
    return found


def test_every_sub_command_has_a_description() -> None:
    parsers = _parsers(build_parser())
    names = {p.prog for p in parsers}
    assert {"elgrande simulate", "elgrande bench engine", "elgrande verify", "elgrande replay",
            "elgrande tournament", "elgrande bench ai", "elgrande bench server"} <= names
    missing = [p.prog for p in parsers if not (p.description or "").strip()]
    assert missing == []


def test_help_of_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    for parser in _parsers(build_parser())[1:]:
        argv = parser.prog.split()[1:] + ["--help"]
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 0
        out = capsys.readouterr().out
        assert out.startswith(f"usage: {parser.prog}")
        assert (parser.description or "").split()[0] in out


@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    match = play_until(Match.new(GameConfig(players=2, rounds=6), seed="cli"),
                       random.Random(5), is_terminal)
    path = tmp_path_factory.mktemp("record") / "game.json"
    path.write_text(json.dumps(export(match)))
    return path


def test_verify_json(record_file: Path) -> None:
    result = run("verify", "--json", str(record_file))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is True and report["game"] == str(record_file)
    assert any("matches the seed" in check for check in report["checks"])


def test_verify_json_of_a_tampered_record(record_file: Path, tmp_path: Path) -> None:
    record = json.loads(record_file.read_text())
    record["seed"] = "another seed"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record))
    result = run("verify", "--json", str(bad))
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["ok"] is False and "commitment" in report["error"]
    assert "FAILED" in result.stderr  # the error is on stderr too


def test_replay_json(record_file: Path) -> None:
    record = json.loads(record_file.read_text())
    result = run("replay", "--json", str(record_file))
    assert result.returncode == 0, result.stderr
    listing = json.loads(result.stdout)
    assert [m["action"] for m in listing["moves"]] == [e["action"] for e in record["log"]]
    assert listing["players"] == 2 and listing["rounds"] == 6
    assert listing["final_scores"] == record["final_state"]["scores"]


@pytest.mark.parametrize("command", ["verify", "replay"])
def test_unreadable_records_are_errors_on_stderr(command: str, tmp_path: Path) -> None:
    result = run(command, "--json", str(tmp_path / "missing.json"))
    assert result.returncode == 1 and result.stdout == ""
    assert "cannot read" in result.stderr and "Traceback" not in result.stderr


def test_bench_server_refusals_go_to_stderr() -> None:
    # Several server processes need a Redis URL to share updates: refused before starting.
    result = run("bench", "server", "--processes", "2", "--seconds", "1")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("elgrande bench server: ")
