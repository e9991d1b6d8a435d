"""Issue 13, items 2 and 12: the others' moves played step by step on the map (skippable,
not under prefers-reduced-motion, never the player's own), and the finished game's
page: final scores with their breakdown and a score chart at the top, a stepper that
jumps by round and by turn. Two humans: anna in the browser, bert moved through the
server, so each test knows exactly what happens (and needs no long game in the page)."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from elgrande.rules import to_act
from elgrande.server.lobby import SeatSpec
from elgrande.server.settings import Settings
from tests.apps import app_for
from tests.server.helpers import advance, choose
from tests.server.liveserver import serving

from .driver import click_action, command, state
from .table import axe_violations, new_page, pick

pytestmark = pytest.mark.timeout(120)

PASSWORD = "a good long password"


@dataclass
class Table:
    url: str
    svc: Any
    game: Any
    anna: int  # seats
    bert: int

    def match(self) -> Any:
        return self.svc.store.load(self.game.match_id)

    def bert_turn(self, rng: random.Random) -> int:
        """Bert plays one whole turn through the server (as his page would); the number
        of log entries it added."""
        store, mid = self.svc.store, self.game.match_id
        before = store.load(mid).seq
        view = store.view(mid, self.bert)
        while view.legal:
            view = store.step(mid, self.bert, choose(view.legal, rng))
        store.finish(mid, self.bert)
        return int(store.load(mid).seq - before)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    app = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'live.db'}",
                           secret_key="k" * 32, bot_delay=0.0))
    svc = app.state.services
    with serving(app) as url:
        anna = svc.accounts.register("anna", PASSWORD)
        bert = svc.accounts.register("bert", PASSWORD)
        game = svc.lobby.create(anna, 2, 6, [SeatSpec("me"), SeatSpec("open")])
        svc.lobby.join(game.id, bert)
        svc.lobby.start(game.id, anna)
        game = svc.lobby.get(game.id)
        yield Table(url, svc, game, svc.lobby.seat_of(game.id, anna.id), svc.lobby.seat_of(game.id, bert.id))


def open_as_anna(browser: Browser, table: Table, **kw: Any) -> Page:
    page = new_page(browser, **kw)
    page.goto(f"{table.url}/login")
    page.fill("#name", "anna")
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r".*/lobby$"))
    page.goto(f"{table.url}/games/{table.game.id}")
    page.wait_for_function("() => window.elgrande && window.elgrande.state")
    return page


def test_the_others_moves_step_by_step(browser: Browser, table: Table, artifacts: Path) -> None:
    rng = random.Random(5)
    # Bert to begin his action turn, anna waiting.
    match = advance(table.svc, table.game.id, lambda m: m.state.phase_name == "recruit"
                    and to_act(m.state) == [table.bert], seed=3)
    page = open_as_anna(browser, table, watch=True)
    still = open_as_anna(browser, table, reduced_motion=True, watch=True)
    before = match.seq
    assert state(page)["seq"] == before and not state(page)["legal"]
    page.screenshot(path=str(artifacts / "after" / "item2-watch-waiting.png"))
    added = table.bert_turn(rng)
    assert added >= 3, added
    # The page plays bert's turn one public board after another...
    page.wait_for_function(f"() => document.body.dataset.watching === '{before + 1}'")
    expect(page.locator("#watch")).to_be_visible()
    expect(page.locator("#watch-text")).to_contain_text(f"Step 1 of {added}")
    assert state(page)["seq"] == before  # the new state waits for the moves to be shown
    first_shown = time.monotonic()
    page.wait_for_function(f"() => document.body.dataset.watching === '{before + 2}'")
    pieces = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#map [data-piece]')]
        .map((b) => [b.dataset.piece, Number(b.querySelector('.piece-count').textContent)]).filter(([, n]) => n))""")
    assert time.monotonic() - first_shown >= 0.5  # a readable pace
    page.screenshot(path=str(artifacts / "after" / "item2-watch-step.png"))
    # ... each what a spectator saw then.
    spectator = page.request.get(f"{table.url}/api/games/{table.game.id}/boards?after={before + 1}").json()
    assert spectator["boards"][0]["seq"] == before + 2
    assert pieces == {f"{seat}-{a['code']}": n for a in spectator["boards"][0]["areas"]
                      for seat, n in enumerate(a["counts"]) if n}
    # Skip shows where the game is now.
    page.click("#watch-skip")
    page.wait_for_function(f"() => window.elgrande.state.seq === {before + added}")
    expect(page.locator("#watch")).to_be_hidden()
    played = page.evaluate("window.elgrande.watch.played")
    assert played < added
    # Under prefers-reduced-motion the new state came at once, with no steps played.
    still.wait_for_function(f"() => window.elgrande.state.seq === {before + added}")
    assert still.evaluate("window.elgrande.watch.played") == 0
    # Anna's own turn is not played back to her.
    deadline = time.monotonic() + 40
    seen: set[str] = set()
    while time.monotonic() < deadline:
        s = state(page)
        if s["legal"]:
            click_action(page, pick(s["legal"], rng, seen))
        elif s["draft"]["can_finish"]:
            command(page, "#finish")
            break
        elif table.bert in to_act(table.match().state):  # bert's bid or turn first
            table.bert_turn(rng)
            page.wait_for_function("() => !document.body.dataset.watching && window.elgrande.state.seq === "
                                   f"{table.match().seq}", timeout=30_000)
            played = page.evaluate("window.elgrande.watch.played")
        else:
            page.wait_for_timeout(50)
    assert page.evaluate("window.elgrande.watch.played") == played
    # Bert's next move, watched to the end without Skip.
    while table.bert not in to_act(table.match().state):
        assert not state(page)["legal"], "anna to act again: pick another seed"
        page.wait_for_timeout(50)
    head_before = table.match().seq
    added = table.bert_turn(rng)
    page.wait_for_function(f"() => window.elgrande.state.seq === {head_before + added}", timeout=20_000)
    page.wait_for_function("() => !document.body.dataset.watching")
    assert page.evaluate("window.elgrande.watch.played") == played + added
    expect(page.locator("#watch")).to_be_hidden()
    assert not page.errors and not still.errors  # type: ignore[attr-defined]


