"""Every Options flag (the [L] points of rules.md) in its default and its alternative, and the
start-player set-up parameter."""

from __future__ import annotations

from dataclasses import fields

import pytest

from elgrande.rules import GameConfig, Options, apply, chance_outcomes, new_game, to_act, view
from tests.rules.scenario import board, counts, legal, play, scenario

HOMES = ["GAL", "PVA", "ARA", "CAT"]
ALT = {f.name: not f.default for f in fields(Options)}


def opts(name: str | None = None) -> Options:
    """Default options, or the defaults with ``name`` flipped."""
    return Options() if name is None else Options(**{name: ALT[name]})


def special(card: str, option: str | None = None, **kw):
    kw.setdefault("homes", HOMES)
    s = scenario(4, available=[card], options=opts(option), **kw)
    return play(s, f"p0 take {card}", "p0 special")


def test_every_flag_is_covered_here():
    covered = {
        "retrieved_card_counts_for_start", "move_each_caballero_once",
        "province_pick_requires_caballero", "province2_requires_two_if_possible",
        "hands_public", "court_card_recall_from_board", "castillo_pick_when_empty",
        "empty_region_optional_amount", "choose_scoring_includes_castillo",
        "value_scoring_includes_castillo", "retrieve_current_round_card",
        "secret_scoring_allows_king_region",
    }
    # The publisher's rules (rules.md §12) are covered in tests/rules/test_box_options.py.
    box = {"veto_cards", "veto_windows", "castillo_hidden", "card_2b_hits_everyone",
           "castillo_to_king_region", "eviction_must_leave"}
    assert {f.name for f in fields(Options)} == covered | box


def test_options_defaults_are_the_documented_choices():
    assert Options().to_dict() == {
        "retrieved_card_counts_for_start": True, "move_each_caballero_once": True,
        "province_pick_requires_caballero": True, "province2_requires_two_if_possible": False,
        "hands_public": True, "court_card_recall_from_board": False,
        "castillo_pick_when_empty": False, "empty_region_optional_amount": False,
        "choose_scoring_includes_castillo": True, "value_scoring_includes_castillo": False,
        "retrieve_current_round_card": True, "secret_scoring_allows_king_region": True,
    }


def test_unknown_option_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown rule options: no_such_flag"):
        Options.from_dict({"no_such_flag": True})


# --- §4.5: a card taken back with 4a still counts as played for the next start player


@pytest.mark.parametrize(("option", "next_start"), [(None, 0), ("retrieved_card_counts_for_start", 2)])
def test_retrieved_card_counts_for_start(option, next_start):
    # p0 played the lowest card (1), acts last, and takes it back with 4a.
    s = scenario(3, homes=HOMES[:3], bids={0: 1, 1: 13, 2: 12}, active=0, available=["4a"],
                 options=opts(option))
    play(s, "p0 take 4a", "p0 special", "p0 retrieve 1", "p0 done")
    assert s.phase_name == "reveal" and s.round == 2
    assert s.start_player == next_start
    assert s.hand[0] >> 1 & 1


# --- A24: each Caballero moves at most once per special action


@pytest.mark.parametrize(("option", "again"), [(None, False), ("move_each_caballero_once", True)])
def test_move_each_caballero_once(option, again):
    s = special("1a", option, caballeros={"GAL": [1, 0, 0, 0]})
    play(s, "p0 pick p0 GAL", "p0 drop PVA")
    if again:
        assert legal(s) == ["p0 pick p0 PVA", "p0 done"]
        play(s, "p0 pick p0 PVA", "p0 drop CAS")
        assert counts(s, "CAS") == [1, 0, 0, 0]
    else:
        assert s.phase_name == "deploy"  # the one Caballero has moved: nothing left to move
        assert counts(s, "PVA") == [1, 0, 0, 0]


# --- A13: which regions 2a / 2e offer


def test_province_pick_requires_caballero_default():
    s = special("2a", caballeros={"GAL": [0, 1, 0, 0], "CLN": [0, 0, 0, 3]})
    assert to_act(s) == [1]
    assert legal(s) == ["p1 secret GAL"]


