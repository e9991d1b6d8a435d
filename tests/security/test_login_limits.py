"""Logins (issue 11, items 2, 5, 6 and 10): every attempt limited per address, successful
ones per account, wrong passwords per (name, address) so nobody can lock an account out;
the name limited is the name used (repeated fields refused, multipart counted by name);
hashes in a bounded pool of their own; unknown names as slow as known ones; invitations
by name limited per user and address."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient

from elgrande.server import passwords
from elgrande.server.passwords import HashingBusy, HashPool
from elgrande.server.security import SESSION_COOKIE

from .conftest import Player, make_app, services

pytestmark = pytest.mark.timeout(60)

HOME = ("203.0.113.7", 40000)  # documentation addresses (RFC 5737), one per "client"
ELSEWHERE = ("198.51.100.9", 40000)
PASSWORD = "amber tractor ninety"


@pytest.fixture(autouse=True)
def cheap_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hashes as the server makes them, only cheaper: these tests count, not time."""
    monkeypatch.setattr(passwords, "_hasher", PasswordHasher(time_cost=1, memory_cost=64,
                                                             parallelism=1))


@contextmanager
def clients(tmp_path: Path, **settings: Any) -> Iterator[tuple[Player, Player]]:
    """Anonymous visitors from two addresses, on one app with an account "owner"."""
    app = make_app(tmp_path, **settings)
    with TestClient(app, follow_redirects=False, client=HOME) as home:
        services(home).accounts.register("owner", PASSWORD)
        yield (Player(home, None), Player(TestClient(app, follow_redirects=False,
                                                     client=ELSEWHERE), None))


def login(who: Player, name: str, password: str, **extra: str) -> Any:
    return who.post("/login", data={"name": name, "password": password,
                                    "csrf_token": who.csrf(), **extra})


def test_guessing_from_one_address_does_not_lock_the_owner_out(tmp_path: Path) -> None:
    with clients(tmp_path, login_failures_per_name=3) as (attacker, owner):
        assert [login(attacker, "owner", f"guess {i}").status_code for i in range(3)] == [400] * 3
        refused = login(attacker, "owner", "guess 4")
        assert refused.status_code == 429 and "Too many failed logins for this name" in refused.text
        assert int(refused.headers["retry-after"]) > 0
        ok = login(owner, "owner", PASSWORD)  # the owner, elsewhere, with the right password
        assert ok.status_code == 303 and ok.cookies.get(SESSION_COOKIE)
        # The guesser stays slowed, whatever the case of the name it tries.
        assert login(attacker, "OWNER", PASSWORD).status_code == 429


def test_every_login_attempt_counts_per_address(tmp_path: Path) -> None:
    with clients(tmp_path, logins_per_client=3) as (home, elsewhere):
        assert [login(home, "owner", PASSWORD).status_code for _ in range(3)] == [303] * 3
        refused = login(home, "owner", PASSWORD)
        assert refused.status_code == 429 and "Too many logins from your address" in refused.text
        assert SESSION_COOKIE not in refused.headers.get("set-cookie", "")
        assert login(elsewhere, "owner", PASSWORD).status_code == 303


def test_successful_logins_count_per_account(tmp_path: Path) -> None:
    with clients(tmp_path, logins_per_account=2) as (home, elsewhere):
        assert login(home, "owner", PASSWORD).status_code == 303
        assert login(elsewhere, "owner", PASSWORD).status_code == 303
        refused = login(elsewhere, "Owner", PASSWORD)
        assert refused.status_code == 429 and "Too many logins to this account" in refused.text


def test_a_repeated_field_is_refused_and_counts_nothing(tmp_path: Path) -> None:
    with clients(tmp_path, login_failures_per_name=2) as (home, _):
        token = home.csrf()
        for field in ("name", "password", "csrf_token"):
            body = [("name", "owner"), ("password", "wrong one"), ("csrf_token", token)]
            body.append((field, "owner" if field == "name" else "other"))
            response = home.post("/login", content=_urlencoded(body),
                                 headers={"content-type": "application/x-www-form-urlencoded"})
            assert response.status_code == 400 and f"'{field}' is sent more than once" in response.text
        # Nothing was counted: two wrong guesses are still allowed, then the limit.
        assert [login(home, "owner", "wrong").status_code for _ in range(2)] == [400, 400]
        assert login(home, "owner", "wrong").status_code == 429


