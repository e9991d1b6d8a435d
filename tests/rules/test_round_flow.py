"""Set-up, bidding, turn order, recruitment, end of round, general scoring and end of game
(rules.md §3, §4, §6.5, §7)."""

from __future__ import annotations

import random

import pytest

from elgrande.rules import (
    GameConfig,
    IllegalAction,
    apply,
    chance_outcomes,
    is_terminal,
    legal_actions,
    new_game,
    resolve_chance,
    to_act,
    view,
    winners,
)
from elgrande.rules.board import RECRUITS_BY_POWER, REGION_CODES
from elgrande.rules.cards import CARDS
from tests.rules.scenario import board, counts, legal, play, scenario

HOMES = ["GAL", "PVA", "ARA", "CAT"]


# --------------------------------------------------------------------------------------
# Set-up (§3)


def test_setup_chance_steps_offer_distinct_homes_then_a_free_king_region():
    s = new_game(GameConfig(players=4, start_player=0))
    assert to_act(s) == [-1]
    assert len(chance_outcomes(s)) == 9
    assert all(p == pytest.approx(1 / 9) for _, p in chance_outcomes(s))
    apply(s, "* home p0 CLN")
    assert [str(a) for a in legal_actions(s)] == [
        "* home p1 GAL", "* home p1 PVA", "* home p1 ARA", "* home p1 CAT", "* home p1 CLV",
        "* home p1 SEV", "* home p1 GRA", "* home p1 VAL"]
    for move in ("* home p1 GAL", "* home p2 VAL", "* home p3 SEV"):
        apply(s, move)
    assert [str(a) for a in legal_actions(s)] == [
        "* king PVA", "* king ARA", "* king CAT", "* king CLV", "* king GRA"]
    with pytest.raises(IllegalAction):
        apply(s, "* king GAL")
    apply(s, "* king GRA")
    assert s.court == [7, 7, 7, 7] and s.provinces == [21, 21, 21, 21]
    assert board(s) == {"GAL": [0, 2, 0, 0], "CLN": [2, 0, 0, 0], "SEV": [0, 0, 0, 2],
                        "VAL": [0, 0, 2, 0]}
    assert s.scores == [0, 0, 0, 0] and s.tiles == [-1, -1] and s.castillo(0) == 0
    assert s.phase_name == "reveal" and s.round == 1


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_setup_homes_distinct_king_elsewhere(players):
    for seed in range(20):
        s = new_game(GameConfig(players=players))
        resolve_chance(s, random.Random(seed))
        assert len(set(s.grande)) == players and s.king not in s.grande
        assert 0 <= s.start_player < players
        for p in range(players):
            assert counts(s, REGION_CODES[s.grande[p]])[p] == 2
        assert s.court == [7] * players and s.provinces == [21] * players
        assert len(s.available) == 5 and s.available[-1] == 31  # four stacks + King's card


def test_stacks_hold_eleven_nine_eleven_eleven_cards():
    s = new_game(GameConfig(players=3))
    by_stack = {1: 0, 2: 0, 3: 0, 4: 0, 5: 0}
    for c in CARDS:
        by_stack[c.stack] += s.copies[c.index]
    assert by_stack == {1: 11, 2: 9, 3: 11, 4: 11, 5: 1}


# --------------------------------------------------------------------------------------
# Bidding (§4.1) and turn order (§4.3)


def test_bidding_clockwise_from_start_player_values_unique():
    s = scenario(3, homes=HOMES[:3], phase="bid", start_player=1, available=["1a", "2a", "3a", "4a"])
    assert to_act(s) == [1] and len(legal(s)) == 13
    play(s, "p1 bid 5")
    assert to_act(s) == [2] and "p2 bid 5" not in legal(s) and len(legal(s)) == 12
    play(s, "p2 bid 7")
    assert to_act(s) == [0] and len(legal(s)) == 11
    with pytest.raises(IllegalAction):
        play(s, "p0 bid 7")
    play(s, "p0 bid 2")
    assert s.order == [2, 1, 0] and s.active == 2  # highest card first
    assert s.bids == [2, 5, 7]
    assert not s.hand[0] >> 2 & 1 and not s.hand[1] >> 5 & 1


