"""The ranking, profile and "My games" pages, "Play again" and the rated/friendly choice,
over HTTP (server/player_pages.py)."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from elgrande.matches import MatchError
from elgrande.rules import to_act
from elgrande.server.clocks import table_clock
from elgrande.server.lobby import SeatSpec
from elgrande.server.settings import Settings
from elgrande.server.tables import Game, GameClock, Seat, User, utcnow
from tests.apps import app_for

from .conftest import As, create_game, register, services
from .helpers import choose


def age(client: TestClient, *users: As) -> None:
    """The accounts are two days old: old enough for rated games."""
    with services(client).sessions.begin() as db:
        db.execute(update(User).where(User.name.in_([u.name for u in users]))
                   .values(created_at=utcnow() - timedelta(days=2)))


def user_of(client: TestClient, who: As) -> User:
    with services(client).sessions() as db:
        found = db.scalar(select(User).where(User.name == who.name))
        assert found is not None
        return found


def finished_game(client: TestClient, users: list[As], bots: tuple[str, ...] = (),
                  rated: bool = True, seed: int = 1, **options: Any) -> int:
    """A game of ``users`` (and computers) played to its end and recorded."""
    svc = services(client)
    accounts = [user_of(client, u) for u in users]
    seats = [SeatSpec("me")] + [SeatSpec("open")] * (len(users) - 1) + [
        SeatSpec("bot", bot_level=level) for level in bots]
    game = svc.lobby.create(accounts[0], len(seats), 6, seats, rated=rated, **options)
    for account in accounts[1:]:
        svc.lobby.join(game.id, account)
    match_id = svc.lobby.start(game.id, accounts[0])
    play_to_end(svc, match_id, seed)
    svc.lobby.mark_finished(match_id)
    return int(game.id)


def play_to_end(svc: Any, match_id: str, seed: int) -> None:
    """Random turns for every seat (``advance``), while the app's own computer players
    may move their seats meanwhile: a turn that lost the race is played again."""
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
            continue  # a computer moved first
    raise AssertionError("the game did not end")


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[TestClient]:
    app: Any = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'l.db'}", secret_key="k" * 32,
                                bot_delay=0.0, profile_pages_per_minute=3))
    with TestClient(app, follow_redirects=False) as client:
        yield client


def test_ranking_shows_rated_players_your_place_and_the_computers(
        client: TestClient, anna: As, bert: As, carl: As) -> None:
    age(client, anna, bert, carl)
    for seed in range(3):
        finished_game(client, [anna, bert, carl], seed=seed)
    page = anna.get("/ranking")
    assert page.status_code == 200
    table = page.text.split('id="ranking-table"')[1].split("</table>")[0]
    names = re.findall(r'href="/players/(\w+)"', table)
    assert sorted(names) == ["anna", "bert", "carl"]
    assert table.count(">provisional<") == 3  # 3 of 10 rated games
    assert 'aria-current="true"' in table and 'id="my-place-number"' in page.text
    # The computers' calibration pool, where a player of their rating would stand.
    services(client).ratings.store_bot_ratings({"easy": (20.0, 2.0, 300), "hard": (40.0, 1.5, 300)})
    bots = anna.get("/ranking").text.split('id="bot-ratings"')[1]
    assert bots.index("hard") < bots.index("easy") and "2420" in bots  # 1000 + 40 * (40 - 3 * 1.5)
    assert anna.get("/ranking?page=0").status_code == 422
    assert "no rated game yet" in register(client, "dora").get("/ranking").text


def test_a_profile_shows_rating_history_stats_cards_and_recent_games(
        client: TestClient, anna: As, bert: As) -> None:
    age(client, anna, bert)
    games = [finished_game(client, [anna, bert], bots=("random",), seed=s) for s in range(3)]
    friendly = finished_game(client, [anna, bert], rated=False, seed=9)
    page = bert.get("/players/anna")
    assert page.status_code == 200
    text = page.text
    assert 'id="rating-chart"' in text and "<polyline" in text and "<script>" not in text
    history = re.search(r'id="history-table".*?</table>', text, re.S)
    assert history is not None and history.group(0).count("<tr>") == 4
    assert 'id="total-played">4<' in text and 'data-players="3"' in text and 'data-players="2"' in text
    assert 'id="favourite-cards"' in text
    recent = text.split('id="recent-games"')[1]
    for game_id in games + [friendly]:
        assert f'data-game="{game_id}"' in recent
    assert 'href="/players/bert"' in recent and "Computer (random)" in recent
    assert "friendly" in recent and "rated" in recent
    # No internal id anywhere: the match ids stay secret.
    svc = services(client)
    for game_id in games:
        assert svc.lobby.get(game_id).match_id not in text
    assert anna.get("/players/ANNA").status_code == 200  # as a login finds it
    assert anna.get("/players/nobody").status_code == 404
    assert anna.get("/players/" + "x" * 100).status_code == 404


def test_a_guest_has_a_minimal_profile(client: TestClient, anna: As) -> None:
    svc = services(client)
    guest = svc.accounts.guest()
    game = svc.lobby.create(guest, 2, 6, [SeatSpec("me"), SeatSpec("bot", bot_level="random")],
                            start_now=True)
    play_to_end(svc, game.match_id, 1)
    svc.lobby.mark_finished(svc.lobby.get(game.id).match_id)
    page = anna.get(f"/players/{guest.name}")
    assert page.status_code == 200 and 'id="guest-profile"' in page.text
    assert 'id="rating"' not in page.text and 'id="cards"' not in page.text
    assert f'data-game="{game.id}"' in page.text


def test_my_games_lists_running_and_finished_games_with_filters_and_pages(
        client: TestClient, anna: As, bert: As) -> None:
    age(client, anna, bert)
    finished = [finished_game(client, [anna, bert], rated=s % 2 == 0, seed=s) for s in range(22)]
    svc = services(client)
    a, b = user_of(client, anna), user_of(client, bert)
    running = svc.lobby.create(a, 2, 9, [SeatSpec("me"), SeatSpec("open")],
                               clock=table_clock("daily-1"))
    svc.lobby.join(running.id, b)
    svc.lobby.start(running.id, a)
    svc.clocks.settle(running.id)
    page = anna.get("/my-games").text
    run = page.split('id="running-games"')[1].split("</section>")[0]
    assert f'data-game="{running.id}"' in run and "with bert" in run
    assert "to play:" in run and "Round 1" in run and "your time:" in run
    first = page.split('id="finished-games"')[1]
    shown = [int(g) for g in re.findall(r'class="list-group-item game-result" data-game="(\d+)"', first)]
    assert shown == finished[::-1][:20]  # newest first, 20 a page
    assert "place " in first and "points" in first and "UTC" in first
    second = anna.get("/my-games?page=2").text
    assert [int(g) for g in re.findall(r'game-result" data-game="(\d+)"', second)] == finished[1::-1]
    assert 'id="running-games"' in second  # the running section stays on every page
    rated = anna.get("/my-games?show=rated").text
    assert [int(g) for g in re.findall(r'game-result" data-game="(\d+)"', rated)] == [
        g for g in finished[::-1] if (g - finished[0]) % 2 == 0]
    assert f'data-game="{running.id}"' not in rated  # friendly
    only_running = anna.get("/my-games?show=running").text
    assert 'id="finished-games"' not in only_running and f'data-game="{running.id}"' in only_running
    assert 'id="running-games"' not in anna.get("/my-games?show=finished").text
    bad = anna.get("/my-games?show=everything")
    assert bad.status_code == 400 and "Unknown filter" in bad.text
    assert anna.get("/my-games?page=1001").status_code == 422
    assert As(client, None).get("/my-games").status_code == 303  # log in first


def test_the_lobby_keeps_a_short_list_and_links_to_my_games(client: TestClient, anna: As,
                                                            bert: As) -> None:
    for seed in range(12):
        finished_game(client, [anna, bert], rated=False, seed=seed)
    lobby = anna.get("/lobby").text
    mine = lobby.split('id="my-games"')[1].split("</div>")[0]
    assert mine.count("data-game=") == 10 and 'href="/my-games"' in lobby


def test_play_again_invites_the_same_players_with_the_same_options(
        client: TestClient, anna: As, bert: As) -> None:
    age(client, anna, bert)
    old = finished_game(client, [anna, bert], bots=("easy",), clock=table_clock("daily-1"))
    page = bert.get(f"/games/{old}").text
    assert 'id="play-again"' in page
    answer = bert.post(f"/games/{old}/again", data={"csrf_token": bert.csrf()})
    assert answer.status_code == 303
    new = int(answer.headers["location"].rsplit("/", 1)[1])
    svc = services(client)
    game = svc.lobby.get(new)
    assert game.status == "lobby" and game.rated and (game.players, game.rounds) == (3, 6)
    seats = [(s["kind"], s["invited_name"], s["bot_level"], s["user_id"]) for s in svc.lobby.seats(new)]
    b = user_of(client, bert)
    assert seats == [("invited", "anna", None, None), ("human", None, None, b.id),
                     ("bot", None, "easy", None)]
    with svc.sessions() as db:
        assert db.get(GameClock, new).rules == db.get(GameClock, old).rules
    assert f'data-game="{new}"' in anna.get("/lobby").text.split('id="invitations"')[1]


def test_play_again_is_refused_clearly_and_changes_nothing(client: TestClient, anna: As,
                                                           bert: As, carl: As) -> None:
    old = finished_game(client, [anna, bert], rated=False)
    running = create_game(anna, ["me", "open"])

    def games() -> int:
        with services(client).sessions() as db:
            return len(db.scalars(select(Game.id)).all())

    before = games()
    outsider = carl.post(f"/games/{old}/again", data={"csrf_token": carl.csrf()})
    assert outsider.status_code == 409 and "Only the players" in outsider.text
    waiting = anna.post(f"/games/{running}/again", data={"csrf_token": anna.csrf()})
    assert waiting.status_code == 409 and "Only a finished game" in waiting.text
    assert anna.post(f"/games/{old}/again", data={"csrf_token": "forged"}).status_code == 403
    assert anna.post("/games/9999/again", data={"csrf_token": anna.csrf()}).status_code == 404
    assert games() == before


def test_a_rated_table_is_chosen_in_the_new_game_form(client: TestClient, anna: As,
                                                      bert: As) -> None:
    form = anna.get("/lobby").text
    assert 'name="rating" id="rating-rated" value="rated"' in form
    young = anna.post("/games", data={"players": "2", "rounds": "9", "seat0": "me",
                                      "seat1": "open", "rating": "rated",
                                      "csrf_token": anna.csrf()})
    assert young.status_code == 400 and "less than a day old" in young.text
    bogus = anna.post("/games", data={"players": "2", "seat0": "me", "seat1": "open",
                                      "rating": "ranked", "csrf_token": anna.csrf()})
    assert bogus.status_code == 400 and "rated or friendly" in bogus.text
    age(client, anna)
    rated = create_game(anna, ["me", "open"], rating="rated")
    friendly = create_game(anna, ["me", "open"])
    svc = services(client)
    assert svc.lobby.get(rated).rated and not svc.lobby.get(friendly).rated
    refused = bert.post(f"/games/{rated}/join", data={"csrf_token": bert.csrf()})
    assert refused.status_code == 409 and "less than a day old" in refused.text
    with svc.sessions() as db:
        assert db.scalar(select(Seat.kind).where(Seat.game_id == rated, Seat.seat == 1)) == "open"


def test_page_loads_are_limited_per_address(limited: TestClient) -> None:
    anna = register(limited, "anna")
    for _ in range(3):
        assert anna.get("/ranking").status_code == 200
    refused = anna.get("/players/anna")
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
