"""One or more scenario tests per action card effect (rules.md §4.3 step C, §4.4, §5).

Unless a test says otherwise: 4 players, the King in New Castile (CLN, neighbours CLV, ARA,
VAL, GRA, SEV), homes p0 GAL, p1 PVA, p2 ARA, p3 CAT, p0 moves first and takes the card.
"""

from __future__ import annotations

import json

import pytest

from elgrande.rules import IllegalAction, redact, to_act, view
from elgrande.rules.board import AREA_INDEX, PRINTED_AWARDS
from elgrande.rules.scoring import awards_of, score_area
from elgrande.rules.state import PENDING
from tests.rules.scenario import board, counts, legal, play, scenario

HOMES = ["GAL", "PVA", "ARA", "CAT"]
AFTER_CLN = ["p0 place ARA", "p0 place CLV", "p0 place SEV", "p0 place GRA", "p0 place VAL",
             "p0 place CAS", "p0 done"]


def special(card: str, active: int = 0, **kw):
    """The state right after ``active`` took ``card`` and started its special action."""
    kw.setdefault("homes", HOMES)
    s = scenario(4, available=[card], active=active, **kw)
    return play(s, f"p{active} take {card}", f"p{active} special")


def kinds(s, seat=None) -> set[str]:
    return {a.split()[1] for a in legal(s, seat)}


# --------------------------------------------------------------------------------------
# Deployment and special action: either order, never interleaved, special optional


def test_deploy_then_special():
    s = scenario(4, homes=HOMES, caballeros={"GAL": [1, 3, 0, 0]}, available=["4d"])
    play(s, "p0 take 4d")
    assert legal(s) == ["p0 deploy", "p0 special", "p0 end"]
    play(s, "p0 deploy", "p0 place ARA")
    # deployment started: no King move before it is finished
    assert legal(s) == AFTER_CLN
    play(s, "p0 place CAS", "p0 done")
    assert legal(s) == ["p0 special", "p0 end"]
    play(s, "p0 special", "p0 king VAL")
    assert s.king == 8 and s.active == 1
    assert counts(s, "ARA") == [1, 0, 0, 0] and counts(s, "CAS") == [1, 0, 0, 0]
    assert s.court[0] == 5


def test_special_then_deploy_uses_the_new_kings_neighbours():
    # rules.md §4.3: move the King first, then deploy next to its new region.
    s = special("4d", caballeros={"GAL": [1, 3, 0, 0]})
    assert kinds(s) == {"king"}  # special action started: no deployment interleaved
    play(s, "p0 king SEV")
    assert legal(s) == ["p0 place CLN", "p0 place GRA", "p0 place CAS", "p0 done"]
    play(s, "p0 place CLN", "p0 place GRA", "p0 place GRA", "p0 place CAS")
    assert s.active == 1  # 4 placed: the turn ended
    assert board(s) == {"GAL": [1, 3, 0, 0], "CLN": [1, 0, 0, 0], "GRA": [2, 0, 0, 0],
                        "CAS": [1, 0, 0, 0]}


def test_movement_special_is_not_interleaved_with_deployment():
    s = special("1a", caballeros={"GAL": [2, 1, 0, 0]})
    assert kinds(s) == {"pick", "done"}
    play(s, "p0 pick p1 GAL")
    assert kinds(s) == {"drop"}
    play(s, "p0 drop CAS", "p0 done")
    assert legal(s) == AFTER_CLN  # now the deployment of 1
    play(s, "p0 place VAL")
    assert s.active == 1 and counts(s, "VAL") == [1, 0, 0, 0]


def test_declining_the_special_action_after_deployment():
    s = scenario(4, homes=HOMES, caballeros={"GAL": [3, 1, 0, 0]}, available=["2d"])
    play(s, "p0 take 2d", "p0 deploy", "p0 place ARA", "p0 place ARA")
    assert legal(s) == ["p0 special", "p0 end"]
    play(s, "p0 end")
    assert s.scores == [0, 0, 0, 0] and s.active == 1
    assert counts(s, "ARA") == [2, 0, 0, 0]


def test_declining_both_parts():
    s = scenario(4, homes=HOMES, caballeros={"GAL": [3, 1, 0, 0]}, available=["2f"])
    play(s, "p0 take 2f", "p0 end")
    assert s.court == [7, 7, 7, 7] and s.active == 1


def test_deployment_limited_by_stack_number_and_court():
    s = scenario(4, homes=HOMES, court=[2, 7, 7, 7], available=["4d"])
    play(s, "p0 take 4d", "p0 deploy", "p0 place ARA", "p0 place ARA")
    # court empty: the other 2 of the 4 are simply lost; the special action follows
    assert legal(s) == ["p0 special", "p0 end"] and s.court[0] == 0


def test_deployment_never_into_the_kings_region():
    s = scenario(4, homes=HOMES, king="GAL", caballeros={"CLV": [0, 1, 0, 0]}, available=["1c"])
    play(s, "p0 take 1c", "p0 deploy")
    assert legal(s) == ["p0 place PVA", "p0 place CLV", "p0 place CAS", "p0 done"]
    with pytest.raises(IllegalAction):
        play(s, "p0 place GAL")


# --------------------------------------------------------------------------------------
# Stack 1: movement


