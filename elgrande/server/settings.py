"""Server settings, read from the environment (ELGRANDE_*), with defaults for `make run`."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

DEFAULT_DATABASE_URL = "sqlite:///elgrande.db"  # the turn framework's default too
DEFAULT_SECRET_FILE = "var/elgrande.secret"  # var/ is git-ignored


@dataclass(frozen=True)
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    # Signs session cookies and CSRF tokens; see `from_env` for where it comes from.
    secret_key: str = ""
    host: str = "127.0.0.1"
    port: int = 8000
    # Seconds a bot waits before each move so humans can follow the game; 0 in tests.
    bot_delay: float = 0.5
    # Secure cookies need HTTPS; off for a local server on plain HTTP.
    secure_cookies: bool = False
    # Worker processes in which bots think (0: one per CPU, at most 4).
    bot_processes: int = 0

    def __post_init__(self) -> None:
        if not self.secret_key:
            object.__setattr__(self, "secret_key", secrets.token_urlsafe(32))

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        """ELGRANDE_DATABASE_URL, ELGRANDE_SECRET_KEY, ELGRANDE_HOST, ELGRANDE_PORT,
        ELGRANDE_BOT_DELAY, ELGRANDE_SECURE_COOKIES, ELGRANDE_BOT_PROCESSES.

        Without a secret key, one is kept in the file ELGRANDE_SECRET_FILE (default
        ./var/elgrande.secret, created 0600), so a restart does not log everyone out
        (guests would lose their accounts)."""
        env = os.environ if environ is None else environ
        secret = env.get("ELGRANDE_SECRET_KEY") or _secret_from_file(
            Path(env.get("ELGRANDE_SECRET_FILE", DEFAULT_SECRET_FILE)))
        return cls(
            database_url=env.get("ELGRANDE_DATABASE_URL", DEFAULT_DATABASE_URL),
            secret_key=secret,
            host=env.get("ELGRANDE_HOST", "127.0.0.1"),
            port=int(env.get("ELGRANDE_PORT", "8000")),
            bot_delay=float(env.get("ELGRANDE_BOT_DELAY", "0.5")),
            secure_cookies=env.get("ELGRANDE_SECURE_COOKIES", "0").lower() in ("1", "true", "yes"),
            bot_processes=int(env.get("ELGRANDE_BOT_PROCESSES", "0")),
        )


def _secret_from_file(path: Path) -> str:
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        key = secrets.token_urlsafe(32)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(key + "\n")
        return key
