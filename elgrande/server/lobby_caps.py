"""Caps on what one player, and one client address, may hold in the lobby at once:
games waiting for players, running games, and computer opponents in running games.
Without them one guest could start dozens of games with four hard computer opponents
each and starve everyone's bots, or flood the list of open games.

A game counts for the player who created it (only the creator starts a game and chooses
its computer opponents), and for the client address it was created from (kept on the
game, so the caps hold across processes and restarts). The counts are read from the
database in the same transaction as the change they guard."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, fields
from typing import Any

from sqlalchemy import ColumnElement, bindparam, func, or_, select, text
from sqlalchemy.orm import Session

from elgrande.matches.tables import MatchRow

from .errors import LobbyError
from .i18n import _, ngettext
from .tables import Game, Seat, User

RUNNING = ("starting", "active")


class CapReached(LobbyError):
    """A lobby cap stops this request: answered 429, the message names the cap and what
    to do about it."""


@dataclass(frozen=True)
class LobbyCaps:
    """0 means no limit (the load benchmark starts hundreds of games from 127.0.0.1)."""

    waiting_games_per_user: int = 5
    active_games_per_user: int = 20
    bot_seats_per_user: int = 40
    waiting_games_per_client: int = 15
    active_games_per_client: int = 60
    bot_seats_per_client: int = 120

    @classmethod
    def from_settings(cls, settings: Any) -> LobbyCaps:
        """The attributes of ``settings`` named like the fields (validated there)."""
        defaults = cls()
        return cls(**{f.name: getattr(settings, f.name, getattr(defaults, f.name))
                      for f in fields(cls)})


@dataclass(frozen=True)
class Holdings:
    waiting: int
    active: int
    bot_seats: int


class CapGuard:
    """Checks the caps inside a lobby write transaction."""

    def __init__(self, caps: LobbyCaps) -> None:
        self.caps = caps

    def check_create(self, db: Session, user: User, address: str) -> None:
        """Before a new game waiting for players."""
        caps = self.caps
        self._check(db, user, address, lambda h: h.waiting + 1,
                    caps.waiting_games_per_user, caps.waiting_games_per_client,
                    lambda n: ngettext("%(num)s game waiting for players",
                                       "%(num)s games waiting for players", n),
                    _("Start one of them (free seats can be filled with computer "
                      "opponents), or cancel one you no longer need."))

    def check_start(self, db: Session, user: User, address: str, bot_seats: int) -> None:
        """Before a game with ``bot_seats`` computer opponents starts."""
        caps = self.caps
        finish = _("Finish one of your running games first.")
        self._check(db, user, address, lambda h: h.active + 1,
                    caps.active_games_per_user, caps.active_games_per_client,
                    lambda n: ngettext("%(num)s running game", "%(num)s running games", n),
                    finish)
        if bot_seats:
            self._check(db, user, address, lambda h: h.bot_seats + bot_seats,
                        caps.bot_seats_per_user, caps.bot_seats_per_client,
                        lambda n: ngettext("%(num)s computer opponent in running games",
                                           "%(num)s computer opponents in running games", n),
                        _("%(finish)s Or start this game with fewer computer opponents.",
                          finish=finish))

    def _check(self, db: Session, user: User, address: str, after: Any, per_user: int,
               per_client: int, what: Callable[[int], str], todo: str) -> None:
        lock_players(db, [user.id])
        lock_address(db, address)
        if per_user and after(holdings(db, BY_CREATOR, user.id)) > per_user:
            raise CapReached(_("You may have at most %(what)s. %(todo)s",
                               what=what(per_user), todo=todo))
        if per_client and after(holdings(db, BY_ADDRESS, address)) > per_client:
            raise CapReached(_("The players at your network address may have at most "
                               "%(what)s together. %(todo)s", what=what(per_client), todo=todo))


_LOCK_PLAYERS = (select(User.id).where(User.id.in_(bindparam("ids", expanding=True)))
                 .order_by(User.id).with_for_update())


def lock_players(db: Session, user_ids: Collection[int]) -> None:
    """PostgreSQL: locks the players' rows (in id order, so two transactions never wait
    for each other), so two requests of one player cannot both pass a cap. SQLite:
    writers are serialised already (BEGIN IMMEDIATE), FOR UPDATE is not rendered."""
    db.execute(_LOCK_PLAYERS, {"ids": sorted(user_ids)})


def lock_address(db: Session, address: str) -> None:
    """PostgreSQL: one request per address at a time passes the address caps (two
    players behind one address could otherwise both take the last place)."""
    if db.get_bind().dialect.name == "postgresql":
        db.execute(text("SELECT pg_advisory_xact_lock(hashtext(:key))"),
                   {"key": f"elgrande-lobby-caps:{address}"})


def _holdings_reads(whose: ColumnElement[bool]) -> tuple[Any, Any]:
    """The two reads of ``holdings`` for the games matching ``whose``, built once (a
    statement reused keeps its cache key)."""
    # A game whose match is over holds nothing, even if a crash left it "active".
    playing = or_(MatchRow.over.is_(None), MatchRow.over.is_(False))
    counts = (select(Game.status, func.count(Game.id))
              .outerjoin(MatchRow, MatchRow.id == Game.match_id).where(whose)
              .where(Game.status.in_(("lobby", *RUNNING)), playing).group_by(Game.status))
    bots = (select(func.count(Seat.id)).join(Game, Game.id == Seat.game_id)
            .outerjoin(MatchRow, MatchRow.id == Game.match_id)
            .where(whose, Game.status.in_(RUNNING), playing, Seat.kind == "bot"))
    return counts, bots


BY_CREATOR = _holdings_reads(Game.creator_id == bindparam("who"))
BY_ADDRESS = _holdings_reads(Game.created_from == bindparam("who"))


def holdings(db: Session, whose: tuple[Any, Any], who: int | str) -> Holdings:
    """What the games of ``who`` hold now: ``whose`` is BY_CREATOR (``who`` a user id)
    or BY_ADDRESS (a client address)."""
    counts_read, bots_read = whose
    counts = dict(db.execute(counts_read, {"who": who}).all())
    bots = db.scalar(bots_read, {"who": who})
    return Holdings(waiting=counts.get("lobby", 0),
                    active=sum(counts.get(s, 0) for s in RUNNING), bot_seats=bots or 0)