def test_1a_moves_up_to_three_of_any_colour():
    s = special("1a", caballeros={"GAL": [2, 1, 0, 0], "VAL": [0, 0, 3, 0], "CLN": [4, 4, 0, 0]},
                castillo=[0, 0, 0, 2])
    # King's region (CLN) and Castillo are never sources
    assert legal(s) == ["p0 pick p0 GAL", "p0 pick p1 GAL", "p0 pick p2 VAL", "p0 done"]
    play(s, "p0 pick p1 GAL")
    # any region but the source and the King's, or the Castillo; adjacency does not matter
    assert legal(s) == ["p0 drop PVA", "p0 drop ARA", "p0 drop CAT", "p0 drop CLV",
                        "p0 drop SEV", "p0 drop GRA", "p0 drop VAL", "p0 drop CAS"]
    play(s, "p0 drop CAT", "p0 pick p2 VAL", "p0 drop CAS", "p0 pick p0 GAL", "p0 drop SEV")
    assert s.phase_name == "deploy"  # three moved: the special action is over
    assert board(s) == {"GAL": [1, 0, 0, 0], "CAT": [0, 1, 0, 0], "CLN": [4, 4, 0, 0],
                        "SEV": [1, 0, 0, 0], "VAL": [0, 0, 2, 0], "CAS": [0, 0, 1, 2]}


def test_1a_nothing_to_move_outside_kings_region_and_castillo():
    s = scenario(4, homes=HOMES, caballeros={"CLN": [2, 2, 0, 0]}, castillo=[1, 1, 1, 1],
                 available=["1a"])
    play(s, "p0 take 1a")
    assert legal(s) == ["p0 deploy", "p0 end"]


def test_1a_stop_early():
    s = special("1a", caballeros={"GAL": [2, 1, 0, 0]})
    play(s, "p0 pick p0 GAL", "p0 drop CAS", "p0 done")
    assert s.phase_name == "deploy" and board(s) == {"GAL": [1, 1, 0, 0], "CAS": [1, 0, 0, 0]}


def test_1b_all_own_out_of_one_region_split_as_liked():
    s = special("1b", caballeros={"GAL": [3, 1, 0, 0], "VAL": [1, 0, 0, 0], "CLN": [2, 0, 0, 0]})
    assert legal(s) == ["p0 from GAL", "p0 from VAL"]  # not the King's region
    play(s, "p0 from GAL", "p0 drop CAS")
    assert "p0 done" not in legal(s)  # all of them must leave (A19)
    assert "p0 drop GAL" not in legal(s) and "p0 drop CLN" not in legal(s)
    play(s, "p0 drop PVA", "p0 drop CAS")
    assert s.phase_name == "deploy"
    assert board(s) == {"GAL": [0, 1, 0, 0], "PVA": [1, 0, 0, 0], "CLN": [2, 0, 0, 0],
                        "VAL": [1, 0, 0, 0], "CAS": [2, 0, 0, 0]}


def test_1b_impossible_when_only_in_kings_region_and_castillo():
    s = scenario(4, homes=HOMES, caballeros={"CLN": [2, 0, 0, 0], "GAL": [0, 3, 0, 0]},
                 castillo=[2, 0, 0, 0], available=["1b"])
    play(s, "p0 take 1b")
    assert legal(s) == ["p0 deploy", "p0 end"]


def test_1c_up_to_two_more_from_court_anywhere_but_kings_region():
    s = special("1c", caballeros={"GAL": [0, 1, 0, 0]}, court=[4, 7, 7, 7])
    assert legal(s) == ["p0 place GAL", "p0 place PVA", "p0 place ARA", "p0 place CAT",
                        "p0 place CLV", "p0 place SEV", "p0 place GRA", "p0 place VAL",
                        "p0 place CAS", "p0 done"]
    play(s, "p0 place GAL", "p0 place CAS")
    # then the normal deployment of 1, next to the King only
    assert legal(s) == AFTER_CLN
    play(s, "p0 place SEV")
    assert board(s) == {"GAL": [1, 1, 0, 0], "SEV": [1, 0, 0, 0], "CAS": [1, 0, 0, 0]}
    assert s.court[0] == 1


def test_1c_partial_with_one_in_court():
    s = special("1c", caballeros={"GAL": [0, 1, 0, 0]}, court=[1, 7, 7, 7])
    play(s, "p0 place CAT")
    assert s.active == 1  # court empty: nothing left to deploy either
    assert counts(s, "CAT") == [1, 0, 0, 0] and s.court[0] == 0


def test_1c_impossible_with_empty_court():
    s = scenario(4, homes=HOMES, court=[0, 7, 7, 7], available=["1c"])
    play(s, "p0 take 1c")
    assert legal(s) == ["p0 end"]


def test_1d_two_budgets_own_and_opposing():
    s = special("1d", caballeros={"GAL": [3, 2, 0, 0], "SEV": [0, 0, 2, 0]})
    play(s, "p0 pick p0 GAL", "p0 drop PVA", "p0 pick p0 GAL", "p0 drop PVA")
    # own budget used up: only opposing Caballeros can still be picked
    assert legal(s) == ["p0 pick p1 GAL", "p0 pick p2 SEV", "p0 done"]
    play(s, "p0 pick p1 GAL", "p0 drop CAS", "p0 pick p2 SEV", "p0 drop GAL")
    assert s.phase_name == "deploy"
    assert board(s) == {"GAL": [1, 1, 1, 0], "PVA": [2, 0, 0, 0], "SEV": [0, 0, 1, 0],
                        "CAS": [0, 1, 0, 0]}