def test_province_pick_requires_caballero_alternative():
    s = special("2a", "province_pick_requires_caballero",
                caballeros={"GAL": [0, 1, 0, 0], "CLN": [0, 0, 0, 3]})
    # every opponent picks among the 8 regions other than the King's, Caballeros or not
    assert to_act(s) == [1, 2, 3]
    assert len(legal(s, 3)) == 8 and "p3 secret CLN" not in legal(s, 3)
    play(s, "p1 secret SEV", "p2 secret SEV", "p3 secret GAL")
    assert board(s) == {"GAL": [0, 1, 0, 0], "CLN": [0, 0, 0, 3]}  # nothing lost


@pytest.mark.parametrize(("option", "offered"), [
    (None, ["p1 secret GAL", "p1 secret SEV"]),
    ("province2_requires_two_if_possible", ["p1 secret SEV"]),
])
def test_province2_requires_two_if_possible(option, offered):
    s = special("2e", option, caballeros={"GAL": [0, 1, 0, 0], "SEV": [0, 2, 0, 0]})
    assert legal(s) == offered


def test_province2_requires_two_falls_back_to_one():
    s = special("2e", "province2_requires_two_if_possible",
                caballeros={"GAL": [0, 1, 0, 0], "SEV": [0, 1, 0, 0]})
    assert legal(s) == ["p1 secret GAL", "p1 secret SEV"]


# --- A18: power cards in hand public


@pytest.mark.parametrize(("option", "shown"), [(None, True), ("hands_public", False)])
def test_hands_public(option, shown):
    s = scenario(3, homes=HOMES[:3], available=["2d"], options=opts(option))
    other = view(s, 1)["player_state"][0]
    assert ("hand" in other) is shown
    assert view(s, 0)["player_state"][0]["hand"] == list(range(1, 13))  # own hand always
    assert other["cards_in_hand"] == 12


# --- A11: 4c with empty provinces


def test_court_card_recall_from_board_default():
    s = scenario(4, homes=HOMES, caballeros={"GAL": [3, 0, 0, 0], "CLN": [20, 0, 0, 0]},
                 court=[7, 7, 7, 7], available=["4c"])
    assert s.provinces[0] == 0
    play(s, "p0 take 4c")
    assert legal(s) == ["p0 deploy", "p0 end"]


def test_court_card_recall_from_board_alternative():
    s = scenario(4, homes=HOMES, caballeros={"GAL": [2, 0, 0, 0], "VAL": [1, 0, 0, 0],
                                            "CLN": [20, 0, 0, 0]},
                 court=[7, 7, 7, 7], available=["4c"], options=opts("court_card_recall_from_board"))
    play(s, "p0 take 4c", "p0 special")
    assert legal(s) == ["p0 court 1", "p0 court 2"]
    play(s, "p0 court 2")
    assert legal(s) == ["p0 recall GAL", "p0 recall VAL"]  # never the King's region
    play(s, "p0 recall VAL", "p0 recall GAL")
    assert s.court[0] == 9 and board(s) == {"GAL": [1, 0, 0, 0], "CLN": [20, 0, 0, 0]}
    assert s.phase_name == "deploy"


# --- A23: Castillo destination for a player with an empty Castillo


@pytest.mark.parametrize(("option", "asked"), [(None, [0]), ("castillo_pick_when_empty", [0, 1, 2])])
def test_castillo_pick_when_empty(option, asked):
    s = scenario(3, homes=HOMES[:3], round=3, castillo=[2, 0, 0], bids={0: 3, 1: 13, 2: 12},
                 active=0, available=["2d"], options=opts(option))
    play(s, "p0 take 2d", "p0 end")
    assert s.phase_name == "secret" and to_act(s) == asked


# --- A19: 1b amount


@pytest.mark.parametrize(("option", "can_stop"), [(None, False), ("empty_region_optional_amount", True)])
def test_empty_region_optional_amount(option, can_stop):
    s = special("1b", option, caballeros={"GAL": [3, 0, 0, 0]})
    play(s, "p0 from GAL", "p0 drop CAS")
    assert ("p0 done" in legal(s)) is can_stop
    if can_stop:
        play(s, "p0 done")
        assert board(s) == {"GAL": [2, 0, 0, 0], "CAS": [1, 0, 0, 0]}
        assert s.phase_name == "deploy"


