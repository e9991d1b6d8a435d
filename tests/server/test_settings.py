"""One validated Settings for every ELGRANDE_* variable (elgrande/server/settings.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from elgrande.server.settings import Settings, SettingsError, docs_table

KEY = "k" * 32
ROOT = Path(__file__).resolve().parents[2]


def test_every_variable_read_and_typed() -> None:
    settings = Settings.load({
        "ELGRANDE_DATABASE_URL": "postgresql+psycopg://u@h/db", "ELGRANDE_SECRET_KEY": KEY,
        "ELGRANDE_HOST": "0.0.0.0", "ELGRANDE_PORT": "9000", "ELGRANDE_BOT_DELAY": "0",
        "ELGRANDE_SECURE_COOKIES": "true", "ELGRANDE_PUBSUB_URL": "redis://127.0.0.1:6379/0",
        "ELGRANDE_BOT_LEASE_SECONDS": "20", "ELGRANDE_MAX_BODY": "1000",
        "ELGRANDE_REGISTRATIONS_PER_CLIENT": "0", "ELGRANDE_LOGIN_WINDOW": "30.5",
    })
    assert (settings.database_url, settings.host, settings.port, settings.bot_delay) == (
        "postgresql+psycopg://u@h/db", "0.0.0.0", 9000, 0.0)
    assert settings.secure_cookies is True and settings.secret_key == KEY
    assert settings.pubsub_url == "redis://127.0.0.1:6379/0"
    assert (settings.bot_lease_seconds, settings.max_body, settings.registrations_per_client,
            settings.login_window) == (20.0, 1000, 0, 30.5)


@pytest.mark.parametrize(("written", "meant"), [
    ("1", True), ("0", False), ("true", True), ("False", False), ("yes", True), ("no", False),
    ("on", True), ("OFF", False)])
def test_booleans_as_people_write_them(written: str, meant: bool) -> None:
    found = Settings.load({"ELGRANDE_SECRET_KEY": KEY, "ELGRANDE_SECURE_COOKIES": written})
    assert found.secure_cookies is meant


@pytest.mark.parametrize(("name", "value", "says"), [
    ("ELGRANDE_PORT", "abc", "a whole number from 0 to 65535"),
    ("ELGRANDE_PORT", "70000", "a whole number from 0 to 65535"),
    ("ELGRANDE_SECURE_COOKIES", "maybe", "on/off, true/false, yes/no or 1/0"),
    ("ELGRANDE_BOT_DELAY", "-1", "a number of seconds, 0 or more"),
    ("ELGRANDE_LOGIN_WINDOW", "nan", "a number of seconds above 0"),
    ("ELGRANDE_MAX_BODY", "0", "a whole number of at least 1"),
    ("ELGRANDE_PUBSUB_URL", "http://x", "a redis://, rediss:// or unix:// URL"),
    ("ELGRANDE_DATABASE_URL", "mysql://x", "an SQLAlchemy URL"),
])
def test_a_bad_value_names_the_variable_and_what_it_takes(name: str, value: str, says: str
                                                           ) -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.load({"ELGRANDE_SECRET_KEY": KEY, name: value})
    message = str(refused.value)
    assert message.startswith(f"{name}: {value!r} is not valid") and says in message
    assert "\n" not in message


def test_a_short_secret_key_is_refused_without_showing_it() -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.load({"ELGRANDE_SECRET_KEY": "hunter2"})
    assert "ELGRANDE_SECRET_KEY" in str(refused.value) and "hunter2" not in str(refused.value)
    assert "hunter2" not in repr(Settings(secret_key=KEY * 2)) and KEY not in repr(
        Settings(secret_key=KEY))


def test_a_misspelled_variable_is_an_error() -> None:
    with pytest.raises(SettingsError, match="ELGRANDE_DATABSE_URL is not a setting"):
        Settings.load({"ELGRANDE_SECRET_KEY": KEY, "ELGRANDE_DATABSE_URL": "sqlite:///x.db"})
    # The test suite's own variables are not settings, and are left alone.
    assert Settings.load({"ELGRANDE_SECRET_KEY": KEY, "ELGRANDE_TEST_CHROMIUM": "/x"}).port
    # Nor are the rules engine's (docs/compiled-engine.md), which a server may run under.
    assert Settings.load({"ELGRANDE_SECRET_KEY": KEY, "ELGRANDE_ENGINE": "pure",
                          "ELGRANDE_ENGINE_BUILD": "/x"}).port


def test_options_override_and_are_named_in_errors() -> None:
    assert Settings.load({"ELGRANDE_SECRET_KEY": KEY, "ELGRANDE_PORT": "1"}, port=2).port == 2
    with pytest.raises(SettingsError, match=r"^--port: 99999 is not valid"):
        Settings.load({"ELGRANDE_SECRET_KEY": KEY}, port=99999)


def test_a_dotenv_file_is_read_and_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    for name in [n for n in os.environ if n.startswith("ELGRANDE_")]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(f"ELGRANDE_SECRET_KEY={KEY}\nELGRANDE_PORT=8123\nOTHER=1\n")
    assert Settings.load().port == 8123
    monkeypatch.setenv("ELGRANDE_PORT", "8124")  # the environment wins over the file
    assert Settings.load().port == 8124
    (tmp_path / ".env").write_text("ELGRANDE_PROT=8123\n")
    with pytest.raises(SettingsError, match="ELGRANDE_PROT is not a setting"):
        Settings.load()


def test_without_a_secret_key_one_is_kept_in_a_private_file(tmp_path: Path) -> None:
    secret_file = tmp_path / "var" / "secret"
    first = Settings.load({"ELGRANDE_SECRET_FILE": str(secret_file)})
    second = Settings.load({"ELGRANDE_SECRET_FILE": str(secret_file)})
    assert first.secret_key == second.secret_key and len(first.secret_key) >= 32
    assert first.database_url == "sqlite:///elgrande.db" and first.port == 8000
    assert secret_file.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(("env", "says"), [
    ({"ELGRANDE_PORT": "abc"}, "ELGRANDE_PORT: 'abc' is not valid"),
    ({"ELGRANDE_DATABSE_URL": "sqlite:///x.db"}, "ELGRANDE_DATABSE_URL is not a setting"),
])
def test_serve_stops_with_one_line_and_status_2(tmp_path: Path, env: dict[str, str], says: str
                                                ) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ELGRANDE_")}
    result = subprocess.run(
        [sys.executable, "-m", "elgrande", "serve"], cwd=tmp_path,
        env={**clean, "ELGRANDE_SECRET_KEY": KEY, **env}, capture_output=True, text=True,
        timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], result.stderr


def test_the_docs_list_every_setting() -> None:
    """docs/server.md carries the table generated from the class."""
    docs = (ROOT / "docs" / "server.md").read_text()
    found = re.search(r"<!-- settings table -->\n(.*?)<!-- end of settings table -->", docs,
                      re.S)
    assert found, "docs/server.md lacks the settings table markers"
    assert found.group(1) == docs_table(), (
        "regenerate the table: .venv/bin/python -m elgrande.server.settings")