def test_round_plays_in_card_order_and_lowest_card_starts_next_round():
    s = scenario(3, homes=HOMES[:3], phase="reveal", start_player=0)
    play(s, "* reveal 1a", "* reveal 2a", "* reveal 3a", "* reveal 4a")
    assert s.available == [0, 9, 16, 24, 31]
    play(s, "p0 bid 3", "p1 bid 10", "p2 bid 7")
    assert s.order == [1, 2, 0]
    assert to_act(s) == [1] and legal(s) == ["p1 recruit 0", "p1 recruit 1"]
    play(s, "p1 recruit 1", "p1 take 5a", "p1 end")
    assert to_act(s) == [2] and legal(s)[-1] == "p2 recruit 3"
    play(s, "p2 recruit 0", "p2 take 1a", "p2 end")
    assert to_act(s) == [0] and legal(s)[-1] == "p0 recruit 5"
    play(s, "p0 recruit 5", "p0 take 3a", "p0 end")
    # end of round: p0 played the lowest card; the untaken 2a and 4a are gone for good
    assert s.round == 2 and s.phase_name == "reveal" and s.start_player == 0
    assert s.court == [12, 8, 7] and s.provinces == [16, 20, 21]
    assert s.available == [] and s.bids == [0, 0, 0]
    assert s.copies[9] == 0 and s.copies[24] == 1  # 2a (one copy), 4a (two copies)
    t = play(s.copy(), "* reveal 1b")  # the stack-2 reveal comes next
    assert "* reveal 2a" not in legal(t) and "* reveal 2b" in legal(t)
    play(s, "* reveal 1b", "* reveal 2b", "* reveal 3b", "* reveal 4a")
    assert s.available == [1, 10, 17, 24, 31]  # the King's card is back
    assert to_act(s) == [0]
    assert legal(s) == [f"p0 bid {v}" for v in (1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)]


def test_taken_card_is_no_longer_available_to_later_players():
    s = scenario(3, homes=HOMES[:3], available=["1a", "2a", "3a", "4a"])
    play(s, "p0 take 2a", "p0 end")
    assert to_act(s) == [1] and "p1 take 2a" not in legal(s)
    assert legal(s) == ["p1 take 1a", "p1 take 3a", "p1 take 4a", "p1 take 5a"]


# --------------------------------------------------------------------------------------
# Recruitment (§4.2, §4.3 step A)


@pytest.mark.parametrize("value", range(1, 14))
def test_recruitment_table(value):
    assert RECRUITS_BY_POWER[value] == [0, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0][value]
    other = 13 if value < 13 else 12
    s = scenario(2, homes=HOMES[:2], phase="bid", start_player=1, available=["1a", "2a", "3a", "4a"])
    play(s, f"p1 bid {other}", f"p0 bid {value}")
    if to_act(s) == [1]:  # p1 holds the higher card: let him pass his turn
        if s.phase_name == "recruit":
            play(s, "p1 recruit 0")
        play(s, "p1 take 5a", "p1 end")
    assert s.active == 0
    limit = RECRUITS_BY_POWER[value]
    if limit:
        assert legal(s) == [f"p0 recruit {k}" for k in range(limit + 1)]
        play(s, f"p0 recruit {limit}")
        assert s.court[0] == 7 + limit and s.provinces[0] == 21 - limit
    else:
        assert s.phase_name == "take"


def _recruit_state(caballeros: dict, castillo=None, bid: int = 4):
    """p0 about to recruit with power card ``bid`` (p1 played 13 and passed)."""
    s = scenario(2, homes=HOMES[:2], phase="bid", start_player=1, caballeros=caballeros,
                 castillo=castillo, available=["1a", "2a", "3a", "4a"])
    return play(s, "p1 bid 13", f"p0 bid {bid}", "p1 take 5a", "p1 end")


def test_recruitment_shortfall_recalled_from_regions_never_king_or_castillo():
    s = _recruit_state({"GAL": [1, 0], "VAL": [3, 0], "CLN": [17, 0]}, castillo=[1, 0])
    assert s.provinces[0] == 1
    assert legal(s) == [f"p0 recruit {k}" for k in range(5)]
    play(s, "p0 recruit 3")
    assert legal(s) == ["p0 recall GAL", "p0 recall VAL"]
    play(s, "p0 recall VAL", "p0 recall VAL")
    assert s.phase_name == "take"
    assert s.court[0] == 10 and s.provinces[0] == 0
    assert board(s)["VAL"] == [1, 0] and board(s)["CLN"] == [17, 0] and s.castillo(0) == 1


def test_recruitment_recall_limited_to_eligible_caballeros():
    s = _recruit_state({"GAL": [1, 0], "CLN": [22, 0]})
    assert s.provinces[0] == 0
    assert legal(s) == ["p0 recruit 0", "p0 recruit 1"]  # only one eligible Caballero
    play(s, "p0 recruit 1")
    assert s.phase_name == "take" and s.court[0] == 8 and counts(s, "GAL") == [0, 0]


def test_recruitment_skipped_when_nothing_can_come():
    s = _recruit_state({"CLN": [23, 0]})
    assert s.phase_name == "take" and legal(s) == ["p0 take 1a", "p0 take 2a", "p0 take 3a",
                                                   "p0 take 4a"]


