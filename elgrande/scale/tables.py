"""The table of bot-move leases (migration 0003_bot_leases)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from elgrande.db.base import Base


class BotLease(Base):
    """Which server process is playing a computer seat's move, until when. A process
    renews its lease while the bot thinks; a dead process's lease runs out and another
    process takes over."""

    __tablename__ = "bot_leases"

    match_id: Mapped[str] = mapped_column(
        ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner: Mapped[str] = mapped_column(String(64))  # host:pid:random of the process
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