# --- A16: 2d / 3c may score the Castillo


@pytest.mark.parametrize("card", ["2d", "3c"])
@pytest.mark.parametrize(("option", "castillo"), [(None, True), ("choose_scoring_includes_castillo", False)])
def test_choose_scoring_includes_castillo(card, option, castillo):
    s = special(card, option, castillo=[1, 0, 0, 0])
    assert ("p0 score CAS" in legal(s)) is castillo
    assert len(legal(s)) == (10 if castillo else 9)


# --- A17: 3b / 3g and a Castillo carrying such a tile


@pytest.mark.parametrize(("option", "points"), [(None, [0, 0, 0, 0]),
                                                ("value_scoring_includes_castillo", [4, 0, 0, 0])])
def test_value_scoring_includes_castillo(option, points):
    s = special("3b", option, caballeros={}, castillo=[2, 1, 0, 0], tiles={"400": "CAS"})
    assert s.scores == points


def test_value_scoring_includes_castillo_never_for_3h():
    s = special("3h", "value_scoring_includes_castillo", caballeros={}, castillo=[2, 1, 0, 0])
    assert s.scores == [0, 0, 0, 0]


# --- A18: 4a may take back this round's card


@pytest.mark.parametrize(("option", "offered"), [(None, ["p0 retrieve 13"]),
                                                 ("retrieve_current_round_card", [])])
def test_retrieve_current_round_card(option, offered):
    s = scenario(4, homes=HOMES, available=["4a"], options=opts(option))
    play(s, "p0 take 4a")
    if offered:
        play(s, "p0 special")
        assert legal(s) == offered
    else:  # round 1: no earlier card to take back, the special action cannot start
        assert legal(s) == ["p0 deploy", "p0 end"]


def test_retrieve_current_round_card_off_still_offers_earlier_cards():
    s = scenario(4, homes=HOMES, available=["4a"], round=2,
                 hands={0: [1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12]},
                 options=opts("retrieve_current_round_card"))
    play(s, "p0 take 4a", "p0 special")
    assert legal(s) == ["p0 retrieve 5"]


# --- A25: 4f and the King's region


@pytest.mark.parametrize(("option", "king_ok"), [(None, True), ("secret_scoring_allows_king_region", False)])
def test_secret_scoring_allows_king_region(option, king_ok):
    s = special("4f", option, caballeros={"CLN": [2, 0, 0, 0]})
    assert ("p1 secret CLN" in legal(s, 1)) is king_ok
    assert len(legal(s, 1)) == (9 if king_ok else 8)


# --- §3 step 7 / A22: the first start player


def _after_homes_and_king(config):
    s = new_game(config)
    for p, home in enumerate(HOMES[: config.players]):
        apply(s, f"* home p{p} {home}")
    apply(s, "* king CLN")
    return s


def test_start_player_none_is_a_chance_step_over_all_seats():
    s = _after_homes_and_king(GameConfig(players=4))
    assert s.phase_name == "setup" and to_act(s) == [-1]
    outcomes = chance_outcomes(s)
    assert [str(a) for a, _ in outcomes] == ["* start p0", "* start p1", "* start p2", "* start p3"]
    assert [pr for _, pr in outcomes] == [0.25] * 4
    apply(s, "* start p2")
    assert s.start_player == 2 and s.phase_name == "reveal"


def test_start_player_fixed_has_no_chance_step():
    s = _after_homes_and_king(GameConfig(players=4, start_player=3))
    assert s.phase_name == "reveal" and s.start_player == 3
    assert not [a for a, _ in chance_outcomes(s) if a.kind == "start"]
    for card in ("1a", "2a", "3a", "4a"):
        apply(s, f"* reveal {card}")
    assert to_act(s) == [3]


def test_start_player_out_of_range_is_rejected():
    with pytest.raises(ValueError, match="start player"):
        GameConfig(players=3, start_player=3)