def test_1e_up_to_four_own_only():
    s = special("1e", caballeros={"GAL": [5, 2, 0, 0], "CLN": [3, 0, 0, 0]})
    assert legal(s) == ["p0 pick p0 GAL", "p0 done"]
    for dest in ("PVA", "CAS", "CAS", "VAL"):
        play(s, "p0 pick p0 GAL", f"p0 drop {dest}")
    assert s.phase_name == "deploy"
    assert board(s) == {"GAL": [1, 2, 0, 0], "PVA": [1, 0, 0, 0], "CLN": [3, 0, 0, 0],
                        "VAL": [1, 0, 0, 0], "CAS": [2, 0, 0, 0]}


def test_1f_up_to_three_opposing_of_mixed_colours():
    s = special("1f", caballeros={"GAL": [5, 2, 0, 0], "CAT": [0, 0, 0, 1]})
    assert legal(s) == ["p0 pick p1 GAL", "p0 pick p3 CAT", "p0 done"]
    play(s, "p0 pick p1 GAL", "p0 drop SEV", "p0 pick p3 CAT", "p0 drop SEV",
         "p0 pick p1 GAL", "p0 drop CAS")
    assert s.phase_name == "deploy"
    assert board(s) == {"GAL": [5, 0, 0, 0], "SEV": [0, 1, 0, 1], "CAS": [0, 1, 0, 0]}


def test_1f_stops_when_no_opposing_caballero_is_left():
    s = special("1f", caballeros={"GAL": [5, 1, 0, 0]})
    play(s, "p0 pick p1 GAL", "p0 drop SEV")
    assert s.phase_name == "deploy"


def test_1g_up_to_five_from_one_region_only():
    s = special("1g", caballeros={"GAL": [3, 2, 2, 0], "VAL": [0, 4, 0, 0]})
    play(s, "p0 pick p1 GAL", "p0 drop VAL")
    # the source is now fixed: the Caballero that just arrived in VAL cannot be picked
    assert legal(s) == ["p0 pick p0 GAL", "p0 pick p1 GAL", "p0 pick p2 GAL", "p0 done"]
    for who, dest in (("p0", "CAS"), ("p2", "PVA"), ("p2", "PVA"), ("p0", "CAT")):
        play(s, f"p0 pick {who} GAL", f"p0 drop {dest}")
    assert s.phase_name == "deploy"
    assert board(s) == {"GAL": [1, 1, 0, 0], "PVA": [0, 0, 2, 0], "CAT": [1, 0, 0, 0],
                        "VAL": [0, 5, 0, 0], "CAS": [1, 0, 0, 0]}


def test_1h_up_to_four_of_any_colour():
    s = special("1h", caballeros={"GAL": [2, 2, 0, 0], "SEV": [0, 0, 1, 0]})
    play(s, "p0 pick p0 GAL", "p0 drop CAS", "p0 pick p1 GAL", "p0 drop CAS",
         "p0 pick p2 SEV", "p0 drop GRA", "p0 pick p1 GAL", "p0 drop ARA")
    assert s.phase_name == "deploy"
    assert board(s) == {"GAL": [1, 0, 0, 0], "ARA": [0, 1, 0, 0], "GRA": [0, 0, 1, 0],
                        "CAS": [1, 1, 0, 0]}


def test_1i_either_court_placement_or_emptying_a_region():
    s = special("1i", caballeros={"GAL": [2, 0, 0, 0]})
    assert legal(s) == ["p0 option 1c", "p0 option 1b"]
    play(s, "p0 option 1b", "p0 from GAL", "p0 drop CAS", "p0 drop CAT")
    assert board(s) == {"CAT": [1, 0, 0, 0], "CAS": [1, 0, 0, 0]}
    assert s.phase_name == "deploy"
    s = special("1i", caballeros={"GAL": [2, 0, 0, 0]})
    play(s, "p0 option 1c", "p0 place GAL", "p0 place GAL")
    assert counts(s, "GAL") == [4, 0, 0, 0] and s.phase_name == "deploy"


def test_1i_offers_only_the_possible_half():
    s = special("1i", caballeros={"CLN": [2, 0, 0, 0]})
    assert legal(s) == ["p0 option 1c"]
    s = special("1i", caballeros={"GAL": [2, 0, 0, 0]}, court=[0, 7, 7, 7])
    assert legal(s) == ["p0 option 1b"]


def test_1i_offered_with_one_caballero_in_court_and_none_on_the_board():
    s = scenario(4, homes=HOMES, caballeros={"CLN": [0, 2, 0, 0]}, court=[1, 7, 7, 7],
                 available=["1i"])
    play(s, "p0 take 1i")
    assert legal(s) == ["p0 deploy", "p0 special", "p0 end"]
    play(s, "p0 special")
    assert legal(s) == ["p0 option 1c"]
    play(s, "p0 option 1c", "p0 place GAL")
    # The court is empty: the placement ends, so does the deployment, and with it the turn.
    assert board(s) == {"GAL": [1, 0, 0, 0], "CLN": [0, 2, 0, 0]}
    assert s.court[0] == 0 and s.active == 1


