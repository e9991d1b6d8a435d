"""A game's moves have worker threads of their own (server/threads.py): with every
thread of the pages' pool taken, as when hundreds of players arrive at once, a move is
still answered and reaches the other seats."""

from __future__ import annotations

from pathlib import Path

import pytest
from anyio import to_thread
from fastapi.testclient import TestClient

from elgrande.server.settings import Settings
from tests.apps import app_for

from .conftest import As, create_game, join_game, register, start_game
from .test_ws import answer, roles

pytestmark = pytest.mark.timeout(60)  # a move waiting for a page's thread would hang


def test_a_move_is_played_while_every_page_thread_is_taken(tmp_path: Path) -> None:
    app = app_for(Settings(database_url=f"sqlite:///{tmp_path / 'test.db'}",
                           secret_key="k" * 32, bot_delay=0.0, page_threads=2))
    with TestClient(app, follow_redirects=False) as client:
        players = tuple(register(client, name) for name in ("anna", "bert", "carl"))
        game_id = create_game(players[0], ["me", "open", "open"])
        for player in players[1:]:
            join_game(player, game_id)
        start_game(players[0], game_id)
        mover, seat, other, _ = roles(game_id, players)
        with mover.ws(game_id) as mine, other.ws(game_id) as theirs:
            seq = mine.receive_json()["state"]["seq"]
            theirs.receive_json()
            # The pages' pool of the server's event loop, every thread of it taken.
            pages = client.portal.call(to_thread.current_default_thread_limiter)
            assert pages.total_tokens == 2
            holders = [object(), object()]
            for holder in holders:
                client.portal.call(pages.acquire_on_behalf_of, holder)
            try:
                assert pages.available_tokens == 0
                answer(mine, {"type": "step", "action": f"p{seat} bid 9", "seq": seq}, 1)
                assert answer(mine, {"type": "finish", "seq": seq}, 2)["seq"] == seq + 1
                seen = theirs.receive_json()["state"]
                assert seen["seq"] == seq + 1 and seen["players"][seat]["bid"] == 9
            finally:
                for holder in holders:
                    client.portal.call(pages.release_on_behalf_of, holder)
        # The pages' threads serve again once given back.
        assert As(client, None).get("/login").status_code == 200
