"""`elgrande serve` end to end."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(60)


def test_serve_prints_its_address_and_serves(tmp_path: Path) -> None:
    env = {**os.environ, "ELGRANDE_SECRET_FILE": str(tmp_path / "secret")}
    process = subprocess.Popen(
        [sys.executable, "-m", "elgrande", "serve", "--port", "0",
         "--database-url", f"sqlite:///{tmp_path / 'serve.db'}"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"running at (http://127\.0\.0\.1:\d+/)", line)
        assert match, line
        with urllib.request.urlopen(match.group(1), timeout=10) as response:
            assert response.status == 200 and b"Play now" in response.read()
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert (tmp_path / "serve.db").exists()


def test_serve_says_when_the_port_is_taken(tmp_path: Path) -> None:
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "elgrande", "serve", "--port", str(port),
             "--database-url", f"sqlite:///{tmp_path / 'x.db'}"],
            cwd=tmp_path, env={**os.environ, "ELGRANDE_SECRET_KEY": "k" * 32},
            capture_output=True, text=True, timeout=30)
    assert result.returncode == 1 and "cannot listen" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