# --------------------------------------------------------------------------------------
# Stack 2


def test_2a_secret_region_lose_all_there():
    s = special("2a", caballeros={"GAL": [2, 3, 0, 0], "SEV": [1, 2, 1, 0], "CLN": [0, 4, 4, 0]},
                castillo=[0, 0, 0, 5])
    # opponents only; the King's region is not offered; p3 has nothing outside CLN/Castillo
    assert s.phase_name == "secret"
    assert legal(s) == ["p1 secret GAL", "p1 secret SEV", "p2 secret SEV"]
    play(s, "p1 secret GAL")
    assert counts(s, "GAL") == [2, 3, 0, 0]  # nothing happens before the last choice
    _assert_hidden(s, chooser=1, other=2, region="GAL")
    play(s, "p2 secret SEV")
    assert board(s) == {"GAL": [2, 0, 0, 0], "CLN": [0, 4, 4, 0], "SEV": [1, 2, 0, 0],
                        "CAS": [0, 0, 0, 5]}
    assert s.provinces[1] == 30 - 7 - 6 and s.phase_name == "deploy"


def _assert_hidden(s, chooser: int, other: int, region: str) -> None:
    """``chooser`` has picked ``region``; ``other`` (still to choose) must not see it."""
    mine = view(s, chooser)["player_state"][chooser]
    assert mine["secret_choice"] == region
    theirs = view(s, other)
    entry = theirs["player_state"][chooser]
    assert entry["secret_chosen"] is True and "secret_choice" not in entry
    assert "secret_choice" not in json.dumps(view(s, None))
    assert redact(s, other).secret[chooser] == PENDING
    assert s.secret[chooser] >= 0  # the state itself keeps it


def test_2a_skips_everyone_without_eligible_caballeros():
    s = special("2a", caballeros={"GAL": [2, 0, 0, 0], "CLN": [0, 4, 4, 0]})
    assert s.phase_name == "deploy" and board(s) == {"GAL": [2, 0, 0, 0], "CLN": [0, 4, 4, 0]}


def test_2b_one_caballero_of_each_opponent_active_chooses():
    s = special("2b", caballeros={"GAL": [2, 3, 0, 0], "SEV": [0, 1, 1, 0], "CLN": [0, 0, 0, 3]},
                castillo=[0, 0, 2, 2])
    # p3 has nothing outside the King's region and the Castillo: skipped. p1 first (clockwise).
    assert legal(s) == ["p0 remove p1 GAL", "p0 remove p1 SEV"]
    play(s, "p0 remove p1 SEV")
    assert legal(s) == ["p0 remove p2 SEV"]
    play(s, "p0 remove p2 SEV")
    assert s.phase_name == "deploy"
    assert board(s) == {"GAL": [2, 3, 0, 0], "CLN": [0, 0, 0, 3], "CAS": [0, 0, 2, 2]}
    assert s.provinces == [21, 30 - 7 - 3, 30 - 7 - 2, 30 - 7 - 5]


def test_2c_clockwise_from_the_left_each_opponent_chooses_his_sources():
    # active p1: order p2, p3, p0; each has a real choice
    s = special("2c", active=1, caballeros={"GAL": [2, 0, 3, 0], "SEV": [0, 0, 0, 2],
                                            "CLN": [5, 5, 5, 5]}, castillo=[3, 3, 3, 3])
    assert to_act(s) == [2]
    assert legal(s) == ["p2 lose GAL", "p2 lose court"]  # not CLN, not the Castillo
    assert legal(s, 1) == []
    play(s, "p2 lose GAL", "p2 lose GAL", "p2 lose court")
    assert to_act(s) == [3]
    play(s, "p3 lose SEV", "p3 lose court", "p3 lose court")
    assert to_act(s) == [0]
    play(s, "p0 lose court", "p0 lose GAL", "p0 lose GAL")
    assert s.phase_name == "deploy" and s.active == 1
    assert board(s) == {"GAL": [0, 0, 1, 0], "SEV": [0, 0, 0, 1], "CLN": [5, 5, 5, 5],
                        "CAS": [3, 3, 3, 3]}
    assert s.court == [6, 7, 6, 5]


def test_2c_as_far_as_possible_and_forced_losses():
    s = special("2c", caballeros={"GAL": [0, 1, 0, 0], "CLN": [0, 5, 5, 0]},
                castillo=[0, 4, 4, 4], court=[7, 1, 0, 7])
    # p1: 2 eligible -> both; p2: nothing eligible; p3: court only -> 3 from court
    assert s.phase_name == "deploy"
    assert s.court == [7, 0, 0, 4]
    assert board(s) == {"CLN": [0, 5, 5, 0], "CAS": [0, 4, 4, 4]}


def test_2d_scores_the_kings_region_with_king_bonus():
    s = special("2d", caballeros={"CLN": [1, 3, 2, 0]}, scores=[1, 1, 1, 1])
    assert len(legal(s)) == 10  # nine regions and the Castillo
    play(s, "p0 score CLN")
    assert s.scores == [1 + 2, 1 + 7 + 2, 1 + 4, 1]


