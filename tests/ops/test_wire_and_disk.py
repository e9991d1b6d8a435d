"""What a real `elgrande serve` promises on the wire and on disk, as its settings say:
per-message deflate on the game pages' WebSockets only when ELGRANDE_WS_DEFLATE is on,
and SQLite's synchronous mode from ELGRANDE_SQLITE_SYNC (a commit survives the process
being killed with either: tests/matches/test_crash.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from websockets.sync.client import connect

from elgrande.db.engine import make_engine
from elgrande.server.settings import Settings, SettingsError
from tests.ops.serve import Serve


def _extensions(serve: Serve, game_id: int, cookies: str) -> str | None:
    """The extensions the server accepted for a page's socket that offered deflate (as
    browsers do)."""
    with connect(f"{serve.ws_url}/ws/games/{game_id}", compression="deflate",
                 additional_headers={"Cookie": cookies}) as ws:
        assert ws.recv(timeout=10)  # the page's state: a working socket
        assert ws.response is not None
        return ws.response.headers.get("Sec-WebSocket-Extensions")


@pytest.mark.parametrize(("setting", "deflate"), [(None, False), ("on", True)])
def test_deflate_only_when_the_setting_says(tmp_path: Path, setting: str | None,
                                            deflate: bool) -> None:
    settings = {"ws_deflate": setting} if setting is not None else {}
    with Serve(tmp_path, **settings) as serve:
        client, game_id = serve.play_now()
        cookies = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
        accepted = _extensions(serve, game_id, cookies)
    assert (accepted is not None and "permessage-deflate" in accepted) == deflate, accepted


@pytest.mark.parametrize(("mode", "pragma"), [("normal", 1), ("full", 2)])
def test_sqlite_sync_mode_reaches_every_connection(tmp_path: Path, mode: str,
                                                   pragma: int) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'db.sqlite'}", sqlite_sync=mode)
    try:
        for _ in range(2):
            with engine.connect() as conn:
                assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == pragma
                assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    finally:
        engine.dispose()


def test_a_bad_sync_mode_is_refused_clearly() -> None:
    with pytest.raises(SettingsError, match="SQLITE_SYNC") as refused:
        Settings.load(environ={"ELGRANDE_SQLITE_SYNC": "off",
                               "ELGRANDE_SECRET_KEY": "k" * 32}, env_file=None)
    assert "normal or full" in str(refused.value)
    with pytest.raises(ValueError, match="sqlite_sync"):
        make_engine("sqlite://", sqlite_sync="off")
