"""Every setting of a server, from the ELGRANDE_* environment (or a ``.env`` file), read
once and validated (pydantic-settings). ``Settings.load()`` is what ``serve`` and the
ASGI factory use; a bad value, or an ELGRANDE_* name that is no setting, raises
``SettingsError`` with one line naming the variable and what it accepts.

The table of variables in docs/server.md is generated from this class
(``python -m elgrande.server.settings``); a test keeps the two equal."""

from __future__ import annotations

import difflib
import os
import secrets
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dotenv import dotenv_values
from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from .collector import YOUNG_THRESHOLD

PREFIX = "ELGRANDE_"
TEST_PREFIX = "ELGRANDE_TEST_"  # the test suite's own variables: not settings
# Read by the rules engine when it is imported (docs/compiled-engine.md): not settings.
ENGINE_VARIABLES = frozenset({"ELGRANDE_ENGINE", "ELGRANDE_ENGINE_BUILD"})
DEFAULT_DATABASE_URL = "sqlite:///elgrande.db"
DEFAULT_SECRET_FILE = "var/elgrande.secret"  # var/ is git-ignored


class SettingsError(ValueError):
    """A setting that cannot be used; the message is one line for the operator."""


def setting(default: Any, doc: str, accepts: str, **constraints: Any) -> Any:
    """A field with its documentation and a description of the values it accepts (used
    by error messages and the docs table)."""
    return Field(default, description=doc, json_schema_extra={"accepts": accepts},
                 **constraints)


