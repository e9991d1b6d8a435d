"""Invariants over many seeded random games, checked after every step (rules.md; design.md)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elgrande.rules import (
    CHANCE,
    GameConfig,
    IllegalAction,
    State,
    all_actions,
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
from elgrande.rules.engine import check_invariants

GAMES_PER_SETTING = 125  # 4 player counts x 2 lengths x 125 = 1,000 games
EVERY_ACTION = all_actions()


def _king_region_contents(s: State) -> list[int]:
    n = s.n
    return s.cab[s.king * n: s.king * n + n] + [p for p in range(n) if s.grande[p] == s.king] + \
        [t for t in (0, 1) if s.tiles[t] == s.king]


def play_checked(players: int, rounds: int, seed: int, deep: bool) -> State:
    config = GameConfig(players=players, rounds=rounds)
    rng = random.Random(seed)
    state = new_game(config)
    mirror = new_game(config)  # replays the notation of every action, in lockstep
    log = []
    while not is_terminal(state):
        options = legal_actions(state)
        assert options, f"no legal action in phase {state.phase_name}"
        assert options == sorted(set(options)), "legal actions must be sorted and unique"
        actors = to_act(state)
        assert sorted({a.seat for a in options}) == sorted(actors)
        for seat in actors:
            assert legal_actions(state, seat) == [a for a in options if a.seat == seat]
        if deep:
            for option in options:  # every listed action applies to its own copy
                trial = state.copy()
                apply(trial, option)
                check_invariants(trial)
            illegal = EVERY_ACTION[rng.randrange(len(EVERY_ACTION))]
            if illegal not in options:
                before = state.to_dict()
                with pytest.raises(IllegalAction):
                    apply(state, illegal)
                assert state.to_dict() == before, "a refused action changed the state"
        snapshot = state.to_dict()
        assert State.from_dict(snapshot) == state
        copy = state.copy()
        king_before, contents_before = state.king, _king_region_contents(state)
        action = sample_chance(state, rng) if is_chance(state) else options[rng.randrange(len(options))]
        assert action.seat == CHANCE if is_chance(state) else action.seat in actors
        apply(state, action)
        log.append(action)
        assert copy.to_dict() == snapshot, "applying to the original changed its copy"
        check_invariants(state)
        if state.king == king_before and king_before >= 0:
            assert _king_region_contents(state) == contents_before, f"King's region changed by {action}"
        apply(mirror, parse_action(str(action)))
        assert mirror == state
    assert replay(config, log) == state
    assert replay(config, [str(a) for a in log]) == state
    return state


@pytest.mark.parametrize("rounds", [9, 6])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_keep_every_invariant(players: int, rounds: int) -> None:
    finals = []
    for i in range(GAMES_PER_SETTING):
        seed = players * 10_000 + rounds * 1_000 + i
        final = play_checked(players, rounds, seed, deep=i < 25)
        assert final.phase_name == "game_over"
        finals.append(final.scores)
    # Seeds really differ: the games are not all the same game.
    assert len({tuple(f) for f in finals}) > GAMES_PER_SETTING // 2


def test_notation_round_trip_for_every_action() -> None:
    texts = [str(a) for a in EVERY_ACTION]
    assert len(set(texts)) == len(texts)
    for a, text in zip(EVERY_ACTION, texts, strict=True):
        assert parse_action(text) is a
        assert parse_action(text.upper()) is a


@pytest.mark.parametrize("text", ["", "p0", "p9 bid 3", "p0 bid 14", "p0 place XYZ", "p1 take 9z",
                                  "* reveal 5a", "p0 pick p1", "hello world"])
def test_bad_notation_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_action(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_parse_action_never_crashes(text: str) -> None:
    try:
        action = parse_action(text)
    except ValueError:
        return
    assert parse_action(str(action)) is action


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-(2**20), max_value=2**20), st.integers(min_value=0, max_value=400))
def test_apply_refuses_anything_not_listed(code: int, plies: int) -> None:
    rng = random.Random(plies)
    state = new_game(GameConfig(players=3))
    for _ in range(plies):
        if is_terminal(state):
            break
        options = legal_actions(state)
        apply(state, sample_chance(state, rng) if is_chance(state) else options[rng.randrange(len(options))])
    if code in legal_actions(state):
        return
    before = state.to_dict()
    with pytest.raises(IllegalAction):
        apply(state, code)
    assert state.to_dict() == before
