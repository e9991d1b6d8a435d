"""Moderation: administrators (a role set with `elgrande admin grant NAME`) read the
players' reports and may mute a player in the chats, ban a player (every session ends,
no login, their running games go on with a computer), rename an offensive name, hide a
chat line and cancel a game. Every action is written to the moderation log with who did
it, to whom and when.

All methods are synchronous; the web layer calls them from worker threads."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from .accounts import AccountError, user_named
from .i18n import _
from .names import BadName, check_name, name_key, skeleton
from .tables import ChatMessage, Game, ModerationEntry, Report, User

ADMIN = "admin"


class ModerationRefused(ValueError):
    """A moderation request that cannot be done (the message says why)."""


def is_admin(user: User | None) -> bool:
    return user is not None and user.role == ADMIN and user.banned_at is None


class Moderation:
    def __init__(self, sessions: sessionmaker[Session], reads: sessionmaker[Session],
                 now: Callable[[], datetime],
                 on_ban: Callable[[User], None] = lambda user: None,
                 on_cancel: Callable[[int], None] = lambda game_id: None) -> None:
        """``on_ban(user)``: the banned player's running games go on without them;
        ``on_cancel(game)``: a cancelled game's pages and clocks are told."""
        self._sessions, self._reads, self.now = sessions, reads, now
        self.on_ban, self.on_cancel = on_ban, on_cancel

    # -- the role (from the command line)

    def set_role(self, name: str, role: str, by: User | None = None) -> User:
        with self._sessions.begin() as db:
            user = _named(db, name)
            if role == ADMIN and (user.is_guest or user.password_hash is None):
                raise ModerationRefused(_("Only registered players can moderate."))
            user.role = role
            self._log(db, by, "grant" if role == ADMIN else "revoke", user.id)
            db.flush()
            db.expunge(user)
            return user

    def admins(self) -> list[str]:
        with self._reads() as db:
            return list(db.scalars(select(User.name).where(User.role == ADMIN).order_by(User.name)))

    # -- actions on players

    def mute(self, admin: User, name: str, days: float, why: str = "") -> datetime:
        if not 0 < days <= 365:
            raise ModerationRefused(_("Mute for 1 hour to 365 days (days may be a fraction)."))
        until = self.now() + timedelta(days=days)
        with self._sessions.begin() as db:
            user = _named(db, name)
            user.chat_muted_until = until
            self._log(db, admin, "mute", user.id, detail=f"until {until:%Y-%m-%d %H:%M} UTC {why}")
        return until

    def ban(self, admin: User, name: str, why: str = "") -> None:
        with self._sessions.begin() as db:
            user = _named(db, name)
            if user.id == admin.id:
                raise ModerationRefused(_("You cannot ban yourself."))
            user.banned_at, user.session_generation = self.now(), user.session_generation + 1
            self._log(db, admin, "ban", user.id, detail=why)
            db.flush()
            db.expunge(user)
        self.on_ban(user)

    def unban(self, admin: User, name: str) -> None:
        with self._sessions.begin() as db:
            user = _named(db, name)
            user.banned_at = None
            self._log(db, admin, "unban", user.id)

    def rename(self, admin: User, name: str, new_name: str) -> str:
        """An offensive name replaced; the player's games and rating stay theirs."""
        try:
            new_name = check_name(new_name)
        except BadName as exc:
            raise ModerationRefused(str(exc)) from None
        with self._sessions.begin() as db:
            user = _named(db, name)
            taken = db.scalar(select(User.id).where(
                (User.name_key == name_key(new_name)) | (User.name_skeleton == skeleton(new_name)),
                User.id != user.id))
            if taken is not None:
                raise ModerationRefused(_("That name is taken, or looks like one that is."))
            old = user.name
            user.name, user.name_key, user.name_skeleton = new_name, name_key(new_name), skeleton(new_name)
            self._log(db, admin, "rename", user.id, detail=f"{old} -> {new_name}")
        return new_name

    def hide(self, admin: User, message_id: int) -> None:
        with self._sessions.begin() as db:
            line = db.get(ChatMessage, message_id)
            if line is None:
                raise ModerationRefused(_("There is no such chat line."))
            line.hidden = True
            self._log(db, admin, "hide", line.user_id, game_id=line.game_id,
                      detail=line.text[:200])

    def cancel_game(self, admin: User, game_id: int, why: str = "") -> None:
        with self._sessions.begin() as db:
            done = db.execute(update(Game).where(
                Game.id == game_id, Game.status.in_(("lobby", "starting", "active")))
                .values(status="cancelled", updated_at=self.now()))
            if getattr(done, "rowcount", 0) != 1:
                raise ModerationRefused(_("No such game, or it is over already."))
            self._log(db, admin, "cancel", None, game_id=game_id, detail=why)
        self.on_cancel(game_id)

    def close_report(self, admin: User, report_id: int) -> None:
        with self._sessions.begin() as db:
            report = db.get(Report, report_id)
            if report is None:
                raise ModerationRefused(_("There is no such report."))
            report.status = "done"
            self._log(db, admin, "close", report.target_id, detail=f"report {report_id}")

    # -- what the moderation page shows

    def open_reports(self, limit: int = 100) -> list[dict[str, Any]]:
        with self._reads() as db:
            reporter, target = User.__table__.alias("reporter"), User.__table__.alias("target")
            rows = db.execute(
                select(Report, reporter.c.name, target.c.name, ChatMessage.text, ChatMessage.game_id)
                .join(reporter, reporter.c.id == Report.reporter_id)
                .join(target, target.c.id == Report.target_id)
                .outerjoin(ChatMessage, ChatMessage.id == Report.message_id)
                .where(Report.status == "open").order_by(Report.id).limit(limit)).all()
        return [{"id": r.id, "kind": r.kind, "reporter": by, "target": whom, "reason": r.reason,
                 "message_id": r.message_id, "text": text, "game_id": game_id,
                 "at": r.created_at} for r, by, whom, text, game_id in rows]

    def log(self, limit: int = 100) -> list[dict[str, Any]]:
        with self._reads() as db:
            admin, target = User.__table__.alias("admin"), User.__table__.alias("target")
            rows = db.execute(
                select(ModerationEntry, admin.c.name, target.c.name)
                .outerjoin(admin, admin.c.id == ModerationEntry.admin_id)
                .outerjoin(target, target.c.id == ModerationEntry.target_id)
                .order_by(ModerationEntry.id.desc()).limit(limit)).all()
        return [{"at": e.created_at, "admin": by or "(command line)", "action": e.action,
                 "target": whom, "game_id": e.game_id, "detail": e.detail}
                for e, by, whom in rows]

    def _log(self, db: Session, admin: User | None, action: str, target_id: int | None, *,
             game_id: int | None = None, detail: str = "") -> None:
        db.add(ModerationEntry(admin_id=admin.id if admin else None, action=action,
                               target_id=target_id, game_id=game_id, detail=detail[:500],
                               created_at=self.now()))


def _named(db: Session, name: str) -> User:
    user = user_named(db, name.strip())
    if user is None:
        raise ModerationRefused(_("There is no player called %(name)s.", name=repr(name.strip())))
    return user


__all__ = ["ADMIN", "AccountError", "Moderation", "ModerationRefused", "is_admin"]
