"""Search over whole-turn plans (``hard-plan``): sequential halving, the candidate turns,
and a bot that plays its chosen plan step by step."""

from __future__ import annotations

import random

import pytest

from elgrande.ai import make_bot
from elgrande.ai.heuristic import HeuristicBot, state_key, turn_over
from elgrande.ai.plans import PLANS, PlanBot, _card_taken, candidate_plans, sequential_halving
from elgrande.rules import (
    GameConfig,
    apply,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    redact,
    resolve_chance,
    to_act,
)
from elgrande.rules.state import BID, SECRET

from .positions import positions_by_phase


def _turn_start(players: int = 4, seed: int = 0):
    """A seat's view at the start of its turn (choosing an action card)."""
    state = positions_by_phase(players, seed)["take"]
    seat = to_act(state)[0]
    return redact(state, seat), seat


# --- sequential halving ------------------------------------------------------------


MEANS = [0.40, 0.45, 0.50, 0.62, 0.48, 0.30, 0.55, 0.41]


def _noisy_arms(seed: int):
    """Arms with MEANS plus noise, the j-th noise draw the same for every arm."""
    rng = random.Random(seed)
    noise: dict[int, float] = {}

    def sample(arm: int, j: int) -> float:
        if j not in noise:
            noise[j] = rng.gauss(0.0, 0.3)
        return MEANS[arm] + noise[j]
    return sample


def test_sequential_halving_finds_the_best_of_noisy_arms() -> None:
    # Shared draws cancel in the comparison: the best arm wins every time.
    best = MEANS.index(max(MEANS))
    assert all(sequential_halving(len(MEANS), 800, _noisy_arms(trial)) == best
               for trial in range(40))


def test_sequential_halving_gives_surviving_arms_the_same_draws_within_budget() -> None:
    seen: dict[int, list[int]] = {}

    def sample(arm: int, j: int) -> float:
        seen.setdefault(arm, []).append(j)
        return float(arm)  # the highest arm is best

    assert sequential_halving(8, 600, sample) == 7
    samples = sum(len(js) for js in seen.values())
    assert samples <= 600
    assert set(seen) == set(range(8))
    # Round 1: every arm draws 0..24; round 2 the better half 25..74; round 3 75..174.
    assert all(seen[arm] == list(range(25)) for arm in range(4))
    assert all(seen[arm] == list(range(75)) for arm in (4, 5))
    assert seen[6] == seen[7] == list(range(175))


def test_sequential_halving_breaks_ties_towards_the_lower_arm_and_samples_at_least_once() -> None:
    calls: list[tuple[int, int]] = []

    def sample(arm: int, j: int) -> float:
        calls.append((arm, j))
        return 0.5

    assert sequential_halving(5, 1, sample) == 0
    assert (4, 0) in calls  # a budget below one sample per arm still samples every arm


def test_sequential_halving_with_one_arm_samples_nothing_and_with_none_refuses() -> None:
    def sample(arm: int, j: int) -> float:
        raise AssertionError("one arm needs no sample")

    assert sequential_halving(1, 100, sample) == 0
    with pytest.raises(ValueError, match="at least one arm"):
        sequential_halving(0, 100, sample)


# --- candidate plans ---------------------------------------------------------------


def test_candidate_plans_are_distinct_finished_turns_best_first() -> None:
    visible, seat = _turn_start()
    planner = HeuristicBot(3, beam=6)
    plans = candidate_plans(planner, visible, seat, random.Random(1), PLANS)
    assert 1 < len(plans) <= PLANS
    values = [p.value for p in plans]
    assert values == sorted(values, reverse=True)
    assert len({state_key(p.state) for p in plans}) == len(plans)
    for plan in plans:
        s = visible.copy()
        for a in plan.actions:
            assert not turn_over(s, seat)
            assert a in legal_actions(s, seat)
            apply(s, a)
        assert turn_over(s, seat)
        assert state_key(s) == state_key(plan.state)


