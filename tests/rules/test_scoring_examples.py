"""The worked examples of rules.md §6.2, through rank_points and through score_area."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elgrande.rules.board import REGION_CODES
from elgrande.rules.scoring import awards_of, rank_points, score_area
from tests.rules.scenario import scenario

# (row, players, awards, counts, points without bonuses) for rows 1-17 of §6.2.
RANK_ROWS = [
    (1, 4, (5, 3, 1), [4, 4, 4, 3], [3, 3, 3, 1]),
    (2, 4, (6, 4, 2), [4, 3, 2, 2], [6, 4, 0, 0]),
    (3, 4, (5, 3, 1), [4, 1, 1, 0], [5, 1, 1, 0]),
    (4, 3, (5, 3, 1), [4, 4, 0], [3, 3, 0]),
    (5, 4, (5, 3, 1), [5, 3, 3, 2], [5, 1, 1, 0]),
    (6, 5, (5, 3, 1), [5, 3, 3, 3, 1], [5, 1, 1, 1, 0]),
    (7, 4, (5, 3, 1), [4, 4, 3, 3], [3, 3, 0, 0]),
    (8, 4, (5, 3, 1), [4, 4, 3, 2], [3, 3, 1, 0]),
    (9, 5, (5, 3, 1), [2, 2, 2, 2, 1], [3, 3, 3, 3, 1]),
    (10, 3, (7, 4, 2), [4, 2, 2], [7, 0, 0]),
    (11, 3, (7, 4, 2), [4, 4, 1], [4, 4, 0]),
    (12, 3, (6, 4, 2), [3, 2, 1], [6, 4, 0]),
    (13, 2, (6, 4, 2), [3, 3], [0, 0]),
    (14, 2, (4, 2, 1), [3, 1], [4, 0]),
    (15, 4, (4, 2, 1), [2, 1, 0, 0], [4, 2, 0, 0]),
    (16, 4, (8, 4, 0), [3, 2, 1, 0], [8, 4, 0, 0]),
    (17, 4, (4, 0, 0), [2, 2, 0, 0], [0, 0, 0, 0]),
]


@pytest.mark.parametrize(("row", "players", "awards", "cnt", "points"), RANK_ROWS,
                         ids=[f"row{r[0]}" for r in RANK_ROWS])
def test_rank_points_worked_example(row, players, awards, cnt, points):
    assert rank_points(cnt, awards, players) == points


def test_rank_points_ignores_absent_players_even_when_ranks_remain():
    # 4 players, only two present: the second pays, nobody else gets anything.
    assert rank_points([0, 3, 0, 1], (5, 3, 1), 4) == [0, 5, 0, 3]


# A region with each printed triple, used to score the same rows on a real state.
REGION_WITH = {(5, 3, 1): "PVA", (6, 4, 2): "CLV", (7, 4, 2): "CLN", (4, 2, 1): "CAT"}


def _state_for(players, where, cnt, *, king="GRA", homes=None, tiles=None, scores=None):
    if homes is None:
        homes = [r for r in REGION_CODES if r not in (king, where)][:players]
    zero = [0] * players
    return scenario(players, king=king, homes=homes, caballeros={where: cnt, "SEV": zero},
                    tiles=tiles, scores=scores)


@pytest.mark.parametrize(("row", "players", "awards", "cnt", "points"),
                         [r for r in RANK_ROWS if r[2] in REGION_WITH],
                         ids=[f"row{r[0]}" for r in RANK_ROWS if r[2] in REGION_WITH])
def test_score_area_worked_example_no_bonus(row, players, awards, cnt, points):
    where = REGION_WITH[awards]
    s = _state_for(players, where, cnt, scores=[10] * players)
    assert awards_of(s, REGION_CODES.index(where)) == awards
    assert score_area(s, REGION_CODES.index(where)) == points
    assert s.scores == [10 + x for x in points]


def test_row3_home_bonus_for_the_sole_leader():
    s = _state_for(4, "PVA", [4, 1, 1, 0], homes=["PVA", "GAL", "ARA", "CAT"])
    assert score_area(s, REGION_CODES.index("PVA")) == [7, 1, 1, 0]
    assert s.scores == [7, 1, 1, 0]


def test_row3_home_of_a_non_leader_gives_nothing():
    s = _state_for(4, "PVA", [4, 1, 1, 0], homes=["GAL", "PVA", "ARA", "CAT"])
    assert score_area(s, REGION_CODES.index("PVA")) == [5, 1, 1, 0]


def test_row14_two_players_king_bonus_and_no_second_place():
    s = _state_for(2, "CAT", [3, 1], king="CAT", homes=["GAL", "PVA"])
    assert score_area(s, REGION_CODES.index("CAT")) == [6, 0]
    s = _state_for(2, "CAT", [3, 1], king="GRA", homes=["GAL", "PVA"])
    assert score_area(s, REGION_CODES.index("CAT")) == [4, 0]


def test_row15_catalonia_king_bonus():
    s = _state_for(4, "CAT", [2, 1, 0, 0], king="CAT", homes=["GAL", "PVA", "ARA", "CLV"])
    assert score_area(s, REGION_CODES.index("CAT")) == [6, 2, 0, 0]


def test_row15_home_and_king_bonus_add_up():
    s = _state_for(4, "CAT", [2, 1, 0, 0], king="CAT", homes=["CAT", "PVA", "ARA", "CLV"])
    assert score_area(s, REGION_CODES.index("CAT")) == [8, 2, 0, 0]


def test_tied_leaders_get_no_bonus_even_at_home_in_the_kings_region():
    s = _state_for(4, "CAT", [2, 2, 1, 0], king="CAT", homes=["CAT", "PVA", "ARA", "CLV"])
    # Tie for first drops to rank 2 (2 points each), the single 1 is rank 3 (1 point).
    assert score_area(s, REGION_CODES.index("CAT")) == [2, 2, 1, 0]


def test_row16_tile_840_replaces_printed_values():
    s = _state_for(4, "GAL", [3, 2, 1, 0], tiles={"840": "GAL"})
    assert score_area(s, REGION_CODES.index("GAL")) == [8, 4, 0, 0]


def test_row17_tile_400_tie_for_first_pays_nothing():
    s = _state_for(4, "VAL", [2, 2, 0, 0], tiles={"400": "VAL"})
    assert score_area(s, REGION_CODES.index("VAL")) == [0, 0, 0, 0]


def test_row18_first_only_tie_in_kings_region_scores_nothing():
    s = _state_for(4, "CLV", [3, 3, 1, 0], king="CLV", homes=["CLV", "PVA", "ARA", "CAT"])
    assert score_area(s, REGION_CODES.index("CLV"), first_only=True) == [0, 0, 0, 0]
    assert s.scores == [0, 0, 0, 0]


def test_row19_first_only_sole_leader_gets_award_home_and_king():
    s = _state_for(4, "CLV", [3, 2, 0, 0], king="CLV", homes=["CLV", "PVA", "ARA", "CAT"])
    assert score_area(s, REGION_CODES.index("CLV"), first_only=True) == [10, 0, 0, 0]


def test_castillo_never_gives_bonuses():
    s = scenario(4, king="GRA", homes=["GAL", "PVA", "ARA", "CAT"], castillo=[3, 1, 0, 0])
    assert score_area(s, 9) == [5, 3, 0, 0]


def _reference_points(cnt, awards, players):
    """§6.1 steps 1-4 written out independently of the engine."""
    groups = sorted({c for c in cnt if c > 0}, reverse=True)
    limit = {2: 1, 3: 2, 4: 3, 5: 3}[players]
    points = [0] * len(cnt)
    pos = 1
    for c in groups:
        members = [p for p, k in enumerate(cnt) if k == c]
        rank = pos if len(members) == 1 else pos + 1
        for p in members:
            points[p] = awards[rank - 1] if rank <= limit and rank <= 3 else 0
        pos = rank + 1
    return points


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 5).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.integers(0, 6), min_size=n, max_size=n))),
    st.sampled_from([(4, 2, 0), (5, 3, 1), (5, 4, 1), (4, 2, 1), (6, 4, 2), (7, 4, 2),
                     (4, 3, 1), (6, 3, 1), (5, 3, 2), (8, 4, 0), (4, 0, 0)]))
def test_rank_points_matches_the_written_algorithm(game, awards):
    players, cnt = game
    assert rank_points(cnt, awards, players) == _reference_points(cnt, awards, players)
