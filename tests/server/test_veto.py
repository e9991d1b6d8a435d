"""Veto windows at a box-rules table (server/veto.py): the window's own wait and the pass
the server enters when it is up (one process, one pass), a holder's "no veto this turn /
this round" answered at once and shown to everyone, refusals that change nothing, no clock
for the holder, the rule set chosen at creation, and the hidden Castillo's split in no
other seat's page."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from elgrande.matches import Match
from elgrande.rules import GameConfig, Options, State, new_game, parse_action, redact, to_act
from elgrande.rules.state import VETO
from elgrande.server.app import Services, build_services
from elgrande.server.clocks import table_clock
from elgrande.server.commands import Command
from elgrande.server.errors import PlayError
from elgrande.server.lobby import SeatSpec
from elgrande.server.present import board
from elgrande.server.settings import Settings
from elgrande.server.tables import Game, User, VetoPreference, VetoWait
from elgrande.server.veto import VetoWatch, holds
from tests.apps import app_for, migrated
from tests.fakeclock import FakeClock
from tests.matches.match_helpers import BOX, before_window

from .conftest import As, create_game, join_game, register, services, start_game

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def svc(tmp_path: Path, clock: FakeClock) -> Iterator[Services]:
    """The server's parts, not started (no threads): each test decides when to look."""
    built = build_services(Settings(database_url=migrated(f"sqlite:///{tmp_path / 'v.db'}"),
                                    secret_key="k" * 32, bot_delay=0.0,
                                    veto_window_seconds=60.0), clock)
    yield built
    built.accounts.close()
    built.engine.dispose()


@dataclass
class Table:
    game: Game
    users: list[User]
    match_id: str
    active: int
    turn: list[str]


def box_table(svc: Services, clocked: bool = False) -> Table:
    """A running box game of three guests, just before a turn that opens a veto window."""
    users = [svc.accounts.guest() for _ in range(3)]
    game = svc.lobby.create(users[0], 3, 6, [SeatSpec("me"), SeatSpec("open"), SeatSpec("open")],
                            rules="box", clock=table_clock("daily-1") if clocked else None)
    for user in users[1:]:
        svc.lobby.join(game.id, user)
    match, active, turn = before_window(match_id=svc.lobby.match_id_for(game))
    svc.store.add(match)  # the lobby's start takes the match of the game's id as it is
    match_id = svc.lobby.start(game.id, users[0])
    started = svc.lobby.get(game.id)
    assert started is not None and started.rules == "box"
    return Table(started, users, match_id, active, turn)


def open_window(svc: Services, table: Table) -> int:
    """The active player plays his turn up to the window through ``Play.act``; the
    holder asked."""
    for step in table.turn:
        seq = svc.store.view(table.match_id, None).seq
        svc.play.act(table.game, table.active, Command("step", seq, parse_action(step)))
    match = svc.store.load(table.match_id)
    assert match.state.phase == VETO and match.drafts == {}  # committed up to the window
    return to_act(match.state)[0]


def watch(svc: Services) -> VetoWatch:
    assert svc.veto is not None
    return svc.veto


def public(svc: Services, game_id: int) -> dict[str, Any]:
    found = watch(svc).public(game_id)
    assert found is not None
    return found


def last_action(svc: Services, table: Table) -> str:
    return str(svc.store.load(table.match_id).log[-1].action)


def waits(svc: Services) -> list[tuple[int, int, int]]:
    with svc.sessions() as db:
        return [(w.game_id, w.seq, w.seat) for w in db.scalars(select(VetoWait))]


def test_the_match_records_the_rule_set_chosen_at_creation(svc: Services) -> None:
    table = box_table(svc)
    assert svc.store.load(table.match_id).config.options.rule_set == "box"
    user = svc.accounts.guest()
    plain = svc.lobby.create(user, 2, 6, [SeatSpec("me"), SeatSpec("bot")], start_now=True)
    assert plain.rules == "yucata"
    assert svc.store.load(plain.match_id or "").config.options.rule_set == "yucata"
    with pytest.raises(ValueError, match="Yucata"):
        svc.lobby.create(user, 2, 6, [SeatSpec("me"), SeatSpec("bot")], rules="bga")


