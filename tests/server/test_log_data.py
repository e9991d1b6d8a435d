"""The move log carries what pages need as data, not only as words: each entry the
notation's verb, each scoring line its region and points per seat. The page's "since
your last look" (game.js diffBoards) reads these, so it works in every language."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from elgrande.rules.actions import KIND_NAMES
from elgrande.rules.board import AREA_CODES

from .conftest import As, create_game, join_game, services, start_game
from .helpers import advance


def _log(user: As, game_id: int, lang: str) -> list[dict[str, Any]]:
    state = user.client.get(f"/api/games/{game_id}", headers={"accept-language": lang},
                            cookies={"lang": lang}).json()
    return list(state["log"])


def test_log_entries_carry_verbs_and_scorings_in_every_language(client: TestClient, anna: As,
                                                               bert: As) -> None:
    game_id = create_game(anna, ["me", "open"], rounds=6)
    join_game(bert, game_id)
    start_game(anna, game_id)
    # Past the first general scoring.
    advance(services(client), game_id, lambda m: m.state.round >= 4, seed=5)
    english, german = _log(anna, game_id, "en"), _log(anna, game_id, "de")
    assert [e["text"] for e in english] != [e["text"] for e in german]
    data = [{k: v for k, v in e.items() if k != "text"} for e in english]
    assert data == [{k: v for k, v in e.items() if k != "text"} for e in german]
    actions = [e for e in german if not e.get("event")]
    assert actions and all(e["verb"] in KIND_NAMES for e in actions)
    assert {"bid", "take"} <= {e["verb"] for e in actions}
    scorings = [e for e in german if "score" in e]
    assert scorings, "a general scoring has happened"
    for e in scorings:
        assert e["event"] is True and e["score"]["area"] in AREA_CODES
        assert len(e["score"]["points"]) == 2 and "Scoring of" not in e["text"]
    # The points per seat add up to what the scorings gave in all.
    scored = [sum(e["score"]["points"][seat] for e in scorings) for seat in range(2)]
    match = services(client).store.load(services(client).lobby.get(game_id).match_id)
    assert all(scored[seat] <= match.state.scores[seat] for seat in range(2))
