"""Signed links in emails (itsdangerous, like the session cookies): they name the user
and the address, so a link made for an earlier address is worth nothing."""

from __future__ import annotations

from itsdangerous import BadSignature, URLSafeTimedSerializer

CONFIRM_MAX_AGE = 60 * 60 * 48  # two days to click the confirmation link
RESET_MAX_AGE = 60 * 60  # an hour to use a password reset link


class MailTokens:
    def __init__(self, secret_key: str) -> None:
        self._confirm = URLSafeTimedSerializer(secret_key, salt="mail-confirm")
        self._unsubscribe = URLSafeTimedSerializer(secret_key, salt="mail-unsubscribe")
        self._reset = URLSafeTimedSerializer(secret_key, salt="password-reset")

    def confirm(self, user_id: int, email: str) -> str:
        return self._confirm.dumps([user_id, email])

    def unsubscribe(self, user_id: int, email: str) -> str:
        return self._unsubscribe.dumps([user_id, email])

    def reset(self, user_id: int, fingerprint: str) -> str:
        """``fingerprint``: of the password hash and session generation it was made
        for, so the link works once (the reset changes both)."""
        return self._reset.dumps([user_id, fingerprint])

    def check_reset(self, token: str) -> tuple[int, str] | None:
        return _pair(self._reset, token, RESET_MAX_AGE)

    def check_confirm(self, token: str) -> tuple[int, str] | None:
        return _pair(self._confirm, token, CONFIRM_MAX_AGE)

    def check_unsubscribe(self, token: str) -> tuple[int, str] | None:
        # No expiry: an unsubscribe link in an old email must still work.
        return _pair(self._unsubscribe, token, None)


def _pair(serializer: URLSafeTimedSerializer, token: str, max_age: int | None
          ) -> tuple[int, str] | None:
    try:
        value = serializer.loads(token, max_age=max_age)
    except BadSignature:
        return None
    if (isinstance(value, list) and len(value) == 2 and isinstance(value[0], int)
            and not isinstance(value[0], bool) and isinstance(value[1], str)):
        return value[0], value[1]
    return None
