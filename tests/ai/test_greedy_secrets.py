"""Greedy secret choices in the search's playouts (``PlayoutPolicy(greedy_secrets=True)``,
the bots ``hard-g`` and ``learned-g:N``): the choice that gains the seat most is made, the
old policy's random choice is not, and the variant replays exactly."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from elgrande.ai import make_bot
from elgrande.ai.ismcts import IsmctsBot, PlayoutPolicy
from elgrande.ai.tournament import GameSpec, play_game
from elgrande.rules import (
    GameConfig,
    State,
    apply,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    resolve_chance,
    to_act,
)
from elgrande.rules.board import CASTILLO, NUM_AREAS
from elgrande.rules.state import EVICTION, GENERAL, LOSE_ALL, LOSE_TWO, SECRET, SECRET_SCORING

from .test_bots import _other_secret_variants

TRIALS = 200


def secret_position(purpose: int, players: int = 4, seed: int = 0) -> State:
    """The first secret step for ``purpose`` met in seeded random games."""
    rng = random.Random(f"greedy-secret:{purpose}:{players}:{seed}")
    for _ in range(2000):
        state = new_game(GameConfig(players=players))
        while not is_terminal(state):
            if is_chance(state):
                resolve_chance(state, rng)
                continue
            if state.phase == SECRET and state.secret_purpose == purpose:
                return state
            apply(state, rng.choice(legal_actions(state, to_act(state)[0])))
    raise AssertionError(f"no secret step for purpose {purpose}")


def set_board(s: State, counts: dict[int, list[int]]) -> None:
    """Replace the board: ``counts[area]`` per seat, every other area empty."""
    n = s.n
    s.cab = [0] * (NUM_AREAS * n)
    for area, row in counts.items():
        s.cab[area * n: area * n + n] = row
    s.legal_cache = None


def picks(s: State, seat: int, greedy: bool, epsilon: float = 0.0) -> Counter[int]:
    """How often the policy makes each choice (by region) over ``TRIALS`` draws."""
    policy = PlayoutPolicy(epsilon, greedy_secrets=greedy)
    rng = random.Random(5)
    out: Counter[int] = Counter()
    for _ in range(TRIALS):
        a = policy.choose(s, seat, rng)
        assert a in legal_actions(s, seat)
        out[a.arg] += 1
    return out


def crowded(s: State, seat: int, free: int, target: list[int]) -> dict[int, list[int]]:
    """Every region but ``free`` held 5, 4, 3 by the other seats (the seat would come last:
    nothing to gain there); ``free`` holds ``target``."""
    others = [q for q in range(s.n) if q != seat]
    board = {}
    for r in range(9):
        row = [0] * s.n
        for q, c in zip(others, (5, 4, 3), strict=True):
            row[q] = c
        board[r] = row
    board[free] = target
    return board


def test_castillo_release_goes_where_it_gains() -> None:
    s = secret_position(GENERAL)
    seat = to_act(s)[0]
    free = next(r for r in range(9) if r != s.king)
    board = crowded(s, seat, free, [0] * s.n)
    board[free][(seat + 1) % s.n] = 1  # two released Caballeros make the seat first there
    cas = [0] * s.n
    cas[seat] = 2
    board[CASTILLO] = cas
    set_board(s, board)
    s.secret = [-1 if p == seat else -2 for p in range(s.n)]
    assert to_act(s) == [seat]
    greedy = picks(s, seat, greedy=True)
    assert greedy[free] == TRIALS, greedy
    # The old policy spreads them over the eight regions outside the King's.
    assert picks(s, seat, greedy=False)[free] < TRIALS // 3
    # Epsilon keeps some uniform randomness.
    assert TRIALS // 2 < picks(s, seat, greedy=True, epsilon=0.5)[free] < TRIALS


@pytest.mark.parametrize("purpose", [LOSE_ALL, LOSE_TWO])
def test_losses_are_taken_where_they_cost_least(purpose: int) -> None:
    s = secret_position(purpose)
    seat = to_act(s)[0]
    n = s.n
    others = [q for q in range(n) if q != seat]
    # The seat leads alone (3 against 1) everywhere it stands, except one region where its
    # two Caballeros come last anyway: losing them there costs no points.
    cheap = next(r for r in range(9) if r != s.king)
    board: dict[int, list[int]] = {}
    for r in range(9):
        row = [0] * n
        row[seat] = 3
        row[others[0]] = 1
        board[r] = row
    row = [0] * n
    row[seat] = 2
    for q, c in zip(others, (5, 4, 3), strict=True):
        row[q] = c
    board[cheap] = row
    set_board(s, board)
    s.legal_cache = None
    assert cheap in {a.arg for a in legal_actions(s, seat)}
    greedy = picks(s, seat, greedy=True)
    assert greedy[cheap] == TRIALS, greedy
    assert picks(s, seat, greedy=False)[cheap] < TRIALS // 3


def test_evicted_caballeros_go_where_they_gain() -> None:
    s = secret_position(EVICTION)
    seat = to_act(s)[0]
    src = s.source
    free = next(r for r in range(9) if r not in (s.king, src))
    board = crowded(s, seat, free, [0] * s.n)
    board[free][(seat + 1) % s.n] = 1
    board[src][seat] = 2  # these two must leave
    set_board(s, board)
    greedy = picks(s, seat, greedy=True)
    assert greedy[free] == TRIALS, greedy
    assert picks(s, seat, greedy=False)[free] < TRIALS // 3


def test_secret_scoring_names_the_region_that_pays_the_seat() -> None:
    s = secret_position(SECRET_SCORING)
    seat = to_act(s)[0]
    others = [q for q in range(s.n) if q != seat]
    board: dict[int, list[int]] = {}
    for r in range(9):  # the others lead everywhere ...
        row = [0] * s.n
        row[others[0]] = 4
        row[seat] = 1
        board[r] = row
    good = (s.king + 1) % 9  # ... but here, where the seat leads alone
    board[good] = [0] * s.n
    board[good][seat] = 4
    board[good][others[0]] = 1
    set_board(s, board)
    greedy = picks(s, seat, greedy=True)
    assert greedy[good] == TRIALS, greedy
    assert picks(s, seat, greedy=False)[good] < TRIALS // 3


def test_hard_is_unchanged_and_the_variant_is_greedy() -> None:
    hard, variant = make_bot("hard", 1), make_bot("hard-g", 1)
    assert isinstance(hard, IsmctsBot) and isinstance(variant, IsmctsBot)
    assert not hard.policy.greedy_secrets
    assert variant.policy.greedy_secrets
    assert (variant.iterations, variant.exploration, variant.policy.epsilon) == \
        (hard.iterations, hard.exploration, hard.policy.epsilon)
    assert variant.value is not None
    small = make_bot("learned-g:40", 1)
    assert isinstance(small, IsmctsBot) and small.iterations == 40
    assert small.policy.greedy_secrets


def test_the_variant_replays_exactly() -> None:
    state = secret_position(GENERAL, seed=1)
    seat = to_act(state)[0]
    first = make_bot("learned-g:80", seed=3).choose(state, seat)
    assert make_bot("learned-g:80", seed=3).choose(state, seat) == first
    spec = GameSpec(0, ("learned-g:15", "easy", "learned-g:15"), chance_seed=9,
                    bot_seeds=(1, 2, 3), rounds=6)
    a, b = play_game(spec), play_game(spec)
    assert (a.scores, a.decisions) == (b.scores, b.decisions)


@pytest.mark.parametrize("players", [3, 4])
def test_the_variant_ignores_hidden_choices(players: int) -> None:
    _state, me, variants = _other_secret_variants(players)
    choices = {str(make_bot("learned-g:60", seed=7).choose(v, me)) for v in variants}
    assert len(choices) == 1, choices
