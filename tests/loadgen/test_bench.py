"""`elgrande bench server` runs end to end (a short run; the figures are measured by
hand, see docs/bench.md)."""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from pathlib import Path

import pytest

from elgrande.cli.loadgen import register_bench
from elgrande.loadgen import bench
from elgrande.loadgen.proc import cpu_seconds, machine_ticks, stolen_percent

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
    assert result["model"]["name"] == "flat" and result["warmup_s"] < 1
    server = result["server"]
    assert server["cpu_s"] > 0 and server["cpu_ms_per_commit"] > 0
    assert server["rss_end_mb"] >= server["rss_idle_mb"] > 10
    assert 0 <= result["machine_stolen_percent"] <= 100  # Linux: /proc/stat is there


def test_the_report_does_not_wait_for_the_pages_closing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Closing thousands of WebSockets took minutes on a busy machine, and the run was
    given up for a report that waited on it: the tallies are sent first. Here no page
    ever finishes closing, yet the report comes, and the closing is given up after its
    own limit."""
    from elgrande.loadgen import play

    runs: list[play.Run] = []
    real_init, real_close = play.Run.__init__, play._close

    def remembered(self: play.Run, *args: object) -> None:
        real_init(self, *args)  # type: ignore[arg-type]
        runs.append(self)

    async def never_closes_at_the_end(clients: list[play.SeatClient]) -> None:
        if runs[-1].over():  # (games finished during the window close as usual)
            await asyncio.Event().wait()
        await real_close(clients)

    monkeypatch.setattr(play.Run, "__init__", remembered)
    monkeypatch.setattr(play, "_close", never_closes_at_the_end)
    monkeypatch.setattr(bench, "REPORT_LIMIT", 15.0)
    monkeypatch.setattr(bench, "CLOSE_LIMIT", 0.5)
    result = bench.run(games=2, processes=1, players=2, rounds=6, seconds=2,
                       database_url=None, pubsub_url=None, urls=None)
    assert result["errors"] == 0, result["error_samples"]
    # (2-player 6-round games without thinking finish within the window: a slot whose
    # game just ended holds none at the deadline, its next one still being set up; each
    # slot holds an open game at the deadline or has finished one in the window)
    assert result["moves"] > 0 and result["open_games"] <= 2
    assert result["open_games"] + result["games_finished"] >= 2


def test_the_live_model_reports_every_figure() -> None:
    """Thinking players (ten thousand times faster than people), spectators and pages
    that reconnect about once a second, games warmed up to a random stage first."""
    result = bench.run(games=2, processes=1, players=2, rounds=6, seconds=3,
                       database_url=None, pubsub_url=None, urls=None, model="live",
                       think_scale=0.0001, spectators=1, reconnects_per_hour=3600, seed=4)
    assert result["errors"] == 0, result["error_samples"]
    assert result["model"]["name"] == "live" and result["model"]["stagger"]
    assert result["model"]["think"]["turn"]["median_s"] == pytest.approx(0.0015)
    assert result["seed"] == 4 and result["seconds"] == 3
    assert result["commits"] > 0 and result["steps"] >= result["moves"] > 0
    for key in ("commits_per_s", "steps_per_s", "moves_per_s", "requests_per_s"):
        assert result[key] > 0, key
    # One spectator a game. A game may have just ended, its next one still being set up:
    # on a loaded machine both may be between games when the window closes (CI saw it).
    assert result["open_games"] <= 2 and result["spectators"] == result["open_games"]
    assert result["games_started"] + result["open_games"] >= 1  # games did open
    assert result["reconnects"] > 0
    # Every finished game was under way when measuring began (one per game slot) or
    # started while measuring (CI saw 10 finished against 9 started).
    assert result["games_started"] + result["games"] >= result["games_finished"] >= 0
    latency = result["latency_ms"]
    assert 0 < latency["p50"] <= latency["p95"] <= latency["p99"]
    server = result["server"]
    assert set(server) == {"cpu_s", "cpu_percent", "cpu_ms_per_commit", "cpu_ms_per_move",
                           "rss_idle_mb", "rss_end_mb", "rss_mb_per_open_game"}
    assert server["cpu_ms_per_commit"] > 0
    assert (server["rss_mb_per_open_game"] is not None) == (result["open_games"] > 0)
    client = result["loadgen"]
    assert client["cpu_s"] > 0 and 0 < client["cpu_percent"]
    assert set(client["loop_lag_ms"]) == {"p50", "p99", "max"}
    assert client["collections"] >= 0  # in this process: it collects as usual
    assert client["loop_lag_ms"]["max"] >= client["loop_lag_ms"]["p50"] >= 0


def test_games_set_up_first_are_all_open_when_measuring_starts() -> None:
    """--set-up-first: the warm-up sets every game up (and plays nothing), so the window
    measures the games held, not their arrival: none starts in it, all are open."""
    result = bench.run(games=3, processes=1, players=2, rounds=6, seconds=3,
                       database_url=None, pubsub_url=None, urls=None, model="daily",
                       live_fraction=1.0, think_scale=0.01, set_up_first=True)
    assert result["errors"] == 0, result["error_samples"]
    assert result["set_up_first"] and result["warmup_s"] > 0
    assert result["games_started"] == 0 and result["open_games"] == 3
    assert result["commits"] > 0  # then played from their start


def test_players_in_two_client_processes_over_the_json_api_too() -> None:
    """The games split over two client processes (their tallies added up), moves sent as
    JSON API requests instead of over the WebSocket."""
    # (6 s: on a loaded machine a 3 s window once saw no commit at all)
    result = bench.run(games=2, processes=1, players=2, rounds=6, seconds=6,
                       database_url=None, pubsub_url=None, urls=None, via="http", clients=2)
    assert result["errors"] == 0, result["error_samples"]
    assert (result["client_processes"], result["via"]) == (2, "http")
    assert result["moves"] > 0 and result["commits"] > 0
    # Client processes do not collect garbage while measuring: no pause of theirs is
    # counted against the server.
    assert result["loadgen"]["collections"] == 0
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
    assert (args.model, args.seconds, args.stagger, args.spectators) == ("flat", None, None, None)
    args = parser.parse_args(["server", "--model", "daily", "--live-fraction", "0.25",
                              "--spectators", "1.5", "--reconnects-per-hour", "0",
                              "--think-scale", "0.1", "--no-stagger", "--seed", "9"])
    assert (args.model, args.live_fraction, args.spectators, args.reconnects_per_hour,
            args.think_scale, args.stagger, args.seed) == ("daily", 0.25, 1.5, 0.0, 0.1,
                                                           False, 9)


def test_a_run_that_cannot_be_measured_says_so_without_a_traceback(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from elgrande.cli import main

    def silent_client(**_: object) -> None:
        raise bench.BenchError("a client process did not report 'done' within 120 s")

    monkeypatch.setattr(bench, "run", silent_client)
    assert main(["bench", "server", "--games", "2"]) == 1
    err = capsys.readouterr().err
    assert err == ("elgrande bench server: error: a client process did not report 'done' "
                   "within 120 s\n")


@pytest.mark.parametrize("bad", [["--model", "busy"], ["--live-fraction", "1.5"],
                                 ["--spectators", "-1"], ["--spectators", "nan"],
                                 ["--think-scale", "0"]])
def test_bad_options_are_refused(bad: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    register_bench(parser.add_subparsers())
    with pytest.raises(SystemExit):
        parser.parse_args(["server", *bad])
    assert bad[0] in capsys.readouterr().err


def test_cpu_time_of_a_process() -> None:
    before = cpu_seconds(os.getpid())
    assert before is not None
    end = time.process_time() + 0.05
    while time.process_time() < end:
        pass
    after = cpu_seconds(os.getpid())
    assert after is not None and after >= before + 0.03
    assert cpu_seconds(2**22 + 12345) is None  # beyond any pid: no such process


def test_percentiles() -> None:
    values = [float(v) for v in range(1, 101)]
    assert bench.percentile(values, 50) == 50
    assert bench.percentile(values, 99) == 99
    assert bench.percentile([], 50) is None


def test_the_hypervisors_share_is_read_from_proc_stat(tmp_path: Path) -> None:
    """The 8th number of /proc/stat's first line is the time stolen by the hypervisor:
    a run whose host took a third of the CPU time says so."""
    stat = tmp_path / "stat"
    stat.write_text("cpu  100 0 50 800 10 0 5 35 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n")
    before = machine_ticks(stat)
    assert before == (35, 1000)
    stat.write_text("cpu  300 0 100 1000 10 0 5 235 0 0\n")
    after = machine_ticks(stat)
    assert after == (235, 1650)
    assert stolen_percent(before, after) == pytest.approx(30.8)
    assert stolen_percent(before, before) is None  # no time passed
    assert machine_ticks(tmp_path / "absent") is None
    stat.write_text("")  # a file that does not say: no figure, no error
    assert machine_ticks(stat) is None
    stat.write_text("cpu  1 2 3\n")
    assert machine_ticks(stat) is None
    assert stolen_percent(None, after) is None
    real = machine_ticks()
    assert real is not None and 0 <= real[0] <= real[1]
