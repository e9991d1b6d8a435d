"""The evaluation's fast scoring agrees with the engine; values behave sensibly."""

from __future__ import annotations

import random

from elgrande.ai.evaluate import area_points, evaluate, seat_points
from elgrande.rules import (
    GameConfig,
    apply,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    resolve_chance,
    to_act,
)
from elgrande.rules.scoring import rank_points


def test_area_points_match_the_engine_scoring_rule() -> None:
    rng = random.Random(1)
    for _ in range(5000):
        n = rng.randint(2, 5)
        counts = [rng.choice([0, 0, 1, 2, 3, 3, 4, 5]) for _ in range(n)]
        aw = (rng.randint(4, 8), rng.randint(0, 4), rng.randint(0, 2))
        area, king = rng.randint(0, 9), rng.randint(0, 8)
        grande = [rng.randint(0, 8) for _ in range(n)]
        expected = rank_points(counts, aw, n)
        top = max(counts)
        if top and counts.count(top) == 1 and area != 9:
            leader = counts.index(top)
            expected[leader] += 2 * (grande[leader] == area) + 2 * (king == area)
        assert area_points(counts, aw, n, area, king, grande) == expected
        for p in range(n):
            assert seat_points(counts, aw, n, p, area, king, grande) == expected[p]


def test_rules_examples_from_section_6_2() -> None:
    assert area_points([4, 4, 4, 3], (5, 3, 1), 4, 1, 0, [8] * 4) == [3, 3, 3, 1]
    assert area_points([4, 3, 2, 2], (6, 4, 2), 4, 4, 0, [8] * 4) == [6, 4, 0, 0]
    assert area_points([3, 3], (6, 4, 2), 2, 4, 0, [8] * 2) == [0, 0]


def test_evaluation_is_the_score_at_the_end_and_rewards_majorities() -> None:
    rng = random.Random(5)
    s = new_game(GameConfig(players=3))
    while not is_terminal(s):
        if is_chance(s):
            resolve_chance(s, rng)
            continue
        apply(s, rng.choice(legal_actions(s, to_act(s)[0])))
    assert evaluate(s) == [float(v) for v in s.scores]
    s = new_game(GameConfig(players=3))
    resolve_chance(s, rng)
    base = evaluate(s)
    richer = s.copy()
    region = next(r for r in range(9) if r != s.king and r not in s.grande)
    richer.cab[region * 3 + 0] += 3
    assert evaluate(richer)[0] > base[0]


def test_hand_table_sums_the_power_cards() -> None:
    from elgrande.ai.evaluate import _HAND, _HAND_MASK

    for hand in (0, 0b10, 0b11111111111110, 0b10000000000010, 1 << 14 | 0b100):
        cards = [v for v in range(1, 14) if hand >> v & 1]
        assert _HAND[hand & _HAND_MASK] == (sum(cards), len(cards))