def test_the_finished_game_explained(browser: Browser, table: Table, artifacts: Path) -> None:
    match = advance(table.svc, table.game.id, lambda m: m.over, seed=2)
    table.svc.play.after_commit(match.id)
    page = open_as_anna(browser, table)
    page.locator("#finished[data-summary]").wait_for()
    summary = page.request.get(f"{table.url}/api/games/{table.game.id}/summary").json()
    final = state(page)
    # The final scores and where they came from, above the map.
    rows = page.locator("#final-scores tbody tr")
    expect(rows).to_have_count(2)
    for i in range(2):
        cells = [int(c) for c in rows.nth(i).locator("td").all_inner_texts()[2:]]
        seat = int(rows.nth(i).get_attribute("data-seat") or -1)
        assert cells[0] == final["players"][seat]["score"] == sum(cells[1:]), cells
        part = summary["seats"][seat]
        assert cells[1:] == [part["general"], part["special"], part["castillo"], part["bonuses"]]
    scores, board = page.locator("#final-scores").bounding_box(), page.locator("#map").bounding_box()
    assert scores and board and scores["y"] < board["y"]
    # The chart: a line per seat, the rounds on top, the three general scorings marked.
    expect(page.locator("#score-chart .chart-line")).to_have_count(2)
    expect(page.locator("#score-chart .chart-round-label")).to_have_count(6)
    expect(page.locator("#score-chart .chart-scoring")).to_have_count(3)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(artifacts / "after" / "item12-finished-top.png"))
    # The stepper: by round, by turn, by move; the chart follows.
    total = final["seq"]
    expect(page.locator("#replay-where")).to_have_text(f"move {total} of {total}")
    last_round = summary["rounds"][-1]
    page.click("#replay-round-prev")
    expect(page.locator("#replay-where")).to_have_text(f"move {last_round['seq']} of {total}")
    expect(page.locator("#replay-turn")).to_contain_text(f"Round {last_round['round']}")
    page.click("#replay-round-prev")
    expect(page.locator("#replay-where")).to_have_text(f"move {summary['rounds'][-2]['seq']} of {total}")
    page.click("#replay-turn-next")
    first_turn = next(t for t in summary["turns"] if t["seq"] > summary["rounds"][-2]["seq"])
    expect(page.locator("#replay-where")).to_have_text(f"move {first_turn['seq']} of {total}")
    expect(page.locator("#replay-turn")).to_contain_text(["anna", "bert"][first_turn["seat"]] + "'s turn")
    page.wait_for_function(f"() => document.getElementById('map').dataset.replaySeq === '{first_turn['seq']}'")
    page.click("#replay-turn-prev")
    turn_before = max(t["seq"] for t in summary["turns"] if t["seq"] < first_turn["seq"])
    expect(page.locator("#replay-where")).to_have_text(f"move {turn_before} of {total}")
    page.click("#replay-next")
    expect(page.locator("#replay-where")).to_have_text(f"move {turn_before + 1} of {total}")
    cursor = page.locator("#score-chart .chart-cursor").get_attribute("x1")
    page.click("#replay-round-next")
    assert page.locator("#score-chart .chart-cursor").get_attribute("x1") != cursor
    page.screenshot(path=str(artifacts / "after" / "item12-stepper-by-round.png"), full_page=True)
    # The side panels follow the stepper: the players' scores and courts as they were.
    scores_shown = page.locator("#players tbody td:nth-child(3)")
    page.locator("#replay-slider").fill("0")
    page.locator("#replay-slider").dispatch_event("change")
    page.wait_for_function("() => document.getElementById('map').dataset.replaySeq === '0'")
    expect(scores_shown).to_have_text(["0", "0"])
    at_start = page.request.get(f"{table.url}/api/games/{table.game.id}/replay/0").json()
    expect(page.locator("#players tbody td:nth-child(4)")).to_have_text(
        [str(p["court"]) for p in at_start["players"]])
    page.click("#replay-round-next")
    page.locator("#replay-slider").fill(str(total))
    page.locator("#replay-slider").dispatch_event("change")
    page.wait_for_function(f"() => document.getElementById('map').dataset.replaySeq === '{total}'")
    expect(scores_shown).to_have_text([str(p["score"]) for p in final["players"]])
    problems = axe_violations(page, "finished game")
    assert not problems, "\n".join(problems)
    assert not page.errors  # type: ignore[attr-defined]