def test_multipart_logins_are_counted_by_the_name_they_use(tmp_path: Path) -> None:
    with clients(tmp_path, login_failures_per_name=2) as (home, _):
        services(home.client).accounts.register("second", PASSWORD)

        def multipart(name: str, password: str) -> int:
            fields = {"name": name, "password": password, "csrf_token": home.csrf()}
            response = home.post("/login", files={k: (None, v) for k, v in fields.items()})
            return int(response.status_code)

        assert [multipart("owner", "wrong") for _ in range(2)] == [400, 400]
        assert multipart("owner", "wrong") == 429
        assert multipart("second", PASSWORD) == 303, "another name is not in that bucket"


def test_hashes_run_in_their_own_bounded_pool(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    verify = passwords.verify_password

    def recording(stored: str, password: str) -> bool:
        threads.append(threading.current_thread().name)
        return verify(stored, password)

    monkeypatch.setattr(passwords, "verify_password", recording)
    with clients(tmp_path, password_hash_workers=1, password_hash_queue=0) as (home, _):
        assert login(home, "owner", PASSWORD).status_code == 303
        assert threads and all(name.startswith("hash") for name in threads)
        # The one worker busy: a login is answered at once, 429 with Retry-After.
        release = threading.Event()
        busy = threading.Thread(target=services(home.client).accounts.hashes.run,
                                args=(release.wait,))
        busy.start()
        try:
            refused = login(home, "owner", PASSWORD)
        finally:
            release.set()
            busy.join()
        assert refused.status_code == 429 and "busy checking passwords" in refused.text
        assert int(refused.headers["retry-after"]) > 0
        assert login(home, "owner", PASSWORD).status_code == 303  # free again


def test_the_pool_refuses_beyond_its_queue() -> None:
    pool = HashPool(workers=1, queue=1)
    release = threading.Event()
    waiting = [threading.Thread(target=pool.run, args=(release.wait,)) for _ in range(2)]
    for thread in waiting:
        thread.start()
    try:
        for _ in range(100):  # both admitted (one running, one queued) before we go on
            if pool._slots._value == 0:  # type: ignore[attr-defined]
                break
            threading.Event().wait(0.01)
        with pytest.raises(HashingBusy):
            pool.run(len, "x")
    finally:
        release.set()
        for thread in waiting:
            thread.join()
    assert pool.run(len, "abc") == 3
    pool.close()


def test_an_unknown_name_is_checked_against_a_hash_like_a_known_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[str] = []
    verify = passwords.verify_password

    def recording(stored: str, password: str) -> bool:
        checked.append(stored)
        return verify(stored, password)

    monkeypatch.setattr(passwords, "verify_password", recording)
    with clients(tmp_path) as (home, _):
        assert login(home, "nobody-here", PASSWORD).status_code == 400
        assert login(home, "owner", "wrong password").status_code == 400
    assert len(checked) == 2 and all(h.startswith("$argon2id$") for h in checked)
    assert checked[0] == passwords.dummy_hash() != checked[1]


def test_invitations_by_name_are_limited_per_user_and_address(tmp_path: Path) -> None:
    with clients(tmp_path, name_lookups_per_user=2, name_lookups_per_client=3) as (home, _):
        svc = services(home.client)
        svc.accounts.register("prober", PASSWORD)
        prober = Player(home.client, svc.signer.session_cookie(
            svc.accounts.by_name("prober").id))

        def invite(who: Player, name: str) -> Any:
            return who.post("/games", data={"players": "2", "seat0": "me", "seat1": "invited",
                                            "invite1": name, "csrf_token": who.csrf()})

        assert invite(prober, "nobody1").status_code == 400
        assert invite(prober, "owner").status_code == 303
        refused = invite(prober, "nobody2")
        assert refused.status_code == 429 and "Too many invitations by name" in refused.text
        assert "nobody2" not in refused.text, "no answer about the name"
        # The address too: another user from it gets one more, then none.
        svc.accounts.register("helper", PASSWORD)
        helper = Player(home.client, svc.signer.session_cookie(svc.accounts.by_name("helper").id))
        assert invite(helper, "nobody3").status_code == 400
        assert invite(helper, "nobody4").status_code == 429


def _urlencoded(pairs: list[tuple[str, str]]) -> bytes:
    from urllib.parse import urlencode

    return urlencode(pairs).encode()