# --------------------------------------------------------------------------------------
# General scoring (§6.5)


def _last_turn_of(round_label: int, **kw):
    """3 players, p0 (home GAL) acting last in the round; p1 home PVA, p2 home ARA."""
    kw.setdefault("homes", HOMES[:3])
    return scenario(3, round=round_label, bids={0: 1, 1: 13, 2: 12}, active=0,
                    available=["2d"], **kw)


def test_no_general_scoring_after_round_2():
    s = _last_turn_of(2, caballeros={"GAL": [2, 0, 0]})
    play(s, "p0 take 2d", "p0 end")
    assert s.scores == [0, 0, 0] and s.round == 3 and s.phase_name == "reveal"


def test_general_scoring_castillo_first_then_release_then_regions():
    s = _last_turn_of(3, caballeros={"GAL": [2, 0, 0], "VAL": [1, 1, 0], "CLN": [0, 0, 1]},
                      castillo=[2, 1, 0])
    play(s, "p0 take 2d", "p0 end")
    assert s.phase_name == "secret" and to_act(s) == [0, 1]
    assert "p0 secret CLN" not in legal(s, 0) and len(legal(s, 0)) == 8  # not the King's
    play(s, "p0 secret VAL")
    seen = view(s, 1)["player_state"][0]
    assert seen["secret_chosen"] and "secret_choice" not in seen
    assert s.scores == [0, 0, 0]
    events: list = []
    play(s, "p1 secret GAL", events=events)
    scored = [e["area"] for e in events if e["type"] == "score"]
    assert scored == [9, 0, 1, 2, 3, 4, 5, 6, 7, 8]  # Castillo, then the regions in order
    kinds = [e["type"] for e in events]
    assert kinds.index("castillo_release") == kinds.index("score") + 1
    # Castillo 2/1/0 in 3p: 5, 3. Then GAL 2/1/0: 4+2 home, 2. VAL 3/1/0: 5, 3. CLN p2 7+2.
    assert s.scores == [5 + 6 + 5, 3 + 2 + 3, 9]
    assert board(s) == {"GAL": [2, 1, 0], "VAL": [3, 1, 0], "CLN": [0, 0, 1]}
    assert s.round == 4 and s.phase_name == "reveal"


def test_general_scoring_uses_mobile_scoreboards_on_castillo_and_regions():
    s = _last_turn_of(3, caballeros={"GAL": [0, 2, 1]}, castillo=[2, 1, 0],
                      tiles={"840": "CAS", "400": "GAL"})
    play(s, "p0 take 2d", "p0 end", "p0 secret CAT", "p1 secret VAL")
    # Castillo on 8/4/0: 8, 4. GAL on 4/0/0: p1 4, p2 0. CAT p0 4. VAL p1 5.
    assert s.scores == [8 + 4, 4 + 4 + 5, 0]


def test_general_scoring_without_castillo_caballeros_asks_nobody():
    s = _last_turn_of(6, caballeros={"CAT": [0, 1, 0]})
    play(s, "p0 take 2d", "p0 end")
    assert s.scores == [0, 4, 0] and s.round == 7  # CAT 4/2/1


def test_game_ends_after_round_9_scoring_with_shared_victory():
    s = _last_turn_of(9, caballeros={"GAL": [1, 0, 0], "VAL": [0, 1, 0]}, scores=[9, 10, 3])
    play(s, "p0 take 2d", "p0 end")
    # GAL p0 4+2 home, VAL p1 5: 15 each
    assert s.scores == [15, 15, 3]
    assert is_terminal(s) and to_act(s) == [] and legal_actions(s) == []
    assert winners(s) == [0, 1]
    with pytest.raises(IllegalAction):
        apply(s, "p0 bid 1")


def test_single_winner():
    s = _last_turn_of(9, caballeros={"GAL": [1, 0, 0]}, scores=[9, 10, 3])
    play(s, "p0 take 2d", "p0 end")
    assert winners(s) == [0] and s.scores == [15, 10, 3]


# --------------------------------------------------------------------------------------
# Whole games: round labels and scoring points


def _random_game(rounds: int, players: int, seed: int):
    s = new_game(GameConfig(players=players, rounds=rounds))
    rng = random.Random(seed)
    labels, scorings = [], []
    while not is_terminal(s):
        events: list = []
        before = s.round
        if s.phase_name == "bid" and s.turn == 0:
            labels.append(s.round)
        if s.phase_name in ("setup", "reveal"):
            resolve_chance(s, rng, events)
        else:
            seat = to_act(s)[0]
            apply(s, rng.choice(legal_actions(s, seat)), events)
        if any(e["type"] == "score" and e["reason"] == "general" for e in events):
            scorings.append(before)
    return s, labels, scorings


