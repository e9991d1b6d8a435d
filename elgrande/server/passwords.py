"""Passwords: the strength rules for new ones, and argon2id hashing in a small pool of
its own.

A hash costs 64 MiB and a few hundred milliseconds of CPU. Run on the thread pool that
serves pages and game commands, a burst of logins starves the players and the memory
grows with every waiting login; so hashes run here, at most ``workers`` at a time, with
at most ``queue`` more waiting. Beyond that the caller gets ``HashingBusy`` (answered 429
with Retry-After) at once instead of waiting without bound.
"""

from __future__ import annotations

import functools
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from zxcvbn import zxcvbn
from zxcvbn.frequency_lists import FREQUENCY_LISTS

from .hardening import AccountLimitReached
from .i18n import _

MIN_PASSWORD = 8
MAX_PASSWORD = 200  # argon2 takes any length; this bounds the strength estimate's work
MIN_SCORE = 3  # zxcvbn: 3 is "safely unguessable: moderate protection from offline attacks"
_ESTIMATED = 100  # zxcvbn's cost grows quickly with length; the start says enough
_COMMON = frozenset(FREQUENCY_LISTS["passwords"])  # the 30,000 most common passwords

T = TypeVar("T")
_hasher = PasswordHasher()


class WeakPassword(ValueError):
    pass


def check_strength(password: str, name: str, min_score: int = MIN_SCORE) -> None:
    """Raises WeakPassword, saying why, for a password too short, too long, common, or
    too easy to guess (zxcvbn's estimate, which also knows the account name)."""
    if len(password) < MIN_PASSWORD:
        raise WeakPassword(_("A password needs at least %(num)s characters.", num=MIN_PASSWORD))
    if len(password) > MAX_PASSWORD:
        raise WeakPassword(_("A password has at most %(num)s characters.", num=MAX_PASSWORD))
    if password.lower() in _COMMON:
        raise WeakPassword(_("That password is one of the most common ones; choose another."))
    if zxcvbn(password[:_ESTIMATED], user_inputs=[name])["score"] < min_score:
        raise WeakPassword(_("That password is too easy to guess; a few unrelated words "
                             "make a strong one."))


class HashingBusy(AccountLimitReached):
    """Too many password hashes waiting: try again shortly (429 with Retry-After)."""

    def __init__(self) -> None:
        super().__init__("The server is busy checking passwords; try again in a few seconds.", 5)


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(stored_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(stored_hash, password)
    except (VerificationError, InvalidHashError):
        return False


@functools.cache
def dummy_hash() -> str:
    """A hash of a random password with the same cost as real ones: an unknown name is
    checked against it, so a wrong password takes as long for it as for a real name."""
    return hash_password(secrets.token_urlsafe(16))


def _verify_or_dummy(stored_hash: str | None, password: str) -> bool:
    return verify_password(stored_hash or dummy_hash(), password)


class HashPool:
    """Runs hashing work on ``workers`` threads of its own, with at most ``queue`` more
    calls waiting; ``run`` blocks its caller until the work is done."""

    def __init__(self, workers: int = 2, queue: int = 8) -> None:
        self._workers = workers
        self._pool: ThreadPoolExecutor | None = None  # made on first use, again after close
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(workers + queue)

    def run(self, work: Callable[..., T], *args: object) -> T:
        if not self._slots.acquire(blocking=False):
            raise HashingBusy()
        try:
            with self._lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="hash")
                future = self._pool.submit(work, *args)
            return future.result()
        finally:
            self._slots.release()

    def hash(self, password: str) -> str:
        return self.run(hash_password, password)

    def verify(self, stored_hash: str | None, password: str) -> bool:
        """False for ``None`` (no such user, or a guest), after as long as a real check."""
        ok = self.run(_verify_or_dummy, stored_hash, password)
        return ok and stored_hash is not None

    def close(self) -> None:
        """Lets the threads end (the app stops); a later call makes new ones."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False)
