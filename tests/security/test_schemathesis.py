"""Schemathesis against the app's OpenAPI schema: generated requests to every
documented endpoint, anonymous and as a seated player with a valid CSRF token, on a
game that exists. No server error; every status code, content type, body and header
as documented."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from .conftest import make_app, services
from .test_websocket_abuse import two_player_game

CHECKS = (not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance, response_headers_conformance)


@pytest.fixture(scope="module")
def app_with_game(tmp_path_factory: pytest.TempPathFactory) -> Any:
    app = make_app(tmp_path_factory.mktemp("schemathesis"))
    client = TestClient(app)
    client.__enter__()
    game_id, players, _ = two_player_game(client)
    app.state.test_game = (game_id, players[0])
    yield app
    client.__exit__(None, None, None)


@pytest.fixture(scope="module")
def api_schema(app_with_game: Any) -> Any:
    return schemathesis.openapi.from_asgi("/openapi.json", app_with_game)


def operations(api_schema: Any) -> list[Any]:
    return [result.ok() for result in api_schema.get_all_operations()]


def test_api_conforms_to_its_schema(api_schema: Any, app_with_game: Any) -> None:
    game_id, player = app_with_game.state.test_game
    ops = operations(api_schema)
    assert len(ops) >= 6
    for operation in ops:

        @given(case=operation.as_strategy())
        @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck),
                  database=None)
        def conforms(case: Any) -> None:
            # As generated (mostly unknown games, no session) ...
            case.call_and_validate(checks=CHECKS)
            # ... and on the real game as its seat-0 player.
            if "game_id" in (case.path_parameters or {}):
                case.path_parameters["game_id"] = game_id
            headers = {**(case.headers or {}), **player.headers({"x-csrf-token": _csrf(player)})}
            case.call_and_validate(headers=headers, checks=CHECKS)

        conforms()


def _csrf(player: Any) -> str:
    svc = services(player.client)
    return str(svc.signer.csrf_token(player.user_id))


def test_schema_documents_the_play_api(api_schema: Any) -> None:
    paths = set(api_schema.raw_schema["paths"])
    assert {"/api/games/{game_id}", "/api/games/{game_id}/step", "/api/games/{game_id}/finish"} <= paths
