"""Clock emails through a real SMTP server, with an injected clock: a reminder before a
deadline and a notice when a computer takes the seat over, once each, to confirmed
addresses only, with a one-click link to the game and no secret of the game."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from babel import dates
from fastapi.testclient import TestClient

from elgrande.server.accounts import user_named
from tests.apps import app_for
from tests.fakeclock import FakeClock
from tests.server.conftest import create_game, join_game, register, start_game

from .conftest import SmtpServer, body, deliver, mail_settings
from .helpers import confirmed

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def client(tmp_path: Path, smtp: SmtpServer, clock: FakeClock) -> Iterator[TestClient]:
    app = app_for(mail_settings(tmp_path, smtp.port), now=clock)
    with TestClient(app, follow_redirects=False) as c:
        yield c


def test_a_reminder_and_a_takeover_notice_go_once_each(client: TestClient, smtp: SmtpServer,
                                                       clock: FakeClock) -> None:
    anna, bert = register(client, "anna"), register(client, "bert")
    game_id = create_game(anna, ["me", "open"], rounds=6, pace="daily-1")
    join_game(bert, game_id)
    start_game(anna, game_id)
    svc = client.app.state.services  # type: ignore[attr-defined]
    game = svc.lobby.get(game_id)
    seat = svc.store.view(game.match_id, None).to_act[0]
    sleeper = (anna, bert)[seat]
    address = f"{sleeper.name}@example.org"
    with svc.sessions.begin() as db:  # the sleeper reads times in their own zone
        user_named(db, sleeper.name).time_zone = "Europe/Berlin"
    confirmed(client, smtp, sleeper, address)
    confirmed(client, smtp, (anna, bert)[1 - seat], "other@example.org")
    deliver(client)  # the "your turn" email of the game's first turn
    before = len(smtp.inbox.to(address))
    public = svc.clocks.public(game_id)
    deadline = datetime.fromisoformat(next(s for s in public["seats"] if s["seat"] == seat)["deadline"])
    clock.at = deadline - timedelta(hours=4)  # daily-1 reminds 4 hours before
    svc.clocks.remind_due(clock())
    svc.clocks.remind_due(clock())  # once
    deliver(client)
    mails = smtp.inbox.wait_for(before + 1)
    [reminder] = [m for m in smtp.inbox.to(address) if "runs out soon" in m["Subject"]]
    text = body(reminder)
    assert f"http://testserver/games/{game_id}" in text
    # The deadline in the reader's zone and language, with its offset (+1 h or +2 h).
    berlin = deadline.astimezone(ZoneInfo("Europe/Berlin"))
    offset = berlin.utcoffset()
    assert offset is not None
    hours = int(offset.total_seconds() // 3600)
    assert f'{dates.format_datetime(berlin, "medium", locale="en")} GMT+{hours:02d}:00' in text
    clock.at = deadline
    svc.clocks.expire_due(clock())
    svc.clocks.expire_due(clock())  # once
    deliver(client)
    smtp.inbox.wait_for(len(mails) + 1)
    [notice] = [m for m in smtp.inbox.to(address) if "computer is playing" in m["Subject"]]
    assert "Take my seat back" in body(notice) and notice["List-Unsubscribe"]
    assert not [m for m in smtp.inbox.to("other@example.org")
                if "runs out" in m["Subject"] or "computer is playing" in m["Subject"]]
    # No secret of the game in either: not the internal match id, not the seed.
    match = svc.store.load(game.match_id)
    for message in (reminder, notice):
        assert game.match_id not in message.as_string() and match.seed not in message.as_string()
