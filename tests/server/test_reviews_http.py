"""The coach's reviews through the real routes (server/reviews.py, docs/coach.md): who may
ask and read, the quota per player, the cache, clear refusals; the work itself runs in
the bot workers with a tiny budget."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from elgrande.server.settings import Settings
from elgrande.server.tables import Game, Review
from tests.apps import app_for

from .conftest import As, create_game, join_game, register, services, start_game
from .helpers import advance

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def app(tmp_path: Path) -> Any:
    return app_for(Settings(database_url=f"sqlite:///{tmp_path / 'test.db'}",
                            secret_key="k" * 32, bot_delay=0.0, bot_processes=1,
                            coach_level="ismcts:10", coach_playouts=2,
                            coach_reviews_per_day=2))


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with TestClient(app, follow_redirects=False) as c:
        yield c


def table(anna: As, bert: As, rated: bool = False) -> int:
    game_id = create_game(anna, ["me", "open"], rounds=6)
    join_game(bert, game_id)
    start_game(anna, game_id)
    if rated:  # (the lobby rates only accounts a day old: these are new)
        with services(anna.client).sessions() as db:
            db.execute(update(Game).where(Game.id == game_id).values(rated=True))
            db.commit()
    return game_id


def finish(client: TestClient, game_id: int) -> None:
    svc = services(client)
    match = advance(svc, game_id, lambda m: m.over, seed=3)
    svc.play.after_commit(match.id)
    assert svc.lobby.get(game_id).status == "finished"


def ask(user: As, game_id: int, seat: int, csrf: str | None = None) -> Any:
    token = user.csrf() if csrf is None else csrf
    return user.post(f"/api/games/{game_id}/review", json={"seat": seat},
                     headers={"x-csrf-token": token})


def wait_done(user: As, game_id: int, seat: int) -> dict[str, Any]:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        got = user.get(f"/api/games/{game_id}/review?seat={seat}")
        assert got.status_code == 200, got.text
        review: dict[str, Any] = got.json()
        assert review["status"] != "failed", review
        if review["status"] == "done":
            return review
        time.sleep(0.2)
    raise AssertionError("the review did not finish")


def rows(client: TestClient) -> int:
    with services(client).sessions() as db:
        return int(db.scalar(select(func.count()).select_from(Review)) or 0)


def test_a_finished_game_is_reviewed_once_and_read_by_anyone(client: TestClient, anna: As,
                                                             bert: As) -> None:
    game_id = table(anna, bert)
    finish(client, game_id)
    first = ask(anna, game_id, 0)
    assert first.status_code == 200, first.text
    assert first.json()["status"] in ("pending", "running", "done")
    review = wait_done(anna, game_id, 0)
    match = services(client).store.load(services(client).lobby.get(game_id).match_id)
    assert review["upto"] == match.seq and review["decisions"] == review["total"] > 5
    assert review["done"] == review["total"] and review["error"] is None
    deltas = [m["delta"] for m in review["mistakes"]]
    assert deltas == sorted(deltas, reverse=True) and all(d > 0 for d in deltas)
    for m in review["mistakes"]:
        assert m["played"] != m["coach"] and m["played_text"] and m["coach_text"]
        assert str(match.actions[m["index"]]) == m["played"][0]  # the replay's position
        assert "anna" in m["played_text"]
    # The cache: asked again (by another player too), the same review, nothing recomputed.
    started = services(client).reviews.started
    again = ask(anna, game_id, 0)
    assert again.status_code == 200 and again.json() == review
    assert services(client).reviews.started == started and rows(client) == 1
    # A finished game is public: anyone may read it, and anyone signed in ask for a seat.
    assert As(client, None).get(f"/api/games/{game_id}/review?seat=0").json() == review
    carl = register(client, "carl")
    assert ask(carl, game_id, 1).status_code == 200
    # In German.
    german = anna.get(f"/api/games/{game_id}/review?seat=0",
                      headers={"accept-language": "de"}).json()
    if review["mistakes"]:
        assert german["mistakes"][0]["played_text"] != review["mistakes"][0]["played_text"]


def test_running_games_only_friendly_and_only_ones_own_seat(client: TestClient, anna: As,
                                                            bert: As) -> None:
    rated = table(anna, bert, rated=True)
    assert services(client).lobby.get(rated).rated
    friendly = table(anna, bert)
    for game_id in (rated, friendly):  # a few turns in
        advance(services(client), game_id, lambda m: m.state.round >= 3, seed=1)
    refused = ask(anna, rated, 0)
    assert refused.status_code == 403
    assert refused.json()["detail"] == "Rated games are reviewed only when they end."
    german = anna.post(f"/api/games/{rated}/review", json={"seat": 0},
                       headers={"x-csrf-token": anna.csrf(), "accept-language": "de"})
    assert german.status_code == 403 and "bewertet" in german.json()["detail"].lower()
    assert ask(anna, friendly, 1).status_code == 403  # bert's seat
    assert ask(As(client, None), friendly, 0).status_code == 401
    assert ask(anna, friendly, 0, csrf="forged").status_code == 403
    assert rows(client) == 0
    own = ask(anna, friendly, 0)
    assert own.status_code == 200, own.text
    review = wait_done(anna, friendly, 0)
    head = services(client).store.load(services(client).lobby.get(friendly).match_id).seq
    assert review["upto"] == head
    # Nobody else reads it while the game runs.
    assert bert.get(f"/api/games/{friendly}/review?seat=0").status_code == 403
    assert As(client, None).get(f"/api/games/{friendly}/review?seat=0").status_code == 403


def test_the_quota_counts_new_reviews_per_player(client: TestClient, anna: As,
                                                 bert: As) -> None:
    first, second = table(anna, bert), table(anna, bert)
    finish(client, first)
    finish(client, second)
    assert ask(anna, first, 0).status_code == 200
    assert ask(anna, first, 1).status_code == 200
    over = ask(anna, second, 0)
    assert over.status_code == 429 and int(over.headers["retry-after"]) > 0
    assert "try again in" in over.json()["detail"]
    assert ask(anna, first, 0).status_code == 200  # cached: free
    assert ask(bert, second, 0).status_code == 200  # per player
    assert rows(client) == 3
    wait_done(anna, first, 0)
    wait_done(anna, first, 1)
    wait_done(bert, second, 0)


def test_bad_ids_are_clear_404s(client: TestClient, anna: As, bert: As) -> None:
    game_id = table(anna, bert)
    finish(client, game_id)
    for url, body in ((f"/api/games/{game_id + 100}/review", {"seat": 0}),
                      (f"/api/games/{game_id}/review", {"seat": 2}),
                      (f"/api/games/{game_id}/review", {"seat": -1})):
        got = anna.post(url, json=body, headers={"x-csrf-token": anna.csrf()})
        assert got.status_code == 404, got.text
        assert got.json()["detail"] in ("No such game.", "No such seat in this game.")
    got = anna.get(f"/api/games/{game_id}/review?seat=1")  # asked by nobody: not an error
    assert got.status_code == 200 and got.json() == {"status": "none", "seat": 1}
    assert anna.get(f"/api/games/{game_id + 100}/review?seat=0").status_code == 404
