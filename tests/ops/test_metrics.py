"""Prometheus metrics of a real `elgrande serve`, scraped from their own loopback port
after a few commands."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from elgrande.loadgen.launch import free_port
from tests.ops.serve import Serve
from tests.ops.test_postgres_outage import csrf_of, wait_for_turn


def sample(text: str, name: str) -> float:
    found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    assert found, f"{name} not in the metrics"
    return float(found.group(1))


def test_metrics_after_a_few_commands(tmp_path: Path) -> None:
    port = free_port()
    with Serve(tmp_path, metrics_port=str(port)) as serve:
        metrics = f"http://127.0.0.1:{port}/metrics"
        client, game_id = serve.play_now()
        state = wait_for_turn(client, game_id)
        csrf = csrf_of(client, game_id)
        post = {"headers": {"x-csrf-token": csrf}}
        ok = client.post(f"/api/games/{game_id}/step", **post,  # type: ignore[arg-type]
                         json={"action": state["legal"][0]["text"], "seq": state["seq"]})
        assert ok.status_code == 200
        client.post(f"/api/games/{game_id}/undo", **post, json={"seq": state["seq"]})  # type: ignore[arg-type]
        bad = client.post(f"/api/games/{game_id}/step", **post,  # type: ignore[arg-type]
                          json={"action": state["legal"][0]["text"], "seq": state["seq"] + 7})
        assert bad.status_code >= 400
        with connect(f"{serve.ws_url}/ws/games/{game_id}") as ws:
            ws.recv(timeout=10)
            text = httpx.get(metrics).text
        assert sample(text, 'elgrande_commands_total{kind="step"}') == 2, bad.text
        assert sample(text, 'elgrande_commands_total{kind="undo"}') == 1
        assert sample(text, 'elgrande_command_seconds_count{kind="step"}') == 2
        assert sum(float(v) for v in re.findall(
            r"^elgrande_command_errors_total\{code=\"\w+\"\} (\S+)$", text, re.M)) == 1
        assert sample(text, "elgrande_commits_total") >= 1  # the bots' turns
        assert sample(text, "elgrande_open_sockets") == 1
        assert sample(text, "elgrande_bot_queue") >= 0
        assert sample(text, "elgrande_db_pool_size") > 0
        assert sample(text, "elgrande_db_pool_checked_out") >= 0
        # Not on the public port.
        assert httpx.get(serve.url + "/metrics").status_code == 404


def test_a_metrics_port_in_use_costs_only_the_metrics(caplog: pytest.LogCaptureFixture
                                                      ) -> None:
    import socket

    from elgrande.server.metrics import Metrics

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        metrics = Metrics()
        metrics.start("127.0.0.1", taken.getsockname()[1])
        assert metrics.port is None
        assert "metrics not served: cannot listen on 127.0.0.1" in caplog.text
        metrics.stop()
