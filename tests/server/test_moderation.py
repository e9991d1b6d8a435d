"""Moderation: the role comes from the command line (guests cannot have it); /admin is
404 for everyone else; a moderator's mute silences a player's chat, a ban ends their
sessions and logins and hands their running games to computers, a rename keeps their
games, a cancelled game takes no more moves; each action is in the log."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from elgrande.cli import main as cli_main
from elgrande.server.moderation import ModerationRefused

from .conftest import As, create_game, join_game, services, start_game
from .test_chat import chat

pytestmark = pytest.mark.timeout(120)


def act(admin: As, **fields: str) -> Any:
    return admin.post("/admin/act", data={"csrf_token": admin.csrf(), **fields})


def test_the_role_comes_from_the_command_line(client: TestClient, anna: As, capsys: Any) -> None:
    url = services(client).settings.database_url
    assert cli_main(["admin", "--database-url", url, "grant", "anna"]) == 0
    assert "anna is a moderator" in capsys.readouterr().out
    assert cli_main(["admin", "--database-url", url, "grant", "nobody"]) == 1
    assert "no player called" in capsys.readouterr().err
    assert cli_main(["admin", "--database-url", url, "list"]) == 0
    assert capsys.readouterr().out.strip() == "anna"
    guest = services(client).accounts.guest()
    with pytest.raises(ModerationRefused, match="Only registered players"):
        services(client).moderation.set_role(guest.name, "admin")
    assert cli_main(["admin", "--database-url", url, "revoke", "anna"]) == 0
    assert cli_main(["admin", "--database-url", url, "list"]) == 0
    assert "(no moderators)" in capsys.readouterr().out


def test_moderators_act_and_every_action_is_logged(client: TestClient, anna: As, bert: As,
                                                   carl: As) -> None:
    svc = services(client)
    svc.moderation.set_role("anna", "admin")
    assert bert.get("/admin").status_code == 404
    assert As(client, None).get("/admin").status_code == 404
    assert anna.get("/admin").status_code == 200
    game_id = create_game(bert, ["me", "open", "open"], rounds=6)
    join_game(carl, game_id)
    join_game(anna, game_id)
    start_game(bert, game_id)
    # A mute: bert's chat lines are refused until it ends.
    done = act(anna, action="mute", name="bert", days="2", why="insults")
    assert done.status_code == 200 and "muted in the chats" in done.text
    with bert.ws(game_id) as page:
        refused = chat(page, "hello")
        assert refused["type"] == "error" and refused["code"] == "muted"
    assert act(anna, action="mute", name="bert", days="999").status_code == 409
    # A rename keeps the player's seats.
    assert act(anna, action="rename", name="bert", new_name="carl").status_code == 409
    renamed = act(anna, action="rename", name="bert", new_name="bertram")
    assert renamed.status_code == 200 and "now called bertram" in renamed.text
    assert svc.lobby.seats(game_id)[0]["name"] == "bertram"
    # A ban: sessions end, no login, the running game goes on with a computer.
    assert act(anna, action="ban", name="anna").status_code == 409
    assert act(anna, action="ban", name="bertram", why="spam").status_code == 200
    assert bert.get("/lobby").status_code == 303
    anon = As(client, None)
    login = anon.post("/login", data={"name": "bertram", "password": "correct horse",
                                      "csrf_token": anon.csrf()})
    assert login.status_code == 403 and "banned" in login.text
    seats = svc.lobby.seats(game_id)
    assert seats[0]["resigned_seq"] is not None and svc.lobby.get(game_id).status == "active"
    assert act(anna, action="unban", name="bertram").status_code == 200
    # A cancelled game takes no more commits.
    assert act(anna, action="cancel", game_id=str(game_id), why="test").status_code == 200
    assert svc.lobby.get(game_id).status == "cancelled"
    assert act(anna, action="cancel", game_id=str(game_id)).status_code == 409
    view = carl.get(f"/api/games/{game_id}").json()
    refused = carl.api(game_id, "finish", {"seq": view["seq"]})  # whoever is to act
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "stopped"
    assert act(anna, action="fly").status_code == 409
    assert act(anna, action="hide", message_id="x").status_code == 400
    assert anna.post("/admin/act", data={"csrf_token": "forged", "action": "ban",
                                         "name": "carl"}).status_code == 403
    log = anna.get("/admin").text
    for action in ("mute", "rename", "ban", "unban", "cancel"):
        assert f"<td>{action}</td>" in log
    assert "bert -&gt; bertram" in log
