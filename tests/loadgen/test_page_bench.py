"""`elgrande bench page`: a short real run reports what a page's connection, a sync and
a draft step cost, with and without deflate (the server really offers it or not, as the
handshake shows)."""

from __future__ import annotations

import json

import pytest

from elgrande.cli import main
from elgrande.loadgen import page


def _check(result: dict, connections: int, deflate: bool, commands: int) -> None:
    assert result["connections"] == connections and result["deflate"] is deflate
    assert result["deflate_negotiated"] is deflate
    assert result["first_state_bytes"] > 1000  # a whole state with its log
    assert result["wall_ms_per_connection"] > 0
    assert result["commands"] == commands
    # (CPU time is read in ticks of 10 ms: enough of each to span some; a sync costs
    # 0.1 to 0.4 ms, so 40 of them can fall within one tick on a fast host)
    if connections >= 10:
        assert result["server_cpu_ms_per_connection"] > 0
    if commands >= 200:
        assert result["server_cpu_ms_per_sync"] > 0
        assert result["server_cpu_ms_per_draft_step"] > 0


def test_a_short_run_with_deflate_reports_the_cost_of_a_connection() -> None:
    result = page.run(connections=10, commands=200, entries=12, deflate=True)
    assert result["log_entries"] >= 12
    _check(result, 10, True, 200)


def test_the_command_prints_json_without_deflate(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "page", "--connections", "2", "--commands", "2", "--entries", "5",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["log_entries"] >= 5
    _check(result, 2, False, 2)


def test_bad_options_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["bench", "page", "--connections", "0"])
    assert refused.value.code == 2
    assert "--connections" in capsys.readouterr().err
