"""A whole game under the publisher's box rules through the page in Chromium (issue 16).

Three players (anna and two easy computers), 6 rounds, the Rules select set to the box
rules. anna takes a Veto card whenever one is on display (bidding her highest power card
for it) and:

* with her first Veto, vetoes the first special action of a computer she is asked about:
  the window shows what the action did so far and what the rest would do, the log says
  who vetoed whose card, and the Veto leaves her;
* with her second Veto, vetoes nothing: the first window she is asked runs out of time
  (the server's clock is injected and moved on, nothing sleeps) and the server passes for
  her; at her next decision she chooses "No veto this round" (shown to the table), and the
  server answers her windows of that round at once (one her own step opened, her losses
  to card 2c, in her draft: Play passes for her there); the card shows
  "this round and the next" in the round she took it, "to the end of this round" in the
  next, and leaves her at the end of that round (the log says it expired unused).

The table shows the rule set and, under the hidden Castillo, "?" for the others' counts.

The chance steps come from a seed chosen for this (the match is created with it before the
game starts) and the computers' moves from that seed, so the game is the same every run.
``python -m tests.browser.test_box_game [FIRST [COUNT]]`` plays seeds through the server's
parts without a browser (the same plan, the same computers) and prints what happened in
each: that is how ``SEED`` was found; run it again if the rules or the computers change.
"""

from __future__ import annotations

import random
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from elgrande.matches import Match
from elgrande.rules import GameConfig, Options
from elgrande.server.settings import Settings
from tests.fakeclock import FakeClock

SEED = "box-browser-6"
# What the search found for SEED (python -m tests.browser.test_box_game): anna takes both
# Vetos, vetoes card 3h with the first and lets the second (taken in round 5) expire at
# the end of round 6, two rounds before the end.
EXPECTED: dict[str, list[str]] = {
    "takes": ["anna takes card 2v (Veto).", "anna takes card 2v (Veto)."],
    "vetoes": ["anna vetoes Computer 3 (easy)'s card 3h: the rest of it is stopped "
               "(before it began)."],
    "expired": ["anna's Veto (taken in round 5) expires unused."],
    # the window that ran out, one she answered in her own draft, two the server answered
    "passes": ["anna lets the special action go on."] * 4,
}

pytestmark = pytest.mark.timeout(300)
PLAYERS, ROUNDS = 3, 6
BOX = GameConfig(players=PLAYERS, rounds=ROUNDS, options=Options.preset("box"))
WINDOW_SECONDS = 60.0


def settings(path: Path) -> Settings:
    return Settings(database_url=f"sqlite:///{path}", secret_key="test-secret-key-0123456789",
                    bot_delay=0.0, bot_processes=1, veto_window_seconds=WINDOW_SECONDS)


def seeded_match(svc: Any, game: Any, seed: str, now: datetime) -> None:
    """The match of a game not started yet, with its chance from ``seed`` (the lobby's
    start takes the match of the game's id as it is)."""
    svc.store.add(Match.new(BOX, seed=seed, match_id=svc.lobby.match_id_for(game), now=now))


