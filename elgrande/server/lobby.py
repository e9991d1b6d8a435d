"""The lobby: games on the web tables, from creation (seats open, invited or taken by
a computer) through joining to the start, which creates the game's match in the turn
framework; and which games a player has.

Starting is recoverable: a game's match id is derived from the game, so a start cut short
by a crash (game "starting", match maybe created) is finished by the next "Start", or at
the app's start-up (``recover``), which also marks finished the running games whose
match is over (a crash between the last commit and the game's update).

All methods are synchronous; the web layer calls them from worker threads."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from elgrande.cache import Lru
from elgrande.matches import Match, MatchStore
from elgrande.matches.tables import MatchRow
from elgrande.rules import GameConfig, Options

from .accounts import user_named
from .bots import BOT_LEVELS, level_name
from .errors import LobbyError
from .i18n import _
from .lobby_caps import CapGuard, LobbyCaps
from .ratings import ineligible
from .tables import Game, GameClock, Seat, User, utcnow

if TYPE_CHECKING:
    from .clocks.rules import ClockRules


def bot_name(seat: int, level: str | None) -> str:
    """A computer seat's name as it is shown, in the reader's language: "Computer 2
    (easy)" (made when read, never stored)."""
    return _("Computer %(number)s (%(level)s)", number=seat + 1,
             level=level_name(level))


SEATS_CACHE_SIZE = 1024  # started games whose seat list is kept in memory
OPEN_GAMES_PAGE = 30  # open games shown per lobby page
OPEN_GAMES_PER_CREATOR = 3  # at most this many of one creator's open games are shown
UNKNOWN_ADDRESS = "unknown"
# The rule sets a table may be created with, and how the pages name them.
RULE_SETS = {"yucata": "Yucata", "box": "Publisher's box rules (Veto cards)"}



# The lobby's frequent reads, built once: a statement reused keeps its cache key, where one
# built per call is walked again at every execution (SQLAlchemy's share of a lobby page).
_GAME = (select(Game, MatchRow.over).outerjoin(MatchRow, MatchRow.id == Game.match_id)
         .where(Game.id == bindparam("id")))
_MY_GAMES = (select(Game, Seat.seat, MatchRow.over, Seat.kind)
             .join(Seat, Seat.game_id == Game.id)
             .outerjoin(MatchRow, MatchRow.id == Game.match_id)
             .where(Seat.user_id == bindparam("user_id")).order_by(Game.updated_at.desc()))
_RUNNING = Game.status.in_(("lobby", "starting", "active"))
_MY_RUNNING_GAMES = _MY_GAMES.where(_RUNNING)
_MY_ENDED_GAMES = _MY_GAMES.where(~_RUNNING).limit(bindparam("ended"))
_INVITATIONS = (select(Game).where(Game.status == "lobby", Game.id.in_(
    select(Seat.game_id).where(Seat.kind == "invited", Seat.invited_name == bindparam("name"))))
    .order_by(Game.created_at.desc()))
# At most OPEN_GAMES_PER_CREATOR of each creator's waiting games, newest first; one more
# than a page tells whether there is a next one.
_NEWEST = func.row_number().over(partition_by=Game.creator_id,
                                 order_by=(Game.created_at.desc(), Game.id.desc()))
_RANKED = (select(Game.id, _NEWEST.label("place"))
           .where(Game.status == "lobby",
                  Game.id.in_(select(Seat.game_id).where(Seat.kind == "open")))
           .subquery())
_OPEN_GAMES = (select(Game).join(_RANKED, _RANKED.c.id == Game.id)
               .where(_RANKED.c.place <= OPEN_GAMES_PER_CREATOR)
               .order_by(Game.created_at.desc(), Game.id.desc())
               .offset(bindparam("skip")).limit(OPEN_GAMES_PAGE + 1))

@dataclass
class SeatSpec:
    kind: str  # "me", "open", "invited", "bot"
    invited_name: str | None = None
    bot_level: str | None = None


