"""Health checks, HEAD on every GET route, request ids and the log format."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from elgrande.server.logs import JsonFormatter, RequestIdFilter, configure_logging
from elgrande.server.settings import Settings
from tests.apps import app_for


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = app_for(Settings(database_url=f"sqlite:///{tmp_path / 't.db'}",
                           secret_key="k" * 32, bot_delay=0.0))
    with TestClient(app, follow_redirects=False) as c:
        yield c


def test_healthz_and_readyz(client: TestClient) -> None:
    assert client.get("/healthz").text == "ok"
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {"ready": True, "database": "ok"}


def test_readyz_names_the_part_that_is_down(client: TestClient) -> None:
    def down() -> None:
        raise ConnectionRefusedError("no route")

    client.app.state.readiness["redis"] = down  # type: ignore[attr-defined]
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json() == {"ready": False, "database": "ok", "redis": "down"}


def test_head_is_answered_wherever_get_is(client: TestClient) -> None:
    paths = ["/", "/login", "/register", "/healthz", "/readyz", "/static/js/net.js",
             "/openapi.json"]
    routes = [r.path for r in client.app.routes  # type: ignore[attr-defined]
              if isinstance(r, APIRoute) and "GET" in (r.methods or ()) and "{" not in r.path]
    for path in sorted(set(paths + routes)):
        got, head = client.get(path), client.head(path)
        assert head.status_code == got.status_code, path
        assert head.content == b"", path
        assert head.headers.get("content-type") == got.headers.get("content-type"), path
    assert client.head("/api/games/1/step").status_code == 405  # POST only


def test_request_id_is_returned_and_in_every_log_line(client: TestClient,
                                                       caplog: pytest.LogCaptureFixture
                                                       ) -> None:
    chosen = client.get("/healthz", headers={"x-request-id": "abc-123"})
    assert chosen.headers["x-request-id"] == "abc-123"
    forged = client.get("/healthz", headers={"x-request-id": "bad id\n" + "x" * 100})
    made = forged.headers["x-request-id"]
    assert len(made) == 32 and made.isalnum()

    def failing() -> None:
        raise OSError("down")

    client.app.state.readiness["redis"] = failing  # type: ignore[attr-defined]
    with caplog.at_level(logging.WARNING):
        caplog.handler.addFilter(RequestIdFilter())
        client.get("/readyz", headers={"x-request-id": "req-42"})
    lines = [r for r in caplog.records if "readiness" in r.getMessage()]
    assert lines and all(getattr(r, "request_id", None) == "req-42" for r in lines)


def line_of(record: logging.LogRecord, fmt: str) -> str:
    record.request_id = "r-1"
    formatter: Any = JsonFormatter() if fmt == "json" else None
    if formatter is None:
        from elgrande.server.logs import TEXT_FORMAT

        formatter = logging.Formatter(TEXT_FORMAT)
    return str(formatter.format(record))


def test_log_lines_text_and_json_are_redacted() -> None:
    from elgrande.server.hardening import install_log_redaction

    install_log_redaction("a-very-secret-key-1234")
    record = logging.getLogger("elgrande.test").makeRecord(
        "elgrande.test", logging.WARNING, __file__, 1,
        "login with password=hunter2 and key %s", ("a-very-secret-key-1234",), None)
    text = line_of(record, "text")
    assert " WARNING elgrande.test [r-1] login with password=[REDACTED]" in text
    assert "hunter2" not in text and "a-very-secret" not in text
    assert text[:4].isdigit()  # starts with the timestamp
    data = json.loads(line_of(record, "json"))
    assert data["level"] == "WARNING" and data["logger"] == "elgrande.test"
    assert data["request_id"] == "r-1" and data["time"].endswith("+00:00")
    assert "hunter2" not in data["message"] and "a-very-secret" not in data["message"]


def test_configure_logging_hands_uvicorn_lines_to_one_handler() -> None:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        configure_logging("warning", "json")
        assert len(root.handlers) == 1 and root.level == logging.WARNING
        assert isinstance(root.handlers[0].formatter, JsonFormatter)
        assert logging.getLogger("uvicorn.access").propagate
    finally:
        root.handlers = handlers
        root.setLevel(level)


def test_each_websocket_message_has_its_own_request_id(client: TestClient,
                                                       caplog: pytest.LogCaptureFixture
                                                       ) -> None:
    """A game page's socket is one connection, many commands: each message's log lines
    (in the worker thread that carries the command out) carry the connection's id and
    the message's number."""
    from tests.server.conftest import register

    anna = register(client, "anna")
    page = anna.post("/play-now", data={"csrf_token": anna.csrf()})
    game_id = int(page.headers["location"].rsplit("/", 1)[1])
    svc = client.app.state.services  # type: ignore[attr-defined]
    act = svc.play.act
    log = logging.getLogger("elgrande.test.ws")

    def logged_act(*args: Any) -> Any:
        log.warning("carrying out a command")
        return act(*args)

    svc.play.act = logged_act
    with caplog.at_level(logging.WARNING):
        caplog.handler.addFilter(RequestIdFilter())
        with anna.ws(game_id, headers={"x-request-id": "page-7"}) as ws:
            state = ws.receive_json()["state"]
            for ident in (1, 2):
                ws.send_json({"type": "undo", "seq": state["seq"], "id": ident})
                while ws.receive_json().get("ack") != ident:
                    pass
    ids = [getattr(r, "request_id", None) for r in caplog.records
           if r.getMessage() == "carrying out a command"]
    assert ids == ["page-7.1", "page-7.2"]
