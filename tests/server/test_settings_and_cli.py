"""Settings from the environment, and `elgrande serve` end to end."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from elgrande.server.settings import Settings

pytestmark = pytest.mark.timeout(60)


def test_settings_from_environment(tmp_path: Path) -> None:
    settings = Settings.from_env({
        "ELGRANDE_DATABASE_URL": "postgresql+psycopg://u@h/db", "ELGRANDE_SECRET_KEY": "s3cret",
        "ELGRANDE_HOST": "0.0.0.0", "ELGRANDE_PORT": "9000", "ELGRANDE_BOT_DELAY": "0",
        "ELGRANDE_SECURE_COOKIES": "true",
    })
    assert settings == Settings("postgresql+psycopg://u@h/db", "s3cret", "0.0.0.0", 9000, 0.0, True)


def test_without_a_secret_key_one_is_kept_in_a_private_file(tmp_path: Path) -> None:
    secret_file = tmp_path / "var" / "secret"
    first = Settings.from_env({"ELGRANDE_SECRET_FILE": str(secret_file)})
    second = Settings.from_env({"ELGRANDE_SECRET_FILE": str(secret_file)})
    assert first.secret_key == second.secret_key and len(first.secret_key) >= 32
    assert first.database_url == "sqlite:///elgrande.db" and first.port == 8000
    assert secret_file.stat().st_mode & 0o777 == 0o600


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
            cwd=tmp_path, env={**os.environ, "ELGRANDE_SECRET_KEY": "k"},
            capture_output=True, text=True, timeout=30)
    assert result.returncode == 1 and "cannot listen" in result.stdout
