"""Accounts: registered players (argon2id password hashes, made in the hashing pool) and
guests; logins (limited), password changes and session generations."""

from __future__ import annotations

import secrets

from sqlalchemy import Connection, Engine, bindparam, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from elgrande.db.plain import PlainSql

from .hardening.limits import Limits, LoginLimits, LookupLimits, MemoryLimiter, make_limiter
from .i18n import N_, _
from .names import GUEST_PREFIX, BadName, check_name, name_key, skeleton
from .passwords import HashPool
from .settings import Settings
from .tables import User, utcnow

FORMER_PLAYER = N_("former player")  # the name a deleted account's seats keep (stored)


# Plain SQL: a game page's socket reads it at every command.
_SESSION_SQL = {"session_of": "SELECT session_generation, banned_at FROM web_users "
                              "WHERE id = %(id)s"}


class AccountError(ValueError):
    pass


class Accounts:
    def __init__(self, sessions: sessionmaker[Session], reads: sessionmaker[Session] | None = None,
                 hashes: HashPool | None = None, logins: LoginLimits | None = None,
                 lookups: LookupLimits | None = None) -> None:
        self._sessions = sessions
        self._reads = reads or sessions
        self._sql = PlainSql(self._reads.kw["bind"].dialect.name, _SESSION_SQL)
        self.hashes = hashes or HashPool()
        self.logins = logins or LoginLimits(MemoryLimiter(15 * 60))
        self.lookups = lookups or LookupLimits(MemoryLimiter(60 * 60))

    @classmethod
    def from_settings(cls, settings: Settings, sessions: sessionmaker[Session],
                      reads: sessionmaker[Session]) -> Accounts:
        """Its hashing pool and limits as the settings say (limits in Redis when
        ``pubsub_url`` is set, shared by every process)."""
        limits = Limits.from_settings(settings)
        return cls(sessions, reads,
                   HashPool(settings.password_hash_workers, settings.password_hash_queue),
                   LoginLimits.from_limits(make_limiter(limits.login_window, settings.pubsub_url),
                                           limits),
                   LookupLimits(make_limiter(limits.account_window, settings.pubsub_url),
                                settings.name_lookups_per_user, settings.name_lookups_per_client))

    def close(self) -> None:
        self.hashes.close()

    def register(self, name: str, password: str) -> User:
        """A new account; the caller checks the password's strength
        (``passwords.check_strength``) where a person chose it."""
        try:
            name = check_name(name)
        except BadName as exc:
            raise AccountError(str(exc)) from None
        with self._reads() as db:
            self._refuse_taken(db, name)
        password_hash = self.hashes.hash(password)  # outside any transaction: it is slow
        with self._sessions.begin() as db:
            self._refuse_taken(db, name)  # again: someone may have taken it meanwhile
            user = User(name=name, name_key=name_key(name), name_skeleton=skeleton(name),
                        password_hash=password_hash, is_guest=False)
            db.add(user)
            db.flush()
            return user

    @staticmethod
    def _refuse_taken(db: Session, name: str) -> None:
        if db.scalar(select(User.id).where(User.name_key == name_key(name))) is not None:
            raise AccountError(_("That name is taken."))
        if db.scalar(select(User.id).where(User.name_skeleton == skeleton(name))) is not None:
            raise AccountError(_("That name looks too much like an existing one; choose another."))

    def guest(self) -> User:
        with self._sessions.begin() as db:
            while True:
                name = f"{GUEST_PREFIX}{secrets.token_hex(3)}"
                if self._by_name(db, name) is None:
                    break
            user = User(name=name, name_key=name_key(name), name_skeleton=skeleton(name),
                        password_hash=None, is_guest=True)
            db.add(user)
            db.flush()
            return user

    def login(self, name: str, password: str, client: str) -> User | None:
        """The user if ``password`` is theirs. Limited (LoginLimitReached) per the name
        key looked up and the ``client`` address; an unknown name takes as long as a
        known one (checked against a dummy hash)."""
        name = name.strip()
        key = name_key(name)
        self.logins.admit(key, client)
        with self._reads() as db:
            user = self._by_name(db, name)
        stored = user.password_hash if user is not None else None
        if not self.hashes.verify(stored, password) or user is None:
            self.logins.failed(key, client)
            return None
        self.logins.succeeded(key)
        return user

    def change_password(self, user: User, current: str, new: str, client: str) -> User:
        """Sets ``new`` (its strength checked by the caller) if ``current`` is right, and
        advances the session generation: every other session ends. Checking ``current``
        is a login attempt, limited as logins are (a stolen session cannot guess it)."""
        self.logins.admit(user.name_key, client)
        if user.password_hash is None or not self.hashes.verify(user.password_hash, current):
            self.logins.failed(user.name_key, client)
            raise AccountError(_("The current password is wrong."))
        new_hash = self.hashes.hash(new)
        with self._sessions.begin() as db:
            db.execute(update(User).where(User.id == user.id).values(
                password_hash=new_hash, session_generation=User.session_generation + 1))
        changed = self.get(user.id)
        assert changed is not None
        return changed

    def upgrade_guest(self, user: User, name: str, password: str) -> User:
        """The guest becomes a registered player: the same account (and so its games),
        with a name and a password (its strength checked by the caller). Every other
        session of the guest ends."""
        if not user.is_guest:
            raise AccountError(_("You are registered already."))
        try:
            name = check_name(name)
        except BadName as exc:
            raise AccountError(str(exc)) from None
        with self._reads() as db:
            self._refuse_taken(db, name)
        password_hash = self.hashes.hash(password)
        with self._sessions.begin() as db:
            self._refuse_taken(db, name)
            row = db.get(User, user.id, with_for_update=True)
            if row is None or not row.is_guest:
                raise AccountError(_("You are registered already."))
            row.name, row.name_key, row.name_skeleton = name, name_key(name), skeleton(name)
            row.password_hash, row.is_guest = password_hash, False
            # Registered from now: rated tables ask for accounts a day old (ratings.py).
            row.created_at = utcnow()
            row.session_generation += 1
            db.flush()
            db.expunge(row)
            return row

    def set_password(self, user_id: int, password: str) -> User:
        """A new password from a reset link (its strength checked by the caller); every
        session ends."""
        password_hash = self.hashes.hash(password)
        with self._sessions.begin() as db:
            db.execute(update(User).where(User.id == user_id).values(
                password_hash=password_hash, session_generation=User.session_generation + 1))
        found = self.get(user_id)
        assert found is not None
        return found

    def forget(self, user_id: int) -> str:
        """Deletes the account: its name becomes "former player N" (games keep their
        seats under it), no password, no address; every session ends. Returns the name."""
        former = f"{FORMER_PLAYER} {user_id}"
        with self._sessions.begin() as db:
            row = db.get(User, user_id, with_for_update=True)
            if row is None:
                raise AccountError(_("No such account."))
            row.name, row.name_key, row.name_skeleton = former, f"~former~{user_id}", f"~former~{user_id}"
            row.password_hash, row.is_guest = None, False
            row.email, row.email_confirmed, row.email_pref = None, False, "none"
            row.email_digest_at, row.time_zone = None, "UTC"
            row.session_generation += 1
        return former

    def end_sessions(self, user_id: int) -> int:
        """Advances the user's session generation (logout, "log out everywhere"): every
        cookie and CSRF token made before stops working. Returns the new generation."""
        with self._sessions.begin() as db:
            db.execute(update(User).where(User.id == user_id)
                       .values(session_generation=User.session_generation + 1))
            return int(db.scalar(select(User.session_generation).where(User.id == user_id)) or 0)

    def set_time_zone(self, user_id: int, zone: str) -> None:
        """The player's time zone (an IANA name the caller checked)."""
        with self._sessions.begin() as db:
            db.execute(update(User).where(User.id == user_id).values(time_zone=zone))

    def set_language(self, user_id: int, code: str | None) -> None:
        """The language the player picked (one the caller checked; None: the browser's)."""
        with self._sessions.begin() as db:
            db.execute(update(User).where(User.id == user_id).values(language=code))

    def get(self, user_id: int | None) -> User | None:
        if user_id is None:
            return None
        with self._reads() as db:
            return db.get(User, user_id)

    def session_holds(self, user_id: int, generation: int) -> bool:
        """Whether a session of ``generation`` still holds: the account is there, not
        banned, and no logout or password change moved past it. Two columns read on a
        connection of the engine, no ORM session (a game page's socket asks at every
        command: about a third of the cost of an ORM read)."""
        engine: Engine = self._reads.kw["bind"]
        with engine.connect() as conn:
            return self.session_holds_on(conn, user_id, generation)

    def session_holds_on(self, conn: Connection, user_id: int, generation: int) -> bool:
        """``session_holds``, read on ``conn`` (a game command's own transaction)."""
        rows = self._sql.run(conn, "session_of", {"id": user_id})
        return bool(rows) and rows[0][1] is None and rows[0][0] == generation

    def by_name(self, name: str) -> User | None:
        with self._reads() as db:
            return self._by_name(db, name.strip())

    @staticmethod
    def _by_name(db: Session, name: str) -> User | None:
        return user_named(db, name)


_NAMED = select(User).where(or_(User.name == bindparam("name"),
                                User.name_key == bindparam("key")))  # built once


def user_named(db: Session, name: str) -> User | None:
    """The account called ``name``: the exact name first (an account whose key was
    suffixed by migration 0004), else the one with the same key (case and width blind)."""
    users = db.scalars(_NAMED, {"name": name, "key": name_key(name)}).all()
    exact = [u for u in users if u.name == name]
    found = exact or list(users)
    return found[0] if found else None
