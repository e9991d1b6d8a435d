"""Issue 18, item 5: the coach. A finished game shows its review after the player asks for
it (judged in the bot workers, a tiny budget here), mistakes biggest first; clicking one,
or pressing Enter on it, moves the replay to the position before that decision; the
panel fits a phone's width."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from elgrande.server.lobby import SeatSpec
from elgrande.server.settings import Settings
from tests.apps import app_for
from tests.server.helpers import advance
from tests.server.liveserver import serving

from .table import axe_violations, new_page

pytestmark = pytest.mark.timeout(120)

PASSWORD = "a good long password"


@pytest.fixture
def finished(tmp_path: Path) -> Iterator[tuple[str, Any, int]]:
    app = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'live.db'}",
                           secret_key="k" * 32, bot_delay=0.0, bot_processes=1,
                           coach_level="ismcts:10", coach_playouts=2))
    svc = app.state.services
    with serving(app) as url:
        anna = svc.accounts.register("anna", PASSWORD)
        bert = svc.accounts.register("bert", PASSWORD)
        game = svc.lobby.create(anna, 2, 6, [SeatSpec("me"), SeatSpec("open")])
        svc.lobby.join(game.id, bert)
        svc.lobby.start(game.id, anna)
        match = advance(svc, game.id, lambda m: m.over, seed=2)
        svc.play.after_commit(match.id)
        yield url, svc, game.id


def open_as_anna(browser: Browser, url: str, game_id: int, **kw: Any) -> Page:
    page = new_page(browser, **kw)
    page.goto(f"{url}/login")
    page.fill("#name", "anna")
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r".*/lobby$"))
    page.goto(f"{url}/games/{game_id}")
    page.wait_for_function("() => window.elgrande && window.elgrande.state")
    return page


def test_a_finished_game_shows_its_review(browser: Browser, finished: tuple[str, Any, int],
                                          artifacts: Path) -> None:
    url, svc, game_id = finished
    page = open_as_anna(browser, url, game_id)
    page.locator("#finished[data-summary]").wait_for()
    expect(page.locator("#review-status")).to_have_text("No review yet.")
    expect(page.locator("#review-seat")).to_have_value("0")  # anna's own seat
    ask = page.locator("#review-ask")
    expect(ask).to_have_text("Review my play")
    ask.click()
    page.wait_for_function("() => document.getElementById('review').dataset.status === 'done'",
                           timeout=90_000)
    review = page.request.get(f"{url}/api/games/{game_id}/review?seat=0").json()
    assert review["mistakes"], "random play should leave the coach something to say"
    picks = page.locator("#review-list .review-pick")
    expect(picks).to_have_count(len(review["mistakes"]))
    first = review["mistakes"][0]
    expect(picks.first).to_contain_text(f"Round {first['round']}, turn {first['turn']}")
    expect(picks.first).to_contain_text("You played: " + first["played_text"])
    expect(picks.first).to_contain_text("The coach would play: " + first["coach_text"])
    expect(page.locator("#review-status")).to_contain_text("decisions reviewed")
    expect(ask).to_be_hidden()  # the whole game is reviewed: nothing more to ask
    page.screenshot(path=str(artifacts / "after" / "item5-review.png"), full_page=True)
    total = page.evaluate("window.elgrande.state.seq")
    # A click shows the position before that decision on the replay.
    picks.first.click()
    page.wait_for_function(
        f"() => document.getElementById('map').dataset.replaySeq === '{first['index']}'")
    expect(page.locator("#replay-where")).to_have_text(f"move {first['index']} of {total}")
    expect(picks.first).to_have_attribute("aria-current", "true")
    # The keyboard works too.
    if len(review["mistakes"]) > 1:
        second = review["mistakes"][1]
        picks.nth(1).focus()
        page.keyboard.press("Enter")
        page.wait_for_function(
            f"() => document.getElementById('map').dataset.replaySeq === '{second['index']}'")
    problems = axe_violations(page, "finished game with a review")
    assert not problems, "\n".join(problems)
    # Bert's play can be looked up too (not reviewed yet: he may be, by anyone signed in).
    page.select_option("#review-seat", "1")
    expect(page.locator("#review-status")).to_have_text("No review yet.")
    expect(ask).to_have_text("Review this player's play")
    assert not page.errors  # type: ignore[attr-defined]
    # A phone: the panel fits the width, its entries still reachable.
    phone = open_as_anna(browser, url, game_id, width=390, height=844)
    phone.wait_for_function("() => document.getElementById('review').dataset.status === 'done'")
    box = phone.locator("#review").bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390
    phone.locator("#review-list .review-pick").first.click()
    phone.wait_for_function(
        f"() => document.getElementById('map').dataset.replaySeq === '{first['index']}'")
    phone.screenshot(path=str(artifacts / "after" / "item5-review-phone.png"), full_page=True)
    assert not phone.errors  # type: ignore[attr-defined]
