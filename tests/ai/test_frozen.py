"""The frozen baseline never changes its play (elgrande/ai/frozen/, docs/ai.md).

``frozen_moves.json`` holds moves the ``baseline`` bot chose when it was frozen, from
positions of seeded random play, and a digest of a whole game of two baselines (any change
of play shows there within a few turns). The test replays them: if one differs, either the
frozen copy was edited (undo that; freeze a new version instead) or the engine changed the
positions themselves (the stored position digests then differ too, and the golden list may
be regenerated with ``python -m tests.ai.test_frozen``, after checking why).
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from elgrande.ai import make_bot
from elgrande.rules import (
    GameConfig,
    State,
    apply,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    redact,
    resolve_chance,
    to_act,
)

GOLDEN = Path(__file__).with_name("frozen_moves.json")
# (players, game seed, plies of random play) for each stored position.
POSITIONS = [(2, 1, 12), (2, 2, 60), (3, 3, 25), (3, 4, 27), (4, 5, 0), (4, 6, 45),
             (4, 6, 153), (5, 8, 30), (5, 9, 84), (5, 10, 200)]
BOT_SEED = 7
# The stored whole game: players, rounds, chance seed, the two baselines' seeds.
GAME_PLAYERS, GAME_ROUNDS, GAME_CHANCE_SEED, GAME_BOT_SEEDS = 2, 6, 5, (1, 2)


def position(players: int, seed: int, plies: int) -> State:
    """The first position with a genuine choice at or after ``plies`` actions of seeded
    random play (chance steps do not count)."""
    rng = random.Random(f"frozen:{players}:{seed}")
    state = new_game(GameConfig(players=players))
    done = 0
    while not is_terminal(state):
        if is_chance(state):
            resolve_chance(state, rng)
            continue
        legal = legal_actions(state, to_act(state)[0])
        if done >= plies and len(legal) > 1:
            return state
        apply(state, rng.choice(legal))
        done += 1
    raise AssertionError(f"the game {players}/{seed} ended before ply {plies}")


def digest(state: State, seat: int) -> str:
    text = json.dumps(redact(state, seat).to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def baseline_move(players: int, seed: int, plies: int) -> dict[str, object]:
    state = position(players, seed, plies)
    seat = to_act(state)[0]
    action = make_bot("baseline", BOT_SEED).choose(state, seat)
    return {"players": players, "seed": seed, "plies": plies, "seat": seat,
            "phase": state.phase_name, "position": digest(state, seat), "action": str(action)}


def baseline_game() -> dict[str, object]:
    """A whole game between two baselines: its final scores and a digest of its actions."""
    bots = [make_bot("baseline", seed) for seed in GAME_BOT_SEEDS]
    rng = random.Random(GAME_CHANCE_SEED)
    state = new_game(GameConfig(players=GAME_PLAYERS, rounds=GAME_ROUNDS))
    actions = []
    while not is_terminal(state):
        if is_chance(state):
            resolve_chance(state, rng)
            continue
        seat = to_act(state)[0]
        action = bots[seat].choose(state, seat)
        actions.append(str(action))
        apply(state, action)
    text = "\n".join(actions)
    return {"players": GAME_PLAYERS, "rounds": GAME_ROUNDS, "chance_seed": GAME_CHANCE_SEED,
            "bot_seeds": list(GAME_BOT_SEEDS), "actions": len(actions),
            "scores": list(state.scores),
            "digest": hashlib.sha256(text.encode()).hexdigest()[:16]}


def stored() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(GOLDEN.read_text())
    return data


def test_the_golden_list_covers_the_decision_kinds() -> None:
    rows = stored()["moves"]
    assert [(r["players"], r["seed"], r["plies"]) for r in rows] == POSITIONS
    assert len({r["phase"] for r in rows}) >= 4


@pytest.mark.parametrize("players,seed,plies", POSITIONS)
def test_the_baseline_plays_its_stored_moves(players: int, seed: int, plies: int) -> None:
    rows = {(r["players"], r["seed"], r["plies"]): r for r in stored()["moves"]}
    want = rows[(players, seed, plies)]
    got = baseline_move(players, seed, plies)
    assert got["position"] == want["position"], "the engine reached another position"
    assert got == want


def test_the_baseline_plays_its_stored_game() -> None:
    assert baseline_game() == stored()["game"]


def test_the_baseline_keeps_its_randomness_under_another_name() -> None:
    # The registered name is only a label: both names are the same frozen bot.
    state = position(*POSITIONS[5])
    seat = to_act(state)[0]
    assert make_bot("hard-2026-12", 3).choose(state, seat) \
        == make_bot("baseline", 3).choose(state, seat)
    assert make_bot("baseline", 3).name == "baseline"


if __name__ == "__main__":  # regenerate: python -m tests.ai.test_frozen
    data = {"moves": [baseline_move(*p) for p in POSITIONS], "game": baseline_game()}
    GOLDEN.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {len(POSITIONS)} moves and a game to {GOLDEN}", file=sys.stderr)
