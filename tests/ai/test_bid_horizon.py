"""Bid playouts that reach the next general scoring (``IsmctsBot(bid_horizon=True)``)."""

from __future__ import annotations

import random

import pytest

from elgrande.ai import make_bot
from elgrande.ai.ismcts import IsmctsBot
from elgrande.rules import (
    GameConfig,
    State,
    apply,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    redact,
    resolve_chance,
    to_act,
)
from elgrande.rules.state import BID, REVEAL

from .positions import replayed_choices, root_totals


def _bid_in_round(label: int, players: int = 4, seed: int = 5) -> State:
    """The first bid of the round with that label, reached by seeded random play."""
    rng = random.Random(f"bid:{label}:{seed}")
    state = new_game(GameConfig(players=players))
    while not (state.phase == BID and state.round == label):
        assert not is_terminal(state)
        if is_chance(state):
            resolve_chance(state, rng)
        else:
            apply(state, rng.choice(legal_actions(state, to_act(state)[0])))
    return state


@pytest.mark.parametrize(("label", "scored_after"), [(1, 3), (2, 3), (3, 3), (4, 6), (7, 9)])
def test_a_bid_playout_ends_after_the_next_general_scoring(label: int, scored_after: int
                                                            ) -> None:
    state = _bid_in_round(label)
    bot = IsmctsBot(1, bid_horizon=True)
    for seed in range(3):
        s = state.copy()
        bot.playout_to_general(s, random.Random(seed))
        if scored_after == 9:
            assert is_terminal(s)
        else:
            # The next round has begun (its cards not yet revealed): the general scoring
            # after round ``scored_after`` is over, and no later round was played.
            assert s.phase == REVEAL and s.round == scored_after + 1
        # The ordinary playout stops within the round (at a card's scoring or its end).
        short = state.copy()
        bot.playout(short, random.Random(seed))
        assert short.round == label or (short.phase == REVEAL and short.round_index ==
                                        state.round_index + 1)


def test_the_horizon_changes_bids_only() -> None:
    # Any decision but a bid: the same search, so the same choice from the same seed.
    bid = _bid_in_round(1)
    rng = random.Random(9)
    s = bid.copy()
    checked = 0
    while checked < 6 and not is_terminal(s):
        if is_chance(s):
            resolve_chance(s, rng)
            continue
        p = to_act(s)[0]
        legal = legal_actions(s, p)
        if s.phase != BID and len(legal) > 1:
            view = redact(s, p)
            first, second = IsmctsBot(4, iterations=40), IsmctsBot(4, iterations=40,
                                                                    bid_horizon=True)
            assert first.choose(view, p) == second.choose(view, p)
            checked += 1
        apply(s, rng.choice(legal))
    assert checked == 6


def test_a_bid_search_judges_its_bids_at_the_horizon() -> None:
    # The same iterations with the same draws: other rewards, from the longer playouts.
    bid = _bid_in_round(1)
    seat = to_act(bid)[0]
    roots = [root_totals(IsmctsBot(4, bid_horizon=horizon), bid, seat)
             for horizon in (False, True)]
    assert roots[0] != roots[1]


def test_hard_horizon_is_hard_bid_with_the_horizon_and_replays_exactly() -> None:
    bot, bid = make_bot("hard-horizon", 3), make_bot("hard-bid", 3)
    assert isinstance(bot, IsmctsBot) and isinstance(bid, IsmctsBot)
    assert bot.bid_horizon and bot.bid_widening and not bid.bid_horizon
    assert (bot.iterations, bot.exploration, bot.value, bot.margin) == (
        bid.iterations, bid.exploration, bid.value, bid.margin)
    state = _bid_in_round(2)
    seat = to_act(state)[0]
    seen = redact(state, seat)
    choices = replayed_choices("hard-horizon", seen, seat, 60)
    assert len(choices) == 1 and choices <= set(legal_actions(state, seat))
