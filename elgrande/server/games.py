"""Games: the lobby (create, invite, join, start) on the web tables, and play through
the turn framework (`elgrande.matches.MatchStore`): step, undo, redo, finish.

All methods are synchronous; the web layer calls them from worker threads.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from elgrande.cache import Lru
from elgrande.matches import Match, MatchError, MatchStore, draft_version
from elgrande.rules import Action, GameConfig, State, apply, new_game, parse_action

from .bots import BOT_LEVELS
from .models import Game, Seat, User, utcnow
from .present import EntryLines, entry_lines, hidden_secrets, move_log, present


@dataclass
class SeatSpec:
    kind: str  # "me", "open", "invited", "bot"
    invited_name: str | None = None
    bot_level: str | None = None


EVENT_CACHE_SIZE = 256  # matches whose replay (for the log's scorings) is kept in memory
SEATS_CACHE_SIZE = 1024  # started games whose seat list is kept in memory
VIEW_CACHE_SIZE = 4096  # seat views (as JSON) kept in memory


@dataclass(frozen=True)
class ShownLog:
    """A move log as sent: the JSON of each line, and whether it is the public one (no
    secret choice unrevealed: the same for everyone, and only ever extended)."""

    lines: tuple[str, ...]
    public: bool
    text: str  # the whole log as a JSON array

    @classmethod
    def of(cls, lines: tuple[str, ...], public: bool) -> ShownLog:
        return cls(lines, public, f"[{','.join(lines)}]")


@dataclass(frozen=True)
class SeatState:
    """One seat's (or a spectator's) view of a game as sent to its pages. ``key`` names
    what it was built from, the committed sequence and the seat's draft, so equal keys
    mean equal views: each is built once per change, whoever asks. Only JSON text is
    kept (cheap for the garbage collector, however many views are cached)."""

    key: tuple[Any, ...]
    head: str  # the view's JSON object without its log and closing brace
    log: ShownLog

    @property
    def text(self) -> str:
        return f'{self.head},"log":{self.log.text}}}'

    @property
    def data(self) -> dict[str, Any]:
        found: dict[str, Any] = orjson.loads(self.text)
        return found

    def text_after(self, lines_seen: int | None) -> str:
        """The view for a page that holds the first ``lines_seen`` lines of the public
        log: only the lines after them ("log_from" says where they go)."""
        if lines_seen is None or not self.log.public or lines_seen > len(self.log.lines):
            return self.text
        rest = ",".join(self.log.lines[lines_seen:])
        return f'{self.head},"log_from":{lines_seen},"log":[{rest}]}}'


def to_json(value: Any) -> str:
    """Compact JSON, as the pages get it (orjson: views are built many times a second)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def view_key(match_id: str, seat: int | None, seq: int, version: str) -> tuple[Any, ...]:
    """What a seat's view is a function of: the committed sequence and its draft."""
    return (match_id, seat, seq, version if seat is not None else "")


class LobbyError(ValueError):
    pass


