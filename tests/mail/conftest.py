"""A real SMTP server for the email tests (aiosmtpd on 127.0.0.1, a free port) and an
app that sends to it. The tests run the mail worker's round themselves (``deliver``), so
nothing waits on its timer."""

from __future__ import annotations

import email
import email.policy
import socket
import time
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from fastapi.testclient import TestClient

from elgrande.server.settings import Settings
from tests.apps import app_for


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Inbox:
    """What the SMTP server received (its handler runs in the controller's thread)."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.raw: list[str] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        data = envelope.content if isinstance(envelope.content, bytes) else envelope.content.encode()
        self.raw.append(data.decode("utf-8", "replace"))
        message = email.message_from_bytes(data, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        self.messages.append(message)
        return "250 OK"

    def wait_for(self, count: int, timeout: float = 10.0) -> list[EmailMessage]:
        deadline = time.monotonic() + timeout
        while len(self.messages) < count and time.monotonic() < deadline:
            time.sleep(0.01)  # the worker thread may be mid-send
        return list(self.messages)

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.messages if m["To"] == address]


class SmtpServer:
    def __init__(self, port: int) -> None:
        self.port = port
        self.inbox = Inbox()
        self._controller: Controller | None = None

    def start(self) -> None:
        self._controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)
        self._controller.start()

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    server = SmtpServer(free_port())
    server.start()
    yield server
    server.stop()


def mail_settings(tmp_path: Path, port: int, **extra: Any) -> Settings:
    return Settings(database_url=f"sqlite:///{tmp_path / 'test.db'}", secret_key="k" * 32,
                    bot_delay=0.0, smtp_host="127.0.0.1", smtp_port=port, smtp_starttls=False,
                    smtp_password="hunter2-smtp-password", base_url="http://testserver",
                    **extra)


@pytest.fixture
def client(tmp_path: Path, smtp: SmtpServer) -> Iterator[TestClient]:
    with TestClient(app_for(mail_settings(tmp_path, smtp.port)), follow_redirects=False) as c:
        yield c


def deliver(client: TestClient) -> None:
    """One round of the mail worker: announce turns, queue digests, send what is due."""
    client.app.state.services.mail.work()  # type: ignore[attr-defined]


def body(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return str(part.get_content())
