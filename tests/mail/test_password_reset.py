"""Password reset through a real SMTP server: a link to the confirmed address only,
the same answer whoever is asked about, a link that works once, and every session of
the account ends when the new password is set."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from tests.server.conftest import As, register

from .conftest import SmtpServer, body, deliver
from .helpers import add_email, confirmed

pytestmark = pytest.mark.timeout(60)

RESET_LINK = re.compile(r"http://testserver(/password/reset/\S+)")


def ask(client: TestClient, who: str) -> str:
    anon = As(client, None)
    response = anon.post("/password/forgot", data={"name": who, "csrf_token": anon.csrf()})
    assert response.status_code == 200, response.text
    return str(response.text)


def test_a_reset_link_goes_to_the_confirmed_address_and_works_once(
        client: TestClient, smtp: SmtpServer) -> None:
    anna = register(client, "anna")
    bert = register(client, "bert")
    confirmed(client, smtp, anna, "anna@example.org")
    add_email(bert, "bert@example.org")  # never confirmed: no link goes there
    deliver(client)
    count = len(smtp.inbox.wait_for(2))  # the two confirmation links
    answers = {ask(client, who).split('id="forgot-sent">')[1].split("<")[0]
               for who in ("anna", "ANNA@example.org", "bert", "nobody", "x@example.org")}
    assert len(answers) == 1  # the same answer whoever is asked about
    deliver(client)
    smtp.inbox.wait_for(count + 2)
    mails = smtp.inbox.messages[count:]
    assert [m["To"] for m in mails] == ["anna@example.org"] * 2  # by name, by address
    link = RESET_LINK.search(body(mails[0]))
    assert link
    anon = As(client, None)
    assert anon.get(link.group(1)).status_code == 200
    weak = anon.post(link.group(1), data={"password": "anna", "csrf_token": anon.csrf()})
    assert weak.status_code == 400 and "Traceback" not in weak.text
    done = anon.post(link.group(1), data={"password": "a much better password 42",
                                          "csrf_token": anon.csrf()})
    assert done.status_code == 303 and done.headers["location"] == "/account?done=reset"
    assert anna.get("/account").status_code in (303, 307)  # her old session has ended
    again = anon.get(link.group(1))
    assert again.status_code == 400 and "expired or has been used" in again.text
    used = anon.post(link.group(1), data={"password": "yet another good password 7",
                                          "csrf_token": anon.csrf()})
    assert used.status_code == 400
    login = anon.post("/login", data={"name": "anna", "password": "a much better password 42",
                                      "csrf_token": anon.csrf()})
    assert login.status_code == 303
    forged = anon.get("/password/reset/not-a-token")
    assert forged.status_code == 400
