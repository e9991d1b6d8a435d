"""Invariants over random games under the box rules (rules.md §12).

``make test`` plays 100 games. The long run plays 1,000 (or any number) from the command line:

    .venv/bin/python -m tests.rules.test_box_random --games 1000

Random play passes at a veto window with probability 0.9 (as ``elgrande bench engine
--rules box`` does), so that Vetos are both used and left to expire.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import sys
import time
from dataclasses import replace

import jsonschema

from elgrande.rules import (
    VIEW_SCHEMA_PATH,
    GameConfig,
    Options,
    State,
    apply,
    check_invariants,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    redact,
    replay,
    sample_chance,
    to_act,
    view,
)
from elgrande.rules.cards import VETO_CARD
from elgrande.rules.state import SECRET, VETO

VALIDATOR = jsonschema.Draft202012Validator(json.loads(VIEW_SCHEMA_PATH.read_text()))
SETTINGS = ("parts", "parts", "announcement", "every_step")


def box_invariants(s: State, revealed: int, spent: int) -> None:
    v = s.veto
    assert v is not None
    held = [i for i in (0, 1) if v.holder[i] >= 0]
    # Two Veto cards: in the stack, face up, held, used or discarded.
    assert s.copies[VETO_CARD] + revealed == 2
    assert len(held) + spent <= revealed
    for i in held:
        assert s.round_index - 1 <= v.taken[i] <= s.round_index, "a Veto outlived its round"
    if s.phase == VETO:
        assert v.asking and v.resume >= 0 and s.active not in v.asking
        assert to_act(s) == [v.asking[0]]
        assert [str(a) for a in legal_actions(s)] == [f"p{v.asking[0]} veto", f"p{v.asking[0]} pass"]
    else:
        assert not v.asking and v.resume == -1
    if s.phase != SECRET and not (s.phase == VETO and v.resume == 2):
        assert s.secret_purpose == -1


def play_game(seed: int, stats: collections.Counter | None = None, deep: bool = False) -> State:
    players = 2 + seed % 4
    options = replace(Options.preset("box"), veto_windows=SETTINGS[seed % len(SETTINGS)])
    config = GameConfig(players=players, rounds=6 if seed % 5 == 4 else 9, options=options)
    rng = random.Random(seed)
    s = new_game(config)
    log = []
    events: list = []
    revealed = spent = 0
    while not is_terminal(s):
        if is_chance(s):
            action = sample_chance(s, rng)
        else:
            options_now = legal_actions(s)
            if s.phase == VETO:
                action = options_now[1] if rng.random() < 0.9 else options_now[0]
            else:
                action = options_now[rng.randrange(len(options_now))]
        apply(s, action, events)
        log.append(action)
        if action.kind == "reveal" and action.arg == VETO_CARD:
            revealed += 1
        if action.kind == "veto":
            spent += 1
        check_invariants(s)
        box_invariants(s, revealed, spent)
        if deep and s.ply % 37 == 0:
            for seat in [None, *range(players)]:
                VALIDATOR.validate(view(s, seat))
                r = redact(s, seat)
                check_invariants(r)
                assert State.from_dict(r.to_dict()) == r
            assert State.from_dict(json.loads(json.dumps(s.to_dict()))) == s
    assert replay(config, [str(a) for a in log]) == s
    if stats is not None:
        stats["games"] += 1
        stats["decisions"] += len(log)
        stats["windows"] += sum(1 for a in log if a.kind in ("veto", "pass"))
        stats["vetoes"] += spent
        for e in events:
            if e.type in ("vetoed", "veto_expired"):
                stats[e.type] += 1
        stats["veto_cards_revealed"] += revealed
    return s


def test_100_random_box_games_keep_every_invariant() -> None:
    stats: collections.Counter = collections.Counter()
    for seed in range(100):
        play_game(seed, stats, deep=seed % 10 == 0)
    assert stats["games"] == 100
    # The runs exercise what they are for: Vetos used, and Vetos left to expire.
    assert stats["vetoed"] > 5 and stats["veto_expired"] > 5 and stats["windows"] > 100


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--first-seed", type=int, default=0)
    args = parser.parse_args(argv)
    stats: collections.Counter = collections.Counter()
    started = time.perf_counter()
    for seed in range(args.first_seed, args.first_seed + args.games):
        play_game(seed, stats, deep=seed % 10 == 0)
    elapsed = time.perf_counter() - started
    print(json.dumps({**stats, "seconds": round(elapsed, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
