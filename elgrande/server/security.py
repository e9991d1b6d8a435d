"""Signed session cookies and CSRF tokens (itsdangerous). Password hashing is in
passwords.py.

The session cookie holds the user id and the user's session generation, signed and
time-stamped; it is HttpOnly and SameSite=Lax. Logout, a password change and "log out
everywhere" advance the generation in the database, which ends every cookie made before.

Every state-changing request must also carry a CSRF token, in a hidden form field or the
X-CSRF-Token header: for a logged-in user a signature of (user id, generation); for a
logged-out visitor a signature of this browser's random id, kept in its own cookie (set
on the first page it sees), so a token read by another browser, e.g. an attacker's, is
worth nothing here.
"""

from __future__ import annotations

import hmac
import json
import secrets

from itsdangerous import BadSignature, URLSafeTimedSerializer

SESSION_COOKIE = "elgrande_session"
BROWSER_COOKIE = "elgrande_browser"
SESSION_MAX_AGE = 60 * 60 * 24 * 30  # a game may last weeks; keep people logged in a month
BROWSER_MAX_AGE = 60 * 60 * 24 * 365


def new_browser_id() -> str:
    return secrets.token_urlsafe(18)


class Signer:
    def __init__(self, secret_key: str) -> None:
        self._session = URLSafeTimedSerializer(secret_key, salt="session")
        self._csrf = URLSafeTimedSerializer(secret_key, salt="csrf")

    def session_cookie(self, user_id: int, generation: int = 0) -> str:
        return self._session.dumps([user_id, generation])

    def session(self, cookie: str | None) -> tuple[int, int] | None:
        """(user id, generation) of a valid cookie. A cookie made before generations
        existed (a bare id) counts as generation 0: guests keep their accounts, and the
        first logout ends it like any other."""
        if not cookie:
            return None
        try:
            value = self._session.loads(cookie, max_age=SESSION_MAX_AGE)
        except BadSignature:
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            return value, 0
        if (isinstance(value, list) and len(value) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            return value[0], value[1]
        return None

    def user_id(self, cookie: str | None) -> int | None:
        """The user id of a valid cookie, whatever its generation (tests, tools)."""
        session = self.session(cookie)
        return session[0] if session else None

    @staticmethod
    def _subject(user: tuple[int, int] | int | None, browser: str | None) -> str | None:
        if isinstance(user, int):  # an id alone: generation 0 (tests, tools)
            user = (user, 0)
        if user is not None:
            return json.dumps(["user", *user])
        return json.dumps(["browser", browser]) if browser else None

    def csrf_token(self, user: tuple[int, int] | int | None, browser: str | None = None) -> str:
        """The token of ``user`` (id, generation), or of a logged-out ``browser``."""
        subject = self._subject(user, browser)
        return self._csrf.dumps(subject or "none")

    def check_csrf(self, token: str | None, user: tuple[int, int] | None,
                   browser: str | None = None) -> bool:
        expected = self._subject(user, browser)
        if not token or expected is None:
            return False
        try:
            value = self._csrf.loads(token, max_age=SESSION_MAX_AGE)
        except BadSignature:
            return False
        return isinstance(value, str) and hmac.compare_digest(value, expected)