def test_changes_since_the_last_look_in_german(browser: Browser, table: Table) -> None:
    """The marks of what changed since the player last looked come from the log's data
    (verbs, scored regions and points), not from its English words: a German reader sees
    the scored regions flash and the others' moves summed up."""
    page = open_as_anna(browser, table)  # the board as anna last saw it is kept
    page.context.add_cookies([{"name": "lang", "value": "de", "url": table.url}])
    match = advance(table.svc, table.game.id,
                    lambda m: m.state.round >= 4 and table.anna in to_act(m.state), seed=4)
    page.reload()
    page.wait_for_function("() => window.elgrande && window.elgrande.state")
    assert page.evaluate("document.documentElement.lang") == "de"
    table.svc.play.after_commit(match.id)
    page.wait_for_function("() => !!window.elgrande.changes")
    changes = page.evaluate("window.elgrande.changes")
    log = state(page)["log"]
    scored = {e["score"]["area"] for e in log if "score" in e}
    assert scored and {s["area"] for s in changes["scored"]} <= scored
    assert page.locator("#map .score-flash").count() == len(changes["scored"]) > 0
    expect(page.locator("#since")).to_be_visible()
    since = page.locator("#since-list").inner_text()
    assert "Wertung" in since and "Scoring of" not in since
    assert not page.errors  # type: ignore[attr-defined]
