"""view() by value: every field pinned in concrete positions, not only what is hidden.

The expected views are written out by hand from the positions (not computed with the
code under test), so a change to any field's value, or to when it is null, fails here.
"""

from __future__ import annotations

import random
from typing import Any

from elgrande.rules import CARDS, GameConfig, Options, apply, new_game, view
from elgrande.rules.simulate import play_random_game

from .scenario import play, scenario

PRINTED = {  # printed awards per area (rules.md §1.1)
    "GAL": [4, 2, 0], "PVA": [5, 3, 1], "ARA": [5, 4, 1], "CAT": [4, 2, 1], "CLV": [6, 4, 2],
    "CLN": [7, 4, 2], "SEV": [4, 3, 1], "GRA": [6, 3, 1], "VAL": [5, 3, 2], "CAS": [5, 3, 1],
}
ALL_COPIES = {c.id: c.copies for c in CARDS if c.id != "5a"}


def _areas(players: int, caballeros: dict[str, list[int]],
           awards: dict[str, list[int]] | None = None) -> list[dict[str, Any]]:
    awards = {**PRINTED, **(awards or {})}
    return [{"area": code, "caballeros": caballeros.get(code, [0] * players), "awards": awards[code]}
            for code in PRINTED]


def test_view_of_a_new_game() -> None:
    s = new_game(GameConfig(players=2))
    fresh = {"score": 0, "court": 7, "provinces": 23, "castillo": 0, "home": None, "bid": None,
             "cards_in_hand": 13, "hand": list(range(1, 14)), "played": [],
             "secret_asked": False, "secret_chosen": False}
    assert view(s, None) == {
        "players": 2, "rounds": 9, "round": None, "phase": "setup", "ply": 0, "seat": None,
        "to_act": ["chance"], "start_player": None, "king": None,
        "tiles": [{"awards": [8, 4, 0], "area": None}, {"awards": [4, 0, 0], "area": None}],
        "areas": _areas(2, {}),
        "player_state": [{"seat": 0, **fresh}, {"seat": 1, **fresh}],
        "available_cards": [], "cards_left": ALL_COPIES, "turn_order": [], "active": None,
        "card": None, "deploy_left": 0, "secret_purpose": None, "source": None, "picked": None,
        "legal_actions": [],
    }


def test_the_king_is_null_until_placed_and_a_home_in_galicia_shows() -> None:
    s = new_game(GameConfig(players=2, start_player=1))
    apply(s, "* home p0 GAL")  # region 0: a home there must not read as "none"
    apply(s, "* home p1 SEV")
    v = view(s, 0)
    assert v["king"] is None and v["to_act"] == ["chance"] and v["round"] is None
    assert [p["home"] for p in v["player_state"]] == ["GAL", "SEV"]
    assert v["areas"][0]["caballeros"] == [2, 0] and v["areas"][6]["caballeros"] == [0, 2]
    apply(s, "* king VAL")
    v = view(s, 0)
    assert v["king"] == "VAL" and v["start_player"] == 1 and v["round"] == 1
    assert v["phase"] == "reveal" and v["to_act"] == ["chance"]


def test_the_king_in_galicia_shows() -> None:
    s = scenario(2, king="GAL", homes=["PVA", "ARA"])
    assert view(s, None)["king"] == "GAL"


def test_to_act_at_a_reveal_step_is_chance() -> None:
    s = scenario(3, phase="reveal", round=4)
    v = view(s, 1)
    assert v["to_act"] == ["chance"] and v["phase"] == "reveal" and v["round"] == 4
    assert v["legal_actions"] == [] and v["active"] is None and v["available_cards"] == []


def test_bids_show_as_played() -> None:
    s = scenario(3, phase="bid", available=["1a", "2b", "3c", "4d"])
    play(s, "p0 bid 6")
    v = view(s, 2)
    assert [p["bid"] for p in v["player_state"]] == [6, None, None]
    assert v["player_state"][0]["hand"] == [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13]
    assert v["player_state"][0]["played"] == [6]
    assert v["player_state"][0]["cards_in_hand"] == 12
    assert v["player_state"][1]["played"] == []
    assert v["to_act"] == [1] and v["available_cards"] == ["1a", "2b", "3c", "4d", "5a"]


def _movement_position():
    s = scenario(2, king="CLN", homes=["GAL", "PVA"],
                 caballeros={"GAL": [3, 0], "PVA": [1, 0], "ARA": [0, 2], "CLN": [0, 1]},
                 castillo=[2, 0],
                 court=[5, 4], tiles={"840": "GAL", "400": "CAS"}, scores=[10, 7],
                 available=["1g", "2d", "3a", "4c"], bids={0: 9, 1: 4},
                 hands={0: [1, 2, 5], 1: [3, 4, 6, 7]}, round=2)
    return play(s, "p0 take 1g", "p0 special", "p0 pick p1 ARA")