def test_2d_scores_the_castillo_without_emptying_it():
    s = special("2d", caballeros={"GAL": [1, 0, 0, 0]}, castillo=[1, 4, 4, 0])
    play(s, "p0 score CAS")
    assert s.scores == [1, 3, 3, 0]  # tied first drop to second: 3; then 1 is rank 3
    assert counts(s, "CAS") == [1, 4, 4, 0]


def test_2e_lose_two_as_far_as_possible():
    s = special("2e", caballeros={"GAL": [2, 3, 1, 0], "SEV": [0, 0, 4, 0], "CLN": [0, 0, 0, 6]})
    assert legal(s) == ["p1 secret GAL", "p2 secret GAL", "p2 secret SEV"]
    play(s, "p2 secret GAL")
    _assert_hidden(s, chooser=2, other=1, region="GAL")
    play(s, "p1 secret GAL")
    assert board(s) == {"GAL": [2, 1, 0, 0], "SEV": [0, 0, 4, 0], "CLN": [0, 0, 0, 6]}
    assert s.provinces[1:3] == [30 - 7 - 1, 30 - 7 - 4]


def test_2f_opponents_lose_whole_court():
    s = special("2f", court=[5, 6, 0, 1])
    assert s.court == [5, 0, 0, 0] and s.phase_name == "deploy"
    assert s.provinces == [30 - 5 - 2, 28, 28, 28]


def test_2g_opponents_lose_up_to_three_from_court():
    s = special("2g", court=[5, 6, 2, 0])
    assert s.court == [5, 3, 0, 0]
    assert s.provinces == [23, 30 - 3 - 2, 28, 28]


# --------------------------------------------------------------------------------------
# Stack 3: special scorings


def test_3a_scores_every_region_with_the_most():
    s = special("3a", caballeros={"GAL": [3, 1, 0, 0], "CLN": [0, 4, 0, 0], "VAL": [2, 0, 0, 0]},
                castillo=[9, 0, 0, 0])
    # GAL and CLN have 4 each (Castillo ignored). GAL: p0 home, sole leader 4+2, p1 2.
    # CLN: p1 sole leader 7 + King's bonus 2.
    assert s.scores == [6, 2 + 9, 0, 0]


def test_3a_empty_board_scores_nothing():
    s = special("3a", caballeros={}, castillo=[3, 0, 0, 0])
    assert s.scores == [0, 0, 0, 0] and s.phase_name == "deploy"


def test_3b_current_first_award_four_regions_with_tiles():
    cab = {"GAL": [1, 0, 0, 0], "CAT": [0, 1, 0, 0], "SEV": [0, 0, 1, 0], "ARA": [0, 0, 0, 1],
           "PVA": [1, 0, 0, 0]}
    s = special("3b", caballeros=cab, castillo=[0, 3, 0, 0], tiles={"840": "GAL", "400": "ARA"})
    # GAL carries 8/4/0 (now 8: excluded); ARA carries 4/0/0 (now 4: included); CAT and SEV
    # are printed 4s; PVA (5) is not scored. No leader is at home.
    assert s.scores == [0, 4, 4, 4]


def test_3b_never_scores_the_castillo_even_with_a_four_tile():
    s = special("3b", caballeros={}, castillo=[3, 1, 0, 0], tiles={"400": "CAS"})
    assert s.scores == [0, 0, 0, 0]


def test_3c_scores_one_chosen_region():
    s = special("3c", caballeros={"VAL": [2, 2, 1, 0]})
    play(s, "p0 score VAL")
    assert s.scores == [3, 3, 2, 0]


def test_3c_may_score_the_castillo_and_keep_it():
    s = special("3c", castillo=[2, 1, 0, 0])
    play(s, "p0 score CAS")
    assert s.scores == [5, 3, 0, 0] and counts(s, "CAS") == [2, 1, 0, 0]


def test_3d_scores_every_occupied_region_with_the_fewest():
    s = special("3d", caballeros={"GAL": [1, 1, 0, 0], "VAL": [0, 0, 2, 0], "SEV": [5, 0, 0, 0]},
                castillo=[1, 0, 0, 0])
    # GAL and VAL hold 2 each; empty regions and the Castillo do not count
    assert s.scores == [2, 2, 5, 0]


def test_3e_first_place_only_in_all_nine_regions():
    cab = {"GAL": [3, 1, 0, 0], "PVA": [2, 2, 0, 0], "CLN": [0, 0, 3, 1], "VAL": [0, 0, 0, 1]}
    s = special("3e", caballeros=cab, castillo=[0, 5, 0, 0])
    # GAL p0 4+2 home; PVA tied: nobody; CLN p2 7+2 King; VAL p3 5; Castillo not scored
    assert s.scores == [6, 0, 9, 5]


def test_3e_tied_leaders_in_kings_region_get_nothing():
    s = special("3e", caballeros={"CLN": [3, 3, 1, 0]}, homes=["GAL", "PVA", "ARA", "CAT"])
    assert s.scores == [0, 0, 0, 0]


def test_3f_scores_the_castillo_with_its_tile_and_keeps_it():
    s = special("3f", castillo=[3, 1, 1, 0], tiles={"840": "CAS"})
    assert s.scores == [8, 0, 0, 0]  # 1,1 tied for second drop to third: 0 on 8/4/0
    assert counts(s, "CAS") == [3, 1, 1, 0]


