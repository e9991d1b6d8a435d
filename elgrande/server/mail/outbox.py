"""The outbox: emails queued in the database, sent by the background worker.

With several processes each row is claimed by one of them: a conditional UPDATE that
only succeeds while the row is still unclaimed (or its claim has run out, e.g. its
process died mid-send). A failure is retried with a growing pause; after ``max_tries``
the row is marked failed."""

from __future__ import annotations

import logging
import smtplib
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import func, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from ..tables import MailOutbox
from .sender import SmtpSender

log = logging.getLogger(__name__)

CLAIM = timedelta(minutes=5)  # longer than any one SMTP exchange
BATCH = 20


def backoff(tries: int) -> timedelta:
    """The pause after the ``tries``-th failure: 1, 2, 4, ... minutes, at most 6 hours."""
    return timedelta(minutes=min(2 ** (tries - 1), 360))


class Outbox:
    def __init__(self, sessions: sessionmaker[Session], sender: SmtpSender,
                 clock: Callable[[], datetime], max_tries: int) -> None:
        self.sessions = sessions
        self.sender = sender
        self.clock = clock
        self.max_tries = max_tries
        self.owner = uuid.uuid4().hex  # this process's name on its claims

    def queue(self, db: Session, *, user_id: int | None, kind: str, to: str,
              subject: str, body: str, unsubscribe_url: str | None = None) -> None:
        db.add(MailOutbox(user_id=user_id, kind=kind, to_addr=to, subject=subject, body=body,
                          unsubscribe_url=unsubscribe_url, status="queued", tries=0,
                          next_at=self.clock(), created_at=self.clock()))

    def recent(self, db: Session, kind: str, *, user_id: int | None = None,
               to: str | None = None, within: timedelta = timedelta(days=1)) -> int:
        """Emails of ``kind`` queued for the user or the address within ``within``."""
        query = select(func.count()).select_from(MailOutbox).where(
            MailOutbox.kind == kind, MailOutbox.created_at > self.clock() - within)
        if user_id is not None:
            query = query.where(MailOutbox.user_id == user_id)
        if to is not None:
            query = query.where(MailOutbox.to_addr == to)
        return int(db.scalar(query) or 0)

    def send_due(self) -> int:
        """Sends the emails that are due; returns how many went out."""
        sent = 0
        for row_id in self._due_ids():
            if self._claim(row_id):
                sent += self._send(row_id)
        return sent

    def _due_ids(self) -> list[int]:
        now = self.clock()
        with self.sessions() as db:
            return list(db.scalars(
                select(MailOutbox.id).where(
                    MailOutbox.status == "queued", MailOutbox.next_at <= now,
                    or_(MailOutbox.claimed_until.is_(None), MailOutbox.claimed_until < now))
                .order_by(MailOutbox.id).limit(BATCH)).all())

    def _claim(self, row_id: int) -> bool:
        now = self.clock()
        with self.sessions.begin() as db:
            result = db.execute(
                update(MailOutbox).where(
                    MailOutbox.id == row_id, MailOutbox.status == "queued",
                    or_(MailOutbox.claimed_until.is_(None), MailOutbox.claimed_until < now))
                .values(claimed_by=self.owner, claimed_until=now + CLAIM))
            return bool(getattr(result, "rowcount", 0) == 1)

    def _send(self, row_id: int) -> int:
        with self.sessions() as db:
            row = db.get(MailOutbox, row_id)
            assert row is not None
            message = self.sender.message(row.to_addr, row.subject, row.body,
                                          row.unsubscribe_url)
        try:
            self.sender.send(message)
        except (OSError, smtplib.SMTPException) as exc:
            self._failed(row_id, exc)
            return 0
        with self.sessions.begin() as db:
            db.execute(update(MailOutbox).where(MailOutbox.id == row_id).values(
                status="sent", tries=MailOutbox.tries + 1, claimed_by=None, claimed_until=None))
        return 1

    def _failed(self, row_id: int, exc: Exception) -> None:
        with self.sessions.begin() as db:
            row = db.get(MailOutbox, row_id)
            assert row is not None
            row.tries += 1
            row.claimed_by, row.claimed_until = None, None
            if row.tries >= self.max_tries:
                row.status = "failed"
            else:
                row.next_at = self.clock() + backoff(row.tries)
            # The type only: an SMTP error may quote the server's words, not our secrets.
            log.warning("email %s not sent (try %s of %s): %s", row_id, row.tries,
                        self.max_tries, type(exc).__name__)
