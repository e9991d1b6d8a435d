"""Lobby: create, invitation links, join, start, my games; pages and static files."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from .conftest import As, create_game, join_game, register, start_game


def test_create_join_start(client: TestClient, anna: As, bert: As) -> None:
    game_id = create_game(anna, ["me", "open"], rounds=6)
    room = anna.get(f"/games/{game_id}")
    assert room.status_code == 200 and "waiting for players" in room.text
    assert 'id="start"' in room.text and 'id="join"' not in room.text
    assert 'id="join"' in bert.get(f"/games/{game_id}").text
    # Not startable with a free seat unless filled with computers.
    refused = anna.post(f"/games/{game_id}/start", data={"csrf_token": anna.csrf()})
    assert refused.status_code == 409 and "still free" in refused.text
    join_game(bert, game_id)
    again = bert.post(f"/games/{game_id}/join", data={"csrf_token": bert.csrf()})
    assert again.status_code == 409
    not_creator = bert.post(f"/games/{game_id}/start", data={"csrf_token": bert.csrf()})
    assert not_creator.status_code == 409 and "created the game" in not_creator.text
    start_game(anna, game_id)
    page = bert.get(f"/games/{game_id}")
    assert 'id="map"' in page.text and 'data-seat="1"' in page.text
    view = bert.get(f"/api/games/{game_id}").json()
    assert view["round_labels"] == [2, 3, 5, 6, 8, 9] and view["seat"] == 1
    late = register(client, "late")
    assert late.post(f"/games/{game_id}/join", data={"csrf_token": late.csrf()}).status_code == 409


def test_create_game_validates_its_form(client: TestClient, anna: As) -> None:
    for data, message in [
        ({"players": "6"}, "2 to 5"),
        ({"players": "2", "rounds": "7"}, "9 or 6"),
        ({"players": "2", "seat0": "open", "seat1": "open"}, "exactly one seat"),
        ({"players": "2", "seat0": "me", "seat1": "invited", "invite1": "nobody"}, "no player called"),
        ({"players": "2", "seat0": "me", "seat1": "bot", "level1": "godlike"}, "Unknown computer"),
        ({"players": "2", "seat0": "me", "seat1": "robot"}, "Unknown seat kind"),
        ({"players": "two"}, "must be whole numbers"),
    ]:
        response = anna.post("/games", data={"csrf_token": anna.csrf(), **data})
        assert response.status_code == 400 and message in response.text, (data, response.text[:300])
    assert "No games yet" in anna.get("/lobby").text


def test_invited_seat_is_kept_for_the_invited_player(client: TestClient, anna: As, bert: As, carl: As) -> None:
    game_id = create_game(anna, ["me", "invited"], invite1="bert")
    assert "you are invited" in bert.get("/lobby").text and "you are invited" not in carl.get("/lobby").text
    assert carl.post(f"/games/{game_id}/join", data={"csrf_token": carl.csrf()}).status_code == 409
    join_game(bert, game_id)
    seats = anna.get(f"/games/{game_id}").text
    assert "bert" in seats
    assert "you are invited" not in bert.get("/lobby").text


def test_an_invitation_finds_the_player_whatever_the_case(client: TestClient, anna: As,
                                                          bert: As) -> None:
    game_id = create_game(anna, ["me", "invited"], invite1="BERT")
    assert "you are invited" in bert.get("/lobby").text
    join_game(bert, game_id)


def test_invitation_link_leads_a_stranger_to_log_in_or_play_as_guest(client: TestClient, anna: As) -> None:
    game_id = create_game(anna, ["me", "open"])
    room = anna.get(f"/games/{game_id}").text
    link = re.search(r'id="invite-link" readonly value="([^"]+)"', room)
    assert link
    path = link.group(1).replace("http://testserver", "")
    anon = As(client, None)
    page = anon.get(path)
    assert page.status_code == 200 and "Continue as a guest" in page.text
    guest_response = anon.post("/guest", data={"csrf_token": anon.csrf(), "next": f"/games/{game_id}"})
    assert guest_response.status_code == 303 and guest_response.headers["location"] == f"/games/{game_id}"
    guest = As(client, guest_response.cookies.get("elgrande_session"))
    assert guest.get(path).headers["location"] == f"/games/{game_id}"
    join_game(guest, game_id)
    assert anon.get("/invite/not-a-token").status_code == 404


def test_my_games_lists_games_where_it_is_my_turn_first(client: TestClient, anna: As, bert: As) -> None:
    waiting = create_game(anna, ["me", "open"])
    running = create_game(anna, ["me", "open"])
    join_game(bert, running)
    start_game(anna, running)
    view = anna.get(f"/api/games/{running}").json()
    on_turn = anna if 0 in view["to_act"] else bert
    lobby = on_turn.get("/lobby").text
    games = re.findall(r'data-game="(\d+)"', lobby)
    assert games[0] == str(running) and "your turn" in lobby
    if on_turn is anna:
        assert games == [str(running), str(waiting)]
    # The waiting game is listed as open to others.
    assert f'href="/games/{waiting}"' in bert.get("/lobby").text


def test_fill_with_bots_and_the_bots_move_by_themselves(client: TestClient, anna: As) -> None:
    game_id = create_game(anna, ["me", "open", "bot"], level2="random")
    start_game(anna, game_id, fill=True)
    with anna.ws(game_id) as ws:
        state = ws.receive_json()["state"]
        # Bots (seats 1 and 2) bid until it is anna's turn to bid.
        while state["to_act"] != [0]:
            state = ws.receive_json()["state"]
    assert state["phase"] == "bid" and state["legal"]
    assert [p["kind"] for p in state["players"]] == ["human", "bot", "bot"]


def test_pages_and_static_files_are_served_without_any_cdn(client: TestClient, anna: As) -> None:
    for path in ["/", "/login", "/register"]:
        page = As(client, None).get(path)
        assert page.status_code == 200
        assert "/static/bootstrap/css/bootstrap.min.css" in page.text
        assert not re.search(r'(src|href)="(https?:)?//', page.text)
    for path in ["/static/bootstrap/css/bootstrap.min.css", "/static/bootstrap/js/bootstrap.bundle.min.js",
                 "/static/js/game.js", "/static/js/map.js", "/static/js/panels.js", "/static/js/net.js",
                 "/static/js/room.js", "/static/js/lobby.js", "/static/app.css", "/static/favicon.svg"]:
        assert client.get(path).status_code == 200, path
    assert As(client, None).get("/lobby").headers["location"] == "/login?next=/lobby"
    assert anna.get("/").headers["location"] == "/lobby"
    assert anna.get("/games/999").status_code == 404


def test_openapi_documents_every_http_api_endpoint(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    paths = set(schema["paths"])
    for path in ["/api/games/{game_id}", "/api/games/{game_id}/step", "/api/games/{game_id}/undo",
                 "/api/games/{game_id}/redo", "/api/games/{game_id}/finish",
                 "/api/games/{game_id}/replay/{seq}", "/api/games/{game_id}/record"]:
        assert path in paths


def test_many_games_against_computers_do_not_push_the_lobby_down(client: TestClient,
                                                                 anna: As) -> None:
    """The lobby lists at most ten of a player's games (their turn first); the rest are
    counted and one click away on "My games"."""
    for _ in range(12):
        made = anna.post("/play-now", data={"csrf_token": anna.csrf(), "players": "2",
                                            "level": "random"})
        assert made.status_code == 303
    lobby = anna.get("/lobby").text
    listed = lobby.split('id="my-games"')[1].split("</div>")[0]
    assert listed.count("data-game=") == 10
    assert re.search(r'id="more-my-games">\s*2 more', lobby)
    all_games = anna.get("/my-games").text
    assert all_games.count('href="/games/') >= 12
