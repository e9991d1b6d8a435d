"""Cross-site logins (issue 11, item 4): a logged-out visitor's CSRF token is tied to a
random id in that browser's own cookie, so a token an attacker fetched for themselves is
worth nothing in the victim's browser; and every state-changing request whose Origin (or,
without one, Referer) is another site is refused with 403 before it does anything."""

from __future__ import annotations

from typing import Any

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from elgrande.server import passwords
from elgrande.server.security import BROWSER_COOKIE, SESSION_COOKIE
from elgrande.server.tables import User

from .conftest import Player, anonymous, guest, services

PASSWORD = "amber tractor ninety"
EVIL = "https://evil.example"


@pytest.fixture(autouse=True)
def cheap_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(passwords, "_hasher", PasswordHasher(time_cost=1, memory_cost=64,
                                                             parallelism=1))


def users(client: TestClient) -> int:
    with services(client).sessions() as db:
        return int(db.scalar(select(func.count()).select_from(User)) or 0)


def test_the_first_page_sets_a_browser_cookie_and_tokens_differ_per_browser(
        client: TestClient) -> None:
    first = client.get("/login")
    cookie = first.headers["set-cookie"]
    assert f"{BROWSER_COOKIE}=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
    one, two = anonymous(client), anonymous(client)
    earlier = one.csrf()
    assert earlier != two.csrf() and one.browser != two.browser
    # A token names its browser and carries the second it was signed in, so two
    # visits may show different texts; what counts is that an earlier page's token
    # stays good for its own browser, and only for it.
    signer = services(client).signer
    one.csrf()
    assert signer.check_csrf(earlier, None, one.browser), "the same browser keeps its token"
    assert not signer.check_csrf(earlier, None, two.browser)


def test_a_token_from_another_browser_does_not_log_in(client: TestClient) -> None:
    services(client).accounts.register("attacker", PASSWORD)
    attacker, victim = anonymous(client), anonymous(client)
    victim.csrf()  # the victim has visited: it has its own browser cookie
    token = attacker.csrf()
    for who in (victim, anonymous(client)):  # with its own cookie, or none at all
        forged = who.post("/login", data={"name": "attacker", "password": PASSWORD,
                                           "csrf_token": token})
        assert forged.status_code == 403 and SESSION_COOKIE not in forged.headers.get(
            "set-cookie", "")
    ok = attacker.post("/login", data={"name": "attacker", "password": PASSWORD,
                                       "csrf_token": token})
    assert ok.status_code == 303


@pytest.mark.parametrize("path", ["/login", "/register", "/guest", "/play-now"])
def test_forged_account_forms_from_another_browser_create_nothing(client: TestClient,
                                                                  path: str) -> None:
    token = anonymous(client).csrf()
    victim = anonymous(client)
    victim.csrf()
    response = victim.post(path, data={"name": "forged", "password": PASSWORD,
                                       "csrf_token": token})
    assert response.status_code == 403 and users(client) == 0


@pytest.mark.parametrize("header", [{"origin": EVIL}, {"origin": "null"},
                                    {"referer": f"{EVIL}/page"},
                                    {"origin": "http://testserver.evil.example"}])
def test_cross_origin_posts_are_refused_with_a_clear_message(client: TestClient,
                                                             header: dict[str, str]) -> None:
    services(client).accounts.register("attacker", PASSWORD)
    anon = anonymous(client)
    for path in ("/login", "/guest", "/play-now", "/register"):
        response = anon.post(path, data={"name": "attacker", "password": PASSWORD,
                                          "csrf_token": anon.csrf()}, headers=header)
        assert response.status_code == 403, path
        assert "came from another site" in response.text
        assert SESSION_COOKIE not in response.headers.get("set-cookie", "")
    assert users(client) == 1


def test_a_logged_in_guest_is_not_logged_out_by_a_foreign_page(client: TestClient) -> None:
    player = guest(client)
    for path in ("/login", "/logout", "/guest", "/play-now"):
        response = player.post(path, data={"name": "x", "password": PASSWORD,
                                            "csrf_token": player.csrf(), "confirm": "yes"},
                               headers={"origin": EVIL})
        assert response.status_code == 403 and "set-cookie" not in response.headers
    assert player.get("/lobby").status_code == 200, "still the guest, account kept"


def test_api_commands_from_another_origin_are_refused(client: TestClient) -> None:
    player = guest(client)
    response = player.post("/api/games/1/step", json={"action": "x", "seq": 0},
                           headers={"x-csrf-token": player.csrf(), "origin": EVIL})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "cross_origin"


@pytest.mark.parametrize("header", [{"origin": "http://testserver"},
                                    {"referer": "http://testserver/login"}, {}])
def test_same_origin_and_headerless_posts_pass(client: TestClient,
                                               header: dict[str, str]) -> None:
    services(client).accounts.register("owner", PASSWORD)
    anon = anonymous(client)
    response = anon.post("/login", data={"name": "owner", "password": PASSWORD,
                                         "csrf_token": anon.csrf()}, headers=header)
    assert response.status_code == 303


def test_the_origin_check_compares_host_and_default_ports() -> None:
    from elgrande.server.hardening.middleware import same_origin

    def scope(host: str, **headers: str) -> dict[str, Any]:
        raw = [(b"host", host.encode())] + [(k.encode(), v.encode()) for k, v in headers.items()]
        return {"headers": raw}

    assert same_origin(scope("example.org", origin="https://example.org"))
    assert same_origin(scope("example.org", origin="https://example.org:443"))
    assert same_origin(scope("localhost:8000", origin="http://localhost:8000"))
    assert not same_origin(scope("localhost:8000", origin="http://localhost:8001"))
    assert not same_origin(scope("example.org", origin="https://example.org.evil.example"))
    assert not same_origin(scope("example.org", referer="javascript:alert(1)"))
    assert not same_origin(scope("", origin="https://example.org"))


def test_players_of_the_suite_keep_working(client: TestClient) -> None:
    """The helper every test uses: a visitor who loads a page, then posts its form."""
    player: Player = anonymous(client)
    assert player.post("/guest", data={"csrf_token": player.csrf()}).status_code == 303

