"""The schema: one chain of migrations over every package's tables, `elgrande db`, a
database made by an earlier release upgrading with its games intact, and a server that
refuses a database newer than its code."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import inspect, text
from sqlalchemy.exc import OperationalError

from elgrande.db.engine import make_engine
from elgrande.matches import MatchStore
from elgrande.matches.record import verify
from elgrande.migrations import SchemaError, check, current, heads, require_current, upgrade
from elgrande.rules import GameConfig
from elgrande.server.app import create_app
from elgrande.server.settings import Settings
from tests.pg_server import postgres_server, postgres_url  # noqa: F401  (fixtures)
from tests.server.conftest import As

DATA = Path(__file__).resolve().parents[1] / "data"
LEGACY = json.loads((DATA / "legacy-main-0003.json").read_text())
KEY = "k" * 32


def elgrande(*args: str, cwd: Path, env: dict[str, str] | None = None
             ) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ELGRANDE_")}
    return subprocess.run([sys.executable, "-m", "elgrande", *args], cwd=cwd,
                          env={**clean, "ELGRANDE_SECRET_KEY": KEY, **(env or {})},
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'schema.db'}"
    return str(request.getfixturevalue("postgres_url"))


def test_migrations_build_exactly_the_declared_tables(empty_url: str) -> None:
    engine = make_engine(empty_url)
    assert current(engine) is None
    upgrade(engine)
    assert current(engine) == heads()[0] and len(heads()) == 1
    assert check(engine) == []
    assert {"matches", "match_commits", "match_moves", "match_drafts", "web_users", "web_games",
            "web_seats", "bot_leases"} <= set(inspect(engine).get_table_names())
    upgrade(engine)  # again: nothing to do
    engine.dispose()


def test_check_finds_a_schema_that_drifted(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'drift.db'}"
    engine = make_engine(url)
    upgrade(engine)
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE stray (id INTEGER PRIMARY KEY)"))
        conn.execute(text("DROP INDEX ix_bot_leases_expires_at"))
    differences = [str(d) for d in check(engine)]
    assert any("stray" in d for d in differences) and any("expires_at" in d for d in differences)
    engine.dispose()
    result = elgrande("db", "check", "--database-url", url, cwd=tmp_path)
    assert result.returncode == 1 and "stray" in result.stderr


def test_a_store_does_not_migrate(tmp_path: Path) -> None:
    store = MatchStore(f"sqlite:///{tmp_path / 'bare.db'}")
    with pytest.raises(OperationalError, match="no such table"):
        store.create(GameConfig(players=2))
    assert current(store.engine) is None
    store.close()


def test_db_commands(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    env = {"ELGRANDE_DATABASE_URL": url}
    shown = elgrande("db", "current", cwd=tmp_path, env=env)
    assert shown.returncode == 0 and f"database: (empty); code: {heads()[0]}" in shown.stdout
    done = elgrande("db", "upgrade", cwd=tmp_path, env=env)
    assert done.returncode == 0 and f"schema at {heads()[0]} (was empty)" in done.stdout
    again = elgrande("db", "upgrade", cwd=tmp_path, env=env)
    assert "(unchanged)" in again.stdout
    ok = elgrande("db", "check", cwd=tmp_path, env=env)
    assert ok.returncode == 0 and "matches the code" in ok.stdout
    bad = elgrande("db", "current", cwd=tmp_path, env={"ELGRANDE_DATABSE_URL": url})
    assert bad.returncode == 2 and "ELGRANDE_DATABSE_URL is not a setting" in bad.stderr


def _from_the_future(url: str) -> None:
    engine = make_engine(url)
    upgrade(engine)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0099_future'"))
    engine.dispose()


def test_a_database_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'future.db'}"
    _from_the_future(url)
    engine = make_engine(url)
    for operation in (upgrade, require_current, check):
        with pytest.raises(SchemaError, match="0099_future.*newer version"):
            operation(engine)
    engine.dispose()
    served = elgrande("serve", "--port", "0", "--database-url", url, cwd=tmp_path)
    assert served.returncode == 1 and "Traceback" not in served.stderr
    lines = served.stderr.strip().splitlines()
    assert len(lines) == 1 and "0099_future" in lines[0] and "newer version" in lines[0]
    upgraded = elgrande("db", "upgrade", "--database-url", url, cwd=tmp_path)
    assert upgraded.returncode == 1 and "newer version" in upgraded.stderr


def _log_in(client: TestClient, name: str) -> As:
    anon = As(client, None)
    answer = anon.post("/login", data={"name": name, "password": LEGACY["password"],
                                       "csrf_token": anon.csrf()})
    assert answer.status_code == 303, answer.text
    cookie = answer.cookies.get("session") or next(iter(answer.cookies.values()))
    return As(client, cookie, name)


def _game(number: int) -> dict[str, Any]:
    return next(g for g in LEGACY["games"] if g["id"] == number)


def test_a_database_of_the_previous_release_upgrades_and_plays_on(tmp_path: Path) -> None:
    copy = tmp_path / "legacy.db"
    shutil.copy(DATA / "legacy-main-0003.sqlite", copy)
    url = f"sqlite:///{copy}"
    with sqlite3.connect(copy) as raw:
        assert raw.execute("SELECT version_num FROM alembic_version").fetchone()[0] == \
            LEGACY["alembic_revision"]
    result = elgrande("db", "upgrade", "--database-url", url, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    engine = make_engine(url)
    assert current(engine) == heads()[0] and check(engine) == []
    engine.dispose()

    app = create_app(Settings(database_url=url, secret_key=KEY, bot_delay=0.0))
    with TestClient(app, follow_redirects=False) as client:
        finished, running = _game(1), _game(2)
        # The finished game's record, with its seed, still verifies.
        anyone = As(client, None)
        record = anyone.get(f"/api/games/{finished['id']}/record").json()
        assert record["seed"] == finished["match"]["seed"]
        summary = verify(record)
        assert any(f"{finished['match']['head_seq']} moves" in line for line in summary)
        # The running game goes on: its draft is kept, and its player finishes the turn.
        draft = LEGACY["draft"]
        player = _log_in(client, "legacy_cy")
        view = player.get(f"/api/games/{running['id']}").json()
        assert view["seq"] == running["match"]["head_seq"]
        assert view["draft"]["steps"] == running["match"]["drafts"][0]["steps"]
        assert len(view["draft"]["steps"]) == draft["steps"]
        answer = player.api(running["id"], "finish", {"seq": view["seq"]})
        assert answer.status_code == 200, answer.text
        assert answer.json()["state"]["seq"] > running["match"]["head_seq"]
        # The waiting game can still be joined.
        waiting = next(g for g in LEGACY["games"] if g["status"] == "lobby")
        joiner = _log_in(client, "legacy_bob")
        joined = joiner.post(f"/games/{waiting['id']}/join", data={"csrf_token": joiner.csrf()})
        assert joined.status_code == 303
