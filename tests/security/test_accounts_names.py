"""Names and passwords (issue 11, item 12): names unique after NFKC and case folding,
refused when confusable with an existing one; passwords checked against the common ones
and zxcvbn's estimate; migration 0004 backfilling the keys of existing users."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient
from sqlalchemy import select, text

from elgrande.db.engine import make_engine
from elgrande.migrations import check, upgrade
from elgrande.server import passwords
from elgrande.server.accounts import Accounts
from elgrande.server.names import name_key, skeleton
from elgrande.server.passwords import WeakPassword, check_strength
from elgrande.server.tables import User

from .conftest import anonymous, services

PASSWORD = "amber tractor ninety"


@pytest.fixture(autouse=True)
def cheap_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(passwords, "_hasher", PasswordHasher(time_cost=1, memory_cost=64,
                                                             parallelism=1))


def register(client: TestClient, name: str, password: str = PASSWORD) -> tuple[int, str]:
    anon = anonymous(client)
    response = anon.post("/register", data={"name": name, "password": password,
                                             "csrf_token": anon.csrf()})
    return response.status_code, response.text


def names(client: TestClient) -> list[str]:
    with services(client).sessions() as db:
        return sorted(db.scalars(select(User.name)))


def test_names_differing_only_in_case_are_one_name(client: TestClient) -> None:
    assert register(client, "Mallory")[0] == 303
    for name in ("mallory", "MALLORY", " mallory "):
        status, page = register(client, name)
        assert status == 400 and "That name is taken" in page
    assert names(client) == ["Mallory"]


@pytest.mark.parametrize("lookalike", ["maIlory", "ma1lory", "rnallory", "MaIl0ry"])
def test_names_confusable_with_an_existing_one_are_refused(client: TestClient,
                                                           lookalike: str) -> None:
    assert register(client, "mallory")[0] == 303
    status, page = register(client, lookalike)
    assert status == 400 and "looks too much like an existing one" in page
    assert names(client) == ["mallory"]


def test_a_different_name_is_still_welcome(client: TestClient) -> None:
    assert register(client, "mallory")[0] == 303
    assert register(client, "malory")[0] == 303


@pytest.mark.parametrize(("password", "message"), [
    ("password", "most common"), ("12345678", "most common"), ("Password1", "most common"),
    ("qwertyuiop", "most common"), ("dora1234", "too easy to guess"),
    ("short", "at least 8"), ("x" * 201, "at most 200"),
])
def test_weak_passwords_are_refused(client: TestClient, password: str, message: str) -> None:
    status, page = register(client, "dora", password)
    assert status == 400 and message in page
    assert names(client) == []


def test_the_strength_estimate_knows_the_name() -> None:
    check_strength("correct horse battery staple", "dora")
    with pytest.raises(WeakPassword):
        check_strength("mallory2026!", "mallory")  # strong enough for anyone else


def test_login_finds_the_name_whatever_its_case(client: TestClient) -> None:
    assert register(client, "Mallory")[0] == 303
    anon = anonymous(client)
    response = anon.post("/login", data={"name": "mALLORY", "password": PASSWORD,
                                         "csrf_token": anon.csrf()})
    assert response.status_code == 303


def test_migration_0004_backfills_keys_and_suffixes_later_duplicates(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'dupes.db'}")
    upgrade(engine, "0003_bot_leases")
    start = datetime(2026, 1, 1, tzinfo=UTC)
    with engine.begin() as conn:  # as the previous release let them be made
        for user_id, name, days in [(1, "mallory", 2), (2, "Mallory", 1), (3, "MALLORY", 3),
                                    (4, "bob", 0)]:
            conn.execute(text("INSERT INTO web_users (id, name, password_hash, is_guest, "
                              "created_at) VALUES (:id, :name, :hash, 0, :at)"),
                         {"id": user_id, "name": name, "hash": passwords.hash_password(PASSWORD),
                          "at": start + timedelta(days=days)})
    upgrade(engine)
    assert check(engine) == []
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT name, name_key, name_skeleton, session_generation "
                                 "FROM web_users ORDER BY id")).all()
    assert [tuple(r) for r in rows] == [
        ("mallory", "mallory~1", skeleton("mallory"), 0),
        ("Mallory", "mallory", skeleton("Mallory"), 0),  # the oldest keeps the plain key
        ("MALLORY", "mallory~3", skeleton("MALLORY"), 0),
        ("bob", name_key("bob"), skeleton("bob"), 0),
    ]
    from sqlalchemy.orm import sessionmaker

    accounts = Accounts(sessionmaker(engine, expire_on_commit=False))
    for name in ("mallory", "Mallory", "MALLORY"):  # each still logs in by its exact name
        user = accounts.login(name, PASSWORD, "127.0.0.1")
        assert user is not None and user.name == name
    found = accounts.login("mAlLoRy", PASSWORD, "127.0.0.1")
    assert found is not None and found.name == "Mallory"
    engine.dispose()
