"""A secret choice confirmed on the page while another commit gets in first (issue 11,
item 17, the page's side: ``retrySecret`` in static/js/game.js), in Chromium against a
live server. The page's confirmation is held in flight (Playwright routes the game
socket) while the test commits through the server; then it is let through and the
server answers ``moved_on`` for real.

- Another seat chose first and this seat's choice is still offered: the page sends it
  again by itself; no second Confirm, no error.
- This seat's choice was made meanwhile (its other page): nothing is offered any more,
  so the page just shows the new state; no error, nothing sent again."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from elgrande.rules import parse_action, to_act
from elgrande.server.commands import Command
from elgrande.server.lobby import SeatSpec
from elgrande.server.settings import Settings
from tests.apps import app_for
from tests.server.helpers import advance, at_general_secret
from tests.server.liveserver import serving

from .driver import state
from .test_game_page import new_page, wait_game

pytestmark = pytest.mark.timeout(120)

PASSWORD = "a good long password"


@dataclass
class HeldSocket:
    """The game page's socket, passed through; while ``hold`` is set, the page's secret
    choice is kept back until ``release``. Records what the server sent."""

    hold: bool = False
    held: list[str] = field(default_factory=list)
    from_server: list[dict[str, Any]] = field(default_factory=list)
    _server: WebSocketRoute | None = None

    def route(self, page_side: WebSocketRoute) -> None:
        server = page_side.connect_to_server()
        self._server = server

        def from_page(message: str | bytes) -> None:
            text = message if isinstance(message, str) else message.decode()
            if self.hold and " secret " in json.loads(text).get("action", ""):
                self.held.append(text)
            else:
                server.send(message)

        def from_server(message: str | bytes) -> None:
            self.from_server.append(json.loads(message))
            page_side.send(message)

        page_side.on_message(from_page)
        server.on_message(from_server)

    def release(self) -> None:
        assert self._server is not None and len(self.held) == 1
        self.hold = False
        self._server.send(self.held.pop())

    def errors(self) -> list[str]:
        return [m["code"] for m in self.from_server if m.get("type") == "error"]


@dataclass
class Table:
    url: str
    svc: Any
    game: Any
    anna: int  # seats
    bert: int


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    """A 2-player game at a general scoring where both seats choose a Castillo
    destination; anna plays in the browser."""
    app = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'race.db'}",
                           secret_key="k" * 32, bot_delay=0.0))
    svc = app.state.services
    with serving(app) as url:
        anna = svc.accounts.register("anna", PASSWORD)
        bert = svc.accounts.register("bert", PASSWORD)
        game = svc.lobby.create(anna, 2, 6, [SeatSpec("me"), SeatSpec("open")])
        svc.lobby.join(game.id, bert)
        svc.lobby.start(game.id, anna)
        match = advance(svc, game.id, at_general_secret)
        game = svc.lobby.get(game.id)
        seats = {svc.lobby.seat_of(game.id, user.id): user for user in (anna, bert)}
        assert set(to_act(match.state)) == set(seats)
        yield Table(url, svc, game, svc.lobby.seat_of(game.id, anna.id),
                    svc.lobby.seat_of(game.id, bert.id))


def open_as_anna(browser: Browser, table: Table, socket: HeldSocket) -> Page:
    page = new_page(browser)
    page.route_web_socket(re.compile(r".*/ws/games/\d+$"), socket.route)
    page.goto(f"{table.url}/login")
    page.fill("#name", "anna")
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r".*/lobby$"))
    page.goto(f"{table.url}/games/{table.game.id}")
    wait_game(page)
    page.locator("#secret-dialog").wait_for(state="visible")
    return page


def confirm_held(page: Page, socket: HeldSocket, choice: str) -> int:
    """Confirms ``choice`` on the page and holds it in flight; the page's count of sent
    commands before it."""
    before = int(page.evaluate("window.elgrande.sent"))
    socket.hold = True
    page.click(f'#secret-options [data-secret="{choice}"]')
    page.click("#secret-confirm")
    deadline = time.monotonic() + 10
    while not socket.held:  # Playwright hands the route its messages while it waits
        assert time.monotonic() < deadline, "the page sent no secret choice"
        page.wait_for_timeout(10)
    return before


def commit(table: Table, seat: int, choice: str) -> None:
    """A seat's secret choice, committed through the server as a page's would be."""
    seq = table.svc.store.load(table.game.match_id).seq
    table.svc.play.act(table.game, seat, Command("step", seq, parse_action(choice)))


def secrets_offered(table: Table, seat: int) -> list[str]:
    return [a for a in table.svc.store.view(table.game.match_id, seat).legal
            if " secret " in a]


def committed(table: Table) -> list[str]:
    return [str(e.action) for e in table.svc.store.load(table.game.match_id).log]


def test_choice_still_offered_is_sent_again_by_the_page(browser: Browser, table: Table) -> None:
    socket = HeldSocket()
    page = open_as_anna(browser, table, socket)
    wanted = secrets_offered(table, table.anna)[0]
    before = confirm_held(page, socket, wanted)
    commit(table, table.bert, secrets_offered(table, table.bert)[0])  # bert gets in first
    socket.release()
    # Refused (moved_on), then sent again on the new state by the page itself.
    page.wait_for_function(f"() => window.elgrande.sent === {before + 2} "
                           "&& window.elgrande.acked === window.elgrande.sent")
    assert socket.errors() == ["moved_on"]
    assert wanted in committed(table)
    expect(page.locator("#error")).to_be_hidden()
    expect(page.locator("#secret-dialog")).to_be_hidden()
    assert not state(page)["legal"] or all(a["kind"] != "secret" for a in state(page)["legal"])
    assert not page.errors  # type: ignore[attr-defined]


def test_no_choice_left_just_shows_the_new_state(browser: Browser, table: Table) -> None:
    socket = HeldSocket()
    page = open_as_anna(browser, table, socket)
    wanted, other = secrets_offered(table, table.anna)[:2]
    before = confirm_held(page, socket, wanted)
    commit(table, table.anna, other)  # anna's other page chose first
    seq = table.svc.store.load(table.game.match_id).seq
    socket.release()
    page.wait_for_function(f"() => window.elgrande.acked >= {before + 1}")
    assert socket.errors() == ["moved_on"]
    assert int(page.evaluate("window.elgrande.sent")) == before + 1, "nothing sent again"
    shown = state(page)
    assert shown["seq"] == seq and not shown["legal"]
    assert next(p for p in shown["players"] if p["seat"] == table.anna)["secret"] == "chosen"
    assert other in committed(table) and wanted not in committed(table)
    expect(page.locator("#error")).to_be_hidden()
    expect(page.locator("#secret-dialog")).to_be_hidden()
    assert not page.errors  # type: ignore[attr-defined]