def test_a_window_waits_its_own_time_then_the_server_passes(svc: Services,
                                                            clock: FakeClock) -> None:
    table = box_table(svc)
    holder = open_window(svc, table)
    head = svc.store.load(table.match_id).seq
    watch(svc).settle_pending()  # what the keeper's thread does after the commit
    assert waits(svc) == [(table.game.id, head, holder)]
    assert watch(svc).next_due() == clock() + timedelta(seconds=60)
    shown = public(svc, table.game.id)
    assert shown["window_deadline"] == (clock() + timedelta(seconds=60)).isoformat()
    assert svc.clock_thread.tick() <= 60.0  # the thread sleeps until that deadline
    clock.advance(seconds=59)
    assert watch(svc).expire_due(clock()) == 0
    clock.advance(seconds=2)
    # Two processes at the deadline: one pass (the row is claimed inside the commit).
    other = build_services(svc.settings, clock)
    try:
        assert watch(svc).expire_due(clock()) + watch(other).expire_due(clock()) == 1
    finally:
        other.accounts.close()
        other.engine.dispose()
    assert last_action(svc, table) == f"p{holder} pass"
    assert svc.store.load(table.match_id).seq == head + 1
    watch(svc).settle_pending()
    assert [w for w in waits(svc) if w[1] == head] == []


def test_a_window_answered_in_time_is_not_passed_again(svc: Services, clock: FakeClock) -> None:
    table = box_table(svc)
    holder = open_window(svc, table)
    watch(svc).settle_pending()
    seq = svc.store.load(table.match_id).seq
    svc.play.act(table.game, holder, Command("step", seq, parse_action(f"p{holder} veto")))
    assert svc.store.load(table.match_id).seq == seq + 1  # the answer is a whole turn
    clock.advance(seconds=61)
    assert watch(svc).expire_due(clock()) == 0
    assert last_action(svc, table) != f"p{holder} pass"
    assert waits(svc) == []


@pytest.mark.parametrize("scope", ["turn", "round"])
def test_no_veto_is_answered_at_once_and_shown_to_everyone(svc: Services, scope: str) -> None:
    table = box_table(svc)
    holder = open_window(svc, table)
    seq = svc.store.load(table.match_id).seq
    watch(svc).choose(table.game.id, holder, scope)
    assert svc.store.load(table.match_id).seq >= seq + 1
    assert str(svc.store.load(table.match_id).log[seq].action) == f"p{holder} pass"
    shown = public(svc, table.game.id)
    assert {"seat": holder, "scope": scope} in shown["no_veto"]
    # Asked again later in that turn (the next window): answered at once as well.
    state = svc.store.load(table.match_id).state
    assert holds({"scope": scope, "round": state.round, "active": table.active}, state)


def test_no_veto_holds_for_its_turn_or_its_round_only() -> None:
    s = new_game(GameConfig(players=3, options=BOX.options))
    d = s.to_dict()
    d["round_index"], d["active"] = 2, 1
    state = State.from_dict(d)
    now = state.round  # (a label)
    assert holds({"scope": "turn", "round": now, "active": 1}, state)
    assert not holds({"scope": "turn", "round": now, "active": 0}, state)
    assert not holds({"scope": "turn", "round": now - 1, "active": 1}, state)
    assert holds({"scope": "round", "round": now, "active": -1}, state)
    assert not holds({"scope": "round", "round": now - 1, "active": -1}, state)
    assert not holds(None, state)


@pytest.mark.parametrize("scope", ["forever", "", 3, None, ["round"], "ROUND"])
def test_a_malformed_choice_is_refused_and_changes_nothing(svc: Services, scope: Any) -> None:
    table = box_table(svc)
    holder = open_window(svc, table)
    seq = svc.store.load(table.match_id).seq
    with pytest.raises(PlayError) as refused:
        watch(svc).choose(table.game.id, holder, scope)
    assert refused.value.code == "bad_request"
    with svc.sessions() as db:
        assert list(db.scalars(select(VetoPreference))) == []
    assert svc.store.load(table.match_id).seq == seq
    assert public(svc, table.game.id)["no_veto"] == []


