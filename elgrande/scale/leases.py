"""Bot-move leases in the database, so that with several server processes a computer
seat's move is played by exactly one of them, and a dead process's bot is picked up.

A lease is one row per (match, seat): its owner and an expiry time. ``take`` succeeds
when there is no row, the row is ours, or it has expired; every write is one
conditional statement, so two processes racing for it get one winner. The owner
renews its leases in a background thread while its bots think; a process that dies
stops renewing and its leases run out after ``ttl`` seconds.

The lease keeps two processes from working on the same move; the turn framework's
sequence check (``base_seq``) would still refuse a second commit on the same position
if a process stalled past its lease.
"""

from __future__ import annotations

import fcntl
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO

from sqlalchemy import ColumnElement, Engine, and_, delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from elgrande.db.engine import writer

from .tables import BotLease

log = logging.getLogger(__name__)


def utcnow() -> datetime:
    return datetime.now(UTC)


def process_owner() -> str:
    """A name for this process alone (a new one at every start)."""
    return f"{socket.gethostname()[:30]}:{os.getpid()}:{secrets.token_hex(4)}"


class Identity:
    """A lasting owner name for this process's leases: the same after a restart, so the
    new process takes over its predecessor's leases at once instead of waiting for them
    to expire. ``name`` given: host:name (the operator keeps names unique). Else
    host:slotN, N the first slot whose lock file in ``folder`` no live process holds
    (the system drops a lock when its process dies, even killed; two live processes on
    one host never share a slot)."""

    def __init__(self, folder: Path, name: str = "") -> None:
        self._file: IO[bytes] | None = None
        host = socket.gethostname()[:30]
        if name:
            self.owner = f"{host}:{name}"
            return
        folder.mkdir(parents=True, exist_ok=True)
        for slot in range(1000):
            handle = open(folder / f"elgrande.instance-{slot}.lock", "ab")  # noqa: SIM115
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                continue
            self._file = handle  # kept open (locked) while this process runs
            self.owner = f"{host}:slot{slot}"
            return
        raise RuntimeError(f"no free instance slot in {folder}")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()  # releases the lock
            self._file = None


