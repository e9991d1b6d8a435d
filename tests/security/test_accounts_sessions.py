"""Sessions end for good (issue 11, item 9): logout, a password change and "log out
everywhere" advance the user's session generation, so old cookies and CSRF tokens stop
working; the account page; a guest is warned before logging out."""

from __future__ import annotations

from typing import Any

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient

from elgrande.server import passwords
from elgrande.server.security import SESSION_COOKIE

from .conftest import Player, anonymous, guest, services

PASSWORD = "amber tractor ninety"
NEW_PASSWORD = "violet kettle drums"


@pytest.fixture(autouse=True)
def cheap_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(passwords, "_hasher", PasswordHasher(time_cost=1, memory_cost=64,
                                                             parallelism=1))


def log_in(client: TestClient, name: str = "owner", password: str = PASSWORD) -> Player:
    anon = anonymous(client)
    response = anon.post("/login", data={"name": name, "password": password,
                                         "csrf_token": anon.csrf()})
    assert response.status_code == 303, response.text
    return Player(client, response.cookies.get(SESSION_COOKIE))


@pytest.fixture
def owner(client: TestClient) -> Player:
    services(client).accounts.register("owner", PASSWORD)
    return log_in(client)


def create_game(player: Player, token: str | None = None) -> Any:
    return player.post("/games", data={"players": "2", "seat0": "me", "seat1": "open",
                                       "csrf_token": token or player.csrf()})


def test_logout_ends_the_session_and_its_csrf_token(client: TestClient, owner: Player) -> None:
    token = owner.csrf()
    out = owner.post("/logout", data={"csrf_token": token})
    assert out.status_code == 303
    assert owner.get("/lobby").status_code == 303, "the old cookie is no session"
    assert create_game(owner, token).status_code == 401
    assert owner.get("/api/games/1").status_code in (401, 404)
    # Logging in again makes a new session that works.
    again = log_in(client)
    assert again.get("/lobby").status_code == 200
    assert create_game(again).status_code == 303


def test_log_out_everywhere_keeps_only_this_session(client: TestClient, owner: Player) -> None:
    phone = log_in(client)
    done = owner.post("/account/logout-everywhere", data={"csrf_token": owner.csrf()})
    assert done.status_code == 303 and done.headers["location"] == "/account?done=everywhere"
    here = Player(client, done.cookies.get(SESSION_COOKIE))
    assert "Every other session has ended" in here.get(done.headers["location"]).text
    assert phone.get("/lobby").status_code == 303 and owner.get("/lobby").status_code == 303


def test_password_change_ends_other_sessions(client: TestClient, owner: Player) -> None:
    phone = log_in(client)
    page = owner.get("/account")
    assert page.status_code == 200 and 'action="/account/password"' in page.text
    changed = owner.post("/account/password", data={
        "current_password": PASSWORD, "new_password": NEW_PASSWORD, "csrf_token": owner.csrf()})
    assert changed.status_code == 303
    here = Player(client, changed.cookies.get(SESSION_COOKIE))
    assert here.get("/lobby").status_code == 200
    assert phone.get("/lobby").status_code == 303
    assert anonymous(client).post("/login", data={"name": "owner", "password": PASSWORD,
                                                  "csrf_token": anonymous(client).csrf()}
                                  ).status_code in (400, 403)
    log_in(client, password=NEW_PASSWORD)


@pytest.mark.parametrize(("current", "new", "message"), [
    ("wrong password", NEW_PASSWORD, "current password is wrong"),
    (PASSWORD, "password", "most common"),
    (PASSWORD, "owner123456", "too easy to guess"),
])
def test_a_refused_password_change_changes_nothing(client: TestClient, owner: Player,
                                                   current: str, new: str, message: str) -> None:
    refused = owner.post("/account/password", data={
        "current_password": current, "new_password": new, "csrf_token": owner.csrf()})
    assert refused.status_code == 400 and message in refused.text
    assert owner.get("/lobby").status_code == 200, "the session goes on"
    log_in(client)  # the old password still works


def test_the_account_page_needs_a_login(client: TestClient) -> None:
    response = anonymous(client).get("/account")
    assert response.status_code == 303 and response.headers["location"] == "/login?next=/account"


def test_a_guest_is_warned_before_logging_out(client: TestClient) -> None:
    player = guest(client)
    name = services(client).accounts.get(player.user_id).name
    warned = player.post("/logout", data={"csrf_token": player.csrf()})
    assert warned.status_code == 200 and "set-cookie" not in warned.headers
    assert name in warned.text and "will be" in warned.text and "lost" in warned.text
    assert 'name="confirm" value="yes"' in warned.text
    assert player.get("/lobby").status_code == 200, "nothing happened yet"
    out = player.post("/logout", data={"csrf_token": player.csrf(), "confirm": "yes"})
    assert out.status_code == 303 and player.get("/lobby").status_code == 303
    assert "guest-warning" in guest(client).get("/account").text


def test_a_cookie_from_before_generations_is_generation_zero(client: TestClient,
                                                             owner: Player) -> None:
    """Cookies made by the previous release held the bare id: guests keep their accounts
    across the upgrade, and the first logout ends such a cookie like any other."""
    svc = services(client)
    user = svc.accounts.by_name("owner")
    legacy = Player(client, svc.signer._session.dumps(user.id))  # type: ignore[attr-defined]
    assert legacy.get("/lobby").status_code == 200
    owner.post("/logout", data={"csrf_token": owner.csrf()})
    assert legacy.get("/lobby").status_code == 303


def test_guessing_the_current_password_is_limited_like_logins(tmp_path: Any) -> None:
    from .conftest import make_app

    with TestClient(make_app(tmp_path, login_failures_per_name=2),
                    follow_redirects=False) as client:
        services(client).accounts.register("owner", PASSWORD)
        thief = log_in(client)  # a stolen session

        def change(current: str) -> int:
            return int(thief.post("/account/password", data={
                "current_password": current, "new_password": NEW_PASSWORD,
                "csrf_token": thief.csrf()}).status_code)

        assert [change("guess 1"), change("guess 2")] == [400, 400]
        assert change(PASSWORD) == 429, "the guesser is slowed, even when it guesses right"


def test_a_guest_is_warned_on_the_login_and_register_pages(client: TestClient) -> None:
    player = guest(client)
    for path in ("/login", "/register"):
        page = player.get(path).text
        assert 'id="guest-warning"' in page and "behind for good" in page
    assert 'id="guest-warning"' not in anonymous(client).get("/login").text
