"""The daily digest: once a day per player (an injected clock), listing the games
waiting for them, only to players who chose it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi.testclient import TestClient

from elgrande.server.mail import Mailer
from elgrande.server.mail.outbox import Outbox
from elgrande.server.mail.sender import SmtpSender
from elgrande.server.mail.tokens import MailTokens
from tests.server.conftest import create_game, join_game, register, start_game

from .conftest import SmtpServer, body
from .helpers import commit_turn, confirmed, to_act
from .test_outbox import Clock

pytestmark = pytest.mark.timeout(60)


def test_the_digest_lists_waiting_games_once_a_day(client: TestClient, smtp: SmtpServer) -> None:
    svc = client.app.state.services  # type: ignore[attr-defined]
    svc.mail.stop()  # only this test's mailer (its own clock) looks for digests
    anna, bert = register(client, "anna"), register(client, "bert")
    confirmed(client, smtp, anna, "anna@example.org")
    confirmed(client, smtp, bert, "bert@example.org")
    for player in (anna, bert):
        assert player.post("/account/email-preference", data={
            "preference": "digest", "csrf_token": player.csrf()}).status_code == 200
    carl = register(client, "carl")  # no address
    game_id = create_game(anna, ["me", "open", "open"])
    join_game(bert, game_id)
    join_game(carl, game_id)
    start_game(anna, game_id)
    while to_act(client, game_id)[0] == 2:
        commit_turn((anna, bert, carl), game_id)
    clock = Clock()
    sender = SmtpSender("127.0.0.1", smtp.port, starttls=False)
    mailer = Mailer(svc.sessions, svc.sessions, svc.lobby, svc.store, MailTokens("k" * 32),
                    Outbox(svc.sessions, sender, clock, 3), "http://testserver", 5)
    seat = to_act(client, game_id)[0]
    waiting = ("anna", "anna@example.org") if seat == 0 else ("bert", "bert@example.org")
    assert mailer.digest() == 1  # only the waiting player: the other has nothing waiting
    clock.now += timedelta(hours=23)
    assert mailer.digest() == 0  # not a day yet
    clock.now += timedelta(hours=1)
    assert mailer.digest() == 1
    mailer.outbox.send_due()
    digests = [m for m in smtp.inbox.wait_for(4) if "waiting for you" in str(m["Subject"])]
    assert [m["To"] for m in digests] == [waiting[1], waiting[1]]
    text = body(digests[0])
    assert f"Game {game_id}" in text and f"http://testserver/games/{game_id}" in text
    assert str(digests[0]["List-Unsubscribe-Post"]) == "List-Unsubscribe=One-Click"
    # Nobody who chose "every turn" or "none" gets one.
    for player in (anna, bert):
        player.post("/account/email-preference", data={"preference": "turn",
                                                       "csrf_token": player.csrf()})
    clock.now += timedelta(days=2)
    assert mailer.digest() == 0