def test_view_during_a_movement_card() -> None:
    s = _movement_position()
    expected = {
        "players": 2, "rounds": 9, "round": 2, "phase": "move_drop", "ply": 6, "seat": 0,
        "to_act": [0], "start_player": 0, "king": "CLN",
        "tiles": [{"awards": [8, 4, 0], "area": "GAL"}, {"awards": [4, 0, 0], "area": "CAS"}],
        # The picked Caballero still counts in Aragon until it is dropped.
        "areas": _areas(2, {"GAL": [3, 0], "PVA": [1, 0], "ARA": [0, 2], "CLN": [0, 1],
                            "CAS": [2, 0]},
                        awards={"GAL": [8, 4, 0], "CAS": [4, 0, 0]}),
        "player_state": [
            {"seat": 0, "score": 10, "court": 5, "provinces": 19, "castillo": 2, "home": "GAL",
             "bid": 9, "cards_in_hand": 3, "hand": [1, 2, 5],
             "played": [3, 4, 6, 7, 8, 9, 10, 11, 12, 13],
             "secret_asked": False, "secret_chosen": False},
            {"seat": 1, "score": 7, "court": 4, "provinces": 23, "castillo": 0, "home": "PVA",
             "bid": 4, "cards_in_hand": 4, "hand": [3, 4, 6, 7],
             "played": [1, 2, 5, 8, 9, 10, 11, 12, 13],
             "secret_asked": False, "secret_chosen": False},
        ],
        "available_cards": ["2d", "3a", "4c", "5a"],
        "cards_left": {**ALL_COPIES, "1g": 1, "2d": 2, "3a": 0, "4c": 0},
        "turn_order": [0, 1], "active": 0, "card": "1g", "deploy_left": 0,
        "secret_purpose": None, "source": "ARA", "picked": {"owner": 1, "area": "ARA"},
        "legal_actions": ["p0 drop GAL", "p0 drop PVA", "p0 drop CAT", "p0 drop CLV",
                          "p0 drop SEV", "p0 drop GRA", "p0 drop VAL", "p0 drop CAS"],
    }
    assert view(s, 0) == expected
    assert view(s, 1) == {**expected, "seat": 1, "legal_actions": []}
    assert view(s, None) == {**expected, "seat": None, "legal_actions": []}


def test_after_the_drop_nothing_is_picked_and_the_source_stays() -> None:
    s = play(_movement_position(), "p0 drop PVA")
    v = view(s, 0)
    assert v["picked"] is None and v["source"] == "ARA" and v["phase"] == "move"
    assert v["areas"][1]["caballeros"] == [1, 1] and v["areas"][2]["caballeros"] == [0, 1]


def test_card_1a_shows_while_held() -> None:
    s = scenario(2, available=["1a", "2d"])
    assert view(s, 0)["card"] is None
    play(s, "p0 take 1a")  # card kind 0
    v = view(s, 0)
    assert v["card"] == "1a" and v["phase"] == "choose"
    assert v["available_cards"] == ["2d", "5a"]
    assert v["legal_actions"] == ["p0 deploy", "p0 special", "p0 end"]
    play(s, "p0 deploy", "p0 place ARA")
    assert view(s, 0)["deploy_left"] == 0 and view(s, 0)["card"] == "1a"


def test_deploy_left_counts_down() -> None:
    s = scenario(2, available=["3a"])
    play(s, "p0 take 3a", "p0 deploy")
    assert view(s, 0)["deploy_left"] == 3
    play(s, "p0 place CAS")
    assert view(s, 0)["deploy_left"] == 2


def test_a_picked_caballero_in_galicia_shows() -> None:
    s = scenario(2, king="CLN", homes=["GAL", "PVA"], available=["1a"])
    play(s, "p0 take 1a", "p0 special", "p0 pick p0 GAL")
    v = view(s, 1)
    assert v["picked"] == {"owner": 0, "area": "GAL"} and v["source"] is None


def test_source_of_1b_is_the_chosen_region() -> None:
    s = scenario(2, king="CLN", homes=["GAL", "PVA"], available=["1b"])
    play(s, "p0 take 1b", "p0 special")
    assert view(s, 0)["source"] is None
    play(s, "p0 from GAL")
    assert view(s, 0)["source"] == "GAL" and view(s, 0)["picked"] is None


def test_secret_choices_by_value() -> None:
    s = scenario(3, king="CLN", homes=["GAL", "PVA", "ARA"], available=["2a"])
    play(s, "p0 take 2a", "p0 special", "p1 secret PVA")
    mine = view(s, 1)
    assert mine["phase"] == "secret" and mine["secret_purpose"] == "2a" and mine["to_act"] == [2]
    states = mine["player_state"]
    assert [p["secret_asked"] for p in states] == [False, True, True]
    assert [p["secret_chosen"] for p in states] == [False, True, False]
    assert states[1]["secret_choice"] == "PVA"
    assert view(s, 2)["legal_actions"] == ["p2 secret ARA"]
    assert view(s, 2)["player_state"][1]["secret_chosen"] is True


def test_hidden_hands_show_only_the_count() -> None:
    s = scenario(2, options=Options(hands_public=False), available=["2d"], bids={0: 9, 1: 4},
                 hands={0: [1, 2, 5], 1: [3, 4, 6, 7]})
    other = view(s, 1)["player_state"][0]
    assert "hand" not in other and "played" not in other and other["cards_in_hand"] == 3
    assert other["bid"] == 9  # the card on the table is public
    own = view(s, 0)["player_state"][0]
    assert own["hand"] == [1, 2, 5] and own["played"] == [3, 4, 6, 7, 8, 9, 10, 11, 12, 13]
    assert "hand" not in view(s, None)["player_state"][1]


def test_the_end_of_the_game() -> None:
    s, _ = play_random_game(GameConfig(players=3, rounds=6), random.Random(4))
    for seat in (0, 1, 2, None):
        v = view(s, seat)
        assert v["phase"] == "game_over" and v["to_act"] == [] and v["legal_actions"] == []
        assert v["round"] == 9 and v["active"] is None and v["turn_order"] == []
        assert [p["score"] for p in v["player_state"]] == s.scores
        assert [p["bid"] for p in v["player_state"]] == s.bids  # the last round's cards stay
