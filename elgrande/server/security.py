"""Passwords (argon2), signed session cookies and CSRF tokens (itsdangerous).

The session cookie holds only the user id, signed and time-stamped; it is HttpOnly and
SameSite=Lax. Every state-changing request must also carry a CSRF token: a signature of
the session's user id, sent in a hidden form field or the X-CSRF-Token header.
"""

from __future__ import annotations

import hmac

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from itsdangerous import BadSignature, URLSafeTimedSerializer

SESSION_COOKIE = "elgrande_session"
SESSION_MAX_AGE = 60 * 60 * 24 * 30  # a game may last weeks; keep people logged in a month

_hasher = PasswordHasher()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(stored_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(stored_hash, password)
    except (VerificationError, InvalidHashError):
        return False


class Signer:
    def __init__(self, secret_key: str) -> None:
        self._session = URLSafeTimedSerializer(secret_key, salt="session")
        self._csrf = URLSafeTimedSerializer(secret_key, salt="csrf")

    def session_cookie(self, user_id: int) -> str:
        return self._session.dumps(user_id)

    def user_id(self, cookie: str | None) -> int | None:
        if not cookie:
            return None
        try:
            value = self._session.loads(cookie, max_age=SESSION_MAX_AGE)
        except BadSignature:
            return None
        return value if isinstance(value, int) else None

    def csrf_token(self, user_id: int | None) -> str:
        return self._csrf.dumps(user_id if user_id is not None else 0)

    def check_csrf(self, token: str | None, user_id: int | None) -> bool:
        if not token:
            return False
        try:
            value = self._csrf.loads(token, max_age=SESSION_MAX_AGE)
        except BadSignature:
            return False
        expected = user_id if user_id is not None else 0
        return isinstance(value, int) and hmac.compare_digest(str(value), str(expected))
