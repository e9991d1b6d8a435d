"""The published JSON Schema of view() (elgrande/rules/view.schema.json) fits every view."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import jsonschema
import pytest

import elgrande.rules as rules
from elgrande.rules import (
    VIEW_SCHEMA_PATH,
    GameConfig,
    Options,
    apply,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    sample_chance,
    view,
)
from elgrande.rules.cards import CARDS
from elgrande.rules.state import PHASE_NAMES, SECRET_PURPOSES

from .scenario import play, scenario

SCHEMA = json.loads(VIEW_SCHEMA_PATH.read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def test_the_schema_is_valid_and_ships_inside_the_package() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert VIEW_SCHEMA_PATH.parent == Path(rules.__file__).parent  # package data (*.json)


def test_the_schema_names_the_engine_s_codes() -> None:
    defs, props = SCHEMA["$defs"], SCHEMA["properties"]
    assert defs["region"]["enum"] == list(rules.REGION_CODES)
    assert defs["area"]["enum"] == list(rules.AREA_CODES)
    assert defs["card"]["enum"] == [c.id for c in CARDS]
    assert props["phase"]["enum"] == list(PHASE_NAMES)
    assert props["secret_purpose"]["oneOf"][0]["enum"] == list(SECRET_PURPOSES)
    assert sorted(SCHEMA["required"]) == sorted(props)


@pytest.mark.parametrize("rounds", [9, 6])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_views_through_seeded_games_fit_the_schema(players: int, rounds: int) -> None:
    # One view per position (validation is slow), the viewer turning round the seats and
    # the spectator, so that every phase is seen from several sides.
    options = Options(hands_public=players % 2 == 0)  # both forms of the hands
    rng = random.Random(players * 100 + rounds)
    state = new_game(GameConfig(players=players, rounds=rounds, options=options))
    viewers: list[int | None] = [*range(players), None]
    phases = set()
    while True:
        VALIDATOR.validate(view(state, viewers[state.ply % len(viewers)]))
        phases.add(state.phase_name)
        if is_terminal(state):
            break
        legal = legal_actions(state)
        apply(state, sample_chance(state, rng) if is_chance(state)
              else legal[rng.randrange(len(legal))])
    assert {"setup", "reveal", "bid", "take", "choose", "deploy", "secret", "game_over"} <= phases


def test_views_with_a_secret_choice_made_fit_the_schema() -> None:
    s = scenario(3, homes=["GAL", "PVA", "ARA"], available=["2a"])
    play(s, "p0 take 2a", "p0 special", "p1 secret PVA")
    for seat in (None, 0, 1, 2):
        VALIDATOR.validate(view(s, seat))
    assert "secret_choice" in view(s, 1)["player_state"][1]


@pytest.mark.parametrize(("path", "value"), [
    (("king",), "CAS"),  # the King never stands in the Castillo
    (("phase",), "bidding"),
    (("to_act",), ["p0"]),
    (("player_state", 0, "bid"), 0),  # "no bid yet" is null, not 0
    (("player_state", 0, "secret_choice"), "CAS"),
    (("picked",), {"owner": 0, "area": "CAS"}),
    (("tiles", 0, "area"), "XYZ"),
    (("card",), "6a"),
    (("legal_actions",), ["p0 fly away!"]),
    (("cards_left", "5a"), 1),
    (("surprise",), 1),
])
def test_the_schema_refuses_a_wrong_view(path: tuple, value: object) -> None:
    v = copy.deepcopy(view(scenario(2, available=["2d"]), 0))
    VALIDATOR.validate(v)
    target = v
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(v)


def test_a_view_without_a_field_is_refused() -> None:
    v = view(scenario(2, available=["2d"]), 0)
    del v["source"]
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(v)