class PlayError(Exception):
    """A refused play request; `code` as in elgrande.matches.errors plus a few of ours."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Games:
    def __init__(self, sessions: sessionmaker[Session], store: MatchStore,
                 reads: sessionmaker[Session] | None = None) -> None:
        self._sessions = sessions  # for writes (BEGIN IMMEDIATE on SQLite)
        self._reads = reads or sessions  # for reads, which need not queue behind writers
        self.store = store
        self._events: dict[str, tuple[int, State, list[list[dict[str, Any]]]]] = {}
        self._events_lock = threading.Lock()
        # Seat lists of started games: final once a game has its match (every seat
        # change happens in the lobby, committed before the match is created).
        self._started_seats: Lru[int, list[dict[str, Any]]] = Lru(SEATS_CACHE_SIZE)
        # match id -> (game id if it has bots, else None): final once known
        self._bot_games: Lru[str, tuple[int | None]] = Lru(SEATS_CACHE_SIZE)
        self._views: Lru[tuple[Any, ...], SeatState] = Lru(VIEW_CACHE_SIZE)
        self._lines: Lru[str, tuple[EntryLines, ...]] = Lru(EVENT_CACHE_SIZE)  # log in words
        self._logs: Lru[tuple[Any, ...], ShownLog] = Lru(EVENT_CACHE_SIZE)
        # per match: (entries, log) of the public log last made
        self._public_logs: Lru[str, tuple[int, ShownLog]] = Lru(EVENT_CACHE_SIZE)

    # ----------------------------------------------------------------- lobby

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

    # ------------------------------------------------------------------ play

    def match(self, game: Game) -> Match:
        if game.match_id is None:
            raise PlayError("not_started", "this game has not started")
        return self.store.load(game.match_id)

    def snapshot(self, game: Game, seat: int | None) -> dict[str, Any]:
        return self.seat_state(game, seat).data

    def seat_state(self, game: Game, seat: int | None) -> SeatState:
        """What ``seat`` (None: a spectator) is shown now."""
        if game.match_id is None:
            raise PlayError("not_started", "this game has not started")
        # Only this seat's draft is read: no other seat's draft is ever in the view.
        return self._present(game, self.store.load_seat(game.match_id, seat), seat)

    def remembered_state(self, game: Game, seat: int | None, seq: int, version: str
                         ) -> SeatState | None:
        """``seat_state`` when a change notice said the match is at ``seq`` with the
        seat's draft at ``version``, from this process's memory alone (no database, no
        waiting: fit for the event loop); None if it does not hold it."""
        if game.match_id is None:
            return None
        found = self.known_state(view_key(game.match_id, seat, seq, version))
        if found is not None:
            return found
        match = self.store.cached_seat(game.match_id, seq, seat, version)
        return None if match is None else self._present(game, match, seat)

    def known_state(self, key: tuple[Any, ...]) -> SeatState | None:
        """A view already built (in this process) for ``key``."""
        return self._views.get(key)

    def _present(self, game: Game, match: Match, seat: int | None) -> SeatState:
        draft = match.drafts.get(seat) if seat is not None else None
        key = view_key(match.id, seat, match.seq, draft_version(draft))
        found = self._views.get(key)
        if found is not None:
            return found
        events = self.events(match)
        names = self._names(game)
        known = self._lines.get(match.id) or ()
        lines = entry_lines(match.actions, events, names, known)
        if len(lines) > len(known):
            self._lines.put(match.id, lines)
        # The move log is most of a view and, but for unrevealed secret choices, the same
        # for everyone: its JSON is made once per (match, sequence, what is hidden).
        log = match.actions
        unrevealed = hidden_secrets(match.state, log)
        hidden = {i for i in unrevealed if log[i].seat != seat}
        # (The seat whose secret choice alone is unrevealed sees it: its own log.)
        log_key = (match.id, match.seq, tuple(sorted(hidden)), bool(unrevealed))
        shown_log = self._logs.get(log_key)
        if shown_log is None:
            shown_log = self._log_shown(match.id, log, events, hidden, seat, names, lines,
                                        public=not unrevealed)
            self._logs.put(log_key, shown_log)
        data = present(match, seat, self.started_seats(game), game.id, events, log_shown=[])
        del data["log"]
        made = SeatState(key, to_json(data)[:-1], shown_log)
        self._views.put(key, made)
        return made

    def _log_shown(self, match_id: str, log: list[Action], events: list[list[dict[str, Any]]],
                   hidden: set[int], seat: int | None, names: list[str],
                   lines: tuple[EntryLines, ...], public: bool) -> ShownLog:
        """The move log as ``seat`` sees it. When it is ``public`` (no secret choice
        unrevealed, so the same for everyone), the last one made for the match is
        extended by the new entries (the log only grows)."""
        if not public:
            made = move_log(log, events, hidden, seat, names, lines)
            return ShownLog.of(tuple(to_json(line) for line in made), False)
        seen, old = self._public_logs.get(match_id) or (0, ShownLog.of((), True))
        if seen > len(log):
            seen, old = 0, ShownLog.of((), True)
        added = move_log(log, events, hidden, seat, names, lines, start=seen)
        if not added:
            return old
        shown = ShownLog.of(old.lines + tuple(to_json(line) for line in added), True)
        self._public_logs.put(match_id, (len(log), shown))
        return shown

    def _names(self, game: Game) -> list[str]:
        return [p.get("name") or f"Seat {p['seat'] + 1}" for p in self.started_seats(game)]

    def events(self, match: Match) -> list[list[dict[str, Any]]]:
        """The engine's event records (scorings, reveals) after each log entry. The log
        only grows, so each match's replay is kept and extended."""
        with self._events_lock:
            cached = self._events.get(match.id)
            if cached is None or cached[0] > match.seq:
                cached = (0, new_game(match.config), [])
            seq, state, events = cached
            for entry in match.log[seq:]:
                produced: list[dict[str, Any]] = []
                apply(state, entry.action, produced)
                events.append(produced)
            self._events.pop(match.id, None)
            self._events[match.id] = (match.seq, state, events)  # most recent last
            while len(self._events) > EVENT_CACHE_SIZE:
                self._events.pop(next(iter(self._events)))
            return events[:match.seq]

    def act(self, game: Game, seat: int, command: str, seq: int | None,
            action: str | None = None) -> SeatState:
        """One command of a seat: step (with `action`), undo, redo or finish; returns the
        seat's view after it. A refused one raises PlayError and changes nothing."""
        if game.match_id is None:
            raise PlayError("not_started", "this game has not started")
        mid = game.match_id
        if command not in ("step", "undo", "redo", "finish"):
            raise PlayError("bad_request", f"unknown command {command!r}")
        if command == "step" and action is None:
            raise PlayError("bad_request", "a step needs an action")
        try:
            match = self.store.play(mid, seat, command, action, base_seq=seq)
            if command == "step" and parse_action(action or "").is_secret:
                # Confirming a secret choice in the dialog commits it at once.
                match = self.store.play(mid, seat, "finish", base_seq=match.seq)
        except MatchError as exc:
            raise PlayError(exc.code, str(exc)) from None
        if match.over:  # only a commit ends a match
            self.after_commit(mid, over=True)
        return self._present(game, match, seat)

    def after_commit(self, match_id: str, *, over: bool | None = None) -> None:
        """Marks a game finished once its match is over (``over``: already known
        from the committing operation's view, so the match need not be read again)."""
        if over is None:
            over = self.store.load(match_id).over
        if over:
            with self._sessions.begin() as db:
                game = db.scalar(select(Game).where(Game.match_id == match_id))
                if game is not None and game.status != "finished":
                    game.status = "finished"
                    game.updated_at = utcnow()

    # ------------------------------------------------------------------ bots

    def bot_work(self, game_id: int) -> list[tuple[int, str, dict[str, Any], int]]:
        """(seat, level, committed state, seq) for each bot seat that is to act now."""
        game = self.get(game_id)
        if game is None or game.status != "active" or game.match_id is None:
            return []
        levels = {s["seat"]: s["bot_level"] or "random" for s in self.seats(game_id) if s["kind"] == "bot"}
        match = self.store.load(game.match_id)
        if match.over:
            return []
        # A bot gets only what its seat may see: never another seat's unrevealed secret choice.
        return [(s, levels[s], match.redacted_state(s).to_dict(), match.seq)
                for s in match.seat_view(None).to_act if s in levels]

    def play_bot_steps(self, game_id: int, seat: int, steps: list[str], seq: int) -> bool:
        """Enters a bot's thought-out turn and finishes it; False if the game moved on
        meanwhile (the bot will think again on the new state)."""
        game = self.get(game_id)
        if game is None or game.match_id is None or not steps:
            return False
        mid = game.match_id
        try:
            view = self.store.view(mid, seat)
            if view.draft and view.draft["steps"]:
                return False  # never happens for a bot seat; never clobber a draft
            for text in steps:
                self.store.play(mid, seat, "step", text, base_seq=seq)
            over = self.store.play(mid, seat, "finish", base_seq=seq).over
        except MatchError:
            for _ in range(len(steps)):  # drop whatever part of the turn got in
                try:
                    self.store.play(mid, seat, "undo")
                except MatchError:
                    break
            return False
        self.after_commit(mid, over=over)
        return True
