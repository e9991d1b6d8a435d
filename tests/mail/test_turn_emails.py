"""Confirmation, "your turn" emails after real commits, unsubscribing, and that no
email carries a secret of the game."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from elgrande.matches.tables import MatchRow
from elgrande.server.tables import MailOutbox, User
from tests.server.conftest import As, create_game, join_game, register, start_game

from .conftest import SmtpServer, body, deliver
from .helpers import commit_turn, confirmed, to_act

pytestmark = pytest.mark.timeout(60)


def three_players(client: TestClient) -> tuple[int, tuple[As, As, As]]:
    anna, bert, carl = (register(client, n) for n in ("anna", "bert", "carl"))
    game_id = create_game(anna, ["me", "open", "open"])
    join_game(bert, game_id)
    join_game(carl, game_id)
    start_game(anna, game_id)
    return game_id, (anna, bert, carl)


def outbox(client: TestClient, kind: str) -> list[MailOutbox]:
    with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
        return list(db.scalars(select(MailOutbox).where(MailOutbox.kind == kind)).all())


def test_turn_emails_go_once_per_turn_to_confirmed_players_only_and_hold_no_secret(
        client: TestClient, smtp: SmtpServer) -> None:
    game_id, players = three_players(client)
    deliver(client)  # the first mover is announced now: nobody has an address yet
    anna, bert, carl = players
    confirmed(client, smtp, anna, "anna@example.org")
    confirmed(client, smtp, bert, "bert@example.org")
    assert "confirmation link" in carl.post(  # carl never confirms: nothing but the link
        "/account/email", data={"email": "carl@example.org", "csrf_token": carl.csrf()}).text
    svc = client.app.state.services  # type: ignore[attr-defined]
    expected = {0: 0, 1: 0, 2: 0}
    drafts: list[str] = []
    waiting = set(to_act(client, game_id))
    for _ in range(6):
        commit_turn(players, game_id)
        now = set(to_act(client, game_id))
        for seat in now - waiting:
            expected[seat] += 1
        waiting = now
        # The seat to move starts a draft before the email is written: it must not show.
        seat = sorted(now)[0]
        view = players[seat].get(f"/api/games/{game_id}").json()
        if view["legal"] and view["phase"] != "secret":  # a secret choice commits at once
            action = view["legal"][-1]["text"]
            assert players[seat].api(game_id, "step", {"action": action, "seq": view["seq"]}
                                     ).json()["error"] is None
            drafts.append(action)
            players[seat].api(game_id, "undo", {"seq": view["seq"]})
        deliver(client)
        svc.mail.announce(svc.lobby.get(game_id).match_id)  # as another process would
        deliver(client)  # ... sends nothing more
    assert expected[0] + expected[1] >= 1
    smtp.inbox.wait_for(2 + 1 + expected[0] + expected[1])
    turn_mails = [m for m in smtp.inbox.messages if "your turn" in str(m["Subject"])]
    assert len([m for m in turn_mails if m["To"] == "anna@example.org"]) == expected[0]
    assert len([m for m in turn_mails if m["To"] == "bert@example.org"]) == expected[1]
    assert smtp.inbox.to("carl@example.org")[0]["Subject"].startswith("Confirm")
    assert len(smtp.inbox.to("carl@example.org")) == 1
    mail = turn_mails[0]
    text = body(mail)
    assert str(mail["Subject"]) == f"El Grande game {game_id}: your turn"
    assert f"http://testserver/games/{game_id}" in text
    assert str(mail["List-Unsubscribe-Post"]) == "List-Unsubscribe=One-Click"
    assert str(mail["List-Unsubscribe"]).startswith("<http://testserver/email/unsubscribe/")
    names = {"anna", "bert", "carl"} - {"anna" if mail["To"] == "anna@example.org" else "bert"}
    assert all(name in text for name in names)
    # No secret: not the internal match id, not the seed, no draft action.
    game = svc.lobby.get(game_id)
    with svc.sessions() as db:
        seed = db.scalar(select(MatchRow.seed).where(MatchRow.id == game.match_id))
    assert seed and game.match_id
    for raw in smtp.inbox.raw:
        assert game.match_id not in raw and seed not in raw
        assert not any(action in raw for action in drafts)
        assert " bid " not in raw and "hunter2" not in raw
        assert not re.search(r"\bp\d (bid|secret|place|choose|play)\b", raw)  # no action


def test_unsubscribe_works_without_login_and_refuses_a_tampered_link(
        client: TestClient, smtp: SmtpServer) -> None:
    game_id, players = three_players(client)
    for player in players:
        confirmed(client, smtp, player, f"{player.name}@example.org")
    while True:  # until someone is handed a turn and told so
        commit_turn(players, game_id)
        deliver(client)
        turn = [m for m in smtp.inbox.wait_for(4, timeout=0.2) if "your turn" in str(m["Subject"])]
        if turn:
            break
    mail = turn[0]
    link = str(mail["List-Unsubscribe"]).strip("<>").removeprefix("http://testserver")
    name = str(mail["To"]).split("@")[0]
    anonymous = As(client, None)

    def preference() -> str:
        with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
            return str(db.scalar(select(User.email_pref).where(User.name == name)))

    page = anonymous.get(link)  # a link scanner's GET changes nothing
    assert page.status_code == 200 and 'id="unsubscribe"' in page.text
    assert preference() == "turn"
    tampered = link[:-3] + ("AAA" if not link.endswith("AAA") else "BBB")
    answer = anonymous.post(tampered, data={"List-Unsubscribe": "One-Click"})
    assert answer.status_code == 400 and "not valid" in answer.text
    assert "Traceback" not in answer.text and preference() == "turn"
    answer = anonymous.post(link, data={"List-Unsubscribe": "One-Click"})  # RFC 8058
    assert answer.status_code == 200 and "Unsubscribed" in answer.text
    assert preference() == "none"
    # And no turn email for that player any more.
    queued = len(outbox(client, "turn"))
    for _ in range(6):
        commit_turn(players, game_id)
        deliver(client)
    assert all(row.to_addr != f"{name}@example.org" for row in outbox(client, "turn")[queued:])


def test_the_first_mover_of_a_new_game_is_told(client: TestClient, smtp: SmtpServer) -> None:
    players = tuple(register(client, n) for n in ("anna", "bert", "carl"))
    for player in players:
        confirmed(client, smtp, player, f"{player.name}@example.org")
    game_id = create_game(players[0], ["me", "open", "open"])
    for player in players[1:]:
        join_game(player, game_id)
    start_game(players[0], game_id)
    deliver(client)
    deliver(client)
    first = to_act(client, game_id)
    turn = [m for m in smtp.inbox.wait_for(4) if "your turn" in str(m["Subject"])]
    assert [m["To"] for m in turn] == [f"{players[s].name}@example.org" for s in first]