def test_3g_six_and_seven_regions():
    cab = {"CLV": [1, 0, 0, 0], "CLN": [0, 2, 0, 0], "GRA": [0, 0, 1, 0], "GAL": [0, 0, 0, 1]}
    s = special("3g", caballeros=cab, tiles={"400": "GRA", "840": "CLV"})
    # CLV now 8 (excluded), GRA now 4 (excluded), CLN 7 + King's bonus; GAL not a 6/7 region
    assert s.scores == [0, 9, 0, 0]


def test_3h_five_regions_never_the_castillo():
    cab = {"PVA": [0, 1, 0, 0], "ARA": [1, 1, 0, 0], "VAL": [0, 0, 1, 0]}
    s = special("3h", caballeros=cab, castillo=[0, 0, 0, 4])
    # PVA p1 home: 5+2; ARA tied for first: 4 each; VAL p2 5; Castillo (printed 5) not scored
    assert s.scores == [4, 7 + 4, 5, 0]


# --------------------------------------------------------------------------------------
# Stack 4


def test_4a_take_back_a_played_power_card_including_this_rounds():
    s = scenario(4, homes=HOMES, available=["4a"], round=2, hands={0: [1, 2, 3, 4, 6, 7, 8, 9,
                                                                     10, 11, 12]})
    play(s, "p0 take 4a", "p0 special")
    assert legal(s) == ["p0 retrieve 5", "p0 retrieve 13"]  # 13 is this round's card
    play(s, "p0 retrieve 13")
    assert s.hand[0] == sum(1 << v for v in (1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13))
    assert s.phase_name == "deploy"


def test_4b_move_your_grande_not_into_the_kings_region():
    s = special("4b", caballeros={"SEV": [2, 1, 0, 0]})
    assert "p0 grande CLN" not in legal(s) and "p0 grande GAL" not in legal(s)
    assert "p0 grande PVA" in legal(s)  # Grandes may share a region
    assert len(legal(s)) == 7
    play(s, "p0 grande SEV")
    assert s.grande == [6, 1, 2, 3]
    # the new home gives the bonus when it is scored (SEV 4/3/1: 4 + 2 home, 3)
    assert score_area(s, 6) == [6, 3, 0, 0]


def test_4b_grande_in_the_kings_region_cannot_move():
    s = scenario(4, homes=["CLN", "PVA", "ARA", "CAT"], available=["4b"])
    play(s, "p0 take 4b")
    assert legal(s) == ["p0 deploy", "p0 end"]


def test_4c_up_to_two_from_provinces_before_deploying():
    s = special("4c", court=[0, 7, 7, 7])
    assert legal(s) == ["p0 court 1", "p0 court 2"]
    play(s, "p0 court 2")
    assert s.court[0] == 2 and s.provinces[0] == 30 - 2 - 2
    play(s, "p0 place ARA", "p0 place ARA")
    assert counts(s, "ARA") == [2, 0, 2, 0] and s.active == 1  # p2 home: set-up 2


def test_4c_provinces_short_gives_what_there_is():
    s = special("4c", caballeros={"GAL": [21, 0, 0, 0]}, court=[8, 7, 7, 7])
    assert s.provinces[0] == 1 and legal(s) == ["p0 court 1"]


def test_4c_empty_provinces_no_special():
    s = scenario(4, homes=HOMES, caballeros={"GAL": [22, 0, 0, 0]}, court=[8, 7, 7, 7],
                 available=["4c"])
    play(s, "p0 take 4c")
    assert legal(s) == ["p0 deploy", "p0 end"]


def test_4d_king_to_an_adjacent_region_only():
    s = special("4d", king="GAL", homes=["PVA", "ARA", "CAT", "CLN"])
    assert legal(s) == ["p0 king PVA", "p0 king CLV"]
    play(s, "p0 king PVA")
    assert s.king == 1
    assert legal(s) == ["p0 place GAL", "p0 place ARA", "p0 place CLV", "p0 place CAS",
                        "p0 done"]


def test_4e_tile_on_any_region_but_the_kings_or_the_castillo():
    s = special("4e")
    assert len(legal(s)) == 18 and "p0 tile 8 CLN" not in legal(s)
    play(s, "p0 tile 8 CAS")
    assert s.tiles == [9, -1]


def test_4e_tiles_never_share_and_move_only_elsewhere():
    s = special("4e", tiles={"840": "GAL", "400": "VAL"})
    got = legal(s)
    assert "p0 tile 8 GAL" not in got and "p0 tile 8 VAL" not in got
    assert "p0 tile 4 GAL" not in got and "p0 tile 4 VAL" not in got
    assert "p0 tile 8 CAS" in got and len(got) == 14
    play(s, "p0 tile 4 PVA")
    assert s.tiles == [0, 1]
    assert awards_of(s, 8) == (5, 3, 2) and awards_of(s, 1) == (4, 0, 0)  # VAL printed again


def test_4e_tile_in_the_kings_region_is_frozen():
    s = special("4e", tiles={"840": "CLN"})
    got = legal(s)
    assert not [a for a in got if a.startswith("p0 tile 8")]
    assert "p0 tile 4 CLN" not in got and len(got) == 9  # the 4/0/0: any area but CLN


