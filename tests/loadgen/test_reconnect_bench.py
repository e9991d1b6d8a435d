"""`elgrande bench reconnect`: a short real run reports a page's connection cost, with
and without deflate (the server really offers it or not, as the handshake shows)."""

from __future__ import annotations

import json

import pytest

from elgrande.cli import main
from elgrande.loadgen import reconnect


def _check(result: dict, connections: int, deflate: bool) -> None:
    assert result["connections"] == connections and result["deflate"] is deflate
    assert result["deflate_negotiated"] is deflate
    assert result["first_state_bytes"] > 1000  # a whole state with its log
    assert result["server_cpu_ms_per_connection"] > 0
    assert result["wall_ms_per_connection"] > 0


def test_a_short_run_with_deflate_reports_the_cost_of_a_connection() -> None:
    result = reconnect.run(connections=3, entries=12, deflate=True)
    assert result["log_entries"] >= 12
    _check(result, 3, True)


def test_the_command_prints_json_without_deflate(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "reconnect", "--connections", "2", "--entries", "5", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["log_entries"] >= 5
    _check(result, 2, False)


def test_bad_options_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["bench", "reconnect", "--connections", "0"])
    assert refused.value.code == 2
    assert "--connections" in capsys.readouterr().err
