"""The rest of a complete account: a guest registers and keeps the account and its
games; deleting an account (its running games go on with a computer, its waiting games
are left or cancelled, its seats read "former player N", nobody logs in as it); the data
download; the operator's privacy and imprint pages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from elgrande.server.security import SESSION_COOKIE
from elgrande.server.settings import Settings
from tests.apps import app_for

from .conftest import As, create_game, join_game, register, services, start_game


def guest(client: TestClient) -> As:
    anon = As(client, None)
    response = anon.post("/guest", data={"csrf_token": anon.csrf()})
    assert response.status_code == 303
    return As(client, response.cookies.get(SESSION_COOKIE))


def test_a_guest_registers_and_keeps_the_account_and_its_games(client: TestClient,
                                                                anna: As) -> None:
    player = guest(client)
    game_id = create_game(player, ["me", "open"], rounds=6)
    join_game(anna, game_id)
    start_game(player, game_id)
    user_id = services(client).lobby.seats(game_id)[0]["user_id"]
    for fields, words in [({"name": "anna", "password": "a good long password 9"}, "taken"),
                          ({"name": "guest-abc", "password": "a good long password 9"}, "kept for guests"),
                          ({"name": "dora", "password": "dora"}, "")]:
        refused = player.post("/account/upgrade", data={**fields, "csrf_token": player.csrf()})
        assert refused.status_code == 400 and words in refused.text
        assert "Traceback" not in refused.text
    assert services(client).accounts.get(user_id).is_guest
    done = player.post("/account/upgrade", data={"name": "dora", "password": "a good long password 9",
                                                 "csrf_token": player.csrf()})
    assert done.status_code == 303 and done.headers["location"] == "/account?done=registered"
    dora = As(client, done.cookies.get(SESSION_COOKIE))
    account = services(client).accounts.get(user_id)
    assert account.name == "dora" and not account.is_guest
    assert services(client).lobby.seats(game_id)[0]["name"] == "dora"
    assert f"/games/{game_id}" in dora.get("/lobby").text
    assert dora.get("/account").status_code == 200
    assert player.get("/account").status_code == 303  # the guest cookie has ended
    again = dora.post("/account/upgrade", data={"name": "dora2", "password": "a good long password 9",
                                                "csrf_token": dora.csrf()})
    assert again.status_code == 400 and "registered already" in again.text
    login = As(client, None)
    assert login.post("/login", data={"name": "dora", "password": "a good long password 9",
                                      "csrf_token": login.csrf()}).status_code == 303


def test_deleting_an_account(client: TestClient, anna: As, bert: As, carl: As) -> None:
    running = create_game(anna, ["me", "open", "open"], rounds=6)
    join_game(bert, running)
    join_game(carl, running)
    start_game(anna, running)
    waiting_own = create_game(bert, ["me", "open"])
    waiting_joined = create_game(carl, ["me", "open"])
    join_game(bert, waiting_joined)
    svc = services(client)
    bert_id = svc.lobby.seats(running)[1]["user_id"]
    wrong = bert.post("/account/delete", data={"confirm_name": "bert", "password": "nope",
                                               "csrf_token": bert.csrf()})
    assert wrong.status_code == 400 and "password is wrong" in wrong.text
    typo = bert.post("/account/delete", data={"confirm_name": "Bert", "password": "correct horse",
                                              "csrf_token": bert.csrf()})
    assert typo.status_code == 400 and "Type your name" in typo.text
    assert bert.post("/account/delete", data={"confirm_name": "bert", "password": "correct horse",
                                              "csrf_token": "forged"}).status_code == 403
    assert svc.accounts.get(bert_id).name == "bert"  # nothing changed so far
    done = bert.post("/account/delete", data={"confirm_name": "bert", "password": "correct horse",
                                              "csrf_token": bert.csrf()})
    assert done.status_code == 200 and 'id="deleted"' in done.text
    former = svc.accounts.get(bert_id)
    assert former.name == f"former player {bert_id}" and former.password_hash is None
    seats = svc.lobby.seats(running)
    assert seats[1]["name"] == f"former player {bert_id}" and seats[1]["resigned_seq"] is not None
    assert svc.lobby.get(running).status == "active"  # anna and carl play on
    assert svc.lobby.get(waiting_own) is None  # cancelled
    assert [s["kind"] for s in svc.lobby.seats(waiting_joined)] == ["human", "open"]
    assert bert.get("/account").status_code == 303  # logged out
    anon = As(client, None)
    for name in ("bert", f"former player {bert_id}"):
        assert anon.post("/login", data={"name": name, "password": "correct horse",
                                         "csrf_token": anon.csrf()}).status_code == 400
    register(client, "bert")  # the name is free again


def test_the_data_download_has_the_account_and_games_and_no_secret(client: TestClient,
                                                                   anna: As, bert: As) -> None:
    game_id = create_game(anna, ["me", "open"], rounds=6)
    join_game(bert, game_id)
    start_game(anna, game_id)
    response = anna.get("/account/data")
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    data = response.json()
    assert data["account"]["name"] == "anna" and data["games"][0]["game"] == game_id
    text = json.dumps(data)
    game = services(client).lobby.get(game_id)
    assert "password" not in text and game.match_id not in text
    assert "argon2" not in text
    assert As(client, None).get("/account/data").status_code == 401


def test_privacy_and_imprint_pages(client: TestClient) -> None:
    for path in ("/privacy", "/imprint"):
        page = As(client, None).get(path)
        assert page.status_code == 200 and 'id="legal-missing"' in page.text
    assert 'href="/privacy"' in As(client, None).get("/login").text


@pytest.fixture
def legal_client(tmp_path: Path) -> Iterator[TestClient]:
    folder = tmp_path / "legal"
    folder.mkdir()
    (folder / "privacy.html").write_text("<p id='ours'>We keep your name.</p>")
    app: Any = app_for(Settings(database_url=f"sqlite:///{tmp_path / 't.db'}", secret_key="k" * 32,
                                legal_dir=str(folder)))
    with TestClient(app, follow_redirects=False) as c:
        yield c


def test_the_operators_own_text(legal_client: TestClient) -> None:
    page = As(legal_client, None).get("/privacy").text
    assert "<p id='ours'>We keep your name.</p>" in page
    assert 'id="legal-missing"' in As(legal_client, None).get("/imprint").text
