"""The outbox: retries with back-off while the SMTP server is down, failure after the
last try, and one process per row."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from elgrande.db.engine import make_engine, writer
from elgrande.server.mail.outbox import Outbox
from elgrande.server.mail.sender import SmtpSender
from elgrande.server.tables import MailOutbox
from tests.apps import migrated
from tests.pg_server import postgres_server, postgres_url  # noqa: F401  (fixtures)

from .conftest import SmtpServer, free_port

pytestmark = pytest.mark.timeout(60)


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def sessions(tmp_path: Path) -> sessionmaker[Session]:
    engine = make_engine(migrated(f"sqlite:///{tmp_path / 'mail.db'}"))
    return sessionmaker(writer(engine), expire_on_commit=False)


def outbox(sessions: sessionmaker[Session], port: int, clock: Clock, tries: int = 3) -> Outbox:
    return Outbox(sessions, SmtpSender("127.0.0.1", port, starttls=False), clock, tries)


def queue(box: Outbox, to: str = "anna@example.org") -> int:
    with box.sessions.begin() as db:
        box.queue(db, user_id=None, kind="turn", to=to, subject="El Grande game 1: your turn",
                  body="Open the game: http://testserver/games/1",
                  unsubscribe_url="http://testserver/email/unsubscribe/x")
    with box.sessions() as db:
        return int(db.scalars(select(MailOutbox.id).order_by(MailOutbox.id.desc())).first() or 0)


def row(box: Outbox, row_id: int) -> MailOutbox:
    with box.sessions() as db:
        found = db.get(MailOutbox, row_id)
        assert found is not None
        return found


def test_a_message_is_retried_with_back_off_until_the_server_is_up(
        sessions: sessionmaker[Session]) -> None:
    clock, server = Clock(), SmtpServer(free_port())  # not started: refused
    box = outbox(sessions, server.port, clock)
    row_id = queue(box)
    assert box.send_due() == 0
    first = row(box, row_id)
    assert (first.status, first.tries) == ("queued", 1)
    assert first.next_at.replace(tzinfo=UTC) == clock.now + timedelta(minutes=1)
    server.start()
    try:
        assert box.send_due() == 0  # not due yet: nothing tried
        assert row(box, row_id).tries == 1 and server.inbox.messages == []
        clock.now += timedelta(minutes=1)
        assert box.send_due() == 1
        assert row(box, row_id).status == "sent" and len(server.inbox.messages) == 1
        message = server.inbox.messages[0]
        assert message["List-Unsubscribe"] == "<http://testserver/email/unsubscribe/x>"
        assert box.send_due() == 0  # sent once
    finally:
        server.stop()


def test_a_message_is_marked_failed_after_the_last_try(sessions: sessionmaker[Session]) -> None:
    clock = Clock()
    box = outbox(sessions, free_port(), clock, tries=3)
    row_id = queue(box)
    for pause in (1, 2):
        box.send_due()
        clock.now += timedelta(minutes=pause)
    box.send_due()
    failed = row(box, row_id)
    assert (failed.status, failed.tries) == ("failed", 3)
    clock.now += timedelta(days=1)
    assert box.send_due() == 0 and row(box, row_id).tries == 3


def test_each_row_is_claimed_by_one_process(sessions: sessionmaker[Session]) -> None:
    clock = Clock()
    one, two = outbox(sessions, 1, clock), outbox(sessions, 1, clock)
    row_id = queue(one)
    assert one._claim(row_id) is True
    assert two._claim(row_id) is False
    assert two._due_ids() == []
    clock.now += timedelta(minutes=10)  # a claim whose process died runs out
    assert two._claim(row_id) is True


def test_claims_and_retries_on_postgresql(postgres_url: str) -> None:  # noqa: F811
    engine = make_engine(migrated(postgres_url))
    sessions = sessionmaker(writer(engine), expire_on_commit=False)
    clock, server = Clock(), SmtpServer(free_port())
    one, two = outbox(sessions, server.port, clock), outbox(sessions, server.port, clock)
    row_id = queue(one)
    assert one._claim(row_id) and not two._claim(row_id)
    clock.now += timedelta(minutes=10)
    assert two.send_due() == 0 and row(two, row_id).tries == 1  # the server is down
    server.start()
    try:
        clock.now += timedelta(minutes=1)
        assert one.send_due() + two.send_due() == 1 and len(server.inbox.messages) == 1
    finally:
        server.stop()
        engine.dispose()
