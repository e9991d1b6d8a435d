"""The table chat: a chat per game for its players, live over the game page's
WebSocket, kept with the game (never in its record). Spectators read it or not, as the
table chose at creation. Lines are bounded in length, limited per player and per
address, and shown escaped (the page sets them as text). A player may mute another
player (their lines are no longer sent to them) and report a line to the moderators.

All methods are synchronous; the web layer calls them from worker threads."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, bindparam, delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from .hardening.limits import Limiter
from .i18n import _, format_datetime
from .tables import ChatMessage, ChatMute, Game, Report, Seat, User

MAX_CHARS = 500
HISTORY = 100  # lines a page gets when it opens
CHAT_SETTINGS = {"all": "Everyone reads the chat; only the players write",
                 "players": "Only the players read and write the chat"}



# A table's newest chat lines (newest first; a page's first state reads them), built once.
_ALL_LINES = (select(ChatMessage.id, ChatMessage.text, ChatMessage.created_at,
                     ChatMessage.user_id, User.name, Seat.seat)
              .join(User, User.id == ChatMessage.user_id)
              .outerjoin(Seat, (Seat.game_id == ChatMessage.game_id)
                         & (Seat.user_id == ChatMessage.user_id))
              .where(ChatMessage.game_id == bindparam("game_id"),
                     ChatMessage.id > bindparam("after"), ChatMessage.hidden.is_(False)))
_LINES = _ALL_LINES.order_by(ChatMessage.id.desc()).limit(bindparam("limit"))
# ... without the lines of the players the reader muted
_LINES_UNMUTED = (_ALL_LINES.where(ChatMessage.user_id.not_in(
    select(ChatMute.muted_id).where(ChatMute.user_id == bindparam("reader"))))
    .order_by(ChatMessage.id.desc()).limit(bindparam("limit")))

class ChatRefused(ValueError):
    """A chat request that cannot be done; ``code`` for the page, the message for the
    player."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class ChatLimits:
    limiter: Limiter  # its window is ``window`` seconds
    per_user: int
    per_client: int

    def admit(self, user_id: int, client: str) -> None:
        buckets = ((f"chat:user:{user_id}", self.per_user), (f"chat:client:{client}", self.per_client))
        for bucket, limit in buckets:
            if self.limiter.retry_after(bucket, limit) > 0:
                raise ChatRefused("too_fast", _("You are writing too fast; wait a moment."))
        for bucket, _limit in buckets:
            self.limiter.hit(bucket)


def clean(text: str) -> str:
    """The line as kept: control characters (but none of the visible ones) dropped,
    spaces trimmed; ChatRefused when empty or too long."""
    kept = "".join(c for c in text if c == " " or unicodedata.category(c)[0] != "C").strip()
    if not kept:
        raise ChatRefused("empty", _("Write something first."))
    if len(kept) > MAX_CHARS:
        raise ChatRefused("too_long", _("A chat line has at most %(num)s characters.", num=MAX_CHARS))
    return kept


class Chat:
    def __init__(self, sessions: sessionmaker[Session], reads: sessionmaker[Session],
                 limits: ChatLimits, now: Callable[[], datetime],
                 on_line: Callable[[int], None] = lambda game_id: None) -> None:
        """``on_line(game)``: a line was written (every process's pages are told)."""
        self._sessions, self._reads = sessions, reads
        self.limits, self.now, self.on_line = limits, now, on_line

    def may_read(self, game: Game, seat: int | None) -> bool:
        return seat is not None or game.chat == "all"

    def post(self, game: Game, user_id: int, seat: int | None, text: str, client: str) -> int:
        """A player's line; its id. Refused (ChatRefused, nothing stored): not a
        player of this game, muted by a moderator, empty, too long, too fast."""
        if seat is None:
            raise ChatRefused("spectator", _("Only the players of this game write in its chat."))
        line = clean(text)
        with self._reads() as db:
            muted = db.scalar(select(User.chat_muted_until).where(User.id == user_id))
        if muted is not None and _aware(muted) > self.now():
            raise ChatRefused("muted", _("A moderator has muted you in the chats until "
                                        "%(until)s UTC.",
                                        until=format_datetime(_aware(muted), "short")))
        self.limits.admit(user_id, client)
        with self._sessions.begin() as db:
            row = ChatMessage(game_id=game.id, user_id=user_id, text=line, created_at=self.now())
            db.add(row)
            db.flush()
            line_id = row.id
        self.on_line(game.id)
        return line_id

    def lines(self, game_id: int, reader_id: int | None, after: int = 0,
              limit: int = HISTORY) -> list[dict[str, Any]]:
        """The newest lines after ``after`` (oldest first), without those of players
        the reader muted, nor those a moderator hid."""
        # On a connection, without an ORM session: columns only, and a page's first
        # state reads them.
        engine: Engine = self._reads.kw["bind"]
        with engine.connect() as conn:
            rows = conn.execute(_LINES if reader_id is None else _LINES_UNMUTED,
                                {"game_id": game_id, "after": after, "reader": reader_id,
                                 "limit": limit}).all()
        return [{"id": line_id, "text": text, "at": _aware(at).isoformat(), "seat": seat,
                 "name": name, "mine": reader_id == user_id}
                for line_id, text, at, user_id, name, seat in reversed(rows)]

    def mute(self, user_id: int, other: str) -> None:
        with self._sessions.begin() as db:
            target = _named(db, other)
            if target.id == user_id:
                raise ChatRefused("self", _("You cannot mute yourself."))
            try:
                with db.begin_nested():
                    db.add(ChatMute(user_id=user_id, muted_id=target.id))
            except IntegrityError:
                pass  # muted already

    def unmute(self, user_id: int, other: str) -> None:
        with self._sessions.begin() as db:
            target = _named(db, other)
            db.execute(delete(ChatMute).where(ChatMute.user_id == user_id,
                                              ChatMute.muted_id == target.id))

    def muted(self, user_id: int) -> list[str]:
        with self._reads() as db:
            return list(db.scalars(select(User.name).join(ChatMute, ChatMute.muted_id == User.id)
                                   .where(ChatMute.user_id == user_id).order_by(User.name)))

    def report(self, reporter: User, *, message_id: int | None = None, name: str | None = None,
               reason: str = "") -> None:
        """A report of a chat line (one the reporter may read) or of a name."""
        why = clean(reason) if reason.strip() else "(no reason given)"
        with self._sessions.begin() as db:
            if message_id is not None:
                found = db.execute(select(ChatMessage.user_id, ChatMessage.game_id).where(
                    ChatMessage.id == message_id)).first()
                readable = found is not None and db.scalar(select(Seat.id).where(
                    Seat.game_id == found[1], Seat.user_id == reporter.id)) is not None
                if found is None or not readable:
                    raise ChatRefused("not_found", _("There is no such chat line in your games."))
                db.add(Report(reporter_id=reporter.id, kind="message", target_id=found[0],
                              message_id=message_id, reason=why, created_at=self.now()))
            else:
                target = _named(db, name or "")
                db.add(Report(reporter_id=reporter.id, kind="name", target_id=target.id,
                              reason=why, created_at=self.now()))


def _named(db: Session, name: str) -> User:
    from .accounts import user_named

    found = user_named(db, name.strip())
    if found is None:
        raise ChatRefused("not_found", _("There is no player called %(name)s.", name=repr(name.strip())))
    return found


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
