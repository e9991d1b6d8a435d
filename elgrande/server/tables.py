"""Tables of the web app: accounts, and lobby games with their seats. The play itself
(log, drafts, seed) lives in the turn framework's tables (`elgrande.matches.tables`); a game
points at its match once it has started. Created by migration 0002_web."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, Text, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column

from elgrande.db.base import Base


def utcnow() -> datetime:
    return datetime.now(UTC)


class User(Base):
    __tablename__ = "web_users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(40), unique=True)
    # NFKC + case fold (server/names.py): one account per key. Migration 0004 suffixed
    # the keys of older duplicates ("~" and the id), so they still log in by exact name.
    name_key: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    name_skeleton: Mapped[str] = mapped_column(String(96), index=True)  # look-alikes
    password_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)  # None: guest
    is_guest: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # In every session cookie and CSRF token; logout, a password change and "log out
    # everywhere" advance it, which ends the sessions that carry the old value.
    session_generation: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Email notifications (server/mail/): nothing but the confirmation link is sent to an
    # address until it is confirmed; changing it starts over. Preference: turn, digest, none.
    email: Mapped[str | None] = mapped_column(String(254), nullable=True)
    email_confirmed: Mapped[bool] = mapped_column(default=False, server_default=false())
    email_pref: Mapped[str] = mapped_column(String(8), default="turn", server_default="turn")
    email_digest_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Game(Base):
    __tablename__ = "web_games"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    invite_token: Mapped[str] = mapped_column(String(64), unique=True)
    creator_id: Mapped[int] = mapped_column(ForeignKey("web_users.id"))
    players: Mapped[int] = mapped_column(Integer)
    rounds: Mapped[int] = mapped_column(Integer)
    # lobby, starting, active, finished; expired (never started in time), abandoned
    # (no human left at the table, or a "Play now" game left untouched): server/seats.py
    status: Mapped[str] = mapped_column(String(16), default="lobby")
    match_id: Mapped[str | None] = mapped_column(ForeignKey("matches.id"), nullable=True, unique=True)
    # The creator's client address, for the lobby caps per address (None: unknown).
    created_from: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Seat(Base):
    __tablename__ = "web_seats"
    __table_args__ = (UniqueConstraint("game_id", "seat", name="uq_web_seats_seat"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("web_games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))  # open, invited, human, bot
    user_id: Mapped[int | None] = mapped_column(ForeignKey("web_users.id"), nullable=True)
    invited_name: Mapped[str | None] = mapped_column(String(40), nullable=True)
    bot_level: Mapped[str | None] = mapped_column(String(16), nullable=True)
    # Set when the player (user_id, kept) resigned: the seat is then a "bot" standing in;
    # the committed move and the round at which they resigned (server/seats.py).
    resigned_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    resigned_round: Mapped[int | None] = mapped_column(Integer, nullable=True)


class MailOutbox(Base):
    """Emails waiting to be sent (server/mail/outbox.py): queued in the request or the
    commit's aftermath, sent by a background worker; a row is claimed by one process."""

    __tablename__ = "mail_outbox"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("web_users.id", ondelete="CASCADE"),
                                                nullable=True, index=True)
    kind: Mapped[str] = mapped_column(String(16))  # confirm, turn, digest
    to_addr: Mapped[str] = mapped_column(String(254), index=True)
    subject: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    unsubscribe_url: Mapped[str | None] = mapped_column(String(500), nullable=True)
    status: Mapped[str] = mapped_column(String(8), default="queued", index=True)  # queued, sent, failed
    tries: Mapped[int] = mapped_column(Integer, default=0)
    next_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    claimed_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)


class MailTurn(Base):
    """A human seat whose turn has been announced (one email per game per turn): made
    when the turn passes to the seat, removed when it has moved. The primary key makes
    the announcement happen once, whichever process hears the commit first."""

    __tablename__ = "mail_turns"
    game_id: Mapped[int] = mapped_column(ForeignKey("web_games.id", ondelete="CASCADE"),
                                         primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer)  # the commit that handed the turn over