class Lobby:
    def __init__(self, sessions: sessionmaker[Session], reads: sessionmaker[Session],
                 store: MatchStore, caps: LobbyCaps | None = None, secret: str = "",
                 on_finished: Callable[[int], None] | None = None) -> None:
        self._sessions = sessions  # for writes (BEGIN IMMEDIATE on SQLite)
        # Told the id of each game this lobby marks finished (the results and ratings:
        # server/ratings.py), after the change is committed.
        self._on_finished = on_finished
        self._reads = reads  # for reads, which need not queue behind writers
        self.store = store
        self.caps = CapGuard(caps or LobbyCaps())
        self._match_key = hashlib.sha256(b"elgrande match ids:" + secret.encode()).digest()
        # Seat lists of started games: final once a game has its match (every seat
        # change happens in the lobby, committed before the match is created).
        self._started_seats: Lru[int, list[dict[str, Any]]] = Lru(SEATS_CACHE_SIZE)
        # match id -> (game id if it has bots, else None): final once known
        self._bot_games: Lru[str, tuple[int | None]] = Lru(SEATS_CACHE_SIZE)

    def match_id_for(self, game: Game) -> str:
        """The id of the game's match, known before the match exists (so a start cut
        short can be finished): keyed with the server's secret, so no client can work it
        out (not even from the invitation link); unique as the invitation token is."""
        return hmac.new(self._match_key, game.invite_token.encode(), "sha256").hexdigest()[:32]

    def create(self, creator: User, players: int, rounds: int, seats: list[SeatSpec],
               address: str = UNKNOWN_ADDRESS, start_now: bool = False,
               clock: ClockRules | None = None, rated: bool = False,
               chat: str = "all", rules: str = "yucata") -> Game:
        """A new game waiting for players; ``start_now`` ("Play now", no free seat):
        started at once, under the caps of a start instead of those of a waiting game.
        ``clock``: the table's pace (None: no clock; server/clocks/). ``rated``: the
        result changes ratings (registered players only: server/ratings.py). ``rules``:
        the rule set, ``RULE_SETS`` ("yucata" or the publisher's "box")."""
        if not 2 <= players <= 5:
            raise LobbyError(_("A game has 2 to 5 players."))
        if rounds not in (6, 9):
            raise LobbyError(_("A game has 9 or 6 rounds."))
        if len(seats) != players:
            raise LobbyError(_("Give one choice per seat."))
        if sum(1 for s in seats if s.kind == "me") != 1:
            raise LobbyError(_("You take exactly one seat."))
        if start_now and any(s.kind in ("open", "invited") for s in seats):
            raise LobbyError(_("A game started at once has no free seat."))
        if rated and (why := ineligible(creator)):
            raise LobbyError(why)
        if chat not in ("all", "players"):
            raise LobbyError(_("The chat is read by everyone or by the players only."))
        if rules not in RULE_SETS:
            raise LobbyError(_("The rules are Yucata's or the publisher's (box)."))
        with self._sessions.begin() as db:
            if start_now:
                bots = sum(1 for s in seats if s.kind == "bot")
                self.caps.check_start(db, creator, address, bots)
            else:
                self.caps.check_create(db, creator, address)
            game = Game(invite_token=secrets.token_urlsafe(16), creator_id=creator.id,
                        players=players, rounds=rounds, created_from=address[:64],
                        status="starting" if start_now else "lobby", rated=rated, chat=chat,
                        rules=rules)
            db.add(game)
            db.flush()
            for index, spec in enumerate(seats):
                db.add(self._seat_row(db, game.id, index, spec, creator, rated))
            if clock is not None:
                db.add(GameClock(game_id=game.id, rules=clock.to_dict(), seq=-1))
        if start_now:
            self._finish_start(game.id)
            game.status, game.match_id = "active", self.match_id_for(game)
        return game

    def _seat_row(self, db: Session, game_id: int, index: int, spec: SeatSpec, creator: User,
                  rated: bool = False) -> Seat:
        if spec.kind == "me":
            return Seat(game_id=game_id, seat=index, kind="human", user_id=creator.id)
        if spec.kind == "open":
            return Seat(game_id=game_id, seat=index, kind="open")
        if spec.kind == "bot":
            level = spec.bot_level or "random"
            if level not in BOT_LEVELS:
                raise LobbyError(_("Unknown computer opponent level %(level)s.", level=repr(level)))
            return Seat(game_id=game_id, seat=index, kind="bot", bot_level=level)
        if spec.kind == "invited":
            name = (spec.invited_name or "").strip()
            invited = user_named(db, name)  # as a login finds it: case-blind
            if invited is None:
                raise LobbyError(_("There is no player called %(name)s.", name=repr(name)))
            if invited.id == creator.id:
                raise LobbyError(_("You cannot invite yourself."))
            if rated and (why := ineligible(invited)):
                raise LobbyError(why)
            return Seat(game_id=game_id, seat=index, kind="invited", invited_name=invited.name)
        raise LobbyError(_("Unknown seat kind %(kind)s.", kind=repr(spec.kind)))

    def get(self, game_id: int) -> Game | None:
        """The game; a running one whose match is over is marked finished on the way
        (a crash may have fallen between the match's last commit and the game's update)."""
        with self._reads() as db:
            row = db.execute(_GAME, {"id": game_id}).first()
        if row is None:
            return None
        game, over = row
        if game.status == "active" and over and game.match_id is not None:
            self.mark_finished(game.match_id)
            game.status = "finished"
        return game

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
                    "name": name or s.invited_name or (bot_name(s.seat, s.bot_level)
                                                       if s.kind == "bot" else None),
                    "invited_name": s.invited_name, "bot_level": s.bot_level,
                    # resigned: the player's name stays, a computer plays the seat on
                    "resigned_seq": s.resigned_seq, "resigned_round": s.resigned_round,
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
        # A computer's name is worded for each reader (the cache is kept in no language).
        return [dict(s, name=bot_name(s["seat"], s["bot_level"]))
                if s["kind"] == "bot" and s["user_id"] is None and not s["invited_name"]
                else dict(s) for s in found]

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

    def seat_kind(self, game_id: int, seat: int) -> str | None:
        """The seat's kind as stored now (not the kept seat list: a seat a player
        resigned became "bot" meanwhile, perhaps in another process)."""
        with self._reads() as db:
            return db.scalar(select(Seat.kind).where(Seat.game_id == game_id, Seat.seat == seat))

    def seats_changed(self, game_id: int, match_id: str | None) -> None:
        """A started game's seats changed (a player resigned): forget what was kept."""
        self._started_seats.pop(game_id)
        if match_id is not None:
            self._bot_games.pop(match_id)

    def leave(self, game_id: int, user: User) -> None:
        """A player who joined a waiting game gives their seat up: open again (an
        invited seat too). The creator cancels instead."""
        with self._sessions.begin() as db:
            game = db.get(Game, game_id, with_for_update=True)
            if game is None:
                raise LobbyError(_("No such game."))
            if game.status != "lobby":
                raise LobbyError(_("This game has already started."))
            if game.creator_id == user.id:
                raise LobbyError(_("You created this game: cancel it instead of leaving."))
            row = db.scalar(select(Seat).where(Seat.game_id == game_id, Seat.user_id == user.id))
            if row is None:
                raise LobbyError(_("You have no seat in this game."))
            row.kind, row.user_id, row.invited_name = "open", None, None

    def join(self, game_id: int, user: User) -> int:
        with self._sessions.begin() as db:
            # Locked (PostgreSQL): two joins cannot both take one seat.
            game = db.get(Game, game_id, with_for_update=True)
            if game is None:
                raise LobbyError(_("No such game."))
            if game.status != "lobby":
                raise LobbyError(_("This game has already started."))
            rows = db.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat)).all()
            if any(r.user_id == user.id for r in rows):
                raise LobbyError(_("You already have a seat in this game."))
            if game.rated and (why := ineligible(user)):
                raise LobbyError(why)
            free = [r for r in rows if r.kind == "open" or (r.kind == "invited" and r.invited_name == user.name)]
            if not free:
                raise LobbyError(_("There is no free seat for you in this game."))
            free.sort(key=lambda r: (r.kind != "invited", r.seat))  # an invitation wins
            row = free[0]
            row.kind, row.user_id, row.invited_name = "human", user.id, None
            return row.seat

    def start(self, game_id: int, user: User, fill_with_bots: bool = False,
              address: str = UNKNOWN_ADDRESS) -> str:
        """Starts a waiting game, or finishes a start cut short (game "starting");
        returns the match id."""
        with self._sessions.begin() as db:
            # Locked (PostgreSQL): a second start waits, then finds the game "starting".
            game = db.get(Game, game_id, with_for_update=True)
            if game is None:
                raise LobbyError(_("No such game."))
            if game.creator_id != user.id:
                raise LobbyError(_("Only the player who created the game can start it."))
            if game.status == "lobby":
                rows = db.scalars(select(Seat).where(Seat.game_id == game_id)).all()
                waiting = [r for r in rows if r.kind in ("open", "invited")]
                if waiting and not fill_with_bots:
                    raise LobbyError(_("Some seats are still free: wait for players, or fill them with computer opponents."))
                bots = sum(1 for r in rows if r.kind in ("bot", "open", "invited"))
                self.caps.check_start(db, user, address, bots)
                for r in waiting:
                    r.kind, r.bot_level, r.invited_name = "bot", "random", None
                game.status = "starting"  # nobody joins it meanwhile
            elif game.status != "starting":
                raise LobbyError(_("This game has already started."))
        return self._finish_start(game_id)

    def cancel(self, game_id: int, user: User) -> None:
        """Its creator removes a game that is still waiting for players (its seats go
        with it): what frees a place under the cap on waiting games."""
        with self._sessions.begin() as db:
            game = db.get(Game, game_id, with_for_update=True)
            if game is None:
                raise LobbyError(_("No such game."))
            if game.creator_id != user.id:
                raise LobbyError(_("Only the player who created the game can cancel it."))
            if game.status != "lobby":
                raise LobbyError(_("This game has already started."))
            for seat in db.scalars(select(Seat).where(Seat.game_id == game_id)).all():
                db.delete(seat)
            db.flush()
            db.delete(game)

    def _finish_start(self, game_id: int) -> str:
        """Creates the match of a "starting" game unless it exists, and points the game at
        it. Safe to run twice, in two processes at once: the match id is the game's."""
        with self._reads() as db:
            game = db.get(Game, game_id)
            assert game is not None
            match_id = self.match_id_for(game)
            exists = db.get(MatchRow, match_id) is not None
            config = GameConfig(players=game.players, rounds=game.rounds,
                                options=Options.preset(game.rules or "yucata"))
        # The match is created in its own transaction (SQLite has one writer at a time).
        if not exists:
            try:
                self.store.add(Match.new(config, match_id=match_id, now=self.store.now()))
            except IntegrityError:
                pass  # created meanwhile by another start of this game: the same match
        with self._sessions.begin() as db:
            game = db.get(Game, game_id, with_for_update=True)
            assert game is not None
            if game.status == "starting":
                game.match_id, game.status, game.updated_at = match_id, "active", utcnow()
        return match_id

    def recover(self) -> None:
        """At start-up: finishes the starts a crash cut short, and marks finished the
        running games whose match is over."""
        with self._reads() as db:
            starting = db.scalars(select(Game.id).where(Game.status == "starting")).all()
            over = db.scalars(select(Game.match_id).join(MatchRow, MatchRow.id == Game.match_id)
                              .where(Game.status == "active", MatchRow.over.is_(True))).all()
        for game_id in starting:
            self._finish_start(game_id)
        for match_id in over:
            if match_id is not None:
                self.mark_finished(match_id)

    def my_games(self, user: User, ended: int | None = None) -> list[dict[str, Any]]:
        """The user's games: those where it is their turn first, then running, then the
        rest; a running game with whose turn it is (names, ``to_act``) and its round.
        ``ended``: at most this many of the games that are over (the newest)."""
        with self._reads() as db:
            if ended is None:
                rows = db.execute(_MY_GAMES, {"user_id": user.id}).all()
            else:  # a player with thousands of finished games: only the newest few
                rows = list(db.execute(_MY_RUNNING_GAMES, {"user_id": user.id}).all())
                if ended > 0:
                    rows += db.execute(_MY_ENDED_GAMES,
                                       {"user_id": user.id, "ended": ended}).all()
        result: list[dict[str, Any]] = []
        for game, seat, over, kind in rows:
            if game.status == "active" and over and game.match_id:
                self.mark_finished(game.match_id)  # an ending a crash cut short
                game.status = "finished"
            my_turn, to_act, round_ = False, [], None
            if game.status == "active" and game.match_id:
                view = self.store.view(game.match_id, None)
                my_turn = kind == "human" and seat in view.to_act  # not resigned
                # Whose turn it is, by name, and the round: public, as on the board.
                names = {s["seat"]: s["name"] for s in self.started_seats(game)}
                to_act = [names.get(s) or f"Seat {s + 1}" for s in view.to_act]
                round_ = view.view.get("round")
            result.append({"game": game, "seat": seat, "my_turn": my_turn,
                           "to_act": to_act, "round": round_})
        order = {"active": 0, "lobby": 1, "finished": 2}
        result.sort(key=lambda g: (not g["my_turn"], order.get(g["game"].status, 3)))
        return result

    def invitations(self, user: User) -> list[Game]:
        """Waiting games with a seat kept for this user."""
        with self._reads() as db:
            return list(db.scalars(_INVITATIONS, {"name": user.name}).all())

    def active_ids(self) -> list[int]:
        with self._reads() as db:
            return list(db.scalars(select(Game.id).where(Game.status == "active")).all())

    def open_games(self, page: int = 1) -> tuple[list[Game], bool]:
        """One page of the games waiting for players, newest first, with at most
        OPEN_GAMES_PER_CREATOR of each creator's (so nobody's games push everyone else's
        off the list); and whether there is a next page."""
        page = max(1, page)
        with self._reads() as db:
            games = list(db.scalars(_OPEN_GAMES,
                                    {"skip": (page - 1) * OPEN_GAMES_PAGE}).all())
        return games[:OPEN_GAMES_PAGE], len(games) > OPEN_GAMES_PAGE

    def mark_finished(self, match_id: str) -> None:
        """The game playing ``match_id`` is over (its match ended)."""
        with self._sessions.begin() as db:
            game = db.scalar(select(Game).where(Game.match_id == match_id))
            # Only a running game: an abandoned one stays so (a stand-in's last move
            # may still land after the last human resigned).
            changed = game is not None and game.status == "active"
            if game is not None and changed:
                game.status = "finished"
                game.updated_at = utcnow()
        if changed and game is not None and self._on_finished is not None:
            self._on_finished(game.id)
