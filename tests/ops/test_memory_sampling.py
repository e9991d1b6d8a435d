"""`bench server --memory-every`: the servers' RSS over a run."""

from __future__ import annotations

import os

import pytest

from elgrande.cli.loadgen import main
from elgrande.loadgen.memory import MemorySampler, rss_mb


def test_rss_of_a_live_and_a_gone_process() -> None:
    mine = rss_mb(os.getpid())
    assert mine is not None and mine > 1
    assert rss_mb(2**22 + 12345) is None  # beyond any pid: no such process


def test_the_sampler_reports_a_curve() -> None:
    sampler = MemorySampler([os.getpid()], every=0.01).start()
    ballast = bytearray(32 * 1024 * 1024)  # noqa: F841  (held while sampled)
    while len(sampler.samples) < 3:
        pass
    curve = sampler.stop()
    assert curve["every_s"] == 0.01 and len(curve["samples"]) >= 4
    assert curve["samples"][0]["t"] <= curve["samples"][-1]["t"]
    assert curve["peak_mb"] >= max(curve["start_mb"], curve["end_mb"])


def test_memory_needs_servers_started_here(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--url", "http://127.0.0.1:9", "--memory-every", "5"]) == 2
    assert "--memory-every needs servers started here" in capsys.readouterr().err
