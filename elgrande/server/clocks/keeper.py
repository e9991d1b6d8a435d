"""The clocks of clocked games, kept in the database (``game_clocks``, ``seat_clocks``):
they survive restarts and are shared by every server process.

- After each commit (``on_event`` notes it; ``settle`` does the work, in the keeper's
  thread), the seats' clocks are settled at the commit's time as stored with it: the
  seat that committed stops (the playing time it took leaves its bank), a seat that
  comes to act starts (with its top-up). Settling is conditional on the sequence it
  settles from, so of several processes hearing one commit exactly one settles it.
- ``expire_due(now)``: a seat past its deadline is marked away (conditional on that
  deadline, so one process does it once); a computer of the table's level then plays
  its turns, from its seat's view, until the player is back (``reclaim``: by acting,
  or by one click). ``remind_due(now)``: the reminder before a deadline, once.
- The keeper's thread (``ClockThread``) sleeps until the earliest deadline or reminder
  of all games (one indexed query), or until a commit wakes it: an idle server with
  many clocked games does nothing while no deadline is near.

All methods are synchronous, for worker threads; ``now`` is injected."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import Connection, and_, func, insert, select, update
from sqlalchemy.orm import Session, sessionmaker

from elgrande.cache import Lru
from elgrande.db.plain import PlainSql
from elgrande.matches import Match, MatchEvent, MatchStore, TurnRefused
from elgrande.matches.tables import CommitRow, MatchRow
from elgrande.rules import to_act

from ..i18n import _, ngettext
from ..lobby import Lobby
from ..tables import Game, GameClock, Seat, SeatClockRow, StandInTurn, User
from . import bank
from .bank import SeatClock
from .rules import ClockRules

log = logging.getLogger(__name__)

GAMES_CACHE_SIZE = 4096  # match id -> its clocked game (or none): final once known
LOOKS = 10  # times a new match is looked at again while its game is still starting


def aware(moment: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; everything stored is UTC."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


def zone_of(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _clock(row: SeatClockRow) -> SeatClock:
    return SeatClock(bank=row.bank, started=aware(row.started), deadline=aware(row.deadline),
                     remind_at=aware(row.remind_at), away_since=aware(row.away_since),
                     paused_until=aware(row.paused_until))


# What every commit of a clocked game runs (``_apply``), as plain SQL (db/plain.py).
_CLOCK_SQL = {
    "lock": "SELECT seq FROM game_clocks WHERE game_id = %(game)s {FOR UPDATE}",
    "seats": ("SELECT seat, bank, started, deadline, remind_at, away_since, paused_until, "
              "holiday_used, timeouts FROM seat_clocks WHERE game_id = %(game)s"),
    "update_seat": (
        "UPDATE seat_clocks SET bank = %(bank)s, started = %(started)s, "
        "deadline = %(deadline)s, remind_at = %(remind_at)s, away_since = %(away_since)s, "
        "paused_until = %(paused_until)s WHERE game_id = %(game)s AND seat = %(seat)s"),
    "insert_seat": (
        "INSERT INTO seat_clocks (game_id, seat, bank, started, deadline, remind_at, "
        "away_since, paused_until, holiday_used, timeouts) VALUES (%(game)s, %(seat)s, "
        "%(bank)s, %(started)s, %(deadline)s, %(remind_at)s, %(away_since)s, "
        "%(paused_until)s, 0.0, 0)"),
    "settled": "UPDATE game_clocks SET seq = %(seq)s WHERE game_id = %(game)s",
}


def _columns(sql: PlainSql, game_id: int, seat: int, clock: SeatClock) -> dict[str, Any]:
    """A seat's clock as the parameters of its ``seat_clocks`` row."""
    return {"game": game_id, "seat": seat, "bank": clock.bank,
            **{name: sql.moment(getattr(clock, name))
               for name in ("started", "deadline", "remind_at", "away_since", "paused_until")}}


def _store(row: SeatClockRow, clock: SeatClock) -> None:
    row.bank, row.started, row.deadline = clock.bank, clock.started, clock.deadline
    row.remind_at, row.away_since, row.paused_until = (clock.remind_at, clock.away_since,
                                                       clock.paused_until)


