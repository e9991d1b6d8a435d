"""Playouts cut where the next turn or bid begins (``IsmctsBot(turn_cut=True)``, hard-turn)."""

from __future__ import annotations

import random

import pytest

from elgrande.ai import make_bot
from elgrande.ai.ismcts import IsmctsBot, _sample, turn_key
from elgrande.rules import (
    GameConfig,
    State,
    apply,
    chance_outcomes,
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


def _positions(players: int, seed: int, count: int) -> list[State]:
    """Decision positions of a seeded random game, every few steps, bids and turns alike."""
    rng = random.Random(f"cut:{players}:{seed}")
    s = new_game(GameConfig(players=players))
    found: list[State] = []
    step = 0
    while not is_terminal(s) and len(found) < count:
        if is_chance(s):
            resolve_chance(s, rng)
            continue
        step += 1
        if step % 3 == 0:
            found.append(s.copy())
        apply(s, rng.choice(legal_actions(s, to_act(s)[0])))
    return found


@pytest.mark.parametrize("players", [3, 4, 5])
def test_a_cut_playout_stops_where_the_next_turn_or_bid_begins(players: int) -> None:
    bot = IsmctsBot(1, turn_cut=True)
    ended_at_turn = 0
    for i, start in enumerate(_positions(players, 2, 40)):
        s = start.copy()
        bot.playout(s, random.Random(i))
        # The same walk, step by step: it ends at the first position where the turn or bid,
        # or the scores, differ from the start, or at the round's reveal or the game's end.
        walk = start.copy()
        rng = random.Random(i)
        while True:
            if is_terminal(walk) or walk.scores != start.scores:
                break
            if turn_key(walk) != turn_key(start):
                ended_at_turn += 1
                break
            if is_chance(walk):
                assert walk.phase != REVEAL or walk.round_index == start.round_index
                if walk.phase == REVEAL:
                    break
                apply(walk, _sample(chance_outcomes(walk), rng))
                continue
            seat = to_act(walk)[0]
            apply(walk, bot.policy.choose(walk, seat, rng))
        assert walk == s
        # A bid's playout ends after that one bid (or the bidding), never in a later turn.
        if start.phase == BID:
            assert s.round_index == start.round_index
    assert ended_at_turn >= 30  # most end at the next turn, not at a scoring (of 40)


def test_the_uncut_playout_plays_on_past_the_next_turn() -> None:
    starts = _positions(4, 3, 30)
    longer = 0
    for i, start in enumerate(starts):
        cut, full = start.copy(), start.copy()
        IsmctsBot(1, turn_cut=True).playout(cut, random.Random(i))
        IsmctsBot(1).playout(full, random.Random(i))
        if full != cut:
            longer += 1
            assert turn_key(full) != turn_key(cut) or full.scores != cut.scores
    assert longer >= len(starts) // 2  # the rest end at a scoring either way


def test_cut_playouts_change_the_search_judgement() -> None:
    # The same iterations with the same draws: other rewards, from the shorter playouts.
    start = _positions(4, 4, 3)[2]
    seat = to_act(start)[0]
    roots = [root_totals(make_bot(name, 4), start, seat) for name in ("hard", "hard-turn")]
    assert roots[0] != roots[1]


def test_hard_turn_is_hard_with_the_cut_and_replays_exactly() -> None:
    bot, hard = make_bot("hard-turn", 3), make_bot("hard", 3)
    budgeted = make_bot("hard-turn:3000", 3)
    assert isinstance(bot, IsmctsBot) and isinstance(hard, IsmctsBot)
    assert isinstance(budgeted, IsmctsBot)
    assert bot.turn_cut and budgeted.turn_cut and not hard.turn_cut
    assert (bot.iterations, bot.exploration, bot.value, bot.margin) == (
        hard.iterations, hard.exploration, hard.value, hard.margin)
    assert budgeted.iterations == 3000
    start = _positions(4, 5, 4)[3]
    seat = to_act(start)[0]
    seen = redact(start, seat)
    choices = replayed_choices("hard-turn", seen, seat, 60)
    assert len(choices) == 1 and choices <= set(legal_actions(start, seat))
    with pytest.raises(ValueError, match="iteration budget"):
        make_bot("hard-turn:0")
