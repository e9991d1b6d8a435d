"""Players with email addresses, and turns played through the HTTP API."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient

from tests.server.conftest import As

from .conftest import SmtpServer, body, deliver

CONFIRM_LINK = re.compile(r"http://testserver(/email/confirm/\S+)")


def add_email(user: As, address: str) -> Any:
    return user.post("/account/email", data={"email": address, "csrf_token": user.csrf()})


def confirmed(client: TestClient, smtp: SmtpServer, user: As, address: str) -> None:
    """Adds ``address`` for ``user`` and opens the link of the confirmation email."""
    before, everything = len(smtp.inbox.to(address)), len(smtp.inbox.messages)
    response = add_email(user, address)
    assert response.status_code == 200 and "confirmation link" in response.text
    deliver(client)
    smtp.inbox.wait_for(everything + 1)
    mails = smtp.inbox.to(address)
    assert len(mails) == before + 1
    link = CONFIRM_LINK.search(body(mails[-1]))
    assert link, body(mails[-1])
    page = As(client, None).get(link.group(1))
    assert page.status_code == 200 and "Email address confirmed" in page.text


def to_act(client: TestClient, game_id: int) -> list[int]:
    return list(As(client, None).get(f"/api/games/{game_id}").json()["to_act"])


def commit_turn(players: tuple[As, ...], game_id: int) -> int:
    """The seat to act plays its first legal action and finishes (a real commit)."""
    view = players[0].get(f"/api/games/{game_id}").json()
    seat = view["to_act"][0]
    mover = players[seat]
    view = mover.get(f"/api/games/{game_id}").json()
    while view["legal"]:
        answer = mover.api(game_id, "step", {"action": view["legal"][0]["text"],
                                              "seq": view["seq"]}).json()
        assert answer["error"] is None, answer
        view = answer["state"]
    if view["draft"]["can_finish"]:  # a secret choice is committed by its step alone
        finished = mover.api(game_id, "finish", {"seq": view["seq"]})
        assert finished.status_code == 200, finished.text
    return int(seat)
