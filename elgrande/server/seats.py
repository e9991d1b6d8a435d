"""Seats that change hands during a game, and games that end without finishing.

Resigning: the player's seat is taken by a computer opponent for the rest of the game
(it plays through the same path as every bot: ``Play.bot_work``, ``play_bot_steps``);
the player keeps their name on the seat (``user_id``, ``resigned_seq``) and is ranked
last at the end whatever the score. When no human is left at the table (every player
resigned, a player alone against computers included), the game is stopped as
"abandoned" instead of being played out by computers for nobody.

The sweep (``Sweeper.sweep_once(now)``, run in the background by the app): waiting games
that did not start in time expire; games of one player against computers left untouched
are abandoned (a guest's sooner than a registered player's), and so are clocked games whose every player has been away (their clock ran
out) for longer than a set time. Every update is conditional on the status it changes, so two processes
sweeping at once, or a sweep racing a start, change each game at most once.

All methods are synchronous; the web layer calls them from worker threads."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, exists, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from elgrande.matches import MatchStore
from elgrande.matches.tables import DraftRow, MatchRow
from elgrande.rules import State

from .errors import LobbyError
from .i18n import _
from .lobby import Lobby
from .periodic import Periodic
from .tables import Game, Seat, User, utcnow

log = logging.getLogger(__name__)


class Resign:
    def __init__(self, sessions: sessionmaker[Session], lobby: Lobby, store: MatchStore,
                 stand_in_level: str) -> None:
        self._sessions = sessions
        self.lobby = lobby
        self.store = store
        self.stand_in_level = stand_in_level

    def resign(self, game_id: int, user: User) -> Game:
        """``user`` gives up their seat in a running game; returns the game (status
        "abandoned" if no human is left). Refused (LobbyError, nothing changed): no such
        game, not running, no seat of theirs, already resigned."""
        with self._sessions.begin() as db:
            # Locked (PostgreSQL): two resignations cannot both think a human is left.
            game = db.get(Game, game_id, with_for_update=True)
            if game is None:
                raise LobbyError(_("No such game."))
            seat = db.scalar(select(Seat).where(Seat.game_id == game_id, Seat.user_id == user.id))
            if seat is None:
                raise LobbyError(_("You have no seat in this game."))
            if seat.resigned_seq is not None:
                raise LobbyError(_("You have already resigned this game."))
            if game.status in ("lobby", "starting"):
                raise LobbyError(_("This game has not started: leave it instead."))
            match = db.get(MatchRow, game.match_id) if game.match_id else None
            if game.status != "active" or match is None or match.over:
                raise LobbyError(_("This game is over."))
            # The draft goes first: nobody (not the stand-in either) builds on it.
            db.execute(delete(DraftRow).where(DraftRow.match_id == match.id,
                                              DraftRow.seat == seat.seat))
            seat.kind, seat.bot_level = "bot", self.stand_in_level
            seat.resigned_seq = match.head_seq
            seat.resigned_round = State.from_dict(match.state).round
            db.flush()
            humans = db.scalar(select(func.count(Seat.id)).where(
                Seat.game_id == game_id, Seat.kind == "human"))
            # Nobody left to play for: stopped, not played out by computers.
            if not humans:
                game.status = "abandoned"
            game.updated_at = utcnow()
            db.flush()
            db.expunge(game)
        self.lobby.seats_changed(game_id, game.match_id)
        log.info("game %s: seat %s resigned at move %s", game_id, seat.seat, seat.resigned_seq)
        return game



class Sweeper(Periodic):
    """Expires waiting games and abandons idle guests' games against computers: every
    ``interval`` seconds in a thread of its own, at the time ``now()`` says."""

    name = "expiry-sweeper"

    def __init__(self, sessions: sessionmaker[Session], now: Callable[[], datetime], *,
                 waiting: timedelta, idle_guest: timedelta, interval: float,
                 idle_solo: timedelta | None = None,
                 on_change: Callable[[int], None] | None = None,
                 absent: Callable[[datetime], list[int]] | None = None) -> None:
        super().__init__(interval)
        self._sessions = sessions
        self.now = now
        self.waiting = waiting
        self.idle_guest = idle_guest
        self.idle_solo = idle_solo  # a registered player's; None: kept for good
        self._on_change = on_change  # a game's rooms and pages are told
        # Running games whose every player has been away (clock run out) too long.
        self._absent = absent

    def sweep_once(self, now: datetime) -> dict[str, list[int]]:
        """One look at ``now``: the ids of the games it expired and abandoned."""
        expired = self._set_status(
            "lobby", "expired", Game.created_at < now - self.waiting, now)
        # A guest's game where every other seat is a computer, whose match has not moved.
        others = exists().where(Seat.game_id == Game.id, Seat.kind != "bot",
                                Seat.user_id != Game.creator_id)
        guest = exists().where(User.id == Game.creator_id, User.is_guest.is_(True))
        abandoned = self._set_status("active", "abandoned",
                                     and_(guest, ~others, self._idle(now - self.idle_guest)), now)
        if self.idle_solo is not None:
            abandoned += self._set_status(
                "active", "abandoned", and_(~guest, ~others, self._idle(now - self.idle_solo)),
                now)
        if self._absent is not None:
            absent = self._absent(now)
            if absent:
                abandoned += self._set_status("active", "abandoned", Game.id.in_(absent), now)
        for game_id in expired + abandoned:
            if self._on_change is not None:
                self._on_change(game_id)
        return {"expired": expired, "abandoned": abandoned}

    @staticmethod
    def _idle(since: datetime) -> Any:
        """The game's match is running and has not moved since ``since``."""
        return exists().where(and_(MatchRow.id == Game.match_id, MatchRow.over.is_(False),
                                   MatchRow.updated_at < since))

    def _set_status(self, old: str, new: str, condition: Any, now: datetime) -> list[int]:
        """Moves the games matching ``condition`` from ``old`` to ``new``; the ids of those
        this call changed."""
        changed = []
        with self._sessions.begin() as db:
            ids = db.scalars(select(Game.id).where(Game.status == old, condition)).all()
            for game_id in ids:
                # Conditional on the old status: a game started (or swept by another
                # process) meanwhile is left alone, and counted once.
                done = db.execute(update(Game).where(Game.id == game_id, Game.status == old)
                                  .values(status=new, updated_at=now))
                if getattr(done, "rowcount", 0) == 1:
                    changed.append(game_id)
        return changed

    def tick(self) -> None:
        self.sweep_once(self.now())
