"""Each email is in its recipient's language: the one kept in the account
(``web_users.language``, chosen in the header's switch), else English."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.server.conftest import As, create_game, join_game, register, start_game

from .conftest import SmtpServer, body, deliver
from .helpers import commit_turn, confirmed, to_act

pytestmark = pytest.mark.timeout(60)


def choose_language(user: As, code: str) -> None:
    assert user.post("/language", data={"lang": code, "csrf_token": user.csrf()}
                     ).status_code == 303


def test_a_german_players_turn_email_is_in_german_an_english_ones_in_english(
        client: TestClient, smtp: SmtpServer) -> None:
    anna, bert = register(client, "anna"), register(client, "bert")
    choose_language(anna, "de")
    confirmed(client, smtp, anna, "anna@example.org")
    confirmed(client, smtp, bert, "bert@example.org")
    [confirmation] = smtp.inbox.to("anna@example.org")
    assert str(confirmation["Subject"]) == "Bestätige deine E-Mail-Adresse für El Grande"
    game_id = create_game(anna, ["me", "open"])
    join_game(bert, game_id)
    start_game(anna, game_id)
    deliver(client)  # the first mover is told
    for _turn in range(8):  # until each has been told once that it is their turn
        if len(smtp.inbox.to("anna@example.org")) > 1 and len(smtp.inbox.to("bert@example.org")) > 1:
            break
        commit_turn((anna, bert), game_id)
        deliver(client)
    german = smtp.inbox.to("anna@example.org")[1]
    assert str(german["Subject"]) == f"El Grande, Partie {game_id}: Du bist am Zug"
    text = body(german)
    assert f"du bist am Zug in Partie {game_id} (mit bert)" in text
    assert "Keine E-Mails mehr von El Grande (ein Klick)" in text
    assert "your turn" not in text
    english = smtp.inbox.to("bert@example.org")[1]
    assert str(english["Subject"]) == f"El Grande game {game_id}: your turn"
    assert f"It is your turn in game {game_id} (with anna)" in body(english)
    assert to_act(client, game_id)  # the game runs on
