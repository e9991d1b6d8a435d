"""Accounts: register, log in, log out, guests; cookies and CSRF."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from elgrande.server.security import SESSION_COOKIE
from elgrande.server.tables import User

from .conftest import As, register, services


def test_register_sets_a_signed_httponly_samesite_cookie(client: TestClient) -> None:
    anon = As(client, None)
    response = anon.post("/register", data={"name": "dora", "password": "amber tractor ninety", "csrf_token": anon.csrf()})
    assert response.status_code == 303 and response.headers["location"] == "/lobby"
    cookie_header = response.headers["set-cookie"]
    assert f"{SESSION_COOKIE}=" in cookie_header
    assert "HttpOnly" in cookie_header and "SameSite=lax" in cookie_header
    dora = As(client, response.cookies.get(SESSION_COOKIE))
    assert "dora" in dora.get("/lobby").text


def test_password_is_stored_as_an_argon2_hash(client: TestClient, anna: As) -> None:
    with services(client).sessions() as db:
        user = db.scalar(select(User).where(User.name == "anna"))
    assert user is not None and user.password_hash is not None
    assert user.password_hash.startswith("$argon2id$")
    assert "correct horse" not in user.password_hash


def test_register_rejects_bad_input_and_creates_nothing(client: TestClient, anna: As) -> None:
    anon = As(client, None)
    for name, password, message in [
        ("anna", "amber tractor ninety", "taken"),
        ("x", "amber tractor ninety", "3 to 24"),
        ("bad name!", "amber tractor ninety", "3 to 24"),
        ("guest-abc", "amber tractor ninety", "guests"),
        ("erik", "short", "at least 8"),
    ]:
        response = anon.post("/register", data={"name": name, "password": password, "csrf_token": anon.csrf()})
        assert response.status_code == 400 and message in response.text
        assert SESSION_COOKIE not in response.headers.get("set-cookie", "")
    with services(client).sessions() as db:
        assert [u.name for u in db.scalars(select(User))] == ["anna"]


def test_login_and_logout(client: TestClient, anna: As) -> None:
    anon = As(client, None)
    wrong = anon.post("/login", data={"name": "anna", "password": "wrong password", "csrf_token": anon.csrf()})
    assert wrong.status_code == 400 and "Wrong name or password" in wrong.text
    unknown = anon.post("/login", data={"name": "nobody", "password": "whatever1", "csrf_token": anon.csrf()})
    assert unknown.status_code == 400
    ok = anon.post("/login", data={"name": "anna", "password": "correct horse", "csrf_token": anon.csrf(),
                                   "next": "/games/1"})
    assert ok.status_code == 303 and ok.headers["location"] == "/games/1"
    session = As(client, ok.cookies.get(SESSION_COOKIE))
    assert session.get("/lobby").status_code == 200
    out = session.post("/logout", data={"csrf_token": session.csrf()})
    assert out.status_code == 303 and 'elgrande_session=""' in out.headers["set-cookie"]
    # The old cookie is worth nothing now (tests/security/test_accounts_sessions.py).
    assert session.get("/lobby").status_code == 303


def test_login_redirect_only_to_local_paths(client: TestClient, anna: As) -> None:
    anon = As(client, None)
    for target in ["https://evil.example/", "//evil.example/x", "/\\evil"]:
        ok = anon.post("/login", data={"name": "anna", "password": "correct horse",
                                       "csrf_token": anon.csrf(), "next": target})
        assert ok.headers["location"] == "/lobby"


def test_forms_without_a_valid_csrf_token_are_refused(client: TestClient, anna: As) -> None:
    anon = As(client, None)
    assert anon.post("/register", data={"name": "erik", "password": "amber tractor ninety"}).status_code == 403
    assert anon.post("/login", data={"name": "anna", "password": "correct horse", "csrf_token": "forged"}).status_code == 403
    # A token made for another session does not do either.
    assert anna.post("/logout", data={"csrf_token": anon.csrf()}).status_code == 403
    assert anna.post("/games", data={"players": "2", "seat0": "me", "seat1": "open"}).status_code == 403


def test_a_tampered_cookie_is_not_a_session(client: TestClient, anna: As) -> None:
    assert anna.cookie is not None
    forged = As(client, anna.cookie[:-2] + ("AA" if not anna.cookie.endswith("AA") else "BB"))
    response = forged.get("/lobby")
    assert response.status_code == 303 and response.headers["location"].startswith("/login")


def test_guest_play_now_starts_a_game_against_two_computers(client: TestClient) -> None:
    anon = As(client, None)
    response = anon.post("/play-now", data={"csrf_token": anon.csrf()})
    assert response.status_code == 303 and response.headers["location"].startswith("/games/")
    guest = As(client, response.cookies.get(SESSION_COOKIE))
    game_id = int(response.headers["location"].rsplit("/", 1)[1])
    view = guest.get(f"/api/games/{game_id}").json()
    assert view["seat"] == 0 and [p["kind"] for p in view["players"]] == ["human", "bot", "bot"]
    assert view["players"][0]["name"].startswith("guest-")


def test_registering_a_name_twice_is_refused_whatever_its_case(client: TestClient) -> None:
    register(client, "Frida")
    anon = As(client, None)
    for name in ("Frida", "frida", "FRIDA"):
        again = anon.post("/register", data={"name": name, "password": "amber tractor ninety",
                                             "csrf_token": anon.csrf()})
        assert again.status_code == 400 and "taken" in again.text