def _seconds(doc: str, default: float) -> Any:
    return setting(default, doc, "a number of seconds above 0", gt=0, allow_inf_nan=False)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=PREFIX, env_file=".env", env_file_encoding="utf-8", extra="ignore",
        frozen=True, validate_default=True)

    database_url: str = setting(
        DEFAULT_DATABASE_URL, "The database: an SQLite file, or PostgreSQL "
        "(`postgresql://user@host/db`).", "an SQLAlchemy URL starting with sqlite:// or "
        "postgresql", min_length=1)
    secret_key: str = Field("", repr=False, description=(
        "Signs session cookies and CSRF tokens. Empty: kept in the secret file."),
        json_schema_extra={"accepts": "any text of at least 16 characters, or empty"})
    secret_file: Path = setting(
        Path(DEFAULT_SECRET_FILE), "Where the secret key is kept when `SECRET_KEY` is empty "
        "(created 0600 on first start, so a restart logs nobody out).", "a file path")
    host: str = setting("127.0.0.1", "The address `serve` listens on.",
                        "an IP address or host name", min_length=1)
    port: int = setting(8000, "The port `serve` listens on (0: any free port).",
                        "a whole number from 0 to 65535", ge=0, le=65535)
    secure_cookies: bool = setting(
        False, "Mark cookies Secure and send HSTS: set it when the server is reached over "
        "HTTPS.", "on/off, true/false, yes/no or 1/0")
    pubsub_url: str | None = setting(
        None, "Redis for several server processes (live updates, shared rate limits, bot "
        "leases). Empty: one process, everything in memory.",
        "a redis://, rediss:// or unix:// URL, or empty")
    bot_delay: float = setting(0.5, "Seconds a computer opponent waits before each move, "
                               "so people can follow the game.", "a number of seconds, 0 or "
                               "more", ge=0, allow_inf_nan=False)
    bot_processes: int = setting(0, "Worker processes in which computer opponents think (0: "
                                 "one per CPU, at most 4).", "a whole number, 0 or more", ge=0)
    bot_lease_seconds: float = _seconds(
        "With several processes: how long a process's claim on a computer opponent's move "
        "lasts without renewal (a dead process's moves are taken over after it).", 15.0)
    max_body: int = setting(64 * 1024, "Largest HTTP request body, in bytes.",
                            "a whole number of at least 1", ge=1)
    max_ws_message: int = setting(4096, "Largest WebSocket message, in bytes.",
                                  "a whole number of at least 1", ge=1)
    login_failures_per_name: int = setting(
        10, "Failed logins allowed per account name and client address within the login "
        "window (the owner, from another address, can still log in).",
        "a whole number of at least 1", ge=1)
    login_failures_per_client: int = setting(
        50, "Failed logins allowed per client address within the login window.",
        "a whole number of at least 1", ge=1)
    login_window: float = _seconds("The login window, in seconds.", 15 * 60.0)
    # Generous on purpose: a school class, an office or a mobile carrier's NAT shares one
    # address; a script creating accounts in bulk is still stopped within seconds.
    registrations_per_client: int = setting(
        20, "Registrations allowed per client address within the account window (0: no "
        "limit).", "a whole number, 0 or more", ge=0)
    guests_per_client: int = setting(
        60, "Guest accounts allowed per client address within the account window (0: no "
        "limit).", "a whole number, 0 or more", ge=0)
    account_window: float = _seconds("The account window, in seconds.", 60 * 60.0)
    # -- computer opponents
    bot_thinks_per_user: int = setting(
        2, "How many of one user's computer opponents may think at once (the worker "
        "processes are shared round-robin between users).", "a whole number of at least 1",
        ge=1)
    # -- the coach (docs/coach.md): reviews queued behind every game move
    coach_reviews_per_day: int = setting(
        10, "Coach reviews one player may have made within a day (a cached review costs "
        "nothing; 0: no limit).", "a whole number, 0 or more", ge=0)
    coach_level: str = setting(
        "", "The bot the coach asks what it would play: a level, or `ismcts:N` (N "
        "iterations per decision). Empty: the strongest level.",
        "a level name, ismcts:N, or empty", pattern=r"^([a-z]+(:[0-9]{1,6})?)?$")
    coach_playouts: int = setting(
        48, "Playouts to the end of the game for each of the two lines the coach compares "
        "(more: a smaller error, more CPU).", "a whole number from 1 to 1000", ge=1, le=1000)
    instance_name: str = setting(
        "", "With several processes: this process's lasting name for its claims on "
        "computer opponents' moves, so a restarted process takes its predecessor's over at "
        "once. Empty: the host name and a slot held by a lock file next to the secret file.",
        "letters, digits, '.', '_', '-' (at most 40), or empty", max_length=40,
        pattern=r"^[A-Za-z0-9._-]*$")

    # -- operations
    ws_per_client: int = setting(
        50, "Open WebSockets (game pages and notice channels) allowed per client address, "
        "over all processes when `PUBSUB_URL` is set (0: no limit); more are closed with "
        "code 4429.", "a whole number, 0 or more", ge=0)
    socket_count_seconds: float = _seconds(
        "With several processes: how long a process's count of open WebSockets lasts in "
        "Redis without renewal (renewed every third of it); a dead process's sockets stop "
        "counting after it.", 30.0)
    sqlite_sync: str = setting(
        "normal", "SQLite only: `normal`, a committed move survives the server process being "
        "killed (WAL; the operating system writes it out), not the machine losing power; "
        "`full`, it survives that too, at the cost of waiting for the disk at every commit.",
        "normal or full", pattern="^(normal|full)$")
    page_threads: int = setting(
        8, "Worker threads for page requests, sign-ins and opening game pages; the games' "
        "moves have 40 of their own, so a wave of arriving players never delays them for "
        "long.", "a whole number of at least 1", ge=1, le=1000)
    game_work: str = setting(
        "auto", "Where a game's commands and its pages' states are worked out: `auto`, on "
        "the event loop when the database is an SQLite file served by this one process "
        "(no hand-over to a worker thread, the largest cost of a move there) and in worker "
        "threads otherwise; `threads`, always in worker threads.",
        "auto or threads", pattern="^(auto|threads)$")
    gc_young_threshold: int = setting(
        YOUNG_THRESHOLD, "How many new objects (net of those freed) this process makes between two "
        "collections of its youngest generation (CPython's default is 700). Higher means "
        "fewer objects promoted, so fewer full collections, which stop every page; lower "
        "means shorter young collections (docs/server.md, \"Garbage collection\").",
        "a whole number from 100 to 1000000", ge=100, le=1_000_000)
    ws_deflate: bool = setting(
        False, "Offer per-message deflate on the game pages' WebSockets: about a sixth of "
        "the bytes on the wire, for about 45 KB more memory per open page and CPU for "
        "every message.", "on/off, true/false, yes/no or 1/0")
    log_format: str = setting("text", "Log lines as plain text, or one JSON object per line "
                              "for log collectors.", "text or json", pattern="^(text|json)$")
    log_level: str = setting("warning", "The least severe log level written.",
                             "debug, info, warning or error",
                             pattern="^(debug|info|warning|error)$")
    metrics_host: str = setting("127.0.0.1", "The address the Prometheus metrics endpoint "
                                "listens on.", "an IP address or host name", min_length=1)
    metrics_port: int = setting(0, "The port of the Prometheus metrics endpoint (0: no "
                                "metrics).", "a whole number from 0 to 65535", ge=0, le=65535)

    # -- lobby caps
    # Games count for the player who created them; an address's are those of the players
    # who create or start games from it. Generous per address: a class or an office
    # shares one. 0: no limit (the load benchmark plays hundreds of games from 127.0.0.1).
    waiting_games_per_user: int = setting(
        5, "Games waiting for players one player may have created (0: no limit).",
        "a whole number, 0 or more", ge=0)
    active_games_per_user: int = setting(
        20, "Running games one player may have started (0: no limit).",
        "a whole number, 0 or more", ge=0)
    bot_seats_per_user: int = setting(
        40, "Computer opponents one player may have in running games (0: no limit).",
        "a whole number, 0 or more", ge=0)
    waiting_games_per_client: int = setting(
        15, "Games waiting for players created from one client address (0: no limit).",
        "a whole number, 0 or more", ge=0)
    active_games_per_client: int = setting(
        60, "Running games started from one client address (0: no limit).",
        "a whole number, 0 or more", ge=0)
    bot_seats_per_client: int = setting(
        120, "Computer opponents in running games started from one client address (0: no "
        "limit).", "a whole number, 0 or more", ge=0)

    # -- accounts and logins
    # Every login attempt counts per address, successful ones per account (LoginLimits),
    # besides the failures above (now per name and address, so nobody can lock an
    # account out by failing on purpose).
    logins_per_client: int = setting(
        100, "Login attempts (right or wrong) allowed per client address within the login "
        "window.", "a whole number of at least 1", ge=1)
    logins_per_account: int = setting(
        30, "Successful logins allowed per account within the login window.",
        "a whole number of at least 1", ge=1)
    password_hash_workers: int = setting(
        2, "Password hashes (argon2id, 64 MiB each) computed at once, in a pool of their "
        "own apart from the one serving pages and games.", "a whole number from 1 to 64",
        ge=1, le=64)
    password_hash_queue: int = setting(
        8, "Logins and sign-ups allowed to wait for a hash; more are answered 429 with "
        "Retry-After at once.", "a whole number, 0 or more", ge=0)
    min_password_score: int = setting(
        3, "The least zxcvbn strength estimate (0 to 4) a new password must reach.",
        "a whole number from 0 to 4", ge=0, le=4)
    name_lookups_per_user: int = setting(
        60, "Invitations by name one player may send within the account window (each "
        "tells whether a name exists).", "a whole number of at least 1", ge=1)
    name_lookups_per_client: int = setting(
        120, "Invitations by name allowed per client address within the account window.",
        "a whole number of at least 1", ge=1)
    profile_pages_per_minute: int = setting(
        120, "Profile, ranking and \"My games\" pages one client address, and one player, "
        "may load within a minute (0: no limit).", "a whole number, 0 or more", ge=0)
    # -- resigning and expiry
    stand_in_level: str = setting(
        "medium", "The computer opponent that takes over the seat of a player who resigns.",
        "random, easy, medium or hard", pattern="^(random|easy|medium|hard)$")
    waiting_game_days: float = setting(
        7.0, "Days a game may wait for players before it expires.",
        "a number of days above 0", gt=0, allow_inf_nan=False)
    idle_guest_game_days: float = setting(
        30.0, "Days a guest's game against computers (\"Play now\") may go untouched before "
        "it is stopped as abandoned.", "a number of days above 0", gt=0, allow_inf_nan=False)
    idle_solo_game_days: float = setting(
        90.0, "Days a registered player's game against computers alone may go untouched "
        "before it is stopped as abandoned (so that forgotten games do not pile up).",
        "a number of days above 0", gt=0, allow_inf_nan=False)
    expiry_sweep_seconds: float = _seconds(
        "Seconds between two looks for expired and abandoned games.", 600.0)
    # -- the table chat
    chat_lines_per_minute: int = setting(
        12, "Chat lines one player may write per minute, over all their games.",
        "a whole number of at least 1", ge=1)
    chat_lines_per_client: int = setting(
        30, "Chat lines allowed per client address per minute.", "a whole number of at least 1",
        ge=1)
    # -- languages (docs/i18n.md)
    pseudo_locale: bool = setting(
        False, "Offer the pseudo-language `qps` (every translated text accented and in "
        "brackets) through the `lang` cookie, to spot text outside the message catalogs.",
        "on/off, true/false, yes/no or 1/0")

    # -- the operator's pages
    legal_dir: str | None = setting(
        None, "A folder with the operator's privacy.html and imprint.html (HTML fragments "
        "shown on /privacy and /imprint). Empty: those pages say they are not written yet.",
        "a folder path, or empty")
    # -- turn clocks (docs/clocks.md)
    away_abandon_days: float = setting(
        3.0, "Days a clocked game may wait with every player away (their clocks ran out) "
        "before it is stopped as abandoned.", "a number of days above 0", gt=0,
        allow_inf_nan=False)
    clock_wake_seconds: float = _seconds(
        "The longest the clock keeper sleeps between two looks at the deadlines (it wakes "
        "earlier for the earliest deadline of all games, and at each commit).", 60.0)
    veto_window_seconds: float = _seconds(
        "How long a veto window (box rules) waits for its holder before the server passes "
        "for him; not his turn clock, and no email.", 60.0)

    # -- email
    smtp_host: str | None = setting(
        None, "The SMTP server that sends email notifications (turns, daily digests, address "
        "confirmations). Empty: no email; the account page offers none.",
        "a host name or IP address, or empty")
    smtp_port: int = setting(587, "The SMTP server's port.", "a whole number from 1 to 65535",
                             ge=1, le=65535)
    smtp_user: str = setting("", "The SMTP login name (empty: no login).", "any text, or empty")
    smtp_password: str = Field("", repr=False, description="The SMTP password (never logged).",
                               json_schema_extra={"accepts": "any text, or empty"})
    smtp_starttls: bool = setting(True, "Switch the SMTP connection to TLS (STARTTLS) before "
                                  "logging in and sending.", "on/off, true/false, yes/no or 1/0")
    mail_from: str = setting("El Grande <noreply@localhost>", "The From address of every "
                             "email.", "an email address, with a name or not", min_length=3)
    base_url: str = setting("http://127.0.0.1:8000", "The server's public address, for the "
                            "links in emails.", "an http:// or https:// URL",
                            pattern=r"^https?://[^\s/]+(/[^\s]*)?$")
    mail_max_tries: int = setting(6, "Tries to send an email (with growing pauses between "
                                  "them) before it is marked failed.",
                                  "a whole number from 1 to 20", ge=1, le=20)
    confirmation_mails_per_day: int = setting(
        5, "Confirmation emails allowed per player, and per email address, within a day.",
        "a whole number of at least 1", ge=1)

    # -- browser alerts
    # Every page of a logged-in player holds one /ws/me socket (besides the game's own).
    alert_sockets_per_user: int = setting(
        30, "Open pages (\"your turn\" notice sockets) allowed per player, over all "
        "processes when `PUBSUB_URL` is set (0: no limit); more are closed with code 4429.",
        "a whole number, 0 or more", ge=0)

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, value: str) -> str:
        if not value.startswith(("sqlite:", "postgresql")):
            raise ValueError("not an SQLite or PostgreSQL URL")
        return value

    @field_validator("smtp_host", mode="before")
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        return None if value == "" else value

    @field_validator("pubsub_url", mode="before")
    @classmethod
    def _redis_url(cls, value: Any) -> Any:
        if value in ("", None):
            return None
        if not str(value).startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("not a Redis URL")
        return value

    @field_validator("secret_key")
    @classmethod
    def _long_enough(cls, value: str) -> str:
        if value and len(value) < 16:
            raise ValueError("too short")
        return value

    @model_validator(mode="after")
    def _secret(self) -> Settings:
        if not self.secret_key:
            object.__setattr__(self, "secret_key", _secret_from_file(self.secret_file))
        return self

    @classmethod
    def load(cls, environ: Mapping[str, str] | None = None, env_file: str | None = ".env",
             **overrides: Any) -> Settings:
        """The settings from ``environ`` (default: the process environment) and
        ``env_file``, then ``overrides`` (command-line options; None: not given).
        Raises SettingsError naming the variable at fault."""
        env = os.environ if environ is None else environ
        names = set(env)
        if environ is None and env_file and Path(env_file).is_file():
            names |= set(dotenv_values(env_file))
        unknown = sorted(name for name in names if name.startswith(PREFIX)
                         and not name.startswith(TEST_PREFIX) and name not in ENGINE_VARIABLES
                         and name.removeprefix(PREFIX).lower() not in cls.model_fields)
        if unknown:
            known = [env_name(field) for field in cls.model_fields]
            close = difflib.get_close_matches(unknown[0], known, n=1, cutoff=0.8)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise SettingsError(f"{unknown[0]} is not a setting{hint}; docs/server.md lists "
                                "them all")
        given = {k: v for k, v in overrides.items() if v is not None}
        try:
            if environ is None:
                return cls(_env_file=env_file, **given)  # type: ignore[call-arg]
            # An explicit mapping stands for the whole environment (tests, tools).
            values = {name.removeprefix(PREFIX).lower(): value for name, value in env.items()
                      if name.startswith(PREFIX) and not name.startswith(TEST_PREFIX)
                      and name not in ENGINE_VARIABLES}
            return cls.model_validate({**values, **given})
        except ValidationError as error:
            raise SettingsError(describe(error, given)) from None
        except OSError as error:
            raise SettingsError(f"{env_name('secret_file')}: cannot read or create "
                                f"{error.filename}: {error.strerror}") from None


