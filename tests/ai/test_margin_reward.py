"""A reward with a share of the points lead: far behind, the options still differ."""

from __future__ import annotations

import math

from elgrande.ai import make_bot
from elgrande.ai.evaluate import DEFAULT_WEIGHTS, evaluate
from elgrande.ai.ismcts import IsmctsBot, _mixed, rewards
from elgrande.ai.levels import MARGIN_SCALE, MARGIN_SHARE
from elgrande.ai.value import load_model
from elgrande.rules import legal_actions, to_act

from .positions import finished_game, positions_by_phase


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def test_the_mix_is_the_chance_plus_a_share_of_the_squashed_lead() -> None:
    chances = [0.0, 0.0, 1.0]
    points = [10.0, 40.0, 90.0]
    mixed = _mixed(chances, points, 0.2, 30.0)
    # Each seat's lead is over the best other seat: the leader's over the runner-up.
    assert mixed[0] == 0.2 * _sigmoid((10 - 90) / 30)
    assert mixed[1] == 0.2 * _sigmoid((40 - 90) / 30)
    assert mixed[2] == 0.8 + 0.2 * _sigmoid((90 - 40) / 30)
    # Both trailing seats have no chance, yet the one less far behind is rewarded more.
    assert mixed[1] > mixed[0] > 0.0
    assert all(0.0 <= r <= 1.0 for r in mixed)


def test_no_margin_leaves_the_learned_reward_as_it_was() -> None:
    model = load_model()
    for state in positions_by_phase(4).values():
        assert rewards(state, DEFAULT_WEIGHTS, 6.0, model) == model.chances(state)
        assert rewards(state, DEFAULT_WEIGHTS, 6.0, model, 0.2, 30.0) == _mixed(
            model.chances(state), evaluate(state, DEFAULT_WEIGHTS), 0.2, 30.0)


def test_at_the_end_the_margin_comes_from_the_final_scores() -> None:
    s = finished_game(3, seed=5)
    plain = rewards(s, DEFAULT_WEIGHTS, 6.0, load_model())
    mixed = rewards(s, DEFAULT_WEIGHTS, 6.0, load_model(), 0.2, 30.0)
    assert mixed == _mixed(plain, [float(x) for x in s.scores], 0.2, 30.0)
    order = sorted(range(3), key=lambda p: s.scores[p])
    assert mixed[order[0]] <= mixed[order[1]] <= mixed[order[2]]


def test_hard_margin_is_hard_with_the_mixed_reward() -> None:
    bot = make_bot("hard-margin", 3)
    hard = make_bot("hard", 3)
    assert isinstance(bot, IsmctsBot) and isinstance(hard, IsmctsBot)
    assert (bot.margin, bot.margin_scale) == (MARGIN_SHARE, MARGIN_SCALE) == (0.2, 30.0)
    assert hard.margin == 0.0
    assert (bot.iterations, bot.exploration, bot.value) == (
        hard.iterations, hard.exploration, hard.value)
    for state in positions_by_phase(3).values():
        seat = to_act(state)[0]
        small = make_bot("hard-margin", 1)
        assert isinstance(small, IsmctsBot)
        small.iterations = 40
        assert small.choose(state, seat) in legal_actions(state, seat)
