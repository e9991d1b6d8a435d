"""A real server process logging at debug level, access log on: after logins (right and
wrong passwords, one in a query string) and a session in use, its log holds none of
the passwords, the session cookie, CSRF tokens or the secret key."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from elgrande.loadgen.client import CSRF_FIELD
from elgrande.loadgen.launch import ServerProcess

pytestmark = pytest.mark.timeout(60)

SECRET = "log-test-secret-key-that-must-not-leak"


def test_server_log_has_no_secrets(tmp_path: Path) -> None:
    server = ServerProcess(f"sqlite:///{tmp_path / 'logs.db'}", None, tmp_path, secret_key=SECRET,
                           uvicorn_args=("--log-level", "debug"))
    server.start()
    password, wrong = "Correct-Horse-Battery-9", "Wrong-Horse-Battery-7"
    try:
        with httpx.Client(base_url=server.url) as http:
            token = CSRF_FIELD.search(http.get("/register").text)
            assert token
            csrf = token.group(1)
            assert http.post("/register", data={"name": "logged", "password": password,
                                                "csrf_token": csrf}).status_code == 303
            cookie = http.cookies.get("elgrande_session")
            assert cookie
            lobby_csrf = CSRF_FIELD.search(http.get("/lobby").text)
            assert lobby_csrf
            http.cookies.clear()
            http.post("/login", data={"name": "logged", "password": wrong, "csrf_token": csrf})
            http.get(f"/login?name=logged&password={password}")
            http.post("/login", data={"name": "logged", "password": password, "csrf_token": csrf})
            http.get("/lobby", headers={"cookie": f"elgrande_session={cookie}"})
            http.post("/api/games/1/step", json={"action": "p0 bid 1", "seq": 1},
                      headers={"cookie": f"elgrande_session={cookie}",
                               "x-csrf-token": lobby_csrf.group(1)})
    finally:
        server.stop()
    log = server.log.read_text()
    assert "/login" in log and "/lobby" in log, "the access log was written"
    assert "Logging error" not in log, "redaction must not break any formatter"
    for secret in (password, wrong, cookie, SECRET, csrf, lobby_csrf.group(1)):
        assert secret not in log