def env_name(field: str) -> str:
    return PREFIX + field.upper()


def accepts(field: str) -> str:
    extra = Settings.model_fields[field].json_schema_extra
    return str(extra.get("accepts", "")) if isinstance(extra, dict) else ""


def describe(error: ValidationError, options: Mapping[str, Any] | None = None) -> str:
    """One line for the first problem: the variable (or option), the value, what it
    accepts."""
    first = error.errors()[0]
    field = str(first["loc"][0]) if first["loc"] else ""
    if field not in Settings.model_fields:
        return f"settings: {first['msg']}"
    name = f"--{field.replace('_', '-')}" if options and field in options else env_name(field)
    shown = "" if field == "secret_key" else f" {first.get('input')!r}"
    return f"{name}:{shown} is not valid; it takes {accepts(field)}"


def docs_table() -> str:
    """The Markdown table of every variable, for docs/server.md."""
    rows = ["| variable | default | accepts | what it does |", "| --- | --- | --- | --- |"]
    for field, info in Settings.model_fields.items():
        default = "" if info.default in (None, "") else str(info.default)
        rows.append(f"| `{env_name(field)}` | {f'`{default}`' if default else '(empty)'} | "
                    f"{accepts(field)} | {info.description} |")
    return "\n".join(rows) + "\n"


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


if __name__ == "__main__":  # prints the docs table
    sys.stdout.write(docs_table())
