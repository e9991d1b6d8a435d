"""The server's refusals and texts outside the game page in the reader's language
(docs/i18n.md): a German request gets German, a French one French, anything else the
English source text."""

from __future__ import annotations

import html
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from elgrande.server.clocks.rules import PRESETS, duration
from elgrande.server.hardening.limits import _duration
from elgrande.server.i18n import _, using
from elgrande.server.settings import Settings
from tests.apps import app_for

from .conftest import As, create_game, register

DE = {"accept-language": "de"}
FR = {"accept-language": "fr"}


def text(response: Any) -> str:
    return html.unescape(str(response.text))


def test_a_bad_password_change_is_refused_in_the_readers_language(anna: As) -> None:
    def change(current: str, new: str, headers: dict[str, str]) -> Any:
        return anna.post("/account/password", headers=headers, data={
            "current_password": current, "new_password": new, "csrf_token": anna.csrf()})

    wrong = change("not my password", "a much better passphrase 42", DE)
    assert wrong.status_code == 400 and "Das aktuelle Passwort ist falsch." in text(wrong)
    short = change("correct horse", "short", FR)
    assert short.status_code == 400
    assert "Un mot de passe doit compter au moins 8 caractères." in text(short)
    english = change("not my password", "a much better passphrase 42", {})
    assert "The current password is wrong." in text(english)


def test_registration_and_login_refusals(client: TestClient) -> None:
    visitor = As(client, None)
    bad = visitor.post("/register", headers=FR, data={
        "name": "x", "password": "correct horse battery", "csrf_token": visitor.csrf()})
    assert bad.status_code == 400
    assert "Un nom compte de 3 à 24 lettres, chiffres" in text(bad)
    wrong = visitor.post("/login", headers=DE, data={
        "name": "nobody", "password": "whatever it is", "csrf_token": visitor.csrf()})
    assert wrong.status_code == 400 and "Falscher Name oder falsches Passwort." in text(wrong)
    forged = visitor.post("/login", headers=DE, data={"name": "a", "password": "b",
                                                      "csrf_token": "forged"})
    assert forged.status_code == 403 and "Ungültiges oder fehlendes CSRF-Token" in text(forged)


def test_lobby_refusals_and_api_errors(client: TestClient, anna: As) -> None:
    data = {"players": "2", "rounds": "9", "seat0": "me", "seat1": "invited",
            "invite1": "anna", "csrf_token": anna.csrf()}
    myself = anna.post("/games", headers=FR, data=data)
    assert myself.status_code == 400
    assert "Vous ne pouvez pas vous inviter vous-même." in text(myself)
    nobody = anna.post("/games", headers=DE, data={**data, "invite1": "zoe"})
    assert "Es gibt keinen Spieler namens 'zoe'." in text(nobody)
    assert client.get("/api/games/999", headers=FR).json()["detail"] == \
        "Cette partie n'existe pas."
    assert client.get("/api/games/999").json()["detail"] == "No such game."


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'capped.db'}", secret_key="k" * 32,
                        bot_delay=0.0, waiting_games_per_user=1)
    with TestClient(app_for(settings), follow_redirects=False) as c:
        yield c


def test_a_lobby_cap_is_explained_in_german(capped: TestClient) -> None:
    bert = register(capped, "bert")
    create_game(bert, ["me", "open"])
    refused = bert.post("/games", headers=DE, data={
        "players": "2", "rounds": "9", "seat0": "me", "seat1": "open",
        "csrf_token": bert.csrf()})
    assert refused.status_code == 429
    assert "Du darfst höchstens 1 auf Spieler wartende Partie haben." in text(refused)


def test_computer_seats_and_paces_are_named_in_the_readers_language(anna: As) -> None:
    game_id = create_game(anna, ["me", "bot", "open"], level1="easy")
    german = anna.get(f"/games/{game_id}", headers=DE)
    assert "Computer 2 (leicht)" in text(german)
    assert "Ordinateur 2 (facile)" in text(anna.get(f"/games/{game_id}", headers=FR))
    assert "Computer 2 (easy)" in text(anna.get(f"/games/{game_id}"))
    lobby = anna.get("/lobby", headers=DE)
    assert "Täglich: 1 Zug am Tag" in text(lobby) and "Ohne Uhr" in text(lobby)


def test_durations_and_preset_texts() -> None:
    seconds = 2 * 86400 + 4 * 3600
    assert duration(seconds) == "2 d 4 h"
    with using("de"):
        assert duration(seconds) == "2 T 4 Std"
        assert duration(3 * 3600 + 5 * 60) == "3 Std 05 Min"
        assert _(PRESETS["live"].label) == "Live: 3 Minuten pro Zug"
    with using("fr"):
        assert duration(seconds) == "2 j 4 h"
        assert duration(127) == "2:07"


def test_chat_refusals_and_limits_in_french(client: TestClient, anna: As) -> None:
    myself = anna.post("/api/chat/mute", json={"name": "anna"},
                       headers={**FR, "x-csrf-token": anna.csrf()})
    assert myself.status_code == 409
    assert myself.json()["detail"] == "Vous ne pouvez pas vous rendre muet vous-même."
    nobody = anna.post("/api/chat/report", json={"name": "zoe"},
                       headers={**DE, "x-csrf-token": anna.csrf()})
    assert nobody.status_code == 404
    assert nobody.json()["detail"] == "Es gibt keinen Spieler namens 'zoe'."
    with using("fr"):
        assert _duration(30) == "30 secondes" and _duration(600) == "10 minutes"
    with using("de"):
        assert _duration(1) == "1 Sekunde"
