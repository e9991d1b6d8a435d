"""Matches in a database. Every operation is one transaction: lock the match row,
load the ``Match``, run the operation, write back what changed, commit, then notify.

Concurrency: the row lock (``SELECT ... FOR UPDATE`` on PostgreSQL, ``BEGIN IMMEDIATE``
on SQLite) queues writers of one match; the unique constraints on (match_id, seq) and
(match_id, base_seq) make a commit on a stale base fail in the database itself, so the
log can never fork. Both surface as ``GameMovedOn`` with the seat's new view.

Speed: operations run as a few Core statements (no ORM objects), and each process keeps
what cannot change behind the database's back: a match's fixed fields, its committed
log with the head state (append-only), and each draft as built from its stored row
(a draft is a function of the committed head and its steps, so a stored row equal to
the cached one means the cached draft is still right, whichever process wrote it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, Table, bindparam, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from elgrande.cache import Lru
from elgrande.db.engine import make_engine, writer
from elgrande.db.plain import PlainSql
from elgrande.rules import Action, GameConfig, IllegalAction, State, apply, parse_action, replay

from . import record
from .chance import commitment
from .draft import Draft, draft_version
from .errors import GameMovedOn, MatchNotFound
from .log import CommittedLog, LogEntry
from .match import Match, SeatView, utcnow
from .pubsub import Broker, InProcessBroker, MatchEvent
from .tables import CommitRow, DraftRow, MatchRow, MoveRow

CACHE_SIZE = 1024  # matches (and, times the seats, drafts) a store keeps in memory
# Estimated bytes of the committed logs with their states, and of the drafts, kept in
# memory: a match's entry grows with its log, so the count alone does not bound memory.
COMMITTED_CACHE_BYTES = 32 << 20
DRAFT_CACHE_BYTES = 16 << 20
# One log entry (a CommittedLog's slots: the action, shared from the notation's table, and
# two integers): 24, and about 26 measured (tracemalloc, a 184-entry log; 176 as LogEntrys).
ENTRY_BYTES = 32
STATE_BYTES = 2048  # one State: about 2,000 for three players

MATCHES: Table = MatchRow.__table__  # type: ignore[assignment]
MOVES: Table = MoveRow.__table__  # type: ignore[assignment]
DRAFTS: Table = DraftRow.__table__  # type: ignore[assignment]
COMMITS: Table = CommitRow.__table__  # type: ignore[assignment]

_FIXED = select(MATCHES.c.config, MATCHES.c.seed, MATCHES.c.created_at).where(
    MATCHES.c.id == bindparam("id"))
_STATE = select(MATCHES.c.state).where(MATCHES.c.id == bindparam("id"))
_MOVES_AFTER = (
    select(MOVES.c.seq, MOVES.c.action, MOVES.c.base_seq, MOVES.c.created_at)
    .where(MOVES.c.match_id == bindparam("id"), MOVES.c.seq > bindparam("after"))
    .order_by(MOVES.c.seq)
)
_DRAFT_COLUMNS = (DRAFTS.c.seat, DRAFTS.c.base_seq, DRAFTS.c.steps, DRAFTS.c.redo)
_ALL_DRAFTS = select(*_DRAFT_COLUMNS).where(DRAFTS.c.match_id == bindparam("id"))
_SEAT_DRAFT = _ALL_DRAFTS.where(DRAFTS.c.seat == bindparam("seat"))

# The statements of the commands (read the head and the seat's draft, write the draft;
# a commit's rows) as plain SQL on the driver's connection, inside the transaction
# SQLAlchemy began: they run hundreds of times a second, and Core's execution costs more
# than the database's work. PostgreSQL locks the match row (SQLite: BEGIN IMMEDIATE did).
_HEAD_AND_DRAFT = (
    "SELECT m.head_seq, d.seat, d.base_seq, d.steps, d.redo FROM matches m "
    "LEFT OUTER JOIN match_drafts d ON d.match_id = m.id AND d.seat = %(seat)s "
    "WHERE m.id = %(id)s")
_HEAD = "SELECT head_seq FROM matches WHERE id = %(id)s"
_FAST_SQL = {
    "head_and_draft": _HEAD_AND_DRAFT,
    "head_and_draft_locked": _HEAD_AND_DRAFT + " {FOR UPDATE OF m}",
    "head": _HEAD,
    "head_locked": _HEAD + " {FOR UPDATE}",
    "all_drafts": "SELECT seat, base_seq, steps, redo FROM match_drafts WHERE match_id = %(id)s",
    "update_draft": (
        "UPDATE match_drafts SET base_seq = %(base)s, steps = %(steps)s{::json}, "
        "redo = %(redo)s{::json}, updated_at = %(now)s WHERE match_id = %(match)s AND seat = %(seat)s"),
    "insert_draft": (
        "INSERT INTO match_drafts (match_id, seat, base_seq, steps, redo, updated_at) "
        "VALUES (%(match)s, %(seat)s, %(base)s, %(steps)s{::json}, %(redo)s{::json}, %(now)s)"),
    "delete_draft": "DELETE FROM match_drafts WHERE match_id = %(match)s AND seat = %(seat)s",
    "insert_commit": (
        "INSERT INTO match_commits (match_id, base_seq, head_seq, seat, created_at) "
        "VALUES (%(match)s, %(base)s, %(head)s, %(seat)s, %(now)s)"),
    "insert_move": (
        "INSERT INTO match_moves (match_id, seq, action, seat, base_seq, created_at) "
        "VALUES (%(match)s, %(seq)s, %(action)s, %(seat)s, %(base)s, %(now)s)"),
    "update_head": (
        "UPDATE matches SET head_seq = %(head)s, state = %(state)s{::json}, over = %(over)s, "
        "updated_at = %(now)s WHERE id = %(match)s"),
}


# How a draft is stored: (base_seq, steps, redo), the notation as in its row.
DraftSig = tuple[int, tuple[str, ...], tuple[str, ...]]


def draft_sig(draft: Draft) -> DraftSig:
    return (draft.base_seq, tuple(map(str, draft.steps)), tuple(map(str, draft.redo_stack)))


@dataclass(frozen=True)
class _Fixed:
    """What never changes after a match is created."""

    config: GameConfig
    seed: str
    commitment: str
    created_at: datetime


@dataclass(frozen=True)
class _Committed:
    """A committed log as read from the database, and the state at its end."""

    log: CommittedLog  # immutable: handed out as it is
    state: tuple[object, ...]  # State.frozen(): callers get State.thawed copies


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; everything we store is UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class _KeptDraft:
    """A draft as the cache keeps it: its states frozen (``State.frozen``), which the
    garbage collector stops tracking, where a Draft's states are fourteen lists each;
    every load thaws a copy of its own to work on."""

    seat: int
    base_seq: int
    base: tuple[object, ...]
    steps: tuple[Action, ...]
    states: tuple[tuple[object, ...], ...]
    redo_stack: tuple[Action, ...]
    version: str  # draft_version of the draft kept

    @classmethod
    def of(cls, draft: Draft) -> _KeptDraft:
        return cls(draft.seat, draft.base_seq, draft.base.frozen(), tuple(draft.steps),
                   tuple(state.frozen() for state in draft.states), tuple(draft.redo_stack),
                   draft_version(draft))

    def thawed(self) -> Draft:
        draft = Draft(self.seat, self.base_seq, State.thawed(self.base))
        draft.steps, draft.redo_stack = list(self.steps), list(self.redo_stack)
        draft.states = [State.thawed(state) for state in self.states]
        return draft


class _WholeTurn(Exception):
    """A step that is a whole turn (``Draft.commits_at_once``): the seat's transaction
    is rolled back and the step committed in one that holds every draft."""


# A caller's part of a commit's transaction (``MatchStore.play_turn``).
Within = Callable[[Connection, Match], None]
# A caller's check, run first in a command's transaction, whatever the command (raising
# refuses it: nothing is written).
Check = Callable[[Connection], None]


class MatchStore:
    """The turn framework on a database (``url`` or an existing ``engine``)."""

    def __init__(
        self,
        url: str | None = None,
        *,
        engine: Engine | None = None,
        broker: Broker | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        """The database must already have the schema (``elgrande db upgrade``, or
        ``elgrande.migrations.upgrade(engine)``): a store never migrates. ``clock``:
        what time commits and drafts are stamped with (tests inject their own)."""
        self.now = clock
        if (url is None) == (engine is None):
            raise ValueError("give a database url or an engine, not both")
        self._own_engine = engine is None
        self.engine = engine if engine is not None else make_engine(url or "")
        self.broker: Broker = broker if broker is not None else InProcessBroker()
        self._writer = writer(self.engine)
        # Reads see one snapshot (PostgreSQL's default READ COMMITTED gives each statement
        # its own, and a commit could land between reading the head and the log).
        self._reader = (
            self.engine.execution_options(isolation_level="REPEATABLE READ")
            if self.engine.dialect.name == "postgresql"
            else self.engine
        )
        self._fixed: Lru[str, _Fixed] = Lru(CACHE_SIZE)
        self._committed: Lru[str, _Committed] = Lru(
            CACHE_SIZE, budget=COMMITTED_CACHE_BYTES,
            weigh=lambda _, c: ENTRY_BYTES * len(c.log) + STATE_BYTES)
        self._drafts: Lru[tuple[str, int], tuple[DraftSig, _KeptDraft]] = Lru(
            CACHE_SIZE * 5, budget=DRAFT_CACHE_BYTES,
            weigh=lambda _, d: STATE_BYTES * (1 + len(d[1].states)) + 100 * len(d[1].steps))
        self._fast = PlainSql(self.engine.dialect.name, _FAST_SQL)
        self.broker.subscribe(self._learn)  # first listener: before any page asks

    def close(self) -> None:
        """Close the database connections (only if the store created its engine)."""
        if self._own_engine:
            self.engine.dispose()

    # -- creating and reading ------------------------------------------------------

    def create(self, config: GameConfig, *, seed: str | None = None) -> str:
        """Create a match (set-up drawn from its seed); returns its id."""
        return self.add(Match.new(config, seed=seed))

    def add(self, match: Match) -> str:
        """Store a match built in memory (its log, grouped into its commits, and its
        drafts); returns its id. Used by ``create`` and to import games."""
        with Session(self._writer) as session, session.begin():
            session.add(
                MatchRow(
                    id=match.id,
                    config=match.config.to_dict(),
                    seed=match.seed,
                    commitment=match.commitment,
                    head_seq=match.seq,
                    state=match.state.to_dict(),
                    over=match.over,
                    created_at=match.created_at,
                    updated_at=match.log[-1].at if match.log else match.created_at,
                )
            )
            session.flush()  # the match row before the rows that refer to it
            conn = session.connection()
            commits: dict[int, list[LogEntry]] = {}
            for entry in match.log:
                commits.setdefault(entry.base_seq, []).append(entry)
            for base, entries in commits.items():
                seat = next((e.seat for e in entries if e.seat >= 0), None)
                self._add_commit(conn, match.id, seat, base, entries, entries[0].at)
            for draft in match.drafts.values():
                self._save_draft(conn, match.id, draft, None, utcnow())
        self.broker.publish(MatchEvent(match.id, match.seq, "created"))
        return match.id

    def load(self, match_id: str) -> Match:
        """A snapshot of the match with every draft (read-only: changes are not saved)."""
        with self._reading() as conn:
            return self._load(conn, match_id, self._head(conn, match_id, lock=False), "all")[0]

    def load_seat(self, match_id: str, seat: int | None) -> Match:
        """Like ``load``, with only ``seat``'s draft (none for a spectator, ``None``):
        enough for that seat's view, without reading or replaying the other drafts."""
        with self._reading() as conn:
            if seat is None:
                return self._load(conn, match_id, self._head(conn, match_id, lock=False), None)[0]
            head, rows = self._head_and_draft(conn, match_id, seat, lock=False)
            return self._load(conn, match_id, head, seat, rows)[0]

    def cached_seat(self, match_id: str, seq: int, seat: int | None, version: str
                    ) -> Match | None:
        """``load_seat`` from this process's memory alone, if it holds the match at
        ``seq`` with that seat's draft at ``version`` (as a ``MatchEvent`` told); else
        None (then ``load_seat``)."""
        fixed, committed = self._fixed.get(match_id), self._committed.get(match_id)
        if fixed is None or committed is None or len(committed.log) != seq:
            return None
        draft = None
        if seat is not None and version:
            cached = self._drafts.get((match_id, seat))
            if cached is None or cached[1].version != version:
                return None
            draft = cached[1].thawed()
        match = Match(match_id, fixed.config, fixed.seed, committed.log,
                      State.thawed(committed.state), fixed.created_at, commitment=fixed.commitment)
        if draft is not None:
            match.drafts[draft.seat] = draft
        return match

    def view(self, match_id: str, seat: int | None) -> SeatView:
        return self.load_seat(match_id, seat).seat_view(seat)

    def redacted_state(self, match_id: str, seat: int) -> State:
        """What a bot playing ``seat`` may see (``Match.redacted_state``)."""
        return self.load_seat(match_id, seat).redacted_state(seat)

    def export(self, match_id: str, *, unfinished: bool = False) -> dict[str, Any]:
        return record.export(self.load(match_id), unfinished=unfinished)

    def match_ids(self) -> list[str]:
        with Session(self.engine) as session:
            return list(session.scalars(select(MatchRow.id).order_by(MatchRow.created_at)))

    # -- a seat's operations -------------------------------------------------------

    def step(
        self, match_id: str, seat: int, action: Action | str, *, base_seq: int | None = None
    ) -> SeatView:
        """Add one step (an ``Action`` or its notation) to the seat's draft."""
        return self.play(match_id, seat, "step", action, base_seq=base_seq).seat_view(seat)

    def undo(self, match_id: str, seat: int, *, base_seq: int | None = None) -> SeatView:
        return self.play(match_id, seat, "undo", base_seq=base_seq).seat_view(seat)

    def redo(self, match_id: str, seat: int, *, base_seq: int | None = None) -> SeatView:
        return self.play(match_id, seat, "redo", base_seq=base_seq).seat_view(seat)

    def finish(self, match_id: str, seat: int, *, base_seq: int | None = None) -> SeatView:
        """Commit the seat's draft; chance steps after it are drawn and logged."""
        return self.play(match_id, seat, "finish", base_seq=base_seq).seat_view(seat)

    def play(self, match_id: str, seat: int, command: str, action: Action | str | None = None,
             *, base_seq: int | None = None, within: Within | None = None,
             check: Check | None = None) -> Match:
        """One command of a seat ("step" with ``action``, "undo", "redo", "finish"):
        the match after it (holding the seat's draft; every draft after a finish), for
        building views without reading it again. A refused command changes nothing.
        ``within``: as for ``play_turn``, run in the transaction of any command that
        commits (a finish, or a step that is a whole turn); ``check``: run first in the
        command's transaction, whatever the command."""
        if command == "finish":
            return self._finish(match_id, seat, base_seq, within=within, check=check)
        ops: dict[str, Callable[[Draft], object]] = {
            "step": lambda d: d.step(action if action is not None else ""),
            "undo": lambda d: d.undo(),
            "redo": lambda d: d.redo(),
        }
        if command not in ops:
            raise ValueError(f"unknown command {command!r}")

        def run(m: Match) -> Draft:
            m.check_base(seat, base_seq)
            draft = m.draft(seat)
            ops[command](draft)
            return draft

        try:
            with self._locked(match_id, seat) as (conn, match, stored):
                if check is not None:
                    check(conn)
                draft = run(match)
                if command != "undo" and draft.commits_at_once:
                    raise _WholeTurn  # rolled back: committed below, with every draft
                self._save_draft(conn, match_id, draft, stored.get(seat), self.now())
        except _WholeTurn:
            # A step that opens or answers a veto window is a whole turn (docs/matches.md).
            return self._finish(match_id, seat, base_seq, run, within, check)
        self._drafts.put((match_id, seat), (draft_sig(draft), _KeptDraft.of(draft)))
        self.broker.publish(MatchEvent(match_id, match.seq, "draft", seat,
                                       ((seat, draft_version(draft)),)))
        return match

    def play_turn(self, match_id: str, seat: int, actions: Sequence[Action | str], *,
                  base_seq: int | None = None, fresh: bool = False,
                  within: Within | None = None, check: Check | None = None) -> Match:
        """Steps and their finish in ONE transaction: ``actions`` are added to the seat's
        draft (to an empty one when ``fresh``: a bot's turn left half-entered by a
        crash is dropped), then the draft is committed. A refusal (an illegal step, the
        game moved on) changes nothing, so a ``GameMovedOn`` never hides a stored step.
        ``within(conn, match)`` runs in that transaction after the commit is written
        (the match at its new head): the caller's own check and record, which may
        refuse the turn by raising a ``MatchError``; ``check(conn)`` runs first."""

        def enter(match: Match) -> None:
            if fresh:
                match.drafts.pop(seat, None)
            match.check_base(seat, base_seq)
            draft = match.draft(seat)
            for action in actions:
                draft.step(action)  # committed below, as a whole (a veto window too)

        return self._finish(match_id, seat, base_seq, enter, within, check)

    def _finish(self, match_id: str, seat: int, base_seq: int | None,
                before: Callable[[Match], object] | None = None,
                within: Within | None = None, check: Check | None = None) -> Match:
        base = -1
        try:
            with self._locked(match_id, "all") as (conn, match, stored):
                if check is not None:
                    check(conn)
                base = match.seq
                if before is not None:
                    before(match)
                now = self.now()
                added = match.finish(seat, base_seq, now)
                self._add_commit(conn, match_id, seat, base, added, now)
                self._fast.run(conn, "update_head", {
                    "match": match_id, "head": match.seq,
                    "state": json.dumps(match.state.to_dict()), "over": match.over,
                    "now": self._fast.moment(now)})
                if seat in stored:
                    self._fast.run(conn, "delete_draft", {"match": match_id, "seat": seat})
                for other in match.drafts.values():  # rebased by the commit
                    self._save_draft(conn, match_id, other, stored.get(other.seat), now)
                if within is not None:
                    within(conn, match)
        except (IntegrityError, self._fast.integrity_error) as exc:
            fresh = self.load_seat(match_id, seat)
            raise GameMovedOn(fresh, seat, base) from exc
        self._committed.put(match_id, _Committed(match.log, match.state.frozen()))
        for other in match.drafts.values():
            self._drafts.put((match_id, other.seat), (draft_sig(other), _KeptDraft.of(other)))
        versions = tuple((s, draft_version(match.drafts.get(s)))
                         for s in range(match.config.players))
        self.broker.publish(MatchEvent(match_id, match.seq, "commit", seat, versions, base,
                                       tuple(str(e.action) for e in added), now.isoformat()))
        return match

    def _learn(self, event: MatchEvent) -> None:
        """Extends the cached log of a match by a commit made elsewhere (another process,
        through the pub/sub), so its pages are served without reading the database."""
        cached = self._committed.get(event.match_id)
        if (event.kind != "commit" or event.base is None or event.at is None or cached is None
                or len(cached.log) != event.base or event.seq != event.base + len(event.added)):
            return
        try:
            at = _aware(datetime.fromisoformat(event.at))
            state = State.thawed(cached.state)
            entries = []
            for seq, text in enumerate(event.added, start=event.base + 1):
                action = parse_action(text)
                apply(state, action)
                entries.append(LogEntry(seq, action, event.base, at))
        except (ValueError, IllegalAction):
            self._committed.pop(event.match_id)  # the database will tell
            return
        try:
            log = cached.log.extended(entries)
        except ValueError:
            self._committed.pop(event.match_id)
            return
        self._committed.put(event.match_id, _Committed(log, state.frozen()))

    # -- internals -----------------------------------------------------------------

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        with self._reader.connect() as conn, conn.begin():
            yield conn

    @contextmanager
    def _locked(
        self, match_id: str, drafts: int | str
    ) -> Iterator[tuple[Connection, Match, dict[int, DraftSig]]]:
        with self._writer.connect() as conn, conn.begin():
            if isinstance(drafts, int):
                head, rows = self._head_and_draft(conn, match_id, drafts, lock=True)
                match, stored = self._load(conn, match_id, head, drafts, rows)
            else:
                match, stored = self._load(conn, match_id, self._head(conn, match_id, lock=True),
                                           drafts)
            yield conn, match, stored

    def _head_and_draft(self, conn: Connection, match_id: str, seat: int, *, lock: bool
                        ) -> tuple[int, list[Any]]:
        """The head sequence and the seat's draft row (a list of none or one)."""
        rows = self._fast.run(conn, "head_and_draft_locked" if lock else "head_and_draft",
                              {"id": match_id, "seat": seat})
        if not rows:
            raise MatchNotFound("no such match")  # the id is internal: messages reach players
        head, seat_found, base, steps, redo = rows[0]
        if seat_found is None:
            return int(head), []
        return int(head), [(seat_found, base, self._fast.json(steps), self._fast.json(redo))]

    def _head(self, conn: Connection, match_id: str, *, lock: bool) -> int:
        rows = self._fast.run(conn, "head_locked" if lock else "head", {"id": match_id})
        if not rows:
            raise MatchNotFound("no such match")  # the id is internal: messages reach players
        return int(rows[0][0])

    def _load(
        self, conn: Connection, match_id: str, head_seq: int, drafts: int | str | None,
        rows: list[Any] | None = None,
    ) -> tuple[Match, dict[int, DraftSig]]:
        """The match at ``head_seq`` with the drafts asked for ("all", one seat, or
        None; ``rows``: that seat's draft row, if already read), and how each of those
        drafts is stored now."""
        fixed = self._fixed.get(match_id)
        if fixed is None:
            config, seed, created = conn.execute(_FIXED, {"id": match_id}).one()
            fixed = _Fixed(GameConfig.from_dict(config), seed, commitment(seed), _aware(created))
            self._fixed.put(match_id, fixed)
        log, state = self._committed_at(conn, match_id, head_seq, fixed.config)
        match = Match(match_id, fixed.config, fixed.seed, log, state, fixed.created_at,
                      commitment=fixed.commitment)
        stored: dict[int, DraftSig] = {}
        if drafts is None:
            return match, stored
        if rows is None:
            if drafts == "all":
                rows = [(seat, base, self._fast.json(steps), self._fast.json(redo))
                        for seat, base, steps, redo in self._fast.run(
                            conn, "all_drafts", {"id": match_id})]
            else:
                rows = list(conn.execute(_SEAT_DRAFT, {"id": match_id, "seat": drafts}))
        for seat, base_seq, steps, redo in rows:
            sig: DraftSig = (base_seq, tuple(steps), tuple(redo))
            stored[seat] = sig
            match.drafts[seat] = self._draft(match, seat, sig)
        return match, stored

    def _committed_at(
        self, conn: Connection, match_id: str, head_seq: int, config: GameConfig
    ) -> tuple[CommittedLog, State]:
        """The committed log up to ``head_seq`` and a copy of the state at its end. The
        log only grows, so a cached prefix is still true: only later rows are read."""
        cached = self._committed.get(match_id)
        if cached is not None and len(cached.log) == head_seq:
            return cached.log, State.thawed(cached.state)
        start = len(cached.log) if cached is not None and len(cached.log) < head_seq else 0
        read = [
            LogEntry(seq, parse_action(action), base, _aware(at))
            for seq, action, base, at in conn.execute(_MOVES_AFTER, {"id": match_id, "after": start})
        ]
        try:
            log = (cached.log if cached is not None and start else CommittedLog()).extended(read)
        except ValueError as exc:
            raise RuntimeError(f"match {match_id}: the stored log has a gap: {exc}") from exc
        if len(log) != head_seq:
            raise RuntimeError(f"match {match_id}: the stored log does not end at {head_seq}")
        if cached is not None and start:  # moved on by the new entries: cheaper than reading it
            state = State.thawed(cached.state)
            for entry in read:
                apply(state, entry.action)
        else:
            try:
                state = State.from_dict(conn.execute(_STATE, {"id": match_id}).scalar_one())
            except (ValueError, KeyError, TypeError):
                # Stored by an engine with another state format: the log is the truth.
                state = replay(config, list(log.actions))
        self._committed.put(match_id, _Committed(log, state.frozen()))
        return log, state

    def _draft(self, match: Match, seat: int, sig: DraftSig) -> Draft:
        """The seat's draft as stored (``sig``), from the cache when it is the same."""
        cached = self._drafts.get((match.id, seat))
        if cached is not None and cached[0] == sig and sig[0] == match.seq:
            return cached[1].thawed()
        # Snapshots are re-derived by replaying the steps on the committed head.
        draft = Draft(seat, match.seq, match.state)
        draft.steps = [parse_action(a) for a in sig[1]]
        draft.redo_stack = [parse_action(a) for a in sig[2]]
        draft.rebase(match.seq, match.state)
        if sig[0] == match.seq:  # a draft rebased here is not what is stored
            self._drafts.put((match.id, seat), (sig, _KeptDraft.of(draft)))
        return draft

    def _add_commit(
        self,
        conn: Connection,
        match_id: str,
        seat: int | None,
        base: int,
        entries: list[LogEntry],
        now: datetime,
    ) -> None:
        # Unique-constraint violations surface here, inside the transaction.
        self._fast.run(conn, "insert_commit", {
            "match": match_id, "base": base, "head": base + len(entries), "seat": seat,
            "now": self._fast.moment(now)})
        self._fast.run_many(conn, "insert_move", [
            {"match": match_id, "seq": e.seq, "action": str(e.action), "seat": e.seat,
             "base": e.base_seq, "now": self._fast.moment(e.at)}
            for e in entries
        ])

    def _save_draft(
        self, conn: Connection, match_id: str, draft: Draft, stored: DraftSig | None,
        now: datetime
    ) -> None:
        """Writes the draft's row if it differs from ``stored`` (None: no row)."""
        sig = draft_sig(draft)
        if sig == stored:
            return
        if not sig[1] and not sig[2]:
            if stored is not None:
                self._fast.run(conn, "delete_draft", {"match": match_id, "seat": draft.seat})
            return
        self._fast.run(conn, "insert_draft" if stored is None else "update_draft", {
            "match": match_id, "seat": draft.seat, "base": sig[0],
            "steps": json.dumps(list(sig[1])), "redo": json.dumps(list(sig[2])),
            "now": self._fast.moment(now)})