@dataclass(frozen=True)
class Due:
    """A seat whose deadline or reminder came: the game, the seat, its player, when."""

    game_id: int
    seat: int
    user_id: int | None
    deadline: datetime


@dataclass(frozen=True)
class _Shown:
    """What a game's public clocks are made of, as read from the database."""

    rules: ClockRules
    seats: tuple[tuple[int, SeatClock, float, int], ...]  # seat, clock, holiday used, timeouts
    zones: dict[int, ZoneInfo]  # by seat (only with playing hours)
    stand_ins: tuple[dict[str, int], ...]
    seq: int = -1  # made by the commit of this sequence (-1: read from the database)


class ClockRefused(ValueError):
    """A request about a clock that cannot be done (the message says why)."""


ShownSeats = tuple[tuple[int, SeatClock, float, int], ...]  # seat, clock, holiday used, timeouts


def _stand_in_mark(seats: ShownSeats) -> tuple[tuple[int, ...], bool]:
    """Each seat's timeouts, and whether a seat is away."""
    return tuple(t for _, _, _, t in seats), any(c.away_since is not None for _, c, _, _ in seats)


class ClockKeeper:
    def __init__(self, sessions: sessionmaker[Session], reads: sessionmaker[Session],
                 lobby: Lobby, store: MatchStore, now: Callable[[], datetime], *,
                 on_change: Callable[[int, str, int], None] = lambda game_id, match_id, seq: None,
                 on_due: Callable[[int], None] = lambda game_id: None,
                 on_timeout: Callable[[Due], None] = lambda due: None,
                 on_remind: Callable[[Due], None] = lambda due: None) -> None:
        """``on_change(game, match, seq)``: a game's clocks changed (its pages are told;
        ``seq``: settled at that commit, or -1);
        ``on_due(game)``: a computer may have a turn to play for an away seat;
        ``on_timeout`` / ``on_remind``: a seat's time ran out / is running out."""
        self._sessions, self._reads = sessions, reads
        self.lobby, self.store, self.now = lobby, store, now
        self.on_change, self.on_due = on_change, on_due
        self.on_timeout, self.on_remind = on_timeout, on_remind
        self._games: Lru[str, tuple[int | None]] = Lru(GAMES_CACHE_SIZE)
        self._rules: Lru[int, tuple[ClockRules]] = Lru(GAMES_CACHE_SIZE)
        # game id -> what its pages are shown, as read (each page computes the time left)
        self._shown: Lru[int, _Shown] = Lru(GAMES_CACHE_SIZE)
        # The turns computers played for away players, kept across changes: they change
        # only while a seat is away, which takes a timeout (game -> (each seat's timeouts,
        # whether one was away), the turns).
        self._stand_ins: Lru[int, tuple[tuple[tuple[int, ...], bool], tuple[dict[str, int], ...]]] = \
            Lru(GAMES_CACHE_SIZE)
        # (match id, seq) -> (game id, soonest, away to act): settled inside a commit
        # whose event has not come yet (a commit refused later leaves one behind: bounded)
        self._settled: Lru[tuple[str, int], tuple[int, datetime | None, bool, _Shown | None]] = \
            Lru(256)
        self._pending: dict[str, int] = {}
        self._lock = threading.Lock()
        self.wake = threading.Event()  # set when something may be due earlier
        self.planned: datetime | None = None  # when the keeper's thread means to look next
        self._sql: PlainSql | None = None

    def _plain_sql(self, conn: Connection) -> PlainSql:
        if self._sql is None:
            self._sql = PlainSql(conn.dialect.name, _CLOCK_SQL)
        return self._sql

    # -- which games have clocks

    # (A game's ``GameClock`` row is made with it, by ``Lobby.create``.)

    def rules_of(self, game_id: int) -> ClockRules | None:
        """The table's clock rules (fixed at creation: kept once read)."""
        known = self._rules.get(game_id)
        if known is not None:
            return known[0]
        with self._reads() as db:
            found = db.scalar(select(GameClock.rules).where(GameClock.game_id == game_id))
        if found is None:
            return None  # (not kept: the id may be a game still being created)
        rules = ClockRules.from_dict(found)
        self._rules.put(game_id, (rules,))
        return rules

    def clocked_game(self, match_id: str) -> int | None:
        """The id of the clocked game playing ``match_id`` (None: no clock, or not known
        yet). Final once known: kept."""
        known = self._games.get(match_id)
        if known is not None:
            return known[0]
        with self._reads() as db:
            row = db.execute(select(Game.id, GameClock.game_id).outerjoin(
                GameClock, GameClock.game_id == Game.id).where(Game.match_id == match_id)).first()
        if row is None:
            return None
        found = row[1]
        self._games.put(match_id, (found,))
        return found

    def known_unclocked(self, match_id: str) -> bool:
        """``match_id`` is known here to be played without a clock (memory only: fit
        for the event loop)."""
        return self._games.get(match_id) == (None,)

    # -- commits

    def on_event(self, event: MatchEvent) -> None:
        """Broker listener (the committing thread): note the match, wake the thread;
        a game's clocks changed (in any process): what pages are shown is read again."""
        if event.kind == "clocks":
            known = self._games.get(event.match_id)
            if known is not None and known[0] is not None:
                cached = self._shown.get(known[0])
                # (this process made them at that very commit: nothing to read again)
                if cached is None or event.seq < 0 or cached.seq < event.seq:
                    self._shown.pop(known[0])
            return
        if event.kind in ("commit", "created"):
            if event.kind == "commit" and self._games.get(event.match_id) == (None,):
                return  # known to have no clock
            done = self._settled.pop((event.match_id, event.seq))
            if done is not None:  # settled inside the commit (``in_commit``): tell now
                game_id, soonest, away_to_act, shown = done
                if shown is not None:  # what the pages show, as this commit made it
                    self._shown.put(game_id, shown)
                self._told(game_id, event.match_id, soonest, away_to_act, event.seq)
                return
            with self._lock:
                self._pending.setdefault(event.match_id, 0)
            self.wake.set()

    def waiting(self) -> bool:
        """Whether matches wait to be looked at again (their games still starting)."""
        with self._lock:
            return bool(self._pending)

    def settle_pending(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, {}
        for match_id, looks in pending.items():
            try:
                game_id = self.clocked_game(match_id)
                if game_id is None:
                    if self._games.get(match_id) is None and looks < LOOKS:
                        with self._lock:  # its game does not know it yet: starting
                            self._pending.setdefault(match_id, looks + 1)
                    continue
                self.settle(game_id)
            except Exception:  # one game's trouble must not stop the others' clocks
                log.exception("settling the clocks of a game failed")

    def settle(self, game_id: int, *, force: bool = False) -> bool:
        """Brings the game's clocks to its match's head; True if this call did.
        ``force``: even with no new commit (a seat changed hands: a player resigned)."""
        with self._reads() as db:
            row = db.execute(select(Game, GameClock).join(GameClock, GameClock.game_id == Game.id)
                             .where(Game.id == game_id)).first()
        if row is None:
            return False
        game, clock_row = row
        if game.match_id is None:
            return False
        view = self.store.view(game.match_id, None)
        if view.seq <= clock_row.seq and game.status == "active" and not force:
            return False
        with self._sessions.begin() as db:
            done = self._apply(db.connection(), game, ClockRules.from_dict(clock_row.rules),
                               view.seq, view.over, view.to_act, view.view["phase"], force)
        if done is None:
            return False
        self._told(game_id, game.match_id, done[0], done[1])
        return True

    def in_commit(self, game: Game, seat: int) -> Callable[[Connection, Match], None]:
        """The clocks settled inside the commit of ``seat``'s turn, in its own
        transaction (``MatchStore``'s ``within``): no transaction of their own. The
        pages are told once the commit has happened (``on_event``)."""

        def within(conn: Connection, match: Match) -> None:
            rules = self.rules_of(game.id)
            if rules is None or game.match_id is None or not match.log:
                return
            last = match.log[-1]  # this commit's: its base and time are the commit's
            # From the state itself: building a view here would cost every commit a
            # whole spectator view inside the write transaction.
            done = self._apply(conn, game, rules, match.seq, match.over, to_act(match.state),
                               match.state.phase_name, force=False,
                               commit=(last.base_seq, seat, last.at))
            if done is not None:
                soonest, away_to_act, seats, zones = done
                stand_ins = self._known_stand_ins(game.id, seats)
                shown = (None if stand_ins is None else
                         _Shown(rules, seats, zones, stand_ins, match.seq))
                self._settled.put((game.match_id, match.seq),
                                  (game.id, soonest, away_to_act, shown))

        return within

    def _apply(self, conn: Connection, game: Game, rules: ClockRules, seq: int, over: bool,
               to_act_now: list[int] | tuple[int, ...], phase: str, force: bool,
               commit: tuple[int, int, datetime] | None = None
               ) -> tuple[datetime | None, bool, ShownSeats, dict[int, ZoneInfo]] | None:
        """Settles the seats' clocks at ``seq`` in ``conn``'s transaction: (the soonest
        new deadline or reminder, whether an away seat is to act, the seats' clocks as
        pages show them, the seats' zones), or None if they were settled there already.
        ``commit``: (base, seat, time) of the commit being made, which spares reading
        the commits when it is the only one since the last settling. Core statements,
        not the ORM: this runs inside every commit of a clocked game."""
        running = game.status == "active" and not over
        to_act = set(to_act_now) if running else set()
        if phase == "veto":
            # A seat asked in a veto window (box rules) runs no clock: the window waits
            # a time of its own (server/veto.py); the active player's commit that opened
            # it was a turn of his, as any commit is.
            to_act = set()
        humans = {s["seat"]: s["user_id"] for s in self.lobby.started_seats(game)
                  if s["kind"] == "human"}
        away_to_act = False
        soonest: datetime | None = None
        sql = self._plain_sql(conn)
        locked = sql.run(conn, "lock", {"game": game.id})
        if not locked or (locked[0][0] >= seq and running and not force):
            return None
        settled_at = locked[0][0]
        if commit is not None and commit[0] == settled_at:
            acted: dict[int, datetime | None] = {commit[1]: aware(commit[2])}
            at = aware(commit[2])
        else:
            commits = conn.execute(
                select(CommitRow.seat, CommitRow.created_at)
                .where(CommitRow.match_id == game.match_id, CommitRow.head_seq > settled_at,
                       CommitRow.head_seq <= seq).order_by(CommitRow.head_seq)).all()
            acted = {seat: aware(at) for seat, at in commits if seat is not None}
            at = aware(commits[-1][1]) if commits else self.now()
        assert at is not None
        # seat -> (its clock, holiday used, timeouts)
        rows = {seat: (SeatClock(bank_, *map(sql.read_moment, moments)), used, timeouts)
                for seat, bank_, *moments, used, timeouts in sql.run(conn, "seats",
                                                                     {"game": game.id})}
        # A player's zone matters only for playing hours.
        zones = (self._zones(conn, [u for u in humans.values() if u is not None])
                 if rules.hours else {})
        new: dict[int, SeatClock] = {}
        for seat, (old, *_used) in rows.items():
            if seat not in humans:  # resigned: a computer plays it, no clock
                stopped = bank.stop(old, at, rules.hours, ZoneInfo("UTC"))
                new[seat] = replace(stopped, deadline=None, remind_at=None)
        for seat, user_id in humans.items():
            found = rows.get(seat)
            clock = found[0] if found is not None else SeatClock(bank=float(rules.initial))
            zone = zones.get(user_id or 0, ZoneInfo("UTC"))
            if not running:
                clock = bank.stop(clock, at, rules.hours, zone)
            else:
                clock = bank.settle(clock, acted_at=acted.get(seat), to_act=seat in to_act,
                                    at=at, rules=rules, zone=zone)
            new[seat] = clock
            away_to_act = away_to_act or (clock.away_since is not None and seat in to_act)
            soonest = min([m for m in (soonest, clock.deadline, clock.remind_at) if m],
                          default=None)
        changed = [_columns(sql, game.id, seat, clock) for seat, clock in new.items()
                   if seat in rows and clock != rows[seat][0]]
        if changed:
            sql.run_many(conn, "update_seat", changed)
        added = [_columns(sql, game.id, seat, clock) for seat, clock in new.items()
                 if seat not in rows]
        if added:
            sql.run_many(conn, "insert_seat", added)
        sql.run(conn, "settled", {"game": game.id, "seq": seq})
        seats = tuple((seat, new.get(seat) or rows[seat][0],
                       *(rows[seat][1:] if seat in rows else (0.0, 0)))
                      for seat in sorted(set(rows) | set(new)))
        seat_zones = {seat: zones[uid] for seat, uid in humans.items() if uid in zones}
        return soonest, away_to_act, seats, seat_zones

    def _told(self, game_id: int, match_id: str, soonest: datetime | None,
              away_to_act: bool, seq: int = -1) -> None:
        """After a settling's transaction: the keeper's thread, the pages, the bots."""
        if soonest is not None and (self.planned is None or soonest < self.planned):
            self.wake.set()  # the keeper's thread sleeps past this new deadline
        self.on_change(game_id, match_id, seq)
        if away_to_act:
            self.on_due(game_id)

    def catch_up(self) -> int:
        """Settles every running clocked game whose clocks lag behind its match (a
        commit heard by no process, e.g. during a restart); how many it settled."""
        with self._reads() as db:
            ids = list(db.scalars(
                select(GameClock.game_id).join(Game, Game.id == GameClock.game_id)
                .join(MatchRow, MatchRow.id == Game.match_id)
                .where(Game.status == "active", GameClock.seq < MatchRow.head_seq)))
        return sum(1 for game_id in ids if self.settle(game_id))

    @staticmethod
    def _zones(db: Session | Connection, user_ids: list[int]) -> dict[int, ZoneInfo]:
        if not user_ids:
            return {}
        return {uid: zone_of(name) for uid, name in db.execute(
            select(User.id, User.time_zone).where(User.id.in_(user_ids)))}

    # -- deadlines

    def next_due(self) -> datetime | None:
        """The earliest deadline or reminder of all games (None: nothing runs)."""
        with self._reads() as db:
            deadline = db.scalar(select(func.min(SeatClockRow.deadline)))
            remind = db.scalar(select(func.min(SeatClockRow.remind_at)))
        found = [m for m in (aware(deadline), aware(remind)) if m is not None]
        return min(found) if found else None

    def expire_due(self, now: datetime) -> list[Due]:
        """Marks away every seat whose deadline has passed; the ones this call marked."""
        with self._reads() as db:
            due = db.execute(select(SeatClockRow.game_id, SeatClockRow.seat).where(
                SeatClockRow.deadline <= now, SeatClockRow.away_since.is_(None))).all()
        expired = []
        for game_id, seat in due:
            self.settle(game_id)  # a commit not settled yet may have stopped this clock
            with self._sessions.begin() as db:
                row = db.get(SeatClockRow, (game_id, seat), with_for_update=True)
                if (row is None or row.away_since is not None or row.deadline is None
                        or aware(row.deadline) > now):  # type: ignore[operator]
                    continue
                deadline = aware(row.deadline)
                assert deadline is not None
                row.away_since, row.bank, row.timeouts = now, 0.0, row.timeouts + 1
                row.started = row.deadline = row.remind_at = None
                user_id = self._user_of(db, game_id, seat)
            found = Due(game_id, seat, user_id, deadline)
            expired.append(found)
            log.info("game %s: seat %s's clock ran out; a computer plays it", game_id, seat)
            self._changed(game_id)
            self.on_timeout(found)
            self.on_due(game_id)
        return expired

    def remind_due(self, now: datetime) -> list[Due]:
        """Each seat whose reminder time has come, once (conditional on that time)."""
        with self._reads() as db:
            due = db.execute(select(SeatClockRow.game_id, SeatClockRow.seat,
                                    SeatClockRow.remind_at, SeatClockRow.deadline).where(
                SeatClockRow.remind_at <= now)).all()
        reminded = []
        for game_id, seat, remind_at, deadline in due:
            with self._sessions.begin() as db:
                done = db.execute(update(SeatClockRow).where(
                    SeatClockRow.game_id == game_id, SeatClockRow.seat == seat,
                    SeatClockRow.remind_at == remind_at).values(remind_at=None))
                if getattr(done, "rowcount", 0) != 1:
                    continue  # another process sent it, or the seat moved meanwhile
                user_id = self._user_of(db, game_id, seat)
            found = Due(game_id, seat, user_id, aware(deadline) or now)
            reminded.append(found)
            self.on_remind(found)
        return reminded

    @staticmethod
    def _user_of(db: Session, game_id: int, seat: int) -> int | None:
        return db.scalar(select(Seat.user_id).where(Seat.game_id == game_id, Seat.seat == seat))

    # -- absent players

    def away_seats(self, game_id: int) -> set[int]:
        with self._reads() as db:
            return set(db.scalars(select(SeatClockRow.seat).where(
                SeatClockRow.game_id == game_id, SeatClockRow.away_since.is_not(None))))

    def is_away(self, game_id: int, seat: int) -> bool:
        """From what the pages are shown (read once per change, forgotten at each change
        in any process): asked at every command of a clocked game."""
        shown = self._shown.get(game_id)
        if shown is None:
            shown = self._read_shown(game_id)
            if shown is None:
                return False
            self._shown.put(game_id, shown)
        return any(s == seat and clock.away_since is not None for s, clock, _, _ in shown.seats)

    def reclaim(self, game_id: int, seat: int) -> bool:
        """The player is back: the computer stops playing the seat (a turn it is
        thinking out is refused, see ``stand_in_guard``); if the seat is to act, its
        turn starts now. False if the seat was not away."""
        now = self.now()
        with self._reads() as db:
            game = db.get(Game, game_id)
            rules_dict = db.scalar(select(GameClock.rules).where(GameClock.game_id == game_id))
        if game is None or game.match_id is None or rules_dict is None:
            return False
        rules = ClockRules.from_dict(rules_dict)
        with self._sessions.begin() as db:
            # Locked: a computer's commit for this seat checks the same row in its own
            # transaction, so either it lands first or it is refused.
            row = db.get(SeatClockRow, (game_id, seat), with_for_update=True)
            if row is None or row.away_since is None:
                return False
            view = self.store.view(game.match_id, None)
            clock = SeatClock(bank=0.0, paused_until=aware(row.paused_until))
            if seat in view.to_act and not view.over and game.status == "active":
                user_id = self._user_of(db, game_id, seat)
                zone = self._zones(db, [user_id] if user_id else []).get(user_id or 0,
                                                                          ZoneInfo("UTC"))
                clock = bank.start(clock, now, rules, zone)
            _store(row, clock)
        log.info("game %s: seat %s's player is back", game_id, seat)
        self._changed(game_id, game.match_id)
        return True

    def stand_in_guard(self, game_id: int, seat: int) -> Callable[[Connection, Match], None]:
        """For a computer's turn played for an away seat: inside the commit's
        transaction, the seat must still be away (else the turn is refused: the player
        came back), and the turn is recorded as played for them."""
        table = SeatClockRow.__table__

        def within(conn: Connection, match: Match) -> None:
            query = select(table.c.away_since).where(and_(table.c.game_id == game_id,
                                                          table.c.seat == seat))
            if conn.dialect.name == "postgresql":
                query = query.with_for_update()
            if conn.execute(query).scalar() is None:
                raise TurnRefused("taken_back", "The player took the seat back.")
            conn.execute(insert(StandInTurn).values(game_id=game_id, seq=match.seq, seat=seat))

        return within

    # -- holidays

    def pause(self, game_id: int, seat: int, days: int) -> datetime:
        """The seat's player takes ``days`` of holiday from now (within what the table
        allows and has not been used); their clock stands still until then."""
        now = self.now()
        with self._reads() as db:
            rules_dict = db.scalar(select(GameClock.rules).where(GameClock.game_id == game_id))
        if rules_dict is None:
            raise ClockRefused(_("This game has no clock."))
        rules = ClockRules.from_dict(rules_dict)
        if not rules.holiday_days:
            raise ClockRefused(_("This table allows no holidays."))
        with self._sessions.begin() as db:
            row = db.get(SeatClockRow, (game_id, seat), with_for_update=True)
            if row is None:
                raise ClockRefused(_("Your clock has not started yet."))
            if row.away_since is not None:
                raise ClockRefused(_("A computer is playing for you: take your seat back first."))
            paused = aware(row.paused_until)
            if paused is not None and paused > now:
                raise ClockRefused(_("You are already on holiday in this game."))
            left = rules.holiday_days * 86400 - row.holiday_used
            if days < 1 or days * 86400 > left + 1:
                raise ClockRefused(ngettext("You have %(num)s day of holiday left in this game.",
                                            "You have %(num)s days of holiday left in this game.",
                                            int(left // 86400)))
            until = now + timedelta(days=days)
            user_id = self._user_of(db, game_id, seat)
            zone = self._zones(db, [user_id] if user_id else []).get(user_id or 0, ZoneInfo("UTC"))
            _store(row, bank.pause(_clock(row), now, until, rules, zone))
            row.holiday_used += days * 86400
        self._changed(game_id)
        return until

    def end_holiday(self, game_id: int, seat: int) -> bool:
        """Back early: the unused days are given back, the clock runs from now."""
        now = self.now()
        rules = self.rules_of(game_id)
        if rules is None:
            return False
        with self._sessions.begin() as db:
            row = db.get(SeatClockRow, (game_id, seat), with_for_update=True)
            paused = aware(row.paused_until) if row is not None else None
            if row is None or paused is None or paused <= now:
                return False
            row.holiday_used = max(0.0, row.holiday_used - (paused - now).total_seconds())
            user_id = self._user_of(db, game_id, seat)
            zone = self._zones(db, [user_id] if user_id else []).get(user_id or 0, ZoneInfo("UTC"))
            _store(row, bank.end_pause(_clock(row), now, rules, zone))
        self._changed(game_id)
        return True

    # -- what pages show

    def public(self, game_id: int) -> dict[str, Any] | None:
        """The game's clocks as every seat and spectator may see them (remaining time,
        whose clock runs and until when, who is away or on holiday); None: no clock.
        What it is made of is read once per change (every process hears of each change)
        and shared by the game's pages."""
        shown = self._shown.get(game_id)
        if shown is None:
            shown = self._read_shown(game_id)
            if shown is None:
                return None
            self._shown.put(game_id, shown)
        return self._public(shown)

    def public_known(self, game_id: int) -> dict[str, Any] | None:
        """``public`` if what it is made of is known here (no database read: for the
        event loop, which thus spares a worker thread at each change); None otherwise."""
        shown = self._shown.get(game_id)
        return None if shown is None else self._public(shown)

    def _public(self, shown: _Shown) -> dict[str, Any]:
        now = self.now()
        rules = shown.rules
        seats = []
        for seat, clock, holiday_used, timeouts in shown.seats:
            zone = shown.zones.get(seat, ZoneInfo("UTC"))
            seats.append({
                "seat": seat,
                "left": round(bank.remaining(clock, now, rules, zone), 1),
                # (not while the turn waits for the end of a holiday)
                "running": clock.running and not (clock.paused_until and clock.paused_until > now),
                "deadline": clock.deadline.isoformat() if clock.deadline else None,
                "away": clock.away_since is not None,
                "holiday_until": (clock.paused_until.isoformat()
                                  if clock.paused_until and clock.paused_until > now else None),
                "holiday_left_days": int(max(0.0, rules.holiday_days * 86400 - holiday_used)
                                         // 86400),
                "timeouts": timeouts,
            })
        return {"now": now.isoformat(), "preset": rules.preset, "per_turn": rules.per_turn,
                "cap": rules.cap, "hours": list(rules.hours) if rules.hours else None,
                "holiday_days": rules.holiday_days, "stand_in": rules.stand_in,
                "seats": seats, "stand_in_turns": [dict(t) for t in shown.stand_ins]}

    def _read_shown(self, game_id: int) -> _Shown | None:
        with self._reads() as db:
            found = db.execute(select(GameClock.rules, Game.match_id).join(
                Game, Game.id == GameClock.game_id).where(GameClock.game_id == game_id)).first()
            if found is None:
                return None
            rules = ClockRules.from_dict(found[0])
            if found[1] is not None:
                self._games.put(found[1], (game_id,))  # so its changes reach this cache
            rows = list(db.scalars(select(SeatClockRow).where(SeatClockRow.game_id == game_id)
                                   .order_by(SeatClockRow.seat)))
            zones: dict[int, ZoneInfo] = {}
            if rules.hours:
                users = {seat: uid for seat, uid in db.execute(
                    select(Seat.seat, Seat.user_id).where(Seat.game_id == game_id))}
                by_user = self._zones(db, [u for u in users.values() if u is not None])
                zones = {seat: by_user[uid] for seat, uid in users.items() if uid in by_user}
        seats = tuple((r.seat, _clock(r), r.holiday_used, r.timeouts) for r in rows)
        stand_ins = self._known_stand_ins(game_id, seats)
        if stand_ins is None:
            stand_ins = tuple(self.stand_in_turns(game_id))
            self._stand_ins.put(game_id, (_stand_in_mark(seats), stand_ins))
        return _Shown(rules, seats, zones, stand_ins)

    def _known_stand_ins(self, game_id: int, seats: ShownSeats
                         ) -> tuple[dict[str, int], ...] | None:
        """The turns computers played for away players as last read, if they cannot
        have changed since: they change only while a seat is away, and a seat goes away
        only with a timeout; None: read them."""
        mark = _stand_in_mark(seats)
        known = self._stand_ins.get(game_id)
        if known is not None and known[0][0] == mark[0] and not known[0][1] and not mark[1]:
            return known[1]
        return None

    def stand_in_turns(self, game_id: int) -> list[dict[str, int]]:
        """The turns a computer played for away players: the seat, and the log entries
        of each (``from`` to ``to``, 0-based, ``to`` excluded)."""
        with self._reads() as db:
            rows = db.execute(
                select(StandInTurn.seat, CommitRow.base_seq, StandInTurn.seq)
                .join(Game, Game.id == StandInTurn.game_id)
                .join(CommitRow, and_(CommitRow.match_id == Game.match_id,
                                      CommitRow.head_seq == StandInTurn.seq))
                .where(StandInTurn.game_id == game_id).order_by(StandInTurn.seq)).all()
        return [{"seat": seat, "from": base, "to": head} for seat, base, head in rows]

    # -- games nobody plays any more

    def absent_games(self, now: datetime, after: timedelta) -> list[int]:
        """Running games where every human seat has been away for longer than ``after``."""
        with self._reads() as db:
            candidates = set(db.scalars(select(SeatClockRow.game_id).join(
                Game, Game.id == SeatClockRow.game_id).where(
                Game.status == "active", SeatClockRow.away_since < now - after)))
            found = []
            for game_id in candidates:
                humans = set(db.scalars(select(Seat.seat).where(
                    Seat.game_id == game_id, Seat.kind == "human")))
                away = {seat for seat, since in db.execute(
                    select(SeatClockRow.seat, SeatClockRow.away_since).where(
                        SeatClockRow.game_id == game_id)) if since is not None
                        and aware(since) < now - after}  # type: ignore[operator]
                if humans and humans <= away:
                    found.append(game_id)
        return found

    def _changed(self, game_id: int, match_id: str | None = None) -> None:
        if match_id is None:
            with self._reads() as db:
                match_id = db.scalar(select(Game.match_id).where(Game.id == game_id))
        self.wake.set()
        if match_id is not None:
            self.on_change(game_id, match_id, -1)