def test_the_holder_s_clock_does_not_run_in_a_window(svc: Services) -> None:
    table = box_table(svc, clocked=True)
    svc.clocks.settle_pending()
    svc.clocks.settle(table.game.id)
    holder = open_window(svc, table)
    svc.clocks.settle_pending()
    svc.clocks.settle(table.game.id)
    running = {s["seat"]: s["running"] for s in (svc.clocks.public(table.game.id) or {})["seats"]}
    assert running[holder] is False and running[table.active] is False
    watch(svc).choose(table.game.id, holder, "turn")  # passes
    svc.clocks.settle_pending()
    svc.clocks.settle(table.game.id)
    now = svc.store.load(table.match_id).state
    running = {s["seat"]: s["running"] for s in (svc.clocks.public(table.game.id) or {})["seats"]}
    if now.phase != VETO and not svc.store.load(table.match_id).over:
        for seat in to_act(now):
            assert running[seat] is True
    assert running[holder] is (holder in to_act(now) and now.phase != VETO)


def test_the_holder_s_page_shows_what_was_done_and_what_the_rest_would_do(
        svc: Services) -> None:
    table = box_table(svc)
    holder = open_window(svc, table)
    mine = svc.views.snapshot(table.game, holder)
    assert mine["rules"] == "box"
    window = mine["veto"]["window"]
    assert window["asking"][0] == holder and window["active"] == table.active
    assert window["so_far"] and window["rest"]
    assert [a["kind"] for a in mine["legal"]] == ["veto", "pass"]
    seq = svc.store.load(table.match_id).seq
    svc.play.act(table.game, holder, Command("step", seq, parse_action(f"p{holder} veto")))
    log = svc.views.snapshot(table.game, None)["log"]
    assert any("vetoes" in line["text"] for line in log), log[-5:]


# -- hidden Castillo: the split never reaches another seat's page

def _moved(s: State, a: int, b: int) -> State:
    d = s.to_dict()
    n = s.n
    d["cab"][9 * n + a] -= 1
    d["provinces"][a] += 1
    d["cab"][9 * n + b] += 1
    d["provinces"][b] -= 1
    return State.from_dict(d)


def test_the_castillo_split_is_on_no_other_seat_s_page() -> None:
    from tests.rules.box import play_random

    s = new_game(GameConfig(players=4, options=BOX.options))
    rng = random.Random(4)
    players = [{"seat": p, "name": f"P{p}", "kind": "human"} for p in range(4)]
    checked = 0
    for _ in range(60):
        play_random(s, rng, stop=lambda x: x.ply % 7 == 0 and x.ply > 0 or x.phase_name == "game_over")
        if s.phase_name == "game_over":
            break
        pair = next(((a, b) for a, b in itertools.permutations(range(4), 2)
                     if s.cab[36 + a] and s.provinces[b]), None)
        if pair is not None:
            t = _moved(s, *pair)
            for seat in [None, 0, 1, 2, 3]:
                one = board(redact(s, seat), s, [], 0, seat, players, 1, [], None)
                two = board(redact(t, seat), t, [], 0, seat, players, 1, [], None)
                if seat in pair:
                    continue
                assert one == two, seat
                for p in range(4):
                    if p != seat:
                        assert one["players"][p]["castillo"] is None
                        assert one["players"][p]["provinces"] is None
                        assert one["areas"][9]["counts"][p] is None
            checked += 1
        play_random(s, rng, stop=lambda x: x.ply % 7 == 1)
    assert checked >= 5


# -- over HTTP: the rule set in the form, the choice and its refusals

@pytest.fixture
def web(tmp_path: Path) -> Iterator[TestClient]:
    app = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'w.db'}", secret_key="k" * 32,
                           bot_delay=0.0))
    with TestClient(app, follow_redirects=False) as c:
        yield c


