"""The coach (elgrande/ai/coach.py): a clear mistake is found and priced in points, a review
is a function of its seed, and it sees only the reviewed seat's view."""

from __future__ import annotations

import random

import pytest

from elgrande.ai import make_bot
from elgrande.ai.coach import Budget, decision_points, judge, mistakes, review
from elgrande.rules import (
    Action,
    GameConfig,
    State,
    apply,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    parse_action,
    replay,
    sample_chance,
    to_act,
)
from elgrande.rules.state import CHOOSE, DEPLOY, GENERAL, SECRET

SMALL = Budget("ismcts:120", 24)


def play_until(config: GameConfig, seed: int, stop: object, bots: str = "medium",
               castillo: bool = False) -> tuple[State, list[Action]]:
    """Seeded bots play until ``stop(state)``; the state and the log."""
    s = new_game(config)
    rng = random.Random(seed)
    players = [make_bot(bots, seed + p) for p in range(config.players)]
    log: list[Action] = []
    while not is_terminal(s):
        if callable(stop) and stop(s):
            return s, log
        if is_chance(s):
            a = sample_chance(s, rng)
        else:
            p = to_act(s)[0]
            legal = legal_actions(s, p)
            into = [x for x in legal if str(x).endswith(" place CAS")]
            a = into[0] if castillo and into else players[p].choose(s, p)
        apply(s, a)
        log.append(a)
    raise AssertionError("the game ended first")


def test_ending_the_turn_without_deploying_is_a_big_mistake() -> None:
    # Round 5 of 6, a full court, a card taken: stopping here throws the deployment away.
    config = GameConfig(2, 6)
    state, log = play_until(config, 1, lambda s: s.phase == CHOOSE and to_act(s) == [0]
                            and s.round >= 5 and s.court[0] >= 5)
    assert "p0 deploy" in [str(a) for a in legal_actions(state, 0)]
    log.append(parse_action("p0 end"))
    point = decision_points(config, log, 0)[-1]
    assert point.played == (parse_action("p0 end"),) and point.index == len(log) - 1
    finding = judge(point, seed=3, budget=SMALL)
    assert finding.coach != ("p0 end",)
    assert finding.delta is not None and finding.se is not None
    assert finding.delta > 3 and finding.delta > 2 * finding.se, finding


def test_a_review_is_a_function_of_its_seed() -> None:
    config = GameConfig(2, 6)
    _state, log = play_until(config, 4, lambda s: s.round >= 3 and s.phase == CHOOSE,
                             bots="easy")
    budget = Budget("ismcts:40", 6)
    first = review(config, log, 1, seed=11, budget=budget)
    assert first and first == review(config, log, 1, seed=11, budget=budget)
    assert all(f.delta is None for f in first if f.coach == f.played)
    ranked = mistakes(first)
    deltas = [f.delta for f in ranked if f.delta is not None]
    assert len(deltas) == len(ranked) and deltas == sorted(deltas, reverse=True)


def test_a_deployment_is_one_decision() -> None:
    config = GameConfig(2, 6)
    _state, log = play_until(config, 2, lambda s: s.round >= 5 and s.phase == CHOOSE)
    points = decision_points(config, log, 0)
    deployments = [p for p in points if p.view.phase == DEPLOY]
    assert deployments and any(len(p.played) > 1 for p in deployments)
    for p in deployments:
        assert all(a.kind in ("place", "done") for a in p.played)
    # Each point starts where its log entry is, and the view is the seat's own.
    for p in points:
        assert log[p.index] == p.played[0]


def _three_secret_choices(seed: int) -> tuple[State, list[Action]]:
    """Three seats choosing a Castillo destination at a general scoring, none yet."""
    return play_until(GameConfig(3, 6), seed,
                      lambda s: s.phase == SECRET and s.secret_purpose == GENERAL
                      and len(to_act(s)) == 3, castillo=True)


def test_the_review_of_a_running_game_sees_only_the_seats_own_view() -> None:
    config = GameConfig(3, 6)
    for seed in range(20):
        try:
            state, log = _three_secret_choices(seed)
        except AssertionError:
            continue
        break
    else:
        pytest.fail("no general scoring with three secret choices")
    first, reviewed = to_act(state)[0], to_act(state)[1]
    options = legal_actions(state, first)
    assert len(options) >= 2
    mine = legal_actions(state, reviewed)[0]
    # The first seat chooses (hidden), then the reviewed seat; the third has not chosen,
    # so both choices are still secret: the game is running.
    logs = [log + [other, mine] for other in options[:2]]
    states = [replay(config, one) for one in logs]
    assert states[0].to_dict() != states[1].to_dict()  # the full positions differ ...
    assert states[0].phase == SECRET
    points = [decision_points(config, one, reviewed) for one in logs]
    assert [p.view.to_dict() for p in points[0]] == [p.view.to_dict() for p in points[1]]
    last = points[0][-1]
    assert last.played == (mine,) and last.index == len(log) + 1
    budget = Budget("ismcts:60", 8)
    # ... and so do the reviews: of the seat's last decisions, its secret choice included.
    judged = [[judge(p, 5, budget) for p in one[-3:]] for one in points]
    assert judged[0] == judged[1]
