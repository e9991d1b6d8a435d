"""The lobby: games on the web tables, from creation (seats open, invited or taken by
a computer) through joining to the start, which creates the game's match in the turn
framework; and which games a player has.

All methods are synchronous; the web layer calls them from worker threads."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from elgrande.cache import Lru
from elgrande.matches import MatchStore
from elgrande.rules import GameConfig

from .bots import BOT_LEVELS
from .errors import LobbyError
from .tables import Game, Seat, User, utcnow

SEATS_CACHE_SIZE = 1024  # started games whose seat list is kept in memory


@dataclass
class SeatSpec:
    kind: str  # "me", "open", "invited", "bot"
    invited_name: str | None = None
    bot_level: str | None = None


class Lobby:
    def __init__(self, sessions: sessionmaker[Session], reads: sessionmaker[Session],
                 store: MatchStore) -> None:
        self._sessions = sessions  # for writes (BEGIN IMMEDIATE on SQLite)
        self._reads = reads  # for reads, which need not queue behind writers
        self.store = store
        # Seat lists of started games: final once a game has its match (every seat
        # change happens in the lobby, committed before the match is created).
        self._started_seats: Lru[int, list[dict[str, Any]]] = Lru(SEATS_CACHE_SIZE)
        # match id -> (game id if it has bots, else None): final once known
        self._bot_games: Lru[str, tuple[int | None]] = Lru(SEATS_CACHE_SIZE)

    def create(self, creator: User, players: int, rounds: int, seats: list[SeatSpec]) -> Game:
        if not 2 <= players <= 5:
            raise LobbyError("A game has 2 to 5 players.")
        if rounds not in (6, 9):
            raise LobbyError("A game has 9 or 6 rounds.")
        if len(seats) != players:
            raise LobbyError("Give one choice per seat.")
        if sum(1 for s in seats if s.kind == "me") != 1:
            raise LobbyError("You take exactly one seat.")
        with self._sessions.begin() as db:
            game = Game(invite_token=secrets.token_urlsafe(16), creator_id=creator.id,
                        players=players, rounds=rounds, status="lobby")
            db.add(game)
            db.flush()
            for index, spec in enumerate(seats):
                db.add(self._seat_row(db, game.id, index, spec, creator))
            return game

    def _seat_row(self, db: Session, game_id: int, index: int, spec: SeatSpec, creator: User) -> Seat:
        if spec.kind == "me":
            return Seat(game_id=game_id, seat=index, kind="human", user_id=creator.id)
        if spec.kind == "open":
            return Seat(game_id=game_id, seat=index, kind="open")
        if spec.kind == "bot":
            level = spec.bot_level or "random"
            if level not in BOT_LEVELS:
                raise LobbyError(f"Unknown computer opponent level {level!r}.")
            return Seat(game_id=game_id, seat=index, kind="bot", bot_level=level)
        if spec.kind == "invited":
            name = (spec.invited_name or "").strip()
            invited = db.scalar(select(User).where(User.name == name))
            if invited is None:
                raise LobbyError(f"There is no player called {name!r}.")
            if invited.id == creator.id:
                raise LobbyError("You cannot invite yourself.")
            return Seat(game_id=game_id, seat=index, kind="invited", invited_name=invited.name)
        raise LobbyError(f"Unknown seat kind {spec.kind!r}.")

    def get(self, game_id: int) -> Game | None:
        with self._reads() as db:
            return db.get(Game, game_id)

    def by_invite(self, token: str) -> Game | None:
        with self._reads() as db:
            return db.scalar(select(Game).where(Game.invite_token == token))

    def by_match(self, match_id: str) -> Game | None:
        with self._reads() as db:
            return db.scalar(select(Game).where(Game.match_id == match_id))

    def bot_game(self, match_id: str) -> int | None:
        """The id of the game playing this match if it has computer seats (None if not,
        or if the game does not know its match yet). Final once known: kept."""
        known = self._bot_games.get(match_id)
        if known is not None:
            return known[0]
        game = self.by_match(match_id)
        if game is None:
            return None
        found = game.id if any(s["kind"] == "bot" for s in self.started_seats(game)) else None
        self._bot_games.put(match_id, (found,))
        return found

    def seats(self, game_id: int) -> list[dict[str, Any]]:
        with self._reads() as db:
            rows = db.execute(
                select(Seat, User.name).outerjoin(User, Seat.user_id == User.id)
                .where(Seat.game_id == game_id).order_by(Seat.seat)
            ).all()
            return [
                {
                    "seat": s.seat, "kind": s.kind, "user_id": s.user_id,
                    "name": name or s.invited_name or (f"Computer {s.seat + 1} ({s.bot_level})" if s.kind == "bot" else None),
                    "invited_name": s.invited_name, "bot_level": s.bot_level,
                }
                for s, name in rows
            ]

    def started_seats(self, game: Game) -> list[dict[str, Any]]:
        """``seats`` of a game; read once per process after the game has started."""
        if game.match_id is None:
            return self.seats(game.id)
        found = self._started_seats.get(game.id)
        if found is None:
            found = self.seats(game.id)
            self._started_seats.put(game.id, found)
        return [dict(s) for s in found]

    def seat_of(self, game_id: int, user_id: int | None) -> int | None:
        if user_id is None:
            return None
        started = self._started_seats.get(game_id)
        if started is not None:
            return next((s["seat"] for s in started
                         if s["user_id"] == user_id and s["kind"] == "human"), None)
        with self._reads() as db:
            return db.scalar(
                select(Seat.seat).where(Seat.game_id == game_id, Seat.user_id == user_id, Seat.kind == "human")
            )

    def join(self, game_id: int, user: User) -> int:
        with self._sessions.begin() as db:
            game = db.get(Game, game_id)
            if game is None:
                raise LobbyError("No such game.")
            if game.status != "lobby":
                raise LobbyError("This game has already started.")
            rows = db.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat)).all()
            if any(r.user_id == user.id for r in rows):
                raise LobbyError("You already have a seat in this game.")
            free = [r for r in rows if r.kind == "open" or (r.kind == "invited" and r.invited_name == user.name)]
            if not free:
                raise LobbyError("There is no free seat for you in this game.")
            free.sort(key=lambda r: (r.kind != "invited", r.seat))  # an invitation wins
            row = free[0]
            row.kind, row.user_id, row.invited_name = "human", user.id, None
            return row.seat

    def start(self, game_id: int, user: User, fill_with_bots: bool = False) -> str:
        with self._sessions.begin() as db:
            game = db.get(Game, game_id)
            if game is None:
                raise LobbyError("No such game.")
            if game.creator_id != user.id:
                raise LobbyError("Only the player who created the game can start it.")
            if game.status != "lobby":
                raise LobbyError("This game has already started.")
            rows = db.scalars(select(Seat).where(Seat.game_id == game_id)).all()
            waiting = [r for r in rows if r.kind in ("open", "invited")]
            if waiting and not fill_with_bots:
                raise LobbyError("Some seats are still free: wait for players, or fill them with computer opponents.")
            for r in waiting:
                r.kind, r.bot_level, r.invited_name = "bot", "random", None
            game.status = "starting"  # nobody joins or starts it twice meanwhile
            config = GameConfig(players=game.players, rounds=game.rounds)
        # The match is created in its own transaction (SQLite has one writer at a time).
        try:
            match_id = self.store.create(config)
        except Exception:
            with self._sessions.begin() as db:
                game = db.get(Game, game_id)
                if game is not None:
                    game.status = "lobby"  # try again later; the seats stay as they were filled
            raise
        with self._sessions.begin() as db:
            game = db.get(Game, game_id)
            assert game is not None
            game.match_id, game.status, game.updated_at = match_id, "active", utcnow()
        return match_id

    def my_games(self, user: User) -> list[dict[str, Any]]:
        """The user's games: those where it is their turn first, then running, then the rest."""
        with self._reads() as db:
            rows = db.execute(
                select(Game, Seat.seat).join(Seat, Seat.game_id == Game.id)
                .where(Seat.user_id == user.id).order_by(Game.updated_at.desc())
            ).all()
        result: list[dict[str, Any]] = []
        for game, seat in rows:
            my_turn = False
            if game.status == "active" and game.match_id:
                my_turn = seat in self.store.view(game.match_id, None).to_act
            result.append({"game": game, "seat": seat, "my_turn": my_turn})
        order = {"active": 0, "lobby": 1, "finished": 2}
        result.sort(key=lambda g: (not g["my_turn"], order.get(g["game"].status, 3)))
        return result

    def invitations(self, user: User) -> list[Game]:
        """Waiting games with a seat kept for this user."""
        with self._reads() as db:
            return list(db.scalars(
                select(Game).where(Game.status == "lobby", Game.id.in_(
                    select(Seat.game_id).where(Seat.kind == "invited", Seat.invited_name == user.name)))
                .order_by(Game.created_at.desc())
            ).all())

    def active_ids(self) -> list[int]:
        with self._reads() as db:
            return list(db.scalars(select(Game.id).where(Game.status == "active")).all())

    def open_games(self) -> list[Game]:
        with self._reads() as db:
            return list(db.scalars(
                select(Game).where(Game.status == "lobby", Game.id.in_(
                    select(Seat.game_id).where(Seat.kind == "open")))
                .order_by(Game.created_at.desc()).limit(30)
            ).all())

    def mark_finished(self, match_id: str) -> None:
        """The game playing ``match_id`` is over (its match ended)."""
        with self._sessions.begin() as db:
            game = db.scalar(select(Game).where(Game.match_id == match_id))
            if game is not None and game.status != "finished":
                game.status = "finished"
                game.updated_at = utcnow()