@pytest.mark.parametrize(("rounds", "expected"), [(9, [1, 2, 3, 4, 5, 6, 7, 8, 9]),
                                                  (6, [2, 3, 5, 6, 8, 9])])
def test_whole_game_round_labels_and_general_scorings(rounds, expected):
    for players, seed in ((2, 1), (5, 2)):
        s, labels, scorings = _random_game(rounds, players, seed)
        assert labels == expected
        assert scorings == [3, 6, 9]
        assert sum(s.copies[:9]) == 11 - len(expected)  # stack 1: one card revealed a round


# rules.md §2.2, copied by hand: the neighbour lists that drive deployment and card 4d.
NEIGHBOURS_22 = {
    "GAL": ["CLV", "PVA"], "PVA": ["GAL", "CLV", "ARA"], "ARA": ["PVA", "CLV", "CLN", "CAT", "VAL"],
    "CAT": ["ARA", "VAL"], "CLV": ["GAL", "PVA", "ARA", "CLN"],
    "CLN": ["CLV", "ARA", "VAL", "GRA", "SEV"], "SEV": ["CLN", "GRA"], "GRA": ["SEV", "CLN", "VAL"],
    "VAL": ["CAT", "ARA", "CLN", "GRA"],
}


def _in_board_order(codes):
    return sorted(codes, key=lambda c: (REGION_CODES + ("CAS",)).index(c))


@pytest.mark.parametrize("king", REGION_CODES)
def test_deployment_targets_are_the_kings_neighbours_and_the_castillo(king):
    homes = [r for r in REGION_CODES if r != king][:2]
    s = scenario(2, king=king, homes=homes, available=["4d"])
    play(s, "p0 take 4d", "p0 deploy")
    expected = _in_board_order(NEIGHBOURS_22[king]) + ["CAS"]
    assert legal(s) == [f"p0 place {a}" for a in expected] + ["p0 done"]


@pytest.mark.parametrize("king", REGION_CODES)
def test_4d_moves_the_king_to_a_neighbour_only(king):
    homes = [r for r in REGION_CODES if r != king][:2]
    s = scenario(2, king=king, homes=homes, available=["4d"])
    play(s, "p0 take 4d", "p0 special")
    assert legal(s) == [f"p0 king {r}" for r in _in_board_order(NEIGHBOURS_22[king])]


def test_reveal_outcomes_weighted_by_copies_left():
    s = scenario(3, homes=HOMES[:3], phase="reveal")
    outcomes = {str(a): p for a, p in chance_outcomes(s)}
    assert len(outcomes) == 9
    assert outcomes["* reveal 1d"] == pytest.approx(2 / 11)
    assert outcomes["* reveal 1a"] == pytest.approx(1 / 11)
    play(s, "* reveal 1d")
    outcomes = {str(a): p for a, p in chance_outcomes(s)}
    assert outcomes["* reveal 2d"] == pytest.approx(3 / 9)


# --------------------------------------------------------------------------------------
# The King's region taboo (§4.4) and the Castillo (§4.6) over whole random games


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_taboo_and_castillo_rules_hold_in_random_games(players):
    for seed in range(2):
        s = new_game(GameConfig(players=players, rounds=9))
        rng = random.Random(1000 * players + seed)
        resolve_chance(s, rng)
        while not is_terminal(s):
            before = s.copy()
            events: list = []
            if s.phase_name in ("setup", "reveal"):
                resolve_chance(s, rng, events)
            else:
                apply(s, rng.choice(legal_actions(s)), events)
            n, k = s.n, before.king
            if s.king == k:  # nothing enters or leaves the King's region
                assert s.cab[k * n: k * n + n] == before.cab[k * n: k * n + n], str(events)
                for t in (0, 1):
                    assert (s.tiles[t] == k) == (before.tiles[t] == k)
                for p in range(n):
                    assert (s.grande[p] == k) == (before.grande[p] == k)
            if s.phase_name == "secret":  # a seat sees its own pending choice only
                for q in range(n):
                    shown = [e for e in view(s, q)["player_state"] if "secret_choice" in e]
                    assert [e["seat"] for e in shown] in ([], [q])
                if before.phase_name == "secret":  # not the last choice: no effect yet
                    assert (s.cab, s.scores, s.court) == (before.cab, before.scores, before.court)
            assert all(a >= b for a, b in zip(s.scores, before.scores, strict=True))
            general = any(e["type"] == "castillo_release" for e in events)
            for p in range(n):
                if general:  # released entirely, and never into the King's region
                    assert s.castillo(p) == 0
                else:  # nothing ever leaves the Castillo otherwise
                    assert s.castillo(p) >= before.castillo(p)