def test_4f_secret_scoring_of_regions_picked_exactly_once():
    cab = {"GAL": [2, 1, 0, 0], "CLN": [0, 3, 0, 0], "VAL": [0, 0, 2, 1], "SEV": [1, 0, 0, 0]}
    s = special("4f", caballeros=cab, castillo=[5, 0, 0, 0])
    assert to_act(s) == [0, 1, 2, 3]
    # nine regions each (King's region allowed), never the Castillo
    assert len(legal(s, 2)) == 9 and "p2 secret CLN" in legal(s, 2)
    play(s, "p0 secret GAL", "p1 secret GAL", "p2 secret CLN")
    _assert_hidden(s, chooser=2, other=3, region="CLN")
    assert s.scores == [0, 0, 0, 0]
    play(s, "p3 secret VAL")
    # GAL picked twice: not scored. CLN: p1 7 + 2 King. VAL: p2 5, p3 3.
    assert s.scores == [0, 9, 5, 3]
    assert s.phase_name == "deploy"


def test_4g_eviction_secret_destinations_source_or_kings_to_court():
    cab = {"GAL": [2, 3, 1, 4], "CLN": [0, 1, 0, 0]}
    s = special("4g", caballeros=cab)
    assert "p0 evict CLN" not in legal(s) and "p0 evict CAS" not in legal(s)
    play(s, "p0 evict GAL")
    assert to_act(s) == [1, 2, 3]
    assert len(legal(s, 1)) == 9 and "p1 secret CAS" not in str(legal(s, 1))
    play(s, "p1 secret VAL", "p2 secret GAL")
    _assert_hidden(s, chooser=1, other=3, region="VAL")
    assert board(s) == {"GAL": [2, 3, 1, 4], "CLN": [0, 1, 0, 0]}  # not before the last choice
    with pytest.raises(IllegalAction):
        play(s, "p1 secret PVA")  # a choice is final
    with pytest.raises(IllegalAction):
        play(s, "p0 secret PVA")  # the active player is not asked
    play(s, "p3 secret CLN")
    assert board(s) == {"GAL": [2, 0, 0, 0], "CLN": [0, 1, 0, 0], "VAL": [0, 3, 0, 0]}
    assert s.court == [7, 7, 8, 11]


def test_4g_named_region_without_opponents_does_nothing():
    s = special("4g", caballeros={"GAL": [2, 0, 0, 0], "VAL": [0, 1, 0, 0]})
    play(s, "p0 evict GAL")
    assert s.phase_name == "deploy" and board(s) == {"GAL": [2, 0, 0, 0], "VAL": [0, 1, 0, 0]}


# --------------------------------------------------------------------------------------
# Stack 5


def test_5a_king_to_any_other_region_then_deploy_up_to_five():
    s = special("5a", caballeros={"GAL": [1, 0, 0, 0]})
    assert len(legal(s)) == 8 and "p0 king CLN" not in legal(s) and "p0 king CAS" not in str(
        legal(s))
    play(s, "p0 king GAL")
    assert s.king == 0
    assert legal(s) == ["p0 place PVA", "p0 place CLV", "p0 place CAS", "p0 done"]
    play(s, *["p0 place PVA"] * 5)
    assert counts(s, "PVA") == [5, 0, 0, 0] and s.active == 1


def test_1g_kings_region_is_never_the_source():
    s = special("1g", caballeros={"CLN": [3, 3, 0, 0], "SEV": [0, 0, 1, 0]}, castillo=[2, 2, 0, 0])
    assert legal(s) == ["p0 pick p2 SEV", "p0 done"]
    play(s, "p0 pick p2 SEV", "p0 drop CAS")
    assert s.phase_name == "deploy" and counts(s, "CAS") == [2, 2, 1, 0]


def test_king_entering_a_region_freezes_it_for_the_next_card():
    # 5a moves the King onto p2's Caballeros in GAL; p1's 2b next cannot touch them there.
    s = scenario(4, homes=HOMES, caballeros={"GAL": [0, 0, 2, 0], "VAL": [0, 0, 1, 0]},
                 available=["2b"])
    play(s, "p0 take 5a", "p0 special", "p0 king GAL", "p0 done")
    assert s.active == 1 and s.phase_name == "take"
    play(s, "p1 take 2b", "p1 special")
    assert legal(s) == ["p1 remove p2 VAL"]
    play(s, "p1 remove p2 VAL")
    assert board(s) == {"GAL": [0, 0, 2, 0]}


@pytest.mark.parametrize(("card", "king", "choose"), [
    ("3b", "SEV", None), ("3h", "VAL", None), ("3d", "GRA", None), ("3c", "CAT", "CAT"),
    ("2d", "GRA", "GRA"), ("3a", "ARA", None), ("3g", "CLV", None),
])
def test_scoring_cards_score_the_kings_region_with_kings_bonus(card, king, choose):
    # The King's region holds p3 alone (1 Caballero; fewest for 3d, most for 3a: the only one).
    homes = [r for r in HOMES + ["CLN"] if r != king][:4]
    s = special(card, king=king, homes=homes, caballeros={king: [0, 0, 0, 1]})
    if choose:
        play(s, f"p0 score {choose}")
    first = PRINTED_AWARDS[AREA_INDEX[king]][0]
    assert s.scores == [0, 0, 0, first + 2]