def test_candidate_plans_cover_the_cards_and_start_with_the_heuristics_turn() -> None:
    visible, seat = _turn_start()
    planner = HeuristicBot(3, beam=6)
    ends, _ = planner.turn_ends(visible, seat, random.Random(1))
    cards = {_card_taken(e.actions) for e in ends}
    assert len(cards) > 1
    plans = candidate_plans(planner, visible, seat, random.Random(1), len(cards) + 2)
    # Every card the turn can take has its best plan among the candidates.
    assert {_card_taken(p.actions) for p in plans} == cards
    for card in cards:
        best = max(e.value for e in ends if _card_taken(e.actions) == card)
        assert any(p.value == best for p in plans if _card_taken(p.actions) == card)
    # The first candidate is the turn the heuristic bot itself would play.
    assert plans[0].actions == planner.plan_turn(visible, seat, random.Random(1))
    # With room for one plan only, it is the best.
    assert candidate_plans(planner, visible, seat, random.Random(1), 1)[0].value == plans[0].value


# --- the bot -----------------------------------------------------------------------


def _plan_bot(seed: int = 3, iterations: int = 40) -> PlanBot:
    bot = make_bot("hard-plan", seed)
    assert isinstance(bot, PlanBot)
    bot.search.iterations = iterations
    return bot


def test_hard_plan_is_hard_with_plans_and_replays_exactly() -> None:
    bot, hard = make_bot("hard-plan", 3), make_bot("hard", 3)
    assert isinstance(bot, PlanBot)
    assert (bot.search.iterations, bot.search.exploration, bot.search.value) == (
        hard.iterations, hard.exploration, hard.value)
    state, seat = _turn_start()
    choices = {_plan_bot().choose(state, seat) for _ in range(2)}
    assert len(choices) == 1 and choices <= set(legal_actions(state, seat))


def test_a_plan_bot_judges_its_plans_with_playouts_and_follows_the_chosen_one() -> None:
    state, seat = _turn_start()
    bot = _plan_bot(iterations=80)
    first = bot.choose(state, seat)
    assert bot.iterations_done >= 80 * 0.9  # the budget went to the plans' playouts
    planned = [a for _s, a in bot._plan]
    assert planned, "a turn starting with a card has more steps"
    s = state.copy()
    apply(s, first)
    done = bot.iterations_done
    for a in planned:
        assert bot.choose(s, seat) == a  # played as planned, without new playouts
        apply(s, a)
    assert bot.iterations_done == done
    assert turn_over(s, seat)


def test_a_plan_bot_replans_when_the_position_is_not_the_expected_one() -> None:
    state, seat = _turn_start()
    bot = _plan_bot()
    first = bot.choose(state, seat)
    # Another card than the plan's: the rest of the plan no longer applies.
    other = next(a for a in legal_actions(state, seat)
                 if a != first and _card_taken([a]) != -1)
    s = state.copy()
    apply(s, other)
    assert not turn_over(s, seat) and len(legal_actions(s, seat)) > 1
    done = bot.iterations_done
    # It plans afresh: the choice a bot with no plan makes, after new playouts.
    assert bot.choose(s, seat) == _plan_bot().choose(s, seat)
    assert bot.iterations_done > done


def test_bids_and_secret_choices_go_to_the_tree() -> None:
    positions = positions_by_phase(4)
    for phase in ("bid", "secret"):
        state = positions[phase]
        seat = to_act(state)[0]
        bot = _plan_bot()
        action = bot.choose(state, seat)
        assert action in legal_actions(redact(state, seat), seat)
        assert bot.iterations_done == 0  # no plan was judged
        assert bot.search.iterations_done > 0
    assert positions["bid"].phase == BID and positions["secret"].phase == SECRET


@pytest.mark.parametrize("players", [2, 5])
def test_a_plan_bot_plays_a_short_game_legally(players: int) -> None:
    rng = random.Random(players)
    state = new_game(GameConfig(players=players, rounds=6))
    bots = {0: _plan_bot(5, iterations=20)}
    others = make_bot("easy", 7)
    while not is_terminal(state):
        if is_chance(state):
            resolve_chance(state, rng)
            continue
        seat = to_act(state)[0]
        bot = bots.get(seat, others)
        action = bot.choose(state, seat)
        assert action in legal_actions(state, seat)
        apply(state, action)
    assert bots[0].iterations_done > 0


def test_hard_plan_takes_a_playout_budget_and_refuses_a_bad_one() -> None:
    bot = make_bot("hard-plan:4500", 3)
    assert isinstance(bot, PlanBot) and bot.search.iterations == 4500
    for name, message in (("hard-plan:x", "bad iteration budget"),
                          ("hard-plan:0", "must be at least 1")):
        with pytest.raises(ValueError, match=message):
            make_bot(name, 3)
