"""The play API over HTTP: views, commands, and every way a request can be wrong."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from .conftest import As, create_game, services

pytestmark = pytest.mark.timeout(120)


def first_to_act(game_id: int, players: tuple[As, ...]) -> tuple[As, int, dict]:
    view = players[0].get(f"/api/games/{game_id}").json()
    seat = view["to_act"][0]
    mover = players[seat]
    return mover, seat, mover.get(f"/api/games/{game_id}").json()


def test_each_seat_gets_its_own_view_and_spectators_the_public_one(
        client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    game_id, anna, bert, carl = three_humans
    mover, seat, view = first_to_act(game_id, (anna, bert, carl))
    assert view["seat"] == seat and view["phase"] == "bid"
    assert [a["text"] for a in view["legal"]] == [f"p{seat} bid {v}" for v in range(1, 14)]
    others = [p for p in (anna, bert, carl) if p is not mover]
    assert others[0].get(f"/api/games/{game_id}").json()["legal"] == []
    spectator = As(client, None).get(f"/api/games/{game_id}").json()
    assert spectator["seat"] is None and spectator["spectator"] and spectator["legal"] == []
    assert spectator["draft"]["steps"] == []
    assert len(spectator["areas"]) == 10 and spectator["areas"][9]["code"] == "CAS"
    assert As(client, None).get("/api/games/12345").status_code == 404


def test_step_undo_redo_finish(client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    game_id, *players = three_humans
    mover, seat, view = first_to_act(game_id, tuple(players))
    seq = view["seq"]
    r = mover.api(game_id, "step", {"action": f"p{seat} bid 7", "seq": seq})
    assert r.status_code == 200 and r.json()["error"] is None
    state = r.json()["state"]
    assert state["draft"] == {"steps": [f"p{seat} bid 7"], "can_undo": True, "can_redo": False, "can_finish": True}
    assert state["legal"] == []  # the bid hands play on: only undo or finish
    # Others see nothing of the draft.
    other = next(p for p in players if p is not mover)
    assert other.get(f"/api/games/{game_id}").json()["players"][seat]["bid"] is None
    state = mover.api(game_id, "undo", {"seq": seq}).json()["state"]
    assert state["draft"]["steps"] == [] and state["draft"]["can_redo"] and len(state["legal"]) == 13
    state = mover.api(game_id, "redo", {"seq": seq}).json()["state"]
    assert state["draft"]["steps"] == [f"p{seat} bid 7"]
    r = mover.api(game_id, "finish", {"seq": seq})
    assert r.status_code == 200
    after = other.get(f"/api/games/{game_id}").json()
    assert after["seq"] == seq + 1 and after["players"][seat]["bid"] == 7
    assert 7 in after["blocked_bids"]


@pytest.mark.parametrize("body, status, code", [
    ({"action": "p{other} bid 7"}, 409, "illegal"),     # another seat's action
    ({"action": "p{seat} bid 14"}, 409, "illegal"),     # not notation
    ({"action": "p{seat} place ARA"}, 409, "illegal"),  # not legal now
    ({"action": "p{seat} bid 7", "seq": 0}, 409, "moved_on"),  # stale sequence
])
def test_bad_steps_are_refused_and_change_nothing(
        client: TestClient, three_humans: tuple[int, As, As, As], body: dict, status: int, code: str) -> None:
    game_id, *players = three_humans
    mover, seat, before = first_to_act(game_id, tuple(players))
    payload = {k: (v.format(seat=seat, other=(seat + 1) % 3) if isinstance(v, str) else v) for k, v in body.items()}
    payload.setdefault("seq", before["seq"])
    r = mover.api(game_id, "step", payload)
    assert r.status_code == status and r.json()["error"]["code"] == code
    assert r.json()["state"] == before
    assert mover.get(f"/api/games/{game_id}").json() == before


def test_wrong_seat_user_and_malformed_requests(client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    game_id, *players = three_humans
    mover, seat, before = first_to_act(game_id, tuple(players))
    waiting = next(p for p in players if p is not mover)
    r = waiting.api(game_id, "step", {"action": f"p{seat} bid 3", "seq": before["seq"]})
    assert r.status_code == 409 and r.json()["error"]["code"] in ("illegal", "not_your_turn")
    stranger = As(client, None)
    assert stranger.post(f"/api/games/{game_id}/step", json={"action": "p0 bid 1"}).status_code == 401
    from .conftest import register
    dora = register(client, "dora")
    assert dora.api(game_id, "step", {"action": f"p{seat} bid 1"}).status_code == 403
    no_csrf = mover.post(f"/api/games/{game_id}/step", json={"action": f"p{seat} bid 1"})
    assert no_csrf.status_code == 403
    csrf = {"x-csrf-token": mover.csrf(), "content-type": "application/json"}
    assert mover.post(f"/api/games/{game_id}/step", content=b"{not json", headers=csrf).status_code == 422
    assert mover.post(f"/api/games/{game_id}/step", json={"seq": 1}, headers=csrf).status_code == 422
    assert mover.post(f"/api/games/{game_id}/step", json={"action": "x" * 100}, headers=csrf).status_code == 422
    for command, code in [("undo", "nothing_to_undo"), ("redo", "nothing_to_redo"), ("finish", "nothing_to_finish")]:
        r = mover.api(game_id, command, {"seq": before["seq"]})
        assert r.status_code == 409 and r.json()["error"]["code"] == code
    assert mover.get(f"/api/games/{game_id}").json() == before
    lobby_game = create_game(mover, ["me", "open"])
    assert mover.api(lobby_game, "step", {"action": "p0 bid 1"}).status_code == 409
    assert mover.get(f"/api/games/{lobby_game}").status_code == 409


def end_log(user: As, game_id: int) -> list[dict]:
    log: list[dict] = user.get(f"/api/games/{game_id}").json()["log"]
    return log


def test_record_and_replay_wait_for_the_end(client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    game_id, anna, *_ = three_humans
    assert anna.get(f"/api/games/{game_id}/record").status_code == 409
    assert anna.get(f"/api/games/{game_id}/replay/3").status_code == 409


def test_a_finished_game_has_final_scores_a_record_and_log_stepping(
        client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    from .helpers import advance
    game_id, anna, *_ = three_humans
    svc = services(client)
    match = advance(svc, game_id, lambda m: m.over)
    svc.play.after_commit(match.id)
    view = anna.get(f"/api/games/{game_id}").json()
    assert view["finished"] and view["winners"] and view["legal"] == []
    assert max(p["score"] for p in view["players"]) == view["players"][view["winners"][0]]["score"]
    record = anna.get(f"/api/games/{game_id}/record").json()
    assert record["seed"] and len(record["log"]) == match.seq
    start = anna.get(f"/api/games/{game_id}/replay/0").json()
    assert start["seq"] == 0 and all(sum(a["counts"]) == 0 for a in start["areas"])
    middle = anna.get(f"/api/games/{game_id}/replay/{match.seq // 2}").json()
    assert middle["seq"] == match.seq // 2
    assert len([e for e in middle["log"] if not e.get("event")]) == match.seq // 2
    assert any(e.get("event") and e["text"].startswith("Scoring of") for e in end_log(anna, game_id))
    end = anna.get(f"/api/games/{game_id}/replay/{match.seq}").json()
    assert [p["score"] for p in end["players"]] == [p["score"] for p in view["players"]]
    assert anna.get(f"/api/games/{game_id}/replay/{match.seq + 1}").status_code == 400
    assert "finished" in anna.get("/lobby").text
