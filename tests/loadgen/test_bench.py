"""`elgrande bench server` runs end to end (a short run; the figures are measured by
hand, see docs/deploy.md)."""

from __future__ import annotations

import argparse

import pytest

from elgrande.cli.loadgen import register_bench
from elgrande.loadgen import bench

pytestmark = pytest.mark.timeout(120)


def test_a_short_bench_run_reports_moves_latency_and_no_errors() -> None:
    result = bench.run(games=2, processes=1, players=2, rounds=6, seconds=3,
                       database_url=None, pubsub_url=None, urls=None)
    assert result["errors"] == 0, result["error_samples"]
    assert result["moves"] > 0 and result["commits"] > 0 and result["moves_per_s"] > 0
    assert result["commits"] <= result["requests"]
    latency = result["latency_ms"]
    assert latency["p50"] is not None and latency["p50"] <= latency["p95"] <= latency["p99"]
    assert result["database"] == "sqlite" and result["pubsub"] == "in-process"


def test_players_in_two_client_processes_over_the_json_api_too() -> None:
    """The games split over two client processes (their tallies added up), moves sent as
    JSON API requests instead of over the WebSocket."""
    result = bench.run(games=2, processes=1, players=2, rounds=6, seconds=3,
                       database_url=None, pubsub_url=None, urls=None, via="http", clients=2)
    assert result["errors"] == 0, result["error_samples"]
    assert (result["client_processes"], result["via"]) == (2, "http")
    assert result["moves"] > 0 and result["commits"] > 0
    assert result["latency_ms"]["p99"] is not None


def test_several_processes_need_redis() -> None:
    with pytest.raises(ValueError, match="pub/sub"):
        bench.run(games=1, processes=2, players=2, rounds=6, seconds=1, database_url=None,
                  pubsub_url=None, urls=None)


def test_the_command_line() -> None:
    parser = argparse.ArgumentParser()
    register_bench(parser.add_subparsers())
    args = parser.parse_args(["server", "--games", "3", "--processes", "2", "--json",
                              "--pubsub-url", "redis://127.0.0.1:1/0"])
    assert (args.games, args.processes, args.json) == (3, 2, True)
    assert (args.via, args.clients, args.client_nice, args.rounds) == ("ws", 2, 10, 9)
    assert args.func.__name__ == "cmd_bench_server"


def test_percentiles() -> None:
    values = [float(v) for v in range(1, 101)]
    assert bench.percentile(values, 50) == 50
    assert bench.percentile(values, 99) == 99
    assert bench.percentile([], 50) is None