def test_over_http_the_table_is_created_with_box_rules_and_a_holder_chooses(
        web: TestClient) -> None:
    anna, bert, carl = (register(web, name) for name in ("anna", "bert", "carl"))
    game_id = create_game(anna, ["me", "open", "open"], rounds=6, rules="box")
    svc = services(web)
    game = svc.lobby.get(game_id)
    assert game.rules == "box"
    match, active, turn = before_window(match_id=svc.lobby.match_id_for(game))
    svc.store.add(match)
    join_game(bert, game_id)
    join_game(carl, game_id)
    start_game(anna, game_id)
    game = svc.lobby.get(game_id)
    page = anna.get(f"/games/{game_id}")
    assert page.status_code == 200 and "/static/js/veto.js" in page.text
    by_seat: list[As] = [anna, bert, carl]
    seq = match.seq
    for step in turn:
        r = by_seat[active].api(game_id, "step", {"action": step, "seq": seq})
        assert r.status_code == 200, r.text
        seq = r.json()["state"]["seq"]
    holder = to_act(svc.store.load(game.match_id).state)[0]
    assert by_seat[holder].get(f"/api/games/{game_id}").json()["veto"]["window"]
    url = f"/api/games/{game_id}/veto"
    for bad in ({"scope": "forever"}, {"scope": 5}, {}, {"scope": "round" * 3}):
        r = by_seat[holder].post(url, json=bad, headers=by_seat[holder].headers(
            {"x-csrf-token": by_seat[holder].csrf()}))
        assert 400 <= r.status_code < 500, (bad, r.status_code)
    assert svc.store.load(game.match_id).seq == seq
    assert web.get(url).json()["no_veto"] == []
    r = by_seat[holder].post(url, json={"scope": "round"}, headers=by_seat[holder].headers(
        {"x-csrf-token": by_seat[holder].csrf()}))
    assert r.status_code == 200, r.text
    assert {"seat": holder, "scope": "round"} in r.json()["veto"]["no_veto"]
    assert str(svc.store.load(game.match_id).log[seq].action) == f"p{holder} pass"


def test_yucata_views_are_unchanged_by_the_box_fields(svc: Services) -> None:
    user = svc.accounts.guest()
    game = svc.lobby.create(user, 2, 6, [SeatSpec("me"), SeatSpec("bot")], start_now=True)
    view = svc.views.snapshot(game, 0)
    assert view["rules"] == "yucata" and view["veto"] is None
    assert view["castillo_hidden"] is False
    assert all(p["castillo"] is not None for p in view["players"])




ADVANCE_SEED = "advance-box-2"


def test_advance_plays_box_games_through_their_veto_windows(svc: Services) -> None:
    """tests/server/helpers.advance answers the windows (the holder, not the active
    player, is asked; his answer is committed at once) and plays a box game to the end."""
    from .helpers import advance

    users = [svc.accounts.guest() for _ in range(4)]
    game = svc.lobby.create(users[0], 4, 6, [SeatSpec("me")] + [SeatSpec("open")] * 3,
                            rules="box")
    for user in users[1:]:
        svc.lobby.join(game.id, user)
    # The match's chance from a fixed seed (the start takes it as it is), so that the
    # game is the same each run: one where a Veto is taken and a window opens.
    box = GameConfig(players=4, rounds=6, options=Options.preset("box"))
    svc.store.add(Match.new(box, seed=ADVANCE_SEED, match_id=svc.lobby.match_id_for(game),
                            now=datetime.now(UTC)))
    svc.lobby.start(game.id, users[0])
    window = advance(svc, game.id, lambda m: m.state.phase == VETO, seed=2)
    holder = to_act(window.state)[0]
    assert holder != window.state.active and window.drafts == {}
    match = advance(svc, game.id, lambda m: m.over, seed=2)
    answer = match.log[window.seq].action  # the next commit: the holder's answer alone
    assert answer.seat == holder and answer.kind in ("veto", "pass")
    assert match.config.options.rule_set == "box"
