"""Security headers, request and WebSocket size bounds, login rate limiting, and log
redaction (elgrande/server/hardening/)."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from elgrande.server import hardening
from elgrande.server.hardening import CSP, redact

from .conftest import SECRET_KEY, Player, anonymous, make_app, services

pytestmark = pytest.mark.timeout(60)


def test_every_response_carries_the_security_headers(client: TestClient) -> None:
    for path in ("/", "/login", "/lobby", "/static/app.css", "/api/games/999", "/no-such-page"):
        response = client.get(path)
        headers = response.headers
        assert headers["content-security-policy"] == CSP, path
        assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP
        assert "frame-ancestors 'none'" in CSP and "object-src 'none'" in CSP
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "same-origin"
        assert headers["cross-origin-opener-policy"] == "same-origin"
        assert "strict-transport-security" not in headers  # plain HTTP: no HSTS
        private = not path.startswith("/static/")
        assert (headers.get("cache-control") == "no-store") == private, path


def test_hsts_behind_https(tmp_path: Path) -> None:
    with TestClient(make_app(tmp_path, secure_cookies=True)) as client:
        assert client.get("/login").headers["strict-transport-security"].startswith("max-age=")


def test_hardening_twice_changes_nothing(app: FastAPI, client: TestClient) -> None:
    limits = hardening.Limits()
    hardening.harden(app, limits=limits, limiters=hardening.make_limiters(limits, None),
                     hsts=True, secrets=[])
    assert client.get("/login").headers["content-security-policy"] == CSP


def test_request_bodies_are_bounded(client: TestClient) -> None:
    big = b"x" * (hardening.Limits().max_body + 1)
    declared = client.post("/login", content=big,
                           headers={"content-type": "application/x-www-form-urlencoded"})
    assert declared.status_code == 413 and "too large" in declared.text

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        for _ in range(100):
            yield b"y" * 1024

    streamed = client.post("/api/games/1/step", content=chunks(),
                           headers={"content-type": "application/json"})
    assert streamed.status_code == 413
    assert streamed.json()["error"]["code"] == "too_large"
    assert client.get("/login").status_code == 200  # and the server is fine


def test_failed_logins_are_rate_limited(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ELGRANDE_LOGIN_FAILURES_PER_NAME", "3")
    monkeypatch.setenv("ELGRANDE_LOGIN_FAILURES_PER_CLIENT", "5")
    with TestClient(make_app(tmp_path), follow_redirects=False) as client:
        svc = services(client)
        svc.accounts.register("victim", "right password")
        svc.accounts.register("other1", "right password")
        anon = anonymous(client)

        def login(name: str, password: str) -> int:
            response = anon.post("/login", data={"name": name, "password": password,
                                                 "csrf_token": anon.csrf()})
            if response.status_code == 429:
                assert "Too many failed logins" in response.text
                assert int(response.headers["retry-after"]) > 0
            return int(response.status_code)

        assert [login("victim", f"guess {i}") for i in range(3)] == [400, 400, 400]
        assert login("victim", "guess 4") == 429
        assert login("victim", "right password") == 429, "locked, even with the right one"
        assert login("other1", "right password") == 303, "other accounts are not locked"
        assert login("other1", "wrong") == 400
        assert login("other1", "wrong again") == 400  # 5 failures from this client now
        assert login("other1", "right password") == 429, "the client itself is limited"


def test_websocket_messages_are_bounded(client: TestClient) -> None:
    from .test_websocket_abuse import two_player_game

    game_id, players, _ = two_player_game(client)
    with players[0].ws(game_id) as ws:
        first = ws.receive_json()
        ws.send_text('{"type": "sync", "pad": "' + "z" * 100_000 + '"}')
        error = ws.receive_json()
        assert error["type"] == "error" and error["code"] == "too_large"
        ws.send_text('{"type": "sync"}')  # the connection still works
        assert ws.receive_json() == first


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    """Everything logged anywhere, at every level."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield stream
    root.removeHandler(handler)
    root.setLevel(old_level)


def test_logs_never_show_passwords_or_session_secrets(client: TestClient,
                                                      captured: io.StringIO) -> None:
    password = "Tr0ub4dor-and-3-horses"
    anon = anonymous(client)
    response = anon.post("/register", data={"name": "loggy", "password": password,
                                            "csrf_token": anon.csrf()})
    assert response.status_code == 303
    cookie = response.cookies.get("elgrande_session")
    assert cookie
    user = Player(client, cookie)
    user.get("/lobby")
    anon.post("/login", data={"name": "loggy", "password": password, "csrf_token": anon.csrf()})
    # What typical server and library log lines look like, secrets included:
    access = logging.getLogger("uvicorn.access")
    access.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1", "GET",
                f"/login?name=loggy&password={password}", "1.1", 200)
    logging.getLogger("httpx").debug("headers: {'cookie': 'elgrande_session=%s'}", cookie)
    logging.getLogger("elgrande.test").warning("body %s", f'{{"password": "{password}"}}')
    logging.getLogger("elgrande.test").warning("settings secret_key=%s", SECRET_KEY)
    try:
        raise ValueError(f"bad login for password={password} with session {cookie}")
    except ValueError:
        logging.getLogger("elgrande.test").exception("request failed")
    text = captured.getvalue()
    assert "request failed" in text and "[REDACTED]" in text and "ValueError" in text
    for secret in (password, cookie, SECRET_KEY, user.csrf()):
        assert secret not in text


def test_redact_keeps_ordinary_text() -> None:
    line = "GET /api/games/12 HTTP/1.1 200 seq=17 action=p1 bid 7"
    assert redact(line) == line
    assert redact("password=abc&name=x") == "password=[REDACTED]&name=x"
    assert redact('{"secret_key": "s3cr3t"}') == '{"secret_key": "[REDACTED]"}'


def test_redact_is_idempotent() -> None:
    once = redact("GET /login?password=abc&token=xyz elgrande_session=MQ.aaaaaa.bbbbbbbbbbbbbbbbbbbbbbbbbbb")
    assert redact(once) == once and "abc" not in once and "xyz" not in once
