"""`elgrande db backup`: a backup taken while a server plays restores into a new server
on which every finished game verifies and every running game goes on."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from fastapi.testclient import TestClient

from elgrande.matches.record import verify
from elgrande.rules import to_act
from elgrande.server.app import create_app
from elgrande.server.settings import Settings
from tests.apps import migrated
from tests.ops.test_database_errors import play_now, wait_for_turn
from tests.server.conftest import As

DATA = Path(__file__).resolve().parents[1] / "data"
KEY = "k" * 32
# The subprocess imports the same code as the tests (PYTHONPATH, if any).
ENV = {"PATH": "/usr/bin:/bin", **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}}


def elgrande_db(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "elgrande", "db", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=60, env=ENV)


def test_backup_during_play_restores_into_a_new_server(tmp_path: Path) -> None:
    live = tmp_path / "live.db"  # a finished game, a running one, and one in the lobby
    shutil.copy(DATA / "legacy-main-0003.sqlite", live)
    url = migrated(f"sqlite:///{live}")
    backup = tmp_path / "backup.db"
    app = create_app(Settings(database_url=url, secret_key=KEY, bot_delay=0.0))
    with TestClient(app, follow_redirects=False) as client:
        cookie, game_id = play_now(client)  # a game against bots, with a draft
        guest = As(client, cookie)
        state = wait_for_turn(guest, game_id)
        step = guest.api(game_id, "step", {"action": state["legal"][0]["text"],
                                           "seq": state["seq"]})
        assert step.status_code == 200, step.text
        drafted = step.json()["state"]
        # While the server holds its connections (WAL) and could write at any time.
        done = elgrande_db("backup", str(backup), "--database-url", url, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        # A second backup never overwrites the first.
        again = elgrande_db("backup", str(backup), "--database-url", url, cwd=tmp_path)
        assert again.returncode == 1 and "exists already" in again.stderr

    restored = create_app(Settings(database_url=migrated(f"sqlite:///{backup}"),
                                   secret_key=KEY, bot_delay=0.0))
    with TestClient(restored, follow_redirects=False) as client:
        svc = client.app.state.services  # type: ignore[attr-defined]
        games = [svc.lobby.get(i) for i in range(1, game_id + 1)]
        finished = [g for g in games if g is not None and g.status == "finished"]
        running = [g for g in games if g is not None and g.status == "active"]
        assert finished and len(running) == 2
        for game in finished:
            verify(svc.store.export(game.match_id))
        # The guest's draft survived; its next step is accepted.
        guest = As(client, cookie)
        view = guest.get(f"/api/games/{game_id}").json()
        assert view["seq"] == drafted["seq"] and view["draft"] == drafted["draft"]
        if view["legal"]:
            more = guest.api(game_id, "step", {"action": view["legal"][0]["text"],
                                               "seq": view["seq"]})
            assert more.status_code == 200, more.text
        # Every running game takes a move.
        for game in running:
            match = svc.store.load(game.match_id)
            seat = to_act(match.state)[0]
            legal = svc.store.view(game.match_id, seat).legal
            if legal:
                svc.store.step(game.match_id, seat, legal[0])
            else:  # the draft is complete: the move is finishing the turn
                svc.store.finish(game.match_id, seat)
                assert svc.store.load(game.match_id).seq > match.seq


def test_backup_refuses_postgresql_and_a_missing_database(tmp_path: Path) -> None:
    pg = elgrande_db("backup", "x.db", "--database-url", "postgresql://u@127.0.0.1:1/db",
                     cwd=tmp_path)
    assert pg.returncode == 2 and "pg_dump" in pg.stderr and "docs/deploy.md" in pg.stderr
    missing = elgrande_db("backup", "x.db", "--database-url",
                          f"sqlite:///{tmp_path / 'none.db'}", cwd=tmp_path)
    assert missing.returncode == 1 and "no SQLite database file" in missing.stderr
    assert not (tmp_path / "x.db").exists() and "Traceback" not in missing.stderr + pg.stderr
