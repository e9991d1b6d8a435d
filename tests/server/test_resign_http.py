"""Resigning a running game through the real routes: a computer takes the seat (the
player's draft discarded first), the player is ranked last at the end; refusals change
nothing; a game whose players all resigned is stopped as abandoned."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from elgrande.matches.record import verify
from elgrande.matches.tables import DraftRow
from elgrande.server.commands import parse_command
from elgrande.server.errors import PlayError
from elgrande.server.present import final_winners, ranking
from elgrande.server.settings import Settings
from elgrande.server.tables import Seat, User
from tests.apps import app_for
from tests.pg_server import postgres_server, postgres_url  # noqa: F401  (fixtures)

from .conftest import As, create_game, join_game, register, services, start_game

pytestmark = pytest.mark.timeout(120)


def resign(user: As, game_id: int, csrf: str | None = None) -> Any:
    return user.post(f"/games/{game_id}/resign",
                     data={"csrf_token": user.csrf() if csrf is None else csrf})


def seat_rows(client: TestClient, game_id: int) -> list[tuple[Any, ...]]:
    with services(client).sessions() as db:
        return [(s.seat, s.kind, s.user_id, s.bot_level, s.resigned_seq, s.resigned_round)
                for s in db.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat))]


def two_humans(anna: As, bert: As) -> int:
    game_id = create_game(anna, ["me", "open"], rounds=6)
    join_game(bert, game_id)
    start_game(anna, game_id)
    return game_id


def test_a_computer_takes_the_seat_and_the_draft_is_discarded(
        client: TestClient, anna: As, bert: As) -> None:
    game_id = two_humans(anna, bert)
    view = anna.get(f"/api/games/{game_id}").json()
    seat = view["to_act"][0]
    mover, other = (anna, bert) if seat == 0 else (bert, anna)
    seq = view["seq"]
    assert mover.api(game_id, "step", {"action": f"p{seat} bid 4", "seq": seq}).status_code == 200
    match_id = services(client).lobby.get(game_id).match_id
    with services(client).sessions() as db:
        assert db.get(DraftRow, (match_id, seat)) is not None

    with other.ws(game_id) as ws:
        ws.receive_json()
        response = resign(mover, game_id)
        assert response.status_code == 303 and response.headers["location"] == f"/games/{game_id}"
        # The stand-in moves from the committed state: the draft's "bid 4" is not kept.
        state = ws.receive_json()["state"]
        while state["seq"] == seq:
            state = ws.receive_json()["state"]
    row = seat_rows(client, game_id)[seat]
    assert row[1:] == ("bot", mover_id(client, mover), "medium", seq, view["round"])
    shown = state["players"][seat]
    assert shown["resigned"] == {"seq": seq, "round": view["round"]} and shown["stand_in"] == "medium"
    assert shown["name"] == mover.name and shown["kind"] == "bot"
    assert state["players"][1 - seat]["resigned"] is None
    # The player is a spectator now: no commands, no "your turn", no Resign button.
    assert mover.api(game_id, "finish", {"seq": state["seq"]}).status_code == 403
    page = mover.get(f"/games/{game_id}").text
    assert 'id="resign"' not in page and "spectator" in page
    assert 'id="resign"' in other.get(f"/games/{game_id}").text
    assert "your turn" not in mover.get("/lobby").text.split('id="my-games"')[1].split("</div>")[0]


def mover_id(client: TestClient, user: As) -> int:
    with services(client).sessions() as db:
        return int(db.scalar(select(User.id).where(User.name == user.name)))


def test_the_draft_goes_before_the_computer_takes_over(client: TestClient, anna: As,
                                                        bert: As) -> None:
    game_id = two_humans(anna, bert)
    view = anna.get(f"/api/games/{game_id}").json()
    seat = view["to_act"][0]
    mover = (anna, bert)[seat]
    assert mover.api(game_id, "step", {"action": f"p{seat} bid 4", "seq": view["seq"]}).status_code == 200
    svc = services(client)
    match_id = svc.lobby.get(game_id).match_id
    # Directly (the route also wakes the stand-in, which would race this look).
    svc.play.resign(game_id, svc.accounts.get(mover_id(client, mover)))
    with svc.sessions() as db:
        assert db.get(DraftRow, (match_id, seat)) is None
    # A process still remembering the seat as the player's cannot commit for them.
    with pytest.raises(PlayError) as refused:
        svc.play.act(svc.lobby.get(game_id), seat, parse_command("finish", view["seq"], None))
    assert refused.value.code == "resigned"
    assert svc.store.load(match_id).seq == view["seq"]


def test_refusals_are_clear_and_change_nothing(client: TestClient, anna: As, bert: As,
                                                carl: As) -> None:
    waiting = create_game(anna, ["me", "open", "open"])
    join_game(bert, waiting)
    refused = resign(bert, waiting)
    assert refused.status_code == 409 and "not started" in refused.text
    game_id = two_humans(anna, bert)
    before = seat_rows(client, game_id)
    assert resign(anna, game_id, csrf="forged").status_code == 403
    stranger = resign(carl, game_id)
    assert stranger.status_code == 409 and "You have no seat in this game." in stranger.text
    assert resign(anna, 10_000).status_code == 404
    assert "Traceback" not in stranger.text
    assert seat_rows(client, game_id) == before
    assert resign(anna, game_id).status_code == 303
    after = seat_rows(client, game_id)
    twice = resign(anna, game_id)
    assert twice.status_code == 409 and "You have already resigned this game." in twice.text
    assert seat_rows(client, game_id) == after
    # A finished game: nothing to resign.
    svc = services(client)
    svc.lobby.mark_finished(svc.lobby.get(game_id).match_id)
    over = resign(bert, game_id)
    assert over.status_code == 409 and "This game is over." in over.text
    assert seat_rows(client, game_id) == after


def test_players_who_all_resign_abandon_the_game(client: TestClient, anna: As, bert: As) -> None:
    game_id = two_humans(anna, bert)
    assert resign(anna, game_id).status_code == 303
    assert services(client).lobby.get(game_id).status == "active"
    assert resign(bert, game_id).status_code == 303
    svc = services(client)
    assert svc.lobby.get(game_id).status == "abandoned"
    assert svc.play.bot_work(game_id) == []  # not played out by computers
    assert 'id="abandoned"' in anna.get(f"/games/{game_id}").text
    assert "abandoned" in bert.get("/lobby").text.split('id="my-games"')[1].split("</div>")[0]


@pytest.fixture
def quick_client(tmp_path: Path) -> Iterator[TestClient]:
    """Random computers (fast) stand in."""
    app: Any = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'q.db'}", secret_key="k" * 32,
                                bot_delay=0.0, stand_in_level="random"))
    with TestClient(app, follow_redirects=False) as c:
        yield c


def play_out(player: As, game_id: int) -> dict[str, Any]:
    """Plays ``player``'s turns (first legal action, then finish) over the page's socket
    until the game ends; the computers play theirs meanwhile."""
    with player.ws(game_id) as ws:
        state = ws.receive_json()["state"]
        ident = 0
        while not state["finished"]:
            ident += 1
            if state["draft"]["can_finish"] and not state["legal"]:
                ws.send_json({"type": "finish", "seq": state["seq"], "id": ident})
            elif state["legal"]:
                ws.send_json({"type": "step", "action": state["legal"][0]["text"],
                              "seq": state["seq"], "id": ident})
            message = ws.receive_json()
            while message.get("type") != "state":
                message = ws.receive_json()
            state = message["state"]
        return state


def test_the_computer_finishes_and_the_player_is_ranked_last(quick_client: TestClient) -> None:
    anna, bert = register(quick_client, "anna"), register(quick_client, "bert")
    game_id = two_humans(anna, bert)
    assert resign(anna, game_id).status_code == 303
    assert services(quick_client).lobby.get(game_id).status == "active", "bert plays on"
    state = play_out(bert, game_id)
    assert state["ranking"][-1] == 0 and 0 not in state["winners"]
    assert state["players"][0]["resigned"]["round"] == 2  # a 6-round game starts at 2
    assert services(quick_client).lobby.get(game_id).status == "finished"
    record = bert.get(f"/api/games/{game_id}/record").json()
    assert record["resigned"] == [{"seat": 0, "round": 2,
                                   "after_move": seat_rows(quick_client, game_id)[0][4]}]
    assert record["ranking"][-1] == 0
    verify(record)  # the record still verifies


def test_a_player_alone_against_computers_who_resigns_abandons_the_game(
        quick_client: TestClient) -> None:
    anna = register(quick_client, "anna")
    game_id = create_game(anna, ["me", "bot"], rounds=6, level1="random")
    start_game(anna, game_id)
    assert resign(anna, game_id).status_code == 303
    svc = services(quick_client)
    assert svc.lobby.get(game_id).status == "abandoned"
    assert svc.play.bot_work(game_id) == []  # nobody to play for


def test_ranking_puts_resigned_players_last_whatever_the_score() -> None:
    players = [{"resigned_seq": None}, {"resigned_seq": 40}, {"resigned_seq": 12}, {}]
    assert ranking(players, [50, 90, 80, 60]) == [3, 0, 1, 2]

    class Final:  # the engine's final state: only n and the scores are read
        n = 4
        scores = [50, 90, 80, 60]

    assert final_winners(Final(), players) == [3]  # type: ignore[arg-type]
    assert final_winners(Final(), [{}, {}, {}, {}]) == [1]  # type: ignore[arg-type]


def test_resigning_on_postgresql(postgres_url: str) -> None:  # noqa: F811
    app: Any = app_for(Settings(database_url=postgres_url, secret_key="k" * 32, bot_delay=0.0))
    with TestClient(app, follow_redirects=False) as client:
        anna, bert = register(client, "anna"), register(client, "bert")
        game_id = two_humans(anna, bert)
        assert resign(anna, game_id).status_code == 303
        twice = resign(anna, game_id)
        assert twice.status_code == 409 and "already resigned" in twice.text
        assert seat_rows(client, game_id)[0][1] == "bot"
        assert services(client).lobby.get(game_id).status == "active"
        assert resign(bert, game_id).status_code == 303
        assert services(client).lobby.get(game_id).status == "abandoned"
