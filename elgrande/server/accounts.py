"""Accounts: registered players (argon2 password hashes) and guests."""

from __future__ import annotations

import re
import secrets

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from .security import hash_password, verify_password
from .tables import User

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.\-]{3,24}$")
MIN_PASSWORD = 8


class AccountError(ValueError):
    pass


class Accounts:
    def __init__(self, sessions: sessionmaker[Session], reads: sessionmaker[Session] | None = None) -> None:
        self._sessions = sessions
        self._reads = reads or sessions

    def register(self, name: str, password: str) -> User:
        name = name.strip()
        if not NAME_PATTERN.match(name):
            raise AccountError("A name has 3 to 24 letters, digits, '.', '_' or '-'.")
        if name.lower().startswith("guest-"):
            raise AccountError("Names starting with 'guest-' are kept for guests.")
        if len(password) < MIN_PASSWORD:
            raise AccountError(f"A password needs at least {MIN_PASSWORD} characters.")
        with self._sessions.begin() as db:
            if self._by_name(db, name) is not None:
                raise AccountError("That name is taken.")
            user = User(name=name, password_hash=hash_password(password), is_guest=False)
            db.add(user)
            db.flush()
            return user

    def guest(self) -> User:
        with self._sessions.begin() as db:
            while True:
                name = f"guest-{secrets.token_hex(3)}"
                if self._by_name(db, name) is None:
                    break
            user = User(name=name, password_hash=None, is_guest=True)
            db.add(user)
            db.flush()
            return user

    def login(self, name: str, password: str) -> User | None:
        with self._reads() as db:
            user = self._by_name(db, name.strip())
            if user is None or user.password_hash is None:
                return None
            return user if verify_password(user.password_hash, password) else None

    def get(self, user_id: int | None) -> User | None:
        if user_id is None:
            return None
        with self._reads() as db:
            return db.get(User, user_id)

    def by_name(self, name: str) -> User | None:
        with self._reads() as db:
            return self._by_name(db, name.strip())

    @staticmethod
    def _by_name(db: Session, name: str) -> User | None:
        return db.scalar(select(User).where(User.name == name))
