"""Account creation rate-limited per client address (elgrande/server/hardening/limits.py,
``admit_new_account``): registrations and guest accounts ("Play now", "Continue as a
guest"). Over the limit: 429 with Retry-After, a readable message, and no account."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from elgrande.server.hardening import AccountLimitReached, AccountLimits, Limits, MemoryLimiter
from elgrande.server.security import SESSION_COOKIE
from elgrande.server.settings import Settings, SettingsError
from elgrande.server.tables import Game, User
from tests.scale.servers import RedisServer, redis_server  # noqa: F401  (fixture)

from .conftest import Player, make_app, services

pytestmark = pytest.mark.timeout(60)

HOME = ("203.0.113.7", 40000)  # documentation addresses (RFC 5737), one per "client"
ELSEWHERE = ("198.51.100.9", 40000)


@contextmanager
def clients(app: Any) -> Iterator[tuple[TestClient, TestClient]]:
    """Two clients of one app, each from its own address (the ASGI scope's client)."""
    with TestClient(app, follow_redirects=False, client=HOME) as home:
        # The app is already started; the second client only sends requests.
        yield home, TestClient(app, follow_redirects=False, client=ELSEWHERE)


def count(client: TestClient, table: type[Any]) -> int:
    with services(client).sessions() as db:  # as tests/server/test_accounts.py
        return int(db.scalar(select(func.count()).select_from(table)) or 0)


def users(client: TestClient) -> list[str]:
    with services(client).sessions() as db:
        return sorted(db.scalars(select(User.name)))


def user_count(client: TestClient) -> int:
    return count(client, User)


def register(who: Player, name: str) -> Any:
    return who.post("/register", data={"name": name, "password": "amber tractor ninety",
                                       "csrf_token": who.csrf()})


def assert_limited(response: Any, message: str, window: float) -> None:
    assert response.status_code == 429, response.text[:300]
    assert message in response.text and "try again in" in response.text
    assert 0 < int(response.headers["retry-after"]) <= window + 1
    assert SESSION_COOKIE not in response.headers.get("set-cookie", "")


def test_registrations_are_limited_per_address(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    monkeypatch.setenv("ELGRANDE_REGISTRATIONS_PER_CLIENT", "3")
    monkeypatch.setenv("ELGRANDE_ACCOUNT_WINDOW", "600")
    with clients(make_app(tmp_path)) as (home, elsewhere):
        anon = Player(home, None)
        assert register(anon, "alba").status_code == 303
        assert register(anon, "alba").status_code == 400, "taken: refused, but it counts"
        assert register(anon, "bruno").status_code == 303  # the third attempt
        assert_limited(register(anon, "carla"), "Too many new accounts from your address", 600)
        assert users(home) == ["alba", "bruno"], "nothing created over the limit"
        assert register(Player(elsewhere, None), "carla").status_code == 303, \
            "another address is not limited"
        assert register(Player(elsewhere, None), "dario").status_code == 303
        # Guests are counted separately: the address may still play as a guest.
        assert anon.post("/guest", data={"csrf_token": anon.csrf()}).status_code == 303


def test_guest_accounts_are_limited_per_address(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    monkeypatch.setenv("ELGRANDE_GUESTS_PER_CLIENT", "2")
    with clients(make_app(tmp_path)) as (home, elsewhere):
        anon = Player(home, None)
        first = anon.post("/guest", data={"csrf_token": anon.csrf()})
        assert first.status_code == 303
        assert anon.post("/guest", data={"csrf_token": anon.csrf()}).status_code == 303
        assert user_count(home) == 2
        window = Limits().account_window
        assert_limited(anon.post("/guest", data={"csrf_token": anon.csrf()}),
                       "Too many guest accounts from your address", window)
        assert_limited(anon.post("/play-now", data={"csrf_token": anon.csrf()}),
                       "Too many guest accounts from your address", window)
        assert user_count(home) == 2, "no guest over the limit"
        assert count(home, Game) == 0, "nor a game"
        # A guest who has an account already creates none: not counted, not refused.
        guest = Player(home, first.cookies[SESSION_COOKIE])
        assert guest.post("/guest", data={"csrf_token": guest.csrf()}).status_code == 303
        assert user_count(home) == 2
        # Registering is a separate limit; another address has its own guest limit.
        assert register(anon, "elena").status_code == 303
        other = Player(elsewhere, None)
        assert other.post("/guest", data={"csrf_token": other.csrf()}).status_code == 303
        assert user_count(home) == 4


def test_a_refused_csrf_is_not_an_attempt(monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    """Only requests that could create an account count: a forged form does not use up
    the address's allowance (it is refused with 403 before)."""
    monkeypatch.setenv("ELGRANDE_GUESTS_PER_CLIENT", "1")
    with clients(make_app(tmp_path)) as (home, _):
        anon = Player(home, None)
        for _ in range(3):
            assert anon.post("/guest", data={"csrf_token": "forged"}).status_code == 403
        assert anon.post("/guest", data={"csrf_token": anon.csrf()}).status_code == 303


def test_account_limits_are_shared_through_redis(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path,
                                                 redis_server: RedisServer) -> None:  # noqa: F811
    """Two server processes (two apps) on one Redis: an address's guests are counted
    across both, as failed logins are."""
    monkeypatch.setenv("ELGRANDE_PUBSUB_URL", redis_server.url)
    monkeypatch.setenv("ELGRANDE_GUESTS_PER_CLIENT", "2")
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    one, two = make_app(tmp_path / "one"), make_app(tmp_path / "two")
    with TestClient(one, follow_redirects=False, client=HOME) as a, \
            TestClient(two, follow_redirects=False, client=HOME) as b:
        on_a, on_b = Player(a, None), Player(b, None)
        assert on_a.post("/guest", data={"csrf_token": on_a.csrf()}).status_code == 303
        assert on_b.post("/guest", data={"csrf_token": on_b.csrf()}).status_code == 303
        assert_limited(on_a.post("/guest", data={"csrf_token": on_a.csrf()}),
                       "Too many guest accounts", Limits().account_window)
        assert user_count(a) == 1 and user_count(b) == 1


def test_limits_from_the_settings() -> None:
    assert (Limits().registrations_per_client, Limits().guests_per_client,
            Limits().account_window) == (20, 60, 3600)
    key = {"ELGRANDE_SECRET_KEY": "k" * 32}
    assert Limits.from_settings(Settings.load(key)) == Limits(), "the same defaults"
    limits = Limits.from_settings(Settings.load({
        **key, "ELGRANDE_REGISTRATIONS_PER_CLIENT": "5", "ELGRANDE_GUESTS_PER_CLIENT": " 0 ",
        "ELGRANDE_ACCOUNT_WINDOW": "90.5"}))
    assert (limits.registrations_per_client, limits.guests_per_client,
            limits.account_window, limits.login_window) == (5, 0, 90.5, Limits().login_window)
    for name, value in [
        ("ELGRANDE_GUESTS_PER_CLIENT", "many"), ("ELGRANDE_REGISTRATIONS_PER_CLIENT", "-1"),
        ("ELGRANDE_REGISTRATIONS_PER_CLIENT", "2.5"), ("ELGRANDE_ACCOUNT_WINDOW", "0"),
        ("ELGRANDE_ACCOUNT_WINDOW", "nan"), ("ELGRANDE_ACCOUNT_WINDOW", "an hour"),
        ("ELGRANDE_LOGIN_FAILURES_PER_NAME", "0"), ("ELGRANDE_MAX_BODY", "64k"),
    ]:
        with pytest.raises(SettingsError, match=f"^{name}: {value!r} is not valid"):
            Settings.load({**key, name: value})


def test_a_bad_setting_stops_the_app_from_starting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ELGRANDE_GUESTS_PER_CLIENT", "lots")
    with pytest.raises(SettingsError, match="ELGRANDE_GUESTS_PER_CLIENT"):
        Settings.load()


def test_zero_means_no_limit() -> None:
    limits = AccountLimits(MemoryLimiter(3600), registrations_per_client=0, guests_per_client=1)
    for _ in range(1000):
        limits.admit("registration", "127.0.0.1")
    limits.admit("guest", "127.0.0.1")
    with pytest.raises(AccountLimitReached, match="Too many guest accounts"):
        limits.admit("guest", "127.0.0.1")


def test_the_benchmark_servers_have_no_account_limit(tmp_path: Path) -> None:
    from elgrande.loadgen.launch import ServerProcess

    env = ServerProcess("sqlite:///unused.db", None, tmp_path).env
    limits = Limits.from_settings(Settings.load(env))
    assert limits.guests_per_client == 0 and limits.registrations_per_client == 0
    limited = ServerProcess("sqlite:///unused.db", None, tmp_path,
                            extra_env={"ELGRANDE_GUESTS_PER_CLIENT": "5"}).env
    assert Limits.from_settings(Settings.load(limited)).guests_per_client == 5, \
        "a test may still set one"
