"""The account page's email section: off without an SMTP server, refused to guests,
bad addresses refused, confirmation limits per player and per address, changing an
address starts over."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from elgrande.server.settings import Settings
from elgrande.server.tables import MailOutbox, User
from tests.apps import app_for
from tests.server.conftest import As, register

from .conftest import SmtpServer, body, deliver
from .helpers import CONFIRM_LINK, add_email, confirmed

pytestmark = pytest.mark.timeout(60)


def user_row(client: TestClient, name: str) -> User:
    with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
        found = db.scalar(select(User).where(User.name == name))
        assert found is not None
        return found


def queued(client: TestClient) -> int:
    with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
        return int(db.scalar(select(func.count()).select_from(MailOutbox)) or 0)


def test_without_smtp_host_the_page_offers_no_email(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'off.db'}", secret_key="k" * 32)
    with TestClient(app_for(settings), follow_redirects=False) as client:
        anna = register(client, "anna")
        page = anna.get("/account").text
        assert 'id="email-off"' in page and 'name="email"' not in page
        assert add_email(anna, "anna@example.org").status_code == 404
        assert As(client, None).get("/email/confirm/whatever").status_code == 400


def test_guests_cannot_add_an_address(client: TestClient) -> None:
    anon = As(client, None)
    response = anon.post("/guest", data={"csrf_token": anon.csrf()})
    guest = As(client, response.cookies.get("elgrande_session"))
    assert 'id="email-guest"' in guest.get("/account").text
    answer = add_email(guest, "guest@example.org")
    assert answer.status_code == 400 and "register first" in answer.text
    assert queued(client) == 0


@pytest.mark.parametrize("address", ["nobody", "a b@example.org", "x@localhost",
                                     "a@b.c\r\nBcc: victim@example.org", "x" * 250 + "@e.org"])
def test_a_bad_address_is_refused_and_changes_nothing(client: TestClient, address: str) -> None:
    anna = register(client, "anna")
    answer = add_email(anna, address)
    assert answer.status_code == 400 and "does not look like an email" in answer.text
    assert user_row(client, "anna").email is None and queued(client) == 0


def test_a_bad_preference_is_refused(client: TestClient) -> None:
    anna = register(client, "anna")
    answer = anna.post("/account/email-preference",
                       data={"preference": "hourly", "csrf_token": anna.csrf()})
    assert answer.status_code == 400 and user_row(client, "anna").email_pref == "turn"
    answer = anna.post("/account/email-preference",
                       data={"preference": "digest", "csrf_token": anna.csrf()})
    assert answer.status_code == 200 and user_row(client, "anna").email_pref == "digest"
    assert 'id="pref-digest" value="digest" checked' in answer.text


def test_confirmation_emails_are_limited_per_player_and_per_address(client: TestClient) -> None:
    anna, bert = register(client, "anna"), register(client, "bert")
    for n in range(5):
        assert add_email(anna, f"a{n}@example.org").status_code == 200
    answer = add_email(anna, "a5@example.org")
    assert answer.status_code == 429 and "Too many" in answer.text
    assert user_row(client, "anna").email == "a4@example.org"  # nothing changed
    # Per address: bert cannot mail-bomb a4@ either (anna's mail counts), case ignored.
    for _ in range(4):
        assert add_email(bert, "A4@example.org").status_code == 200
    assert add_email(bert, "a4@Example.ORG").status_code == 429
    assert user_row(client, "bert").email == "A4@example.org"
    assert queued(client) == 9


def test_changing_the_address_starts_over(client: TestClient, smtp: SmtpServer) -> None:
    anna = register(client, "anna")
    confirmed(client, smtp, anna, "anna@example.org")
    first_link = CONFIRM_LINK.search(body(smtp.inbox.to("anna@example.org")[-1]))
    assert first_link and user_row(client, "anna").email_confirmed
    assert "Confirmed." in anna.get("/account").text
    assert add_email(anna, "new@example.org").status_code == 200
    row = user_row(client, "anna")
    assert row.email == "new@example.org" and not row.email_confirmed
    assert "Not confirmed yet" in anna.get("/account").text
    # The old address's link is worth nothing now; a tampered one neither.
    assert As(client, None).get(first_link.group(1)).status_code == 400
    deliver(client)
    new_link = CONFIRM_LINK.search(body(smtp.inbox.wait_for(2)[-1]))
    assert new_link
    assert As(client, None).get(new_link.group(1) + "x").status_code == 400
    assert not user_row(client, "anna").email_confirmed
    assert As(client, None).get(new_link.group(1)).status_code == 200
    assert user_row(client, "anna").email_confirmed


def test_the_smtp_password_is_never_logged(client: TestClient,
                                           caplog: pytest.LogCaptureFixture) -> None:
    import logging

    logging.getLogger("elgrande.test").warning("login with %s", "hunter2-smtp-password")
    assert caplog.records and all("hunter2" not in r.getMessage() for r in caplog.records)
    assert "hunter2" not in repr(client.app.state.services.settings)  # type: ignore[attr-defined]


def test_unsent_notices_are_dropped_on_unsubscribing_or_changing_address(
        client: TestClient, smtp: SmtpServer) -> None:
    anna = register(client, "anna")
    confirmed(client, smtp, anna, "anna@example.org")
    svc = client.app.state.services  # type: ignore[attr-defined]
    svc.mail.stop()  # nothing sends meanwhile
    anna_id = user_row(client, "anna").id

    def notices() -> int:
        with svc.sessions() as db:
            return int(db.scalar(select(func.count()).select_from(MailOutbox).where(
                MailOutbox.kind == "turn", MailOutbox.status == "queued")) or 0)

    def queue_notice() -> None:
        with svc.sessions.begin() as db:
            svc.mail.outbox.queue(db, user_id=anna_id, kind="turn", to="anna@example.org",
                                  subject="s", body="b")

    queue_notice()
    link = svc.mail.unsubscribe_url(anna_id, "anna@example.org").removeprefix("http://testserver")
    assert As(client, None).post(link).status_code == 200 and notices() == 0
    queue_notice()
    assert add_email(anna, "other@example.org").status_code == 200 and notices() == 0
