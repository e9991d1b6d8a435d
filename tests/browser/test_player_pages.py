"""The ranking, a profile and "My games" in Chromium after a few rated games (played fast
through the turn framework), by keyboard, on a phone, checked with axe-core."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import select, update

from elgrande.matches import MatchError
from elgrande.rules import to_act
from elgrande.server.lobby import SeatSpec
from elgrande.server.settings import Settings
from elgrande.server.tables import User, utcnow
from tests.apps import app_for
from tests.server.helpers import choose
from tests.server.liveserver import serving

from .table import axe_violations

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    app = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'live.db'}",
                           secret_key="test-secret-key-0123456789", bot_delay=0.0))
    with serving(app) as url:
        yield url, app.state.services


def play_to_end(svc: Any, match_id: str, seed: int) -> None:
    """Random turns of every seat through the turn framework (the server's computers may
    move theirs first: that turn is played again)."""
    rng = random.Random(seed)
    for _ in range(5000):
        match = svc.store.load(match_id)
        if match.over:
            return
        seat = to_act(match.state)[0]
        try:
            view = svc.store.view(match_id, seat)
            while view.legal:
                view = svc.store.step(match_id, seat, choose(view.legal, rng))
            svc.store.finish(match_id, seat)
        except MatchError:
            continue
    raise AssertionError("the game did not end")


def rated_games(svc: Any, names: list[str], games: int) -> list[int]:
    with svc.sessions.begin() as db:  # accounts old enough for rated games
        db.execute(update(User).where(User.name.in_(names))
                   .values(created_at=utcnow() - timedelta(days=2)))
    with svc.sessions() as db:
        users = [db.scalar(select(User).where(User.name == name)) for name in names]
    ids = []
    for number in range(games):
        seated = users[number % len(users):] + users[:number % len(users)]
        game = svc.lobby.create(seated[0], len(seated) + 1, 6,
                                [SeatSpec("me")] + [SeatSpec("open")] * (len(seated) - 1)
                                + [SeatSpec("bot", bot_level="random")], rated=True)
        for user in seated[1:]:
            svc.lobby.join(game.id, user)
        match_id = svc.lobby.start(game.id, seated[0])
        play_to_end(svc, match_id, number)
        svc.lobby.mark_finished(match_id)
        ids.append(game.id)
    return ids


def register(page: Page, server: str, name: str) -> None:
    page.goto(f"{server}/register")
    page.fill("#name", name)
    page.fill("#password", "a good password")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r".*/lobby$"))


def no_sideways_scroll(page: Page) -> bool:
    return bool(page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"))


def test_ranking_profile_and_my_games_after_a_few_rated_games(
        browser: Browser, site: tuple[str, Any]) -> None:
    server, svc = site
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    register(page, server, "anna")
    other = browser.new_context().new_page()
    register(other, server, "bert")
    games = rated_games(svc, ["anna", "bert"], 3)

    # The ranking: both players, provisional, anna's own place marked; by keyboard to
    # bert's profile.
    page.click("#ranking-link")
    page.wait_for_url(re.compile(r".*/ranking$"))
    rows = page.locator("#ranking-table tbody tr")
    expect(rows).to_have_count(2)
    expect(page.locator("#ranking-table .rating-provisional")).to_have_count(2)
    expect(page.locator("#ranking-table tr[aria-current=true]")).to_contain_text("anna")
    expect(page.locator("#my-place-number")).to_have_text(re.compile(r"^[12]$"))
    assert axe_violations(page, "ranking") == []
    page.focus('#ranking-table a[href="/players/bert"]')
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r".*/players/bert$"))

    # The profile: rating with its chart (3 rated games), games by player count, the
    # cards, the recent games with the opponents.
    expect(page.locator("#profile-name")).to_have_text("bert")
    expect(page.locator("#rating .rating-value")).to_be_visible()
    chart = page.locator("#rating-chart")
    expect(chart).to_be_visible()
    assert chart.bounding_box()["height"] > 50  # type: ignore[index]
    assert str(page.locator("#rating-chart polyline").get_attribute("points")).count(",") == 3
    expect(page.locator("#total-played")).to_have_text("3")
    expect(page.locator("#favourite-cards li").first).to_be_visible()
    expect(page.locator("#recent-games .game-result")).to_have_count(3)
    expect(page.locator("#recent-games")).to_contain_text("Computer (random)")
    assert axe_violations(page, "profile") == []

    # My games: the finished games, newest first, and "Play again" by keyboard.
    page.click("#my-games-link")
    page.wait_for_url(re.compile(r".*/my-games$"))
    shown = page.locator("#finished-games .game-result")
    expect(shown).to_have_count(3)
    assert [int(g) for g in shown.evaluate_all("els => els.map(e => e.dataset.game)")] == games[::-1]
    assert axe_violations(page, "my games") == []
    page.locator("#finished-games .play-again").first.focus()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r".*/games/\d+$"))
    new_game = int(page.url.rsplit("/", 1)[1])
    assert new_game not in games and svc.lobby.get(new_game).status == "lobby"

    # On a phone: no sideways scrolling, the chart fits.
    phone = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True,
                                storage_state=context.storage_state()).new_page()
    for path in ("/ranking", "/players/anna", "/my-games"):
        phone.goto(server + path)
        assert no_sideways_scroll(phone), path
    phone.goto(server + "/players/anna")
    assert phone.locator("#rating-chart").bounding_box()["width"] <= 375  # type: ignore[index]
    assert errors == []
