"""The server's processes collect young objects less often (elgrande/server/collector.py)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

from elgrande.server.collector import YOUNG_THRESHOLD, tune_collector

KEY = "k" * 40


def test_tuning_changes_only_the_young_threshold() -> None:
    before = gc.get_threshold()
    try:
        tune_collector()
        assert gc.get_threshold() == (YOUNG_THRESHOLD, before[1], before[2])
        assert YOUNG_THRESHOLD > before[0]
    finally:
        gc.set_threshold(*before)


def test_the_asgi_entry_point_tunes_its_process(tmp_path: Path) -> None:
    env = {"ELGRANDE_DATABASE_URL": f"sqlite:///{tmp_path / 'g.db'}",
           "ELGRANDE_SECRET_KEY": KEY, "PATH": "/usr/bin:/bin",
           **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}}
    code = ("import gc; print(gc.get_threshold()[0]); from elgrande.asgi import create_app; "
            "create_app(); print(gc.get_threshold()[0])")
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(gc.get_threshold()[0]), str(YOUNG_THRESHOLD)]


def _create_app(tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {"ELGRANDE_DATABASE_URL": f"sqlite:///{tmp_path / 'g.db'}",
           "ELGRANDE_SECRET_KEY": KEY, "PATH": "/usr/bin:/bin", **extra,
           **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}}
    code = "import gc; from elgrande.asgi import create_app; create_app(); print(gc.get_threshold()[0])"
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


def test_the_young_threshold_is_a_setting(tmp_path: Path) -> None:
    done = _create_app(tmp_path, ELGRANDE_GC_YOUNG_THRESHOLD="5000")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["5000"]


def test_a_young_threshold_out_of_range_is_refused_in_one_line(tmp_path: Path) -> None:
    done = _create_app(tmp_path, ELGRANDE_GC_YOUNG_THRESHOLD="10")
    assert done.returncode == 2 and done.stdout == ""
    assert "ELGRANDE_GC_YOUNG_THRESHOLD" in done.stderr and "100 to 1000000" in done.stderr
    assert "Traceback" not in done.stderr