@dataclass
class Plan:
    """How anna plays, decided from her page's state alone (so the search without a
    browser and the test in Chromium make the same choices). ``decide`` returns what to
    do now: ("step", action), ("finish", None), ("wait", None), ("over", None),
    ("time_out", None): let the window's time run out, ("no_veto_round", None)."""

    rng: random.Random = field(default_factory=lambda: random.Random(16))
    vetoed: bool = False
    windows_after: int = 0  # windows she was asked with the second Veto
    no_veto_round: int | None = None  # the round she chose "No veto this round" for

    def decide(self, s: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        if s["finished"]:
            return "over", None
        legal = s["legal"]
        holds = any(h["seat"] == s["seat"] for h in s["veto"]["held"])
        if legal and legal[0]["kind"] in ("veto", "pass"):
            if not self.vetoed:
                self.vetoed = True
                return "step", next(a for a in legal if a["kind"] == "veto")
            if self.no_veto_round == s["round"]:
                # The server answers for her: a window her own step opened (her losses
                # to 2c, still in her draft) at once, in that draft; never asked here.
                assert not s["draft"]["steps"], "her own window was not answered for her"
                return "wait", None
            self.windows_after += 1
            if self.windows_after == 1:
                return "time_out", None
            return "step", next(a for a in legal if a["kind"] == "pass")
        if legal and legal[0]["kind"] == "secret" and len(s["secret"]["waiting"]) > 1:
            return "wait", None  # the computers choose first: they think at a known seq
        if legal and holds and self.windows_after and self.no_veto_round != s["round"]:
            # After a window ran out, her next decision: "No veto this round" first.
            self.no_veto_round = s["round"]
            return "no_veto_round", None
        if legal:
            veto = [a for a in legal if a["kind"] == "take" and a["card"] == "2v"]
            if veto and not holds:
                return "step", veto[0]
            legal = [a for a in legal if not (a["kind"] == "take" and a["card"] == "2v")]
            if legal[0]["kind"] == "bid" and not holds and any(c["id"] == "2v" for c in s["cards"]):
                return "step", max(legal, key=lambda a: a["value"])
            castillo = [a for a in legal if a["kind"] == "place" and a.get("area") == "CAS"]
            return "step", castillo[0] if castillo else self.rng.choice(legal)
        if s["draft"]["can_finish"]:
            return "finish", None
        return "wait", None


# -- the game in Chromium

@pytest.fixture
def box_server(tmp_path: Path) -> Iterator[tuple[str, Any, FakeClock]]:
    from tests.apps import app_for
    from tests.server.liveserver import serving

    clock = FakeClock()
    app = app_for(settings(tmp_path / "live.db"), now=clock)
    with serving(app) as url:
        yield url, app.state.services, clock


def look(page: Page) -> tuple[dict[str, Any], int, str | None]:
    """The page's state, its render count and what the table shows of the Veto in front
    of anna (None: none), read together (a render in between would be missed)."""
    found: tuple[dict[str, Any], int, str | None] = page.evaluate(
        """() => { const li = document.querySelector("#veto-held li[data-seat='0']");
        return [window.elgrande.state, window.elgrande.renders || 0, li ? li.textContent : null]; }""")
    return found


def test_a_box_game_with_a_veto_used_and_one_expiring(
        browser: Browser, box_server: tuple[str, Any, FakeClock], artifacts: Path) -> None:
    from .driver import click_action, command, wait_render
    from .test_game_page import new_page, wait_game

    server, svc, clock = box_server
    page = new_page(browser)
    page.goto(f"{server}/register")
    page.fill("#name", "anna")
    page.fill("#password", "a good password")
    page.click("form[action='/register'] button[type=submit]")
    page.wait_for_url(re.compile(r".*/lobby$"))
    page.select_option("#players", str(PLAYERS))
    page.select_option("#rounds", str(ROUNDS))
    page.select_option("#rules", "box")
    for seat in range(1, PLAYERS):
        page.select_option(f"#seat{seat}", "bot")
        page.select_option(f"#level{seat}", "easy")
    page.click("#create-game")
    page.wait_for_url(re.compile(r".*/games/\d+$"))
    game = svc.lobby.get(int(page.url.rsplit("/", 1)[1]))
    assert game.rules == "box"
    seeded_match(svc, game, SEED, clock())
    page.click("#start")
    wait_game(page)
    # The table says which rules it plays.
    expect(page.locator("#veto-panel")).to_contain_text("Rules: the publisher's box rules")
    assert page.evaluate("window.elgrande.state.rules") == "box"

    plan = Plan()
    without: set[int] = set()  # rounds in which anna held no Veto at some point
    lives: dict[int, set[tuple[int, str]]] = {}  # taken round -> (round, life shown)
    vetoed_at = timed_out_at = chose_at = None
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        s, before, shown = look(page)
        if all(h["seat"] != 0 for h in s["veto"]["held"]):
            without.add(s["round"])
        for h in s["veto"]["held"]:
            if h["seat"] == 0:  # in front of anna, with its remaining life
                assert shown is not None and "anna holds a Veto" in shown, shown
                assert h["life"] in shown and f"until the end of round {h['expires_after_round']}" in shown
                lives.setdefault(h["taken_round"], set()).add((s["round"], h["life"]))
        what, action = plan.decide(s)
        if what == "over":
            break
        if what == "step" and action is not None and action["kind"] == "veto":
            window = s["veto"]["window"]
            # Her prompt: whose card, what it did so far, what the rest would do.
            box = page.locator("#veto-window")
            expect(box).to_be_visible()
            expect(box).to_contain_text("Asked now: anna")
            expect(box).to_contain_text("Done so far: " + " ".join(window["so_far"]))
            expect(box).to_contain_text(f"If nobody vetoes, next: {window['rest']}.")
            expect(page.locator("#status")).to_contain_text("Stop the rest of this special action")
            expect(page.locator('#buttons [data-action="p0 veto"]')).to_be_visible()
            page.screenshot(path=str(artifacts / "box-veto-window.png"), full_page=True)
            # Hidden Castillo: the others' counts (and provinces) are "?", never "null".
            castillo = page.evaluate("[...document.querySelectorAll(\"[data-piece$='-CAS']\")]"
                                     ".map((g) => g.textContent)")
            assert len(castillo) == PLAYERS and not castillo[0].endswith("?") and all(
                c.endswith("?") for c in castillo[1:]), castillo
            assert "null" not in page.inner_text("#players")
            active = s["players"][window["active"]]["name"]
            click_action(page, action)
            line = f"anna vetoes {active}'s card {window['card']}"
            expect(page.locator("#log")).to_contain_text(line)
            expect(page.locator("#veto-held li[data-seat='0']")).to_have_count(0)
            assert all(h["seat"] != 0 for h in page.evaluate("window.elgrande.state.veto.held"))
            vetoed_at = (s["round"], line)
        elif what == "step" and action is not None:
            click_action(page, action)
        elif what == "finish":
            command(page, "#finish")
        elif what == "wait":
            wait_render(page, before, timeout=60_000)
        elif what == "time_out":
            # The window waits its own time (the server's clock), then the server passes.
            countdown = page.locator("#veto-window .veto-countdown")
            expect(countdown).to_contain_text("The server passes for anna in")
            clock.advance(seconds=WINDOW_SECONDS + 1)
            svc.clocks.wake.set()
            page.wait_for_function(f"() => window.elgrande.state.seq > {s['seq']}", timeout=20_000)
            expect(page.locator("#log")).to_contain_text("anna lets the special action go on.")
            timed_out_at = s["round"]
        elif what == "no_veto_round":
            page.click("#no-veto-round")
            # Shown to the table; the server now answers her windows of this round.
            expect(page.locator("#veto-panel")).to_contain_text("anna: no veto this round.")
            expect(page.locator("#no-veto-off")).to_be_visible()  # "Ask me again"
            assert svc.veto.public(game.id)["no_veto"] == [{"seat": 0, "scope": "round"}]
            chose_at = s["round"]
    final = page.evaluate("window.elgrande.state")
    assert final["finished"], "the game did not end in time"
    log = [line["text"] for line in final["log"]]
    assert vetoed_at is not None and timed_out_at is not None and chose_at is not None
    assert vetoed_at[0] < timed_out_at <= chose_at
    # The game is the one the search found (the seed decides it).
    assert [line for line in log if "takes card 2v" in line] == EXPECTED["takes"], log
    assert [line for line in log if " vetoes " in line] == EXPECTED["vetoes"]
    assert EXPECTED["vetoes"][0].startswith(vetoed_at[1])
    assert [line for line in log if "expires unused" in line] == EXPECTED["expired"]
    assert [line for line in log if line.endswith("lets the special action go on.")] == \
        EXPECTED["passes"]
    labels = final["round_labels"]  # 6 rounds: 2, 3, 5, 6, 8, 9
    # Each Veto showed its remaining life in the round anna took it; the unused one also
    # in the next round, to its end, and then left her (before the next round).
    assert len(lives) == 2, lives
    for taken, seen in lives.items():
        assert (taken, "this round and the next") in seen, (taken, seen)
    taken_in = re.search(r"taken in round (\d+)", EXPECTED["expired"][0])
    assert taken_in is not None
    expired = int(taken_in.group(1))
    last = labels[labels.index(expired) + 1]
    assert lives[expired] == {(expired, "this round and the next"),
                              (last, "to the end of this round")}, lives
    assert labels[labels.index(last) + 1] in without
    assert all(h["seat"] != 0 for h in final["veto"]["held"])
    expect(page.locator("#veto-held li[data-seat='0']")).to_have_count(0)
    assert not page.errors  # type: ignore[attr-defined]


# -- the search (no browser): the server's parts, the same computers, the same plan

def play_without_browser(seed: str, tmp: Path) -> dict[str, Any]:
    """Plays the game of ``seed`` as the test does, through the server's parts (no
    threads: the computers' turns, the veto windows' waits and their time are run here
    in the order the server runs them). What happened, from anna's page at the end."""
    from elgrande.rules import parse_action
    from elgrande.server.app import build_services
    from elgrande.server.bots import think
    from elgrande.server.commands import Command
    from elgrande.server.lobby import SeatSpec
    from tests.apps import migrated

    clock = FakeClock()
    config = settings(tmp / f"{seed}.db")
    svc = build_services(config.model_copy(update={"database_url": migrated(config.database_url)}),
                         clock)
    try:
        user = svc.accounts.register("anna", "a good password")
        created = svc.lobby.create(user, PLAYERS, ROUNDS, [SeatSpec("me")] + [
            SeatSpec("bot", bot_level="easy")] * (PLAYERS - 1), rules="box")
        seeded_match(svc, created, seed, clock())
        svc.lobby.start(created.id, user)
        game = svc.lobby.get(created.id)
        watch = svc.veto
        assert game is not None and watch is not None
        plan, steps = Plan(), 0
        for _ in range(5000):
            watch.settle_pending()  # the keeper's thread after each commit
            work = svc.play.bot_work(game.id)
            if work:  # one at a time, in seat order, as the bot runner does
                t = work[0]
                svc.play.play_bot_steps(game.id, t.seat, think(t.state, t.seat, t.level, t.seed), t.seq)
                continue
            s = svc.views.snapshot(game, 0)
            what, action = plan.decide(s)
            if what == "over":
                break
            if what == "step":
                assert action is not None
                svc.play.act(game, 0, Command("step", s["seq"], parse_action(action["text"])))
                steps += 1
            elif what == "finish":
                svc.play.act(game, 0, Command("finish", s["seq"]))
            elif what == "time_out":
                watch.settle_pending()
                clock.advance(seconds=WINDOW_SECONDS + 1)
                assert watch.expire_due(clock()) == 1
            elif what == "no_veto_round":
                watch.choose(game.id, 0, "round")
            else:
                raise AssertionError(f"nothing to do at {s['seq']}: {what}")
        final = svc.views.snapshot(game, 0)
        log = [line["text"] for line in final["log"]]
        return {
            "seed": seed, "finished": final["finished"], "human_steps": steps,
            "takes": [line for line in log if "takes card 2v" in line],
            "vetoes": [line for line in log if " vetoes " in line],
            "expired": [line for line in log if "expires unused" in line],
            "passes": [line for line in log if "lets the special action go on" in line],
            "vetoed_by_anna": plan.vetoed, "windows_after": plan.windows_after,
            "no_veto_round": plan.no_veto_round,
        }
    finally:
        svc.accounts.close()
        svc.engine.dispose()


def _search(first: int, count: int) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for i in range(first, first + count):
            found = play_without_browser(f"box-browser-{i}", Path(tmp))
            good = (any(line.startswith("anna vetoes") for line in found["vetoes"])
                    and any(line.startswith("anna's Veto") for line in found["expired"])
                    and found["windows_after"] >= 1 and found["no_veto_round"] is not None)
            print(("GOOD " if good else "     ") + repr(found), flush=True)


if __name__ == "__main__":
    _search(int(sys.argv[1]) if len(sys.argv) > 1 else 1, int(sys.argv[2]) if len(sys.argv) > 2 else 20)
