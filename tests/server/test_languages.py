"""The site in English, German and French (docs/i18n.md): the language of a request,
the header's switch, a player's choice kept in the account, the scripts' catalogs, and
the move log shown to each reader in their own language."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from elgrande.server.i18n import format_number, lang_for, negotiate, using
from elgrande.server.i18n.pseudo import pseudo
from elgrande.server.security import SESSION_COOKIE

from .conftest import As, create_game, services, start_game


@pytest.mark.parametrize(("cookie", "header", "expected"), [
    (None, None, "en"),
    (None, "de-DE,de;q=0.9,en;q=0.8", "de"),
    (None, "es, fr;q=0.5, de;q=0.4", "fr"),
    (None, "de;q=0, fr;q=0.1", "fr"),
    ("fr", "de", "fr"),
    ("xx", "de", "de"),
    (None, "garbage;q=abc", "en"),
])
def test_the_language_comes_from_the_cookie_else_accept_language(
        cookie: str | None, header: str | None, expected: str) -> None:
    assert negotiate(cookie, header) == expected


def test_numbers_plurals_and_the_pseudo_language() -> None:
    with using("de"):
        assert format_number(12345) == "12.345"
    with using("fr"):
        assert format_number(12345) == "12\u202f345"
    assert lang_for("de").ngettext("%(num)s Caballero", "%(num)s Caballeros", 2) == "%(num)s Caballeros"
    assert pseudo("Seat %(number)s <b>x</b>").startswith("⟦")
    assert "%(number)s" in pseudo("Seat %(number)s") and "<b>" in pseudo("<b>x</b>")


def test_remembered_numbers_stay_in_each_language() -> None:
    """Integers are formatted once per language and value (Babel is slow): the same
    number asked in turn in each language comes out as that language writes it, as
    Babel itself writes it, and a float is still formatted in full."""
    from babel import numbers
    for _ in range(2):
        for code, thousand in (("en", "1,234"), ("de", "1.234"), ("fr", "1\u202f234")):
            with using(code):
                assert format_number(1234) == thousand
                for n in (-7, 0, 3, 99, 1_000_000):
                    assert format_number(n) == numbers.format_decimal(n, locale=code)
                assert format_number(2.5) == numbers.format_decimal(2.5, locale=code)  # type: ignore[arg-type]


def test_pages_follow_accept_language_and_the_switch(client: TestClient) -> None:
    german = client.get("/", headers={"accept-language": "de"})
    assert '<html lang="de"' in german.text and "Anmelden" in german.text
    assert "Log in" not in german.text
    french = client.get("/login", headers={"accept-language": "fr"})
    assert "Se connecter" in french.text and "Mot de passe" in french.text
    # The switch: a visitor's choice is a cookie, which beats Accept-Language.
    page = client.get("/", headers={"accept-language": "de"})
    csrf = page.text.split('name="csrf_token" value="')[1].split('"')[0]
    chosen = client.post("/language", data={"lang": "fr", "next": "/login", "csrf_token": csrf},
                         headers={"accept-language": "de"})
    assert chosen.status_code == 303 and chosen.headers["location"] == "/login"
    assert chosen.cookies.get("lang") == "fr"
    assert "Se connecter" in client.get("/", headers={"accept-language": "de"}).text
    refused = client.post("/language", data={"lang": "qps", "csrf_token": csrf})
    assert refused.status_code == 400  # the pseudo-language only with its setting


def test_a_registered_players_choice_is_kept_in_the_account(client: TestClient, anna: As) -> None:
    response = anna.post("/language", data={"lang": "de", "csrf_token": anna.csrf()})
    assert response.status_code == 303
    user = services(client).accounts.by_name("anna")
    assert user.language == "de"
    # Logging in from another browser brings the choice back.
    client.cookies.clear()
    fresh = As(client, None)
    login = fresh.post("/login", data={"name": "anna", "password": "correct horse",
                                       "csrf_token": fresh.csrf()})
    assert login.status_code == 303 and login.cookies.get("lang") == "de"
    assert login.cookies.get(SESSION_COOKIE)


def test_the_scripts_catalog_is_json_with_plural_forms(client: TestClient) -> None:
    data = client.get("/i18n/fr.json").json()
    assert data["locale"] == "fr" and data["plural"] == ["one", "many", "other"]
    assert data["messages"]["Done"] == "Terminé"
    forms = data["messages"]["%(num)s day left"]
    assert len(forms) == 3
    assert client.get("/i18n/de.json").json()["messages"]["Done"] == "Fertig"
    assert client.get("/i18n/xx.json").status_code == 404
    page = client.get("/", headers={"accept-language": "de"}).text
    assert 'data-catalog="/i18n/de.json?v=' in page


def _state(user: As, game_id: int, language: str) -> Any:
    headers = user.headers({"accept-language": language})
    user.client.cookies.clear()
    return user.client.get(f"/api/games/{game_id}", headers=headers).json()


def test_two_players_read_one_game_in_their_own_languages(client: TestClient, anna: As) -> None:
    game_id = create_game(anna, ["me", "bot", "bot"])
    start_game(anna, game_id)
    german = _state(anna, game_id, "de")
    french = _state(anna, game_id, "fr")
    english = _state(anna, game_id, "en")
    first = [line["text"] for line in english["log"]]
    assert any("starts in" in line for line in first)
    assert any("beginnt in" in line["text"] for line in german["log"])
    assert any("commence en" in line["text"] for line in french["log"])
    # The cached views are per language: asking again in German stays German.
    assert _state(anna, game_id, "de")["log"] == german["log"]
    if german["prompt"]:
        assert german["prompt"] != english["prompt"]
    assert german["cards"][0]["name"] != english["cards"][0]["name"] or \
        german["cards"][0]["text"] != english["cards"][0]["text"]
