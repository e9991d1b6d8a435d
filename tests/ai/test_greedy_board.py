"""The Grande's and the mobile scoreboards' moves in the search's playouts
(``PlayoutPolicy(greedy_board=True)``, the bots ``hard-skb`` and ``hard-skb:N``): on
boards where one move clearly pays, the greedy policy makes it and the random one rarely
does; the variant replays exactly and plays legal games."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from elgrande.ai import make_bot
from elgrande.ai.ismcts import IsmctsBot, PlayoutPolicy
from elgrande.ai.tournament import GameSpec, play_game
from elgrande.rules import State, legal_actions, to_act
from elgrande.rules.board import CASTILLO, PRINTED_AWARDS, TILE_OFF_BOARD
from elgrande.rules.state import GRANDE_MOVE, TILE_MOVE

from .test_greedy_secrets import set_board
from .test_greedy_specials import TRIALS, position, regions, rows


def choices(s: State, greedy: bool) -> Counter[int]:
    """How often the policy (greedy everywhere else) makes each choice, by argument."""
    seat = to_act(s)[0]
    legal = legal_actions(s, seat)
    policy = PlayoutPolicy(0.0, greedy_specials=True, greedy_king=True, greedy_board=greedy)
    rng = random.Random(7)
    out: Counter[int] = Counter()
    for _ in range(TRIALS):
        a = policy.choose(s, seat, rng)
        assert a in legal
        out[a.arg] += 1
    return out


def test_the_grande_goes_where_the_seat_leads_alone() -> None:
    s = position(GRANDE_MOVE)
    seat = s.active
    a, b, *_ = (q for q in range(s.n) if q != seat)
    targets = sorted(x.arg for x in legal_actions(s, seat))
    mine = targets[len(targets) // 2]
    # The seat leads alone only in ``mine``, where its sole leadership earns the Grande's
    # bonus; elsewhere (its region now included) ``a`` leads and the seat comes third.
    set_board(s, rows(s, lambda r: {seat: 3, a: 1} if r == mine else {a: 4, b: 2, seat: 1}))
    assert choices(s, greedy=True)[mine] == TRIALS
    assert choices(s, greedy=False)[mine] < TRIALS // 3


def test_the_grande_does_not_chase_a_rich_region() -> None:
    # Only the bonus moves with the Grande, not the region's awards: where the seat leads
    # alone in two regions, the richer one is no better than the poorer.
    s = position(GRANDE_MOVE)
    seat = s.active
    a = next(q for q in range(s.n) if q != seat)
    targets = sorted(x.arg for x in legal_actions(s, seat))
    rich = max(targets, key=lambda r: PRINTED_AWARDS[r][0])
    poor = min(targets, key=lambda r: PRINTED_AWARDS[r][0])
    assert PRINTED_AWARDS[rich][0] > PRINTED_AWARDS[poor][0]
    set_board(s, rows(s, lambda r: {seat: 3, a: 1} if r in (rich, poor) else {a: 2}))
    got = choices(s, greedy=True)
    assert got[rich] + got[poor] == TRIALS
    assert min(got[rich], got[poor]) > TRIALS // 4


def test_a_scoreboard_lies_where_the_seat_leads_alone() -> None:
    s = position(TILE_MOVE)
    seat = s.active
    a, b, *_ = (q for q in range(s.n) if q != seat)
    s.tiles = [TILE_OFF_BOARD, TILE_OFF_BOARD]
    # The 8/4/0 scoreboard pays the sole holder of ``mine`` 4 more than its printed 4;
    # anywhere else it (or the 4/0/0) helps ``a``, who leads, or costs the seat its
    # third place's points.
    mine = next(r for r in regions(s) if PRINTED_AWARDS[r][0] == 4)
    board = rows(s, lambda r: {seat: 3} if r == mine else {a: 4, b: 2, seat: 1})
    board[CASTILLO] = [0] * s.n
    set_board(s, board)
    assert choices(s, greedy=True)[0 * 10 + mine] == TRIALS
    assert choices(s, greedy=False)[0 * 10 + mine] < TRIALS // 3


def test_a_scoreboard_leaves_a_region_where_it_costs_the_seat() -> None:
    s = position(TILE_MOVE)
    seat = s.active
    a, b, *_ = (q for q in range(s.n) if q != seat)
    # The 8/4/0 scoreboard lies where ``a`` leads and the seat comes third (0 instead of
    # the printed third place); nowhere else does any scoreboard change anything (the
    # other regions and the Castillo are empty), so it moves, anywhere (the 4/0/0 off the
    # board can only be placed on an empty region: worth nothing).
    theirs = next(r for r in regions(s) if PRINTED_AWARDS[r][2] > 0)
    s.tiles = [theirs, TILE_OFF_BOARD]
    board = {r: [0] * s.n for r in range(CASTILLO + 1)}
    board[theirs][a], board[theirs][b], board[theirs][seat] = 4, 2, 1
    set_board(s, board)
    got = choices(s, greedy=True)
    assert sum(c for arg, c in got.items() if arg // 10 == 0) == TRIALS
    assert sum(c for arg, c in choices(s, greedy=False).items() if arg // 10 == 0) \
        < TRIALS * 3 // 4


def test_the_variant_is_hard_sk_with_the_board_greedy() -> None:
    hard, sk, skb = make_bot("hard", 1), make_bot("hard-sk", 1), make_bot("hard-skb", 1)
    assert isinstance(hard, IsmctsBot) and isinstance(sk, IsmctsBot)
    assert isinstance(skb, IsmctsBot)
    assert not hard.policy.greedy_board and not sk.policy.greedy_board
    assert skb.policy.greedy_board and skb.policy.greedy_king and skb.policy.greedy_specials
    assert (skb.iterations, skb.exploration, skb.value) == (hard.iterations, hard.exploration,
                                                            hard.value)
    small = make_bot("hard-skb:40", 1)
    assert isinstance(small, IsmctsBot) and small.iterations == 40
    assert small.policy.greedy_board and small.name == "hard-skb:40"
    with pytest.raises(ValueError, match="hard-skb:ITERATIONS"):
        make_bot("hard-skbx:40", 1)
    with pytest.raises(ValueError, match="iteration budget"):
        make_bot("hard-skb:0", 1)


def test_the_variant_replays_and_plays_legal_games() -> None:
    spec = GameSpec(0, ("hard-skb:12", "easy", "medium", "hard-skb:12", "easy"),
                    chance_seed=11, bot_seeds=(1, 2, 3, 4, 5), rounds=6)
    a, b = play_game(spec), play_game(spec)
    assert (a.scores, a.decisions) == (b.scores, b.decisions)
    assert len(a.scores) == 5
