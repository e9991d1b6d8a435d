"""Matches in a database. Every operation is one transaction: lock the match row,
load the ``Match``, run the operation, write back what changed, commit, then notify.

Concurrency: the row lock (``SELECT ... FOR UPDATE`` on PostgreSQL, ``BEGIN IMMEDIATE``
on SQLite) queues writers of one match; the unique constraints on (match_id, seq) and
(match_id, base_seq) make a commit on a stale base fail in the database itself, so the
log can never fork. Both surface as ``GameMovedOn`` with the seat's new view.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import Engine, delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from elgrande.db.engine import make_engine, writer
from elgrande.db.migrate import upgrade
from elgrande.db.models import CommitRow, DraftRow, MatchRow, MoveRow
from elgrande.rules import Action, GameConfig, State, parse_action, replay

from . import record
from .draft import Draft
from .errors import GameMovedOn, MatchNotFound
from .match import LogEntry, Match, SeatView, utcnow
from .pubsub import Broker, InProcessBroker, MatchEvent

T = TypeVar("T")

LOG_CACHE_SIZE = 1024  # matches whose committed log (and head state) a store keeps in memory


class _LogCache:
    """Per store (so per process): each match's committed log as last read from the
    database, with the head state at its end. The log is append-only and every
    operation reads the match row (locked, for writes) first, so a cached prefix
    of ``seq <= row.head_seq`` is always still true: only the rows after it are read.
    Only committed data goes in (never a draft: those are per seat and always read
    from the database), and only what the database returned (never a write that
    could still roll back)."""

    def __init__(self, size: int = LOG_CACHE_SIZE) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, tuple[tuple[LogEntry, ...], State | None]] = OrderedDict()

    def get(self, match_id: str, head_seq: int) -> tuple[tuple[LogEntry, ...], State | None]:
        """The cached log prefix (empty if none or if it is longer than the head:
        a database rolled back or rebuilt) and its head state if it is at ``head_seq``."""
        with self._lock:
            found = self._entries.get(match_id)
            if found is None:
                return (), None
            log, state = found
            if len(log) > head_seq:
                del self._entries[match_id]
                return (), None
            self._entries.move_to_end(match_id)
            return log, (state if len(log) == head_seq else None)

    def put(self, match_id: str, log: tuple[LogEntry, ...], state: State | None) -> None:
        with self._lock:
            old = self._entries.get(match_id)
            if old is not None and len(old[0]) > len(log):
                return  # another thread already read a longer log
            self._entries[match_id] = (log, state)
            self._entries.move_to_end(match_id)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)


_CACHE_KEY = "elgrande.log_cache"
_DRAFTS_KEY = "elgrande.drafts_of"  # set: load only this seat's draft (None: no draft)


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; everything we store is UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class MatchStore:
    """The turn framework on a database (``url`` or an existing ``engine``)."""

    def __init__(
        self,
        url: str | None = None,
        *,
        engine: Engine | None = None,
        broker: Broker | None = None,
        migrate: bool = True,
    ) -> None:
        self._own_engine = engine is None
        self.engine = engine if engine is not None else make_engine(url)
        if migrate:
            upgrade(self.engine)
        self.broker: Broker = broker if broker is not None else InProcessBroker()
        self._writer = writer(self.engine)
        self._logs = _LogCache()
        # Reads see one snapshot (PostgreSQL's default READ COMMITTED gives each statement
        # its own, and a commit could land between reading the head and the log).
        self._reader = (
            self.engine.execution_options(isolation_level="REPEATABLE READ")
            if self.engine.dialect.name == "postgresql"
            else self.engine
        )

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
            commits: dict[int, list[LogEntry]] = {}
            for entry in match.log:
                commits.setdefault(entry.base_seq, []).append(entry)
            for base, entries in commits.items():
                seat = next((e.seat for e in entries if e.seat >= 0), None)
                self._add_commit(session, match, seat, base, entries, entries[0].at)
            for draft in match.drafts.values():
                self._save_draft(session, match.id, draft, utcnow())
        self.broker.publish(MatchEvent(match.id, match.seq, "created"))
        return match.id

    def load(self, match_id: str) -> Match:
        """A snapshot of the match with every draft (read-only: changes are not saved)."""
        with Session(self._reader, info={_CACHE_KEY: self._logs}) as session, session.begin():
            return self._load(session, self._row(session, match_id, lock=False))

    def load_seat(self, match_id: str, seat: int | None) -> Match:
        """Like ``load``, with only ``seat``'s draft (none for a spectator, ``None``):
        enough for that seat's view, without reading or replaying the other drafts."""
        info = {_CACHE_KEY: self._logs, _DRAFTS_KEY: seat}
        with Session(self._reader, info=info) as session, session.begin():
            return self._load(session, self._row(session, match_id, lock=False))

    def view(self, match_id: str, seat: int | None) -> SeatView:
        return self.load_seat(match_id, seat).seat_view(seat)

    def redacted_state(self, match_id: str, seat: int) -> State:
        """What a bot playing ``seat`` may see (``Match.redacted_state``)."""
        return self.load(match_id).redacted_state(seat)

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
        return self._draft_op(match_id, seat, lambda m: m.step(seat, action, base_seq))

    def undo(self, match_id: str, seat: int, *, base_seq: int | None = None) -> SeatView:
        return self._draft_op(match_id, seat, lambda m: m.undo(seat, base_seq))

    def redo(self, match_id: str, seat: int, *, base_seq: int | None = None) -> SeatView:
        return self._draft_op(match_id, seat, lambda m: m.redo(seat, base_seq))

    def finish(self, match_id: str, seat: int, *, base_seq: int | None = None) -> SeatView:
        """Commit the seat's draft; chance steps after it are drawn and logged."""
        base = -1
        try:
            with self._locked(match_id) as (session, row, match):
                base = match.seq
                now = utcnow()
                added = match.finish(seat, base_seq, now)
                self._add_commit(session, match, seat, base, added, now)
                row.head_seq = match.seq
                row.state = match.state.to_dict()
                row.over = match.over
                row.updated_at = now
                session.execute(
                    delete(DraftRow).where(DraftRow.match_id == match_id, DraftRow.seat == seat)
                )
                for other in match.drafts.values():
                    self._save_draft(session, match_id, other, now)
        except IntegrityError as exc:
            fresh = self.load(match_id)
            raise GameMovedOn(match_id, base, fresh.seq, fresh.seat_view(seat).to_dict()) from exc
        # Built after the commit, from the committed match: the write lock is not held
        # for it (other operations on this match no longer change ``match``).
        result = match.seat_view(seat)
        self.broker.publish(MatchEvent(match_id, result.seq, "commit", seat))
        return result

    # -- internals -----------------------------------------------------------------

    def _draft_op(self, match_id: str, seat: int, op: Callable[[Match], object]) -> SeatView:
        with self._locked(match_id) as (session, _row, match):
            op(match)
            self._save_draft(session, match_id, match.draft(seat), utcnow())
        result = match.seat_view(seat)  # after the commit, outside the write lock
        self.broker.publish(MatchEvent(match_id, result.seq, "draft", seat))
        return result

    @contextmanager
    def _locked(self, match_id: str) -> Iterator[tuple[Session, MatchRow, Match]]:
        with Session(self._writer, info={_CACHE_KEY: self._logs}) as session, session.begin():
            row = self._row(session, match_id, lock=True)
            yield session, row, self._load(session, row)

    @staticmethod
    def _row(session: Session, match_id: str, *, lock: bool) -> MatchRow:
        query = select(MatchRow).where(MatchRow.id == match_id)
        row = session.scalars(query.with_for_update() if lock else query).one_or_none()
        if row is None:
            raise MatchNotFound(f"no match {match_id!r}")
        return row

    @staticmethod
    def _load(session: Session, row: MatchRow) -> Match:
        cache: _LogCache | None = session.info.get(_CACHE_KEY)
        cached, cached_state = cache.get(row.id, row.head_seq) if cache else ((), None)
        start = len(cached)
        log = list(cached)
        if start < row.head_seq:
            moves = session.scalars(
                select(MoveRow)
                .where(MoveRow.match_id == row.id, MoveRow.seq > start)
                .order_by(MoveRow.seq)
            )
            log += [
                LogEntry(m.seq, parse_action(m.action), m.base_seq, _aware(m.created_at))
                for m in moves
            ]
        if len(log) != row.head_seq or any(e.seq != i for i, e in enumerate(log[start:], start=start + 1)):
            raise RuntimeError(f"match {row.id}: the stored log does not end at {row.head_seq}")
        config = GameConfig.from_dict(row.config)
        if cached_state is not None:
            state = cached_state.copy()  # the match's state is the caller's to replace
        else:
            try:
                state = State.from_dict(row.state)
            except (ValueError, KeyError, TypeError):
                # Stored by an engine with another state format: the log is the truth.
                state = replay(config, [e.action for e in log])
            if cache is not None:
                cache.put(row.id, tuple(log), state.copy())
        match = Match(row.id, config, row.seed, log, state, _aware(row.created_at))
        query = select(DraftRow).where(DraftRow.match_id == row.id)
        wanted = True
        if _DRAFTS_KEY in session.info:
            only = session.info[_DRAFTS_KEY]
            wanted = only is not None
            query = query.where(DraftRow.seat == only)
        for d in session.scalars(query) if wanted else ():
            # Snapshots are re-derived by replaying the steps on the committed head.
            draft = Draft(d.seat, match.seq, match.state)
            draft.steps = [parse_action(a) for a in d.steps]
            draft.redo_stack = [parse_action(a) for a in d.redo]
            draft.rebase(match.seq, match.state)
            match.drafts[d.seat] = draft
        return match

    @staticmethod
    def _add_commit(
        session: Session,
        match: Match,
        seat: int | None,
        base: int,
        entries: list[LogEntry],
        now: datetime,
    ) -> None:
        session.add(
            CommitRow(
                match_id=match.id, base_seq=base, head_seq=base + len(entries), seat=seat,
                created_at=now,
            )
        )
        session.add_all(
            MoveRow(
                match_id=match.id, seq=e.seq, action=str(e.action), seat=e.seat,
                base_seq=e.base_seq, created_at=e.at,
            )
            for e in entries
        )
        session.flush()  # unique-constraint violations surface here, inside the transaction

    @staticmethod
    def _save_draft(session: Session, match_id: str, draft: Draft, now: datetime) -> None:
        row = session.get(DraftRow, (match_id, draft.seat))
        if not draft.steps and not draft.redo_stack:
            if row is not None:
                session.delete(row)
            return
        if row is None:
            row = DraftRow(match_id=match_id, seat=draft.seat)
            session.add(row)
        row.base_seq = draft.base_seq
        row.steps = [str(a) for a in draft.steps]
        row.redo = [str(a) for a in draft.redo_stack]
        row.updated_at = now
