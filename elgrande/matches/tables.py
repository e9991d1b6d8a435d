"""The turn framework's tables: matches, their commits, log entries and drafts. Declared
on the shared ``Base``; created by the migrations in ``elgrande/migrations/versions/``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from elgrande.db.base import Base


class MatchRow(Base):
    """A match: configuration, the secret seed and its public commitment, and the
    committed head state (``State.to_dict()``) at ``head_seq``."""

    __tablename__ = "matches"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    config: Mapped[dict[str, Any]] = mapped_column(JSON)
    seed: Mapped[str] = mapped_column(String(64))  # secret until the game is over
    commitment: Mapped[str] = mapped_column(String(64))  # sha256(seed), public
    head_seq: Mapped[int] = mapped_column(Integer)
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    over: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class CommitRow(Base):
    """One Finish (or the set-up at creation): the log went from ``base_seq`` to
    ``head_seq``. The unique (match_id, base_seq) refuses a second commit on one base."""

    __tablename__ = "match_commits"
    __table_args__ = (UniqueConstraint("match_id", "base_seq", name="uq_match_commits_base"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    base_seq: Mapped[int] = mapped_column(Integer)
    head_seq: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None: set-up
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class MoveRow(Base):
    """One log entry: ``seq`` is its 1-based position; unique per match, so the log can
    never fork."""

    __tablename__ = "match_moves"
    __table_args__ = (UniqueConstraint("match_id", "seq", name="uq_match_moves_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(64))  # engine notation, str(Action)
    seat: Mapped[int] = mapped_column(Integer)  # CHANCE (-1) for chance outcomes
    base_seq: Mapped[int] = mapped_column(Integer)  # the commit it belongs to
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class DraftRow(Base):
    """A seat's uncommitted steps (notation) and its redo list (next redo last)."""

    __tablename__ = "match_drafts"

    match_id: Mapped[str] = mapped_column(
        ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    base_seq: Mapped[int] = mapped_column(Integer)
    steps: Mapped[list[str]] = mapped_column(JSON)
    redo: Mapped[list[str]] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