def test_3e_uses_the_current_first_award_of_a_tile():
    s = special("3e", caballeros={"GAL": [0, 2, 1, 0], "VAL": [0, 0, 1, 0]},
                tiles={"840": "GAL", "400": "VAL"})
    assert s.scores == [0, 8, 4, 0]


def test_king_leaving_a_region_unprotects_it():
    s = scenario(4, homes=HOMES, caballeros={"CLN": [0, 0, 3, 0]}, available=["4d", "1f"])
    play(s, "p0 take 4d", "p0 special", "p0 king ARA", "p0 done")
    play(s, "p1 take 1f", "p1 special")
    assert legal(s) == ["p1 pick p2 CLN", "p1 done"]


def test_illegal_action_leaves_the_state_untouched():
    s = special("1a", caballeros={"GAL": [2, 1, 0, 0], "CLN": [1, 1, 0, 0]})
    before = s.to_dict()
    for bad in ("p0 pick p0 CLN", "p1 pick p1 GAL", "p0 place ARA", "p0 drop CAS", "nonsense"):
        with pytest.raises(IllegalAction):
            play(s, bad)
    assert s.to_dict() == before


def test_caballero_moved_in_an_earlier_turn_can_move_again_in_a_later_special_action():
    # "At most once" is per special action (§5.1, A24): p0's 1a moves p1's only Caballero into
    # VAL; in his own turn p1 may move it again with 1e.
    s = scenario(4, homes=HOMES, caballeros={"GAL": [0, 1, 0, 0]}, available=["1a", "1e"])
    play(s, "p0 take 1a", "p0 special", "p0 pick p1 GAL", "p0 drop VAL", "p0 done")
    assert s.active == 1
    play(s, "p1 take 1e")
    assert legal(s) == ["p1 deploy", "p1 special", "p1 end"]


def test_caballero_moved_earlier_can_move_again_after_deployment():
    s = scenario(4, homes=HOMES, caballeros={"GAL": [0, 1, 0, 0]}, available=["1a", "1e"])
    play(s, "p0 take 1a", "p0 special", "p0 pick p1 GAL", "p0 drop VAL", "p0 done")
    play(s, "p1 take 1e", "p1 deploy", "p1 place CAS")
    assert s.active == 1 and legal(s) == ["p1 special", "p1 end"]


# --------------------------------------------------------------------------------------
# Nothing to do


@pytest.mark.parametrize("card", ["1a", "1d", "1e", "1f", "1g", "1h", "1b"])
def test_movement_cards_cannot_start_with_everything_in_kings_region_or_castillo(card):
    s = scenario(4, homes=HOMES, caballeros={"CLN": [2, 2, 2, 2]}, castillo=[1, 1, 1, 1],
                 available=[card])
    play(s, f"p0 take {card}")
    assert legal(s) == ["p0 deploy", "p0 end"]


@pytest.mark.parametrize(("card", "possible"), [("1e", False), ("1f", True), ("1d", True)])
def test_movement_cards_respect_ownership_when_only_opponents_are_movable(card, possible):
    s = scenario(4, homes=HOMES, caballeros={"GAL": [0, 2, 0, 0]}, available=[card])
    play(s, f"p0 take {card}")
    assert ("p0 special" in legal(s)) is possible


@pytest.mark.parametrize(("card", "possible"), [("1e", True), ("1f", False), ("1d", True)])
def test_movement_cards_respect_ownership_when_only_own_are_movable(card, possible):
    s = scenario(4, homes=HOMES, caballeros={"GAL": [2, 0, 0, 0]}, available=[card])
    play(s, f"p0 take {card}")
    assert ("p0 special" in legal(s)) is possible


# Only the King's region (p1-p3 tied, 3 each) and p0's Castillo are occupied; opponents' courts
# are empty. CLN scored: three tied for first drop to second, 4 each, no King's bonus.
NOTHING_TO_DO = {
    "2a": [0, 0, 0, 0], "2b": [0, 0, 0, 0], "2c": [0, 0, 0, 0], "2e": [0, 0, 0, 0],
    "2f": [0, 0, 0, 0], "2g": [0, 0, 0, 0], "3b": [0, 0, 0, 0], "3h": [0, 0, 0, 0],
    "3e": [0, 0, 0, 0], "3a": [0, 4, 4, 4], "3d": [0, 4, 4, 4], "3g": [0, 4, 4, 4],
    "3f": [5, 0, 0, 0],
}


@pytest.mark.parametrize("card", sorted(NOTHING_TO_DO))
def test_automatic_cards_with_little_to_act_on(card):
    s = special(card, caballeros={"CLN": [0, 3, 3, 3]}, castillo=[2, 0, 0, 0],
                court=[7, 0, 0, 0])
    assert s.scores == NOTHING_TO_DO[card]
    assert board(s) == {"CLN": [0, 3, 3, 3], "CAS": [2, 0, 0, 0]}
    assert s.court == [7, 0, 0, 0] and s.provinces == [21, 27, 27, 27]
    assert s.phase_name == "deploy"
