"""Greedy special actions in the search's playouts (``PlayoutPolicy(greedy_specials=True)``,
the bots ``hard-s`` and ``hard-s:N``): on boards where one step clearly pays, the greedy
policy takes it and the old random one rarely does; the variant replays exactly and plays
legal games."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest

from elgrande.ai import make_bot
from elgrande.ai.evaluate import area_awards
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
from elgrande.rules.actions import DONE, LOSE_COURT
from elgrande.rules.board import CASTILLO, NUM_REGIONS
from elgrande.rules.state import (
    COURT_PLACE,
    EMPTY_CHOOSE,
    EMPTY_DROP,
    KING_MOVE,
    LOSE,
    MOVE,
    MOVE_DROP,
    REMOVE,
    SCORE_CHOICE,
)

from .test_greedy_secrets import set_board

TRIALS = 200


def position(phase: int, wanted: Callable[[State], bool] = lambda s: True,
             players: int = 4) -> State:
    """The first position of ``phase`` (that ``wanted`` accepts) met in seeded random games."""
    rng = random.Random(f"greedy-special:{phase}:{players}")
    for _ in range(3000):
        state = new_game(GameConfig(players=players))
        while not is_terminal(state):
            if is_chance(state):
                resolve_chance(state, rng)
                continue
            if state.phase == phase and wanted(state):
                return state
            apply(state, rng.choice(legal_actions(state, to_act(state)[0])))
    raise AssertionError(f"no position in phase {phase}")


def choices(s: State, greedy: bool, epsilon: float = 0.0) -> Counter[int]:
    """How often the policy makes each choice (by the action's argument, -1 for done)."""
    seat = to_act(s)[0]
    legal = legal_actions(s, seat)
    policy = PlayoutPolicy(epsilon, greedy_specials=greedy, greedy_king=greedy)
    rng = random.Random(5)
    out: Counter[int] = Counter()
    for _ in range(TRIALS):
        a = policy.choose(s, seat, rng)
        assert a in legal
        out[-1 if a.kind_id == DONE else a.arg] += 1
    return out


def regions(s: State, *without: int) -> list[int]:
    return [r for r in range(NUM_REGIONS) if r != s.king and r not in without]


def rows(s: State, fill: Callable[[int], dict[int, int]]) -> dict[int, list[int]]:
    """A board: every region but the King's, and the Castillo, holds ``fill(area)`` (seat ->
    Caballeros)."""
    board = {}
    for r in regions(s) + [CASTILLO]:
        row = [0] * s.n
        for q, c in fill(r).items():
            row[q] = c
        board[r] = row
    return board


@pytest.mark.parametrize(("phase", "source"), [
    (MOVE_DROP, lambda s: s.picked % 10),  # a movement card's own Caballero
    (EMPTY_DROP, lambda s: s.source),  # card 1b
])
def test_a_caballero_is_dropped_where_it_gains(phase: int,
                                               source: Callable[[State], int]) -> None:
    s = position(phase, lambda s: phase == EMPTY_DROP or s.picked // 10 == s.active)
    seat, src = s.active, source(s)
    targets = {a.arg for a in legal_actions(s, seat)}
    free = next(r for r in regions(s, src) if r in targets)
    a, b, c = (q for q in range(s.n) if q != seat)
    # Everywhere the others hold 5, 4, 3 (one more of ours gains nothing), but in ``free``
    # one Caballero of a single opponent: ours there makes a tie for first.
    board = rows(s, lambda r: {a: 1} if r == free else {a: 5, b: 4, c: 3})
    board[src][seat] = 2
    set_board(s, board)
    assert choices(s, greedy=True)[free] == TRIALS
    assert choices(s, greedy=False)[free] < TRIALS // 3


def _own_move(s: State) -> bool:
    return s.own_left > 0 or s.any_left > 0


def test_a_move_picks_a_spare_caballero_or_stops() -> None:
    s = position(MOVE, _own_move)
    seat = s.active
    s.own_left, s.opp_left, s.any_left, s.source = 2, 0, 0, -1
    others = [q for q in range(s.n) if q != seat]
    spare = regions(s)[0]
    # The seat leads 2 to 1 everywhere (one fewer makes a tie: it loses points), but in
    # ``spare`` it leads 5 to 1: one can leave for free.
    board = rows(s, lambda r: {seat: 5 if r == spare else 2, others[0]: 1})
    set_board(s, board)
    assert choices(s, greedy=True)[seat * 10 + spare] == TRIALS
    assert choices(s, greedy=False)[seat * 10 + spare] < TRIALS // 3
    # Where every pick costs more than PICK_STOP (a lead of 2 to 1 whose first place pays
    # at least two points more than the second), the card stops.
    aws = area_awards(s.tiles)
    board = rows(s, lambda r: {seat: 2, others[0]: 1} if aws[r][0] - aws[r][1] >= 2 else {})
    assert sum(row[seat] for row in board.values()) >= 6
    set_board(s, board)
    assert choices(s, greedy=True)[-1] == TRIALS
    # Epsilon keeps some uniform randomness.
    assert TRIALS // 2 < choices(s, greedy=True, epsilon=0.5)[-1] < TRIALS


def test_a_move_picks_the_opponent_that_a_lead_hangs_on() -> None:
    s = position(MOVE, lambda s: s.opp_left > 0 or s.any_left > 0)
    seat = s.active
    s.own_left, s.opp_left, s.any_left, s.source = 0, 2, 0, -1
    a, b, c = (q for q in range(s.n) if q != seat)
    key = regions(s)[-1]
    # The opponent ``a`` leads ``key`` 3 to 2 over the seat: one of his leaving makes a tie.
    # Elsewhere ``a`` comes last (1 against 5, 3, 3), and ``b`` and ``c`` share the second
    # place: no one's leaving changes what anyone scores there.
    board = rows(s, lambda r: {a: 3, seat: 2} if r == key
                 else {seat: 5, b: 3, c: 3, a: 1} if r != CASTILLO else {})
    set_board(s, board)
    assert choices(s, greedy=True)[a * 10 + key] == TRIALS
    assert choices(s, greedy=False)[a * 10 + key] < TRIALS // 3


def test_card_1b_empties_the_region_that_costs_least() -> None:
    s = position(EMPTY_CHOOSE)
    seat = s.active
    a, b, c = (q for q in range(s.n) if q != seat)
    cheap = regions(s)[1]
    # The seat leads alone everywhere but ``cheap``, where its two come last.
    board = rows(s, lambda r: {seat: 2, a: 5, b: 4, c: 3} if r == cheap
                 else {seat: 3, a: 1})
    set_board(s, board)
    assert choices(s, greedy=True)[cheap] == TRIALS
    assert choices(s, greedy=False)[cheap] < TRIALS // 3


def test_card_2b_removes_where_it_gains_most() -> None:
    s = position(REMOVE)
    seat, victim = s.active, s.queue[0]
    b, c = (q for q in range(s.n) if q not in (seat, victim))
    key = regions(s)[2]
    board = rows(s, lambda r: {victim: 3, seat: 2} if r == key
                 else {victim: 1, b: 5, c: 4})
    set_board(s, board)
    assert choices(s, greedy=True)[victim * 10 + key] == TRIALS
    assert choices(s, greedy=False)[victim * 10 + key] < TRIALS // 3


def test_card_2c_is_lost_where_it_costs_least() -> None:
    s = position(LOSE)
    seat = s.queue[0]
    a, b, c = (q for q in range(s.n) if q != seat)
    cheap = regions(s)[3]
    board = rows(s, lambda r: {seat: 2, a: 5, b: 4, c: 3} if r == cheap
                 else {seat: 3, a: 2})
    set_board(s, board)
    s.court[seat] = 3
    assert LOSE_COURT in {x.arg for x in legal_actions(s, seat)}
    assert choices(s, greedy=True)[cheap] == TRIALS
    assert choices(s, greedy=False)[cheap] < TRIALS // 3
    # With no free Caballero on the board the court pays (it is worth less than a lead).
    board[cheap] = [0] * s.n
    set_board(s, board)
    assert choices(s, greedy=True)[LOSE_COURT] == TRIALS


def test_a_chosen_scoring_names_the_region_that_pays() -> None:
    s = position(SCORE_CHOICE)
    seat = s.active
    others = [q for q in range(s.n) if q != seat]
    good = regions(s)[4]
    board = rows(s, lambda r: {seat: 4, others[0]: 1} if r == good
                 else {others[0]: 4, seat: 1})
    set_board(s, board)
    assert choices(s, greedy=True)[good] == TRIALS
    assert choices(s, greedy=False)[good] < TRIALS // 3


def test_card_1c_places_as_a_deployment_does() -> None:
    s = position(COURT_PLACE)
    seat = s.active
    a, b, c = (q for q in range(s.n) if q != seat)
    free = regions(s)[5]
    board = rows(s, lambda r: {a: 1} if r == free else {a: 5, b: 4, c: 3})
    set_board(s, board)
    assert choices(s, greedy=True)[free] == TRIALS
    assert choices(s, greedy=False)[free] < TRIALS // 3


def test_the_king_goes_where_the_seat_leads_alone() -> None:
    s = position(KING_MOVE)
    seat = s.active
    a, b, c = (q for q in range(s.n) if q != seat)
    mine = max(x.arg for x in legal_actions(s, seat))
    # The seat leads alone only in ``mine``; elsewhere ``a`` does (the King there would
    # give him the bonus), and where the King stands no one leads alone.
    board = rows(s, lambda r: {seat: 3, a: 1} if r == mine else {a: 4, b: 2, seat: 1})
    board[s.king] = [2] * s.n
    set_board(s, board)
    assert choices(s, greedy=True)[mine] == TRIALS
    assert choices(s, greedy=False)[mine] < TRIALS // 2
    # hard-s alone still moves him at random.
    rng = random.Random(3)
    plain = PlayoutPolicy(0.0, greedy_specials=True)
    assert sum(plain.choose(s, seat, rng).arg == mine for _ in range(TRIALS)) \
        < TRIALS // 2


def test_hard_is_unchanged_and_the_variant_is_greedy() -> None:
    hard, variant = make_bot("hard", 1), make_bot("hard-s", 1)
    assert isinstance(hard, IsmctsBot) and isinstance(variant, IsmctsBot)
    assert not hard.policy.greedy_specials
    assert variant.policy.greedy_specials and not variant.policy.greedy_secrets
    assert (variant.iterations, variant.exploration, variant.policy.epsilon,
            variant.value) == (hard.iterations, hard.exploration, hard.policy.epsilon,
                               hard.value)
    small = make_bot("hard-s:40", 1)
    assert isinstance(small, IsmctsBot) and small.iterations == 40
    assert small.policy.greedy_specials and not small.policy.greedy_king
    king = make_bot("hard-sk", 1)
    assert isinstance(king, IsmctsBot) and king.policy.greedy_king
    assert king.policy.greedy_specials and king.iterations == hard.iterations
    small_king = make_bot("hard-sk:40", 1)
    assert isinstance(small_king, IsmctsBot) and small_king.iterations == 40
    assert small_king.policy.greedy_king
    with pytest.raises(ValueError, match="iteration budget"):
        make_bot("hard-s:0", 1)


def test_the_variant_replays_exactly() -> None:
    spec = GameSpec(0, ("hard-s:15", "easy", "hard-sk:15"), chance_seed=9,
                    bot_seeds=(1, 2, 3), rounds=6)
    a, b = play_game(spec), play_game(spec)
    assert (a.scores, a.decisions) == (b.scores, b.decisions)


@pytest.mark.parametrize("players", [2, 5])
def test_the_variant_plays_legal_games(players: int) -> None:
    bots = ("hard-s:10", "hard-sk:10") + ("medium",) * (players - 2)
    result = play_game(GameSpec(0, bots, chance_seed=players, bot_seeds=tuple(range(players)),
                                rounds=6))
    assert len(result.scores) == players
