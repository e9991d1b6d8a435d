"""The bots of elgrande.ai play legal games under the box rules (rules.md §12): random,
heuristic and ISMCTS (a small budget), each seat deciding from its redacted state, veto
windows included. ``Bot.choose`` refuses an illegal choice and ``apply`` another."""

from __future__ import annotations

import random

import pytest

from elgrande.ai.levels import make_bot
from elgrande.rules import (
    GameConfig,
    Options,
    apply,
    check_invariants,
    is_terminal,
    new_game,
    resolve_chance,
    to_act,
)


@pytest.mark.parametrize(("bot", "games", "players", "rounds"), [
    ("random", 3, 4, 9),
    ("heuristic", 3, 4, 9),
    ("ismcts:40", 1, 3, 6),
])
def test_bots_play_legal_box_games(bot: str, games: int, players: int, rounds: int) -> None:
    windows = 0
    for g in range(games):
        config = GameConfig(players=players, rounds=rounds, options=Options.preset("box"))
        bots = [make_bot(bot, seed=g * 10 + p) for p in range(players)]
        rng = random.Random(g)
        s = new_game(config)
        while not is_terminal(s):
            resolve_chance(s, rng)
            if is_terminal(s):
                break
            for seat in to_act(s):
                if s.phase_name == "veto":
                    windows += 1
                apply(s, bots[seat].choose(s, seat))
                check_invariants(s)
                if s.phase_name not in ("secret",):
                    break  # one actor at a time outside simultaneous secret choices
    if bot == "random":
        assert windows > 0


@pytest.mark.parametrize("bot", ["random", "heuristic", "ismcts:40"])
@pytest.mark.parametrize("holder_is_bot", [True, False])
def test_bots_decide_at_a_veto_window_and_as_the_active_player(bot: str, holder_is_bot: bool) -> None:
    from .box import BOARD, HOMES, box_scenario
    from .scenario import play

    s = box_scenario(4, holders={1: [1]}, king="CLN", homes=HOMES, caballeros=BOARD,
                     available=["1a", "2b", "3b", "4c"])  # a card for everyone this round
    play(s, "p0 take 3b", "p0 special")
    if holder_is_bot:  # the holder answers the announcement window
        assert s.phase_name == "veto"
        action = make_bot(bot, seed=1).choose(s, 1)
        assert str(action) in ("p1 veto", "p1 pass")
    else:  # the active player chooses his next step after a window he passed
        play(s, "p1 pass")
        while s.phase_name == "veto":
            play(s, "p1 pass")
        action = make_bot(bot, seed=1).choose(s, 0)
        assert action.seat == 0
    apply(s, action)
    check_invariants(s)
