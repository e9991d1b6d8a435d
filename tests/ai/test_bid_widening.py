"""Bids guided by the heuristic: a bid node offers its best few bids, more as visits grow;
playouts may bid as the heuristic does."""

from __future__ import annotations

import random

from elgrande.ai import make_bot
from elgrande.ai.evaluate import (
    DEFAULT_WEIGHTS,
    add_bid_reserves,
    add_reserves,
    board_values,
    evaluate,
    utility,
)
from elgrande.ai.ismcts import BID_GROWTH, BID_WIDTH, IsmctsBot, Node, PlayoutPolicy, bid_ranking
from elgrande.rules import (
    GameConfig,
    Options,
    apply,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    redact,
    sample_chance,
    to_act,
)
from elgrande.rules.state import BID

from .positions import positions_by_phase, replayed_choices


def _bid_position(players: int = 4):
    state = positions_by_phase(players)["bid"]
    seat = to_act(state)[0]
    return redact(state, seat), seat


def _searched(bot: IsmctsBot, state, seat: int, iterations: int) -> Node:
    root = Node(-1)
    rng = random.Random(11)
    for _ in range(iterations):
        bot.iterate(state, seat, root, rng)
    return root


def _heuristic_order(state, seat: int) -> list:
    def lead(a) -> float:
        c = state.copy()
        apply(c, a)
        return utility(evaluate(c, DEFAULT_WEIGHTS), seat)
    legal = legal_actions(state, seat)
    return sorted(legal, key=lambda a: (-lead(a), legal.index(a)))


def test_a_bid_node_offers_the_heuristics_best_bids_first() -> None:
    state, seat = _bid_position()
    legal = legal_actions(state, seat)
    assert len(legal) > 8  # a real choice of power cards
    widened = IsmctsBot(3, bid_widening=True)
    for iterations, width in ((1, 2), (16, 4), (81, 6)):
        root = _searched(widened, state, seat, iterations)
        assert root.order == _heuristic_order(state, seat)
        expected = max(2, int(BID_WIDTH * iterations ** BID_GROWTH))
        assert expected == width
        # Only the bids the width offered before the last visit have been tried.
        assert set(root.children) <= set(root.order[:width])
        assert len(root.children) == min(iterations, width)


def test_without_widening_every_bid_is_tried() -> None:
    state, seat = _bid_position()
    root = _searched(IsmctsBot(3), state, seat, 80)
    assert root.order is None
    assert set(root.children) == set(legal_actions(state, seat))


def test_hard_bid_is_hard_with_widened_bids_and_replays_exactly() -> None:
    bot, hard = make_bot("hard-bid", 3), make_bot("hard", 3)
    assert isinstance(bot, IsmctsBot) and isinstance(hard, IsmctsBot)
    assert bot.bid_widening and not hard.bid_widening
    assert (bot.iterations, bot.exploration, bot.value, bot.margin) == (
        hard.iterations, hard.exploration, hard.value, hard.margin)
    state, seat = _bid_position(5)
    choices = replayed_choices("hard-bid", state, seat, 120)
    assert len(choices) == 1 and choices <= set(legal_actions(state, seat))


def test_greedy_playouts_bid_the_heuristics_best_bid() -> None:
    for players in (3, 4, 5):
        state, seat = _bid_position(players)
        legal = legal_actions(state, seat)
        best = _heuristic_order(state, seat)[0]
        assert bid_ranking(state, seat, legal, DEFAULT_WEIGHTS) == _heuristic_order(state, seat)
        greedy, plain = PlayoutPolicy(0.0, greedy_bids=True), PlayoutPolicy(0.0)
        rng = random.Random(1)
        assert {greedy.choose(state, seat, rng) for _ in range(20)} == {best}
        # Without it a playout bids at random: more than one bid in 20 draws.
        assert len({plain.choose(state, seat, rng) for _ in range(20)}) > 1


def test_hard_pbid_is_hard_with_greedy_playout_bids_and_replays_exactly() -> None:
    bot, hard = make_bot("hard-pbid", 3), make_bot("hard", 3)
    assert isinstance(bot, IsmctsBot) and isinstance(hard, IsmctsBot)
    assert bot.policy.greedy_bids and not hard.policy.greedy_bids and not bot.bid_widening
    assert (bot.iterations, bot.exploration, bot.value, bot.margin) == (
        hard.iterations, hard.exploration, hard.value, hard.margin)
    state, seat = _bid_position(4)
    plain = _searched(IsmctsBot(3), state, seat, 60)
    greedy = _searched(IsmctsBot(3, greedy_bids=True), state, seat, 60)
    # The same tree walk, other rewards: the bids after the tree's are no longer random.
    assert {a: c.total for a, c in plain.children.items()} != {
        a: c.total for a, c in greedy.children.items()}
    choices = replayed_choices("hard-pbid", state, seat, 120)
    assert len(choices) == 1 and choices <= set(legal_actions(state, seat))


def test_the_ranking_shares_the_boards_evaluation_and_gives_evaluates_values() -> None:
    """Every bid of random games (2 to 5 players, both rule sets, first to last bidder,
    every round): the board's part once plus each bid's reserves (made without a copy
    while the bidding goes on) is ``evaluate`` after it."""
    checked = last_bidders = 0
    for players, rule_set, seed in ((2, "yucata", 1), (3, "box", 2), (4, "yucata", 3),
                                    (5, "box", 4)):
        rng = random.Random(seed)
        s = new_game(GameConfig(players, options=Options.preset(rule_set)))
        while not is_terminal(s):
            if is_chance(s):
                apply(s, sample_chance(s, rng))
                continue
            seat = to_act(s)[0]
            legal = legal_actions(s, seat)
            if s.phase == BID:
                board, rounds = board_values(s, DEFAULT_WEIGHTS)
                assert rounds is not None
                for a in legal:
                    c = s.copy()
                    apply(c, a)
                    values = list(board)
                    add_reserves(c, values, rounds, DEFAULT_WEIGHTS)
                    assert values == evaluate(c, DEFAULT_WEIGHTS)
                    if c.phase == BID:  # the bidding goes on: no copy needed
                        values = list(board)
                        add_bid_reserves(s, values, rounds, DEFAULT_WEIGHTS, seat, a.arg)
                        assert values == evaluate(c, DEFAULT_WEIGHTS)
                    else:
                        last_bidders += 1
                    checked += 1
                assert bid_ranking(s, seat, legal, DEFAULT_WEIGHTS) == _heuristic_order(s, seat)
            apply(s, rng.choice(legal))
    assert checked > 1000 and last_bidders > 100