class BotLeases:
    """Leases owned by this process (``owner``), lasting ``ttl`` seconds unless renewed.
    A lease is renewed at most ``max_hold`` seconds after it was taken (a lease nobody
    releases, e.g. after a bug, cannot be kept forever)."""

    def __init__(self, engine: Engine, *, owner: str | None = None, ttl: float = 15.0,
                 max_hold: float = 120.0) -> None:
        """``owner``: a lasting name (``Identity``) lets a restarted process take over
        its predecessor's leases at ``start``; without one, a name for this run only."""
        self.owner = owner or process_owner()
        self.ttl = ttl
        self.max_hold = max_hold
        self._writer = writer(engine)
        self._held: dict[tuple[str, int], float] = {}  # key -> monotonic time taken
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _key(self, match_id: str, seat: int) -> ColumnElement[bool]:
        return and_(BotLease.match_id == match_id, BotLease.seat == seat)

    def take(self, match_id: str, seat: int) -> bool:
        """True if this process now holds the lease (new, already ours, or expired)."""
        now = utcnow()
        until = now + timedelta(seconds=self.ttl)
        try:
            with self._writer.begin() as conn:
                claimed = conn.execute(
                    update(BotLease)
                    .where(self._key(match_id, seat),
                           or_(BotLease.owner == self.owner, BotLease.expires_at < now))
                    .values(owner=self.owner, expires_at=until)
                ).rowcount
                if not claimed:
                    if conn.execute(select(BotLease.owner).where(self._key(match_id, seat))).first():
                        return False  # someone else's, still valid
                    conn.execute(insert(BotLease).values(match_id=match_id, seat=seat,
                                                         owner=self.owner, expires_at=until))
        except IntegrityError:
            return False  # another process inserted it first
        with self._lock:
            self._held.setdefault((match_id, seat), time.monotonic())
        return True

    def renew(self, match_id: str, seat: int) -> bool:
        """Extend our lease; False if it is no longer ours (it expired and was taken)."""
        now = utcnow()
        with self._writer.begin() as conn:
            renewed = conn.execute(
                update(BotLease)
                .where(self._key(match_id, seat), BotLease.owner == self.owner)
                .values(expires_at=now + timedelta(seconds=self.ttl))
            ).rowcount
        if not renewed:
            with self._lock:
                self._held.pop((match_id, seat), None)
        return bool(renewed)

    def release(self, match_id: str, seat: int) -> None:
        with self._lock:
            self._held.pop((match_id, seat), None)
        with self._writer.begin() as conn:
            conn.execute(delete(BotLease).where(self._key(match_id, seat),
                                                BotLease.owner == self.owner))

    def held(self) -> set[tuple[str, int]]:
        with self._lock:
            return set(self._held)

    def owner_of(self, match_id: str, seat: int) -> str | None:
        """The live lease's owner, or None (no lease, or it expired)."""
        with self._writer.connect() as conn:
            row = conn.execute(select(BotLease.owner).where(
                self._key(match_id, seat), BotLease.expires_at >= utcnow())).first()
        return None if row is None else str(row[0])

    # -- renewal --------------------------------------------------------------------

    def renew_all(self) -> None:
        now = time.monotonic()
        with self._lock:
            keys = [(k, t) for k, t in self._held.items()]
        for key, taken in keys:
            if now - taken > self.max_hold:
                log.warning("dropping bot lease %s held for over %.0f s", key, self.max_hold)
                self.release(*key)
                continue
            if not self.renew(*key):
                log.warning("bot lease %s was lost (expired and taken over)", key)

    def adopt(self) -> int:
        """Takes over the leases of an earlier process with our owner name (it died
        without releasing them): they are dropped, so their bots move now rather than
        after they expire (leases this run took itself are kept). Returns how many."""
        held = self.held()
        with self._writer.begin() as conn:
            rows = conn.execute(select(BotLease.match_id, BotLease.seat)
                                .where(BotLease.owner == self.owner)).all()
            earlier = [(m, s) for m, s in rows if (m, s) not in held]
            for match_id, seat in earlier:
                conn.execute(delete(BotLease).where(self._key(match_id, seat),
                                                    BotLease.owner == self.owner))
        return len(earlier)

    def start(self) -> None:
        try:
            if self.adopt():
                log.info("took over the bot leases of this instance's previous run")
        except Exception:  # the database may be away: they expire by themselves then
            log.warning("could not take over earlier bot leases; they will expire")
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._renew_loop, name="bot-leases",
                                            daemon=True)
            self._thread.start()

    def stop(self, release: bool = True) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if release:
            for key in self.held():
                try:
                    self.release(*key)
                except Exception as exc:  # the database is away: the lease expires by itself
                    log.warning("could not release bot lease %s (%s)", key, type(exc).__name__)

    def _renew_loop(self) -> None:
        outage = Outage("bot lease renewal", self.ttl / 3)
        while not self._stop.wait(outage.pause):
            outage.run(self.renew_all)


class Outage:
    """Runs a background loop's work, backing off while the database is away: one log
    line when it goes, one when it is back (no traceback every second)."""

    def __init__(self, what: str, interval: float, longest: float = 60.0) -> None:
        self.what = what
        self.interval = interval
        self.longest = max(longest, interval)
        self.pause = interval
        self.failing = False

    def run(self, work: Callable[[], object]) -> bool:
        try:
            work()
        except Exception as exc:  # the database (or its network) is away
            if not self.failing:
                log.warning("%s: the database is unavailable (%s); retrying with back-off",
                            self.what, type(exc).__name__)
            self.failing = True
            self.pause = min(self.pause * 2, self.longest)
            return False
        if self.failing:
            log.warning("%s: the database is back", self.what)
        self.failing = False
        self.pause = self.interval
        return True
