"""`elgrande coach RECORD.json --seat N`: the coach's review of a game record on the command
line (docs/coach.md), with a tiny budget on a short 2-player game played by bots."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from elgrande.ai import make_bot
from elgrande.ai.coach import Budget, review
from elgrande.cli import coach as coach_cli
from elgrande.cli import main
from elgrande.matches import Match, export
from elgrande.rules import GameConfig, parse_action, to_act
from elgrande.server.bots import coach_seed

SMALL = ["--level", "ismcts:20", "--playouts", "4"]
MISTAKE = re.compile(r"^round (\d+), turn (\d+): played (.+), coach (.+), "
                     r"about (-?\d+\.\d) ± (\d+\.\d) points$")


def bots_game(stop_round: int | None = None) -> dict[str, Any]:
    """A 2-player, 6-round match between seeded medium bots: its record (unfinished, as an
    administrator exports it, when stopped at ``stop_round``)."""
    match = Match.new(GameConfig(players=2, rounds=6), seed="coach-cli")
    bots = [make_bot("medium", 10 + p) for p in range(2)]
    while not match.over:
        if stop_round is not None and match.state.round_index >= stop_round:
            return export(match, unfinished=True)
        seat = to_act(match.state)[0]
        draft = match.draft(seat)
        while draft.may_step:
            draft.step(bots[seat].choose(draft.current, seat))
        match.finish(seat)
    return export(match)


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("coach")
    paths = {}
    for name, record in (("finished", bots_game()), ("partial", bots_game(stop_round=2))):
        paths[name] = folder / f"{name}.json"
        paths[name].write_text(json.dumps(record))
    return paths


def coach(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status: object = main(["coach", *argv])
    except SystemExit as exit_:  # argparse's own checks
        status = exit_.code
    out, err = capsys.readouterr()
    assert isinstance(status, int)
    return status, out, err


def test_the_mistakes_biggest_first(games: dict[str, Path],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = coach(capsys, str(games["finished"]), "--seat", "0", *SMALL)
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("seat 0 of 2 players, 6 rounds")
    assert "coach ismcts:20, 4 playouts per line" in lines[0]
    mistakes = [MISTAKE.match(line) for line in lines[2:]]
    assert mistakes and all(mistakes), out
    deltas = [float(m.group(5)) for m in mistakes if m]
    assert deltas == sorted(deltas, reverse=True) and all(d > 0 for d in deltas)


def test_json_is_the_review_with_the_sites_seed(games: dict[str, Path],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = coach(capsys, str(games["finished"]), "--seat", "1", *SMALL, "--json")
    assert status == 0
    report = json.loads(out)
    record = json.loads(games["finished"].read_text())
    # The default seed is the one the site's review of a finished game uses.
    assert report["seed"] == coach_seed(record["seed"], 1)
    assert report["budget"] == {"level": "ismcts:20", "playouts": 4}
    config = GameConfig.from_dict(record["config"])
    log = [parse_action(e["action"]) for e in record["log"]]
    expected = review(config, log, 1, report["seed"], Budget("ismcts:20", 4))
    assert report["findings"] == [f.to_dict() for f in expected]
    assert report["decisions"] == len(expected)
    assert report["agreed"] == sum(1 for f in expected if f.agreed)
    deltas = [m["delta"] for m in report["mistakes"]]
    assert deltas == sorted(deltas, reverse=True) and all(d > 0 for d in deltas)
    assert len(deltas) == sum(1 for f in expected if f.delta is not None and f.delta > 0)


def test_a_partial_record_and_the_replay_listing(games: dict[str, Path], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # An unfinished record has no seed: 0 unless --seed says otherwise.
    status, out, _ = coach(capsys, str(games["partial"]), "--seat", "1", *SMALL, "--json")
    assert status == 0
    partial = json.loads(out)
    assert partial["seed"] == 0 and partial["decisions"] > 0
    # `elgrande replay --json` output is read too, and gives the same review.
    assert main(["replay", "--json", str(games["partial"])]) == 0
    listing = tmp_path / "listing.json"
    listing.write_text(capsys.readouterr().out)
    status, out, _ = coach(capsys, str(listing), "--seat", "1", *SMALL, "--json",
                           "--seed", "0")
    assert status == 0
    again = json.loads(out)
    assert again["findings"] == partial["findings"] and again["seed"] == 0


def _write(path: Path, data: Any) -> str:
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_bad_input_is_a_usage_error(games: dict[str, Path], tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    record = json.loads(games["partial"].read_text())
    illegal = dict(record, log=[dict(e) for e in record["log"]])
    illegal["log"][5]["action"] = "p0 end"
    cases = [
        ([str(tmp_path / "missing.json"), "--seat", "0"], "cannot read"),
        ([_write(tmp_path / "bad.json", "{not json"), "--seat", "0"], "is not JSON"),
        ([_write(tmp_path / "list.json", [1, 2]), "--seat", "0"], "is not a game record"),
        ([_write(tmp_path / "half.json", {"format": "elgrande-match/1"}), "--seat", "0"],
         "malformed game record"),
        ([_write(tmp_path / "illegal.json", illegal), "--seat", "0"], "move 6 (p0 end)"),
        ([str(games["partial"]), "--seat", "2"], "argument --seat: 2 is not a seat"),
        ([str(games["partial"]), "--seat", "-1"], "it takes 0 to 1"),
        ([str(games["partial"]), "--seat", "0", "--level", "grandmaster"],
         "argument --level: unknown bot 'grandmaster'"),
        ([str(games["partial"]), "--seat", "0", "--playouts", "0"], "argument --playouts"),
    ]
    for argv, message in cases:
        status, out, err = coach(capsys, *argv)
        assert status == 2 and out == "", argv
        assert err.startswith("usage: elgrande coach"), err
        last = err.strip().splitlines()[-1]
        assert last.startswith("elgrande coach: error: ") and message in last, err


def test_the_real_command_has_no_traceback(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("elgrande")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "elgrande"]
    result = subprocess.run([*command, "coach", str(tmp_path / "nowhere.json"), "--seat", "0"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr and "cannot read" in result.stderr


def test_the_defaults_are_the_coachs(capsys: pytest.CaptureFixture[str]) -> None:
    assert (coach_cli.DEFAULT_LEVEL, coach_cli.DEFAULT_PLAYOUTS) == (Budget().level,
                                                                     Budget().playouts)
    status, out, _ = coach(capsys, "--help")
    assert status == 0
    text = " ".join(out.split())
    assert "revealed secret seed" in text and f"default {Budget().level}" in text
