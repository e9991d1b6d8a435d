"""A cap on the iterations of a whole turn (``IsmctsBot(turn_cap=N)``): each decision tops
its reused subtree up to the budget, so a turn of many steps could run many budgets; with
the cap, the turn's decisions together run at most the cap, apart from the little each
still searches once it is reached."""

from __future__ import annotations

import random
from collections import defaultdict

from elgrande.ai import make_bot
from elgrande.ai.ismcts import IsmctsBot
from elgrande.rules import (
    GameConfig,
    apply,
    is_chance,
    is_terminal,
    new_game,
    resolve_chance,
    to_act,
)
from elgrande.rules.state import BID

BUDGET = 40
CAP = 100


def turns(bot: IsmctsBot, seed: int) -> list[tuple[int, int]]:
    """(iterations, searched decisions) of each of seat 0's turns in a 4-player 6-round game
    against easy bots."""
    rng = random.Random(seed)
    others = [make_bot("easy", seed + q) for q in range(1, 4)]
    s = new_game(GameConfig(players=4, rounds=6))
    spent: dict[tuple[int, int, bool], list[int]] = defaultdict(lambda: [0, 0])
    while not is_terminal(s):
        if is_chance(s):
            resolve_chance(s, rng)
            continue
        seat = to_act(s)[0]
        if seat == 0:
            key = (s.round_index, s.turn, s.phase == BID)
            before = bot.iterations_done
            action = bot.choose(s, seat)
            if bot.iterations_done > before:
                spent[key][0] += bot.iterations_done - before
                spent[key][1] += 1
        else:
            action = others[seat - 1].choose(s, seat)
        apply(s, action)
    return [(total, decisions) for total, decisions in spent.values()]


def test_a_turn_runs_at_most_the_cap() -> None:
    capped = turns(IsmctsBot(3, iterations=BUDGET, turn_cap=CAP, greedy_specials=True), 8)
    floor = BUDGET // 8
    assert all(total <= CAP + floor * decisions for total, decisions in capped), capped
    # Every decision still searches a little.
    assert all(total >= floor * decisions for total, decisions in capped)
    # Without the cap the same game has turns beyond that bound: the cap binds.
    free = turns(IsmctsBot(3, iterations=BUDGET, greedy_specials=True), 8)
    assert any(total > CAP + floor * decisions for total, decisions in free), free


def test_no_cap_by_default() -> None:
    hard = make_bot("hard", 1)
    assert isinstance(hard, IsmctsBot) and hard.turn_cap == 0
