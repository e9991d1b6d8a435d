"""The bots' search compiled with the engine (docs/compiled-engine.md) chooses exactly as
the pure source does.

The pure engine and bots are the reference. Both sides play the same seeded games, each in
a process of its own (``ELGRANDE_ENGINE=pure`` and ``=compiled``; each reports where its
bots' modules came from): the live ISMCTS bot, the frozen baseline's copy of it, the
heuristic bot at two levels, the random bot, the search with widened bids (and with bid
playouts to the next general scoring), the search whose playouts bid as the heuristic
does and the search judged by the learned evaluation share tables under the default rules
and the publisher's (with the Veto). Every decision is compared, and with it the
evaluation and the learned win chances of every position the game passes through, to the
last bit of every float.

Run by hand: ``python -m tests.ai.test_compiled_bots`` prints what one side records.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

from elgrande.rules import compiled
from tests.rules.test_compiled import fresh_build  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parents[2]

# (label, GameConfig.to_dict() form, seed, bots by seat). Small search budgets: the pure
# side plays every decision too. "frozen:N" is the frozen baseline's copy with N iterations,
# "widened:N" the search with widened bids (hard-bid's) and N iterations, "horizon:N" the
# same with bid playouts to the next general scoring (hard-horizon's), "pbid:N" the search
# whose playouts bid as the heuristic does (hard-pbid's).
GAMES: list[tuple[str, dict[str, Any], int, list[str]]] = [
    ("yucata-4p", {"players": 4}, 1, ["ismcts:200", "frozen:200", "medium", "widened:200"]),
    ("box-5p-6-rounds", {"players": 5, "rounds": 6, "options": {"rule_set": "box"}}, 2,
     ["frozen:120", "easy", "pbid:120", "random", "medium"]),
    ("yucata-2p-6-rounds", {"players": 2, "rounds": 6}, 3, ["medium", "horizon:300"]),
    # The learned evaluation (value.py) judging a search's playouts.
    # With playouts cut at the next turn (hard-turn's) in the third seat.
    ("yucata-3p-6-rounds", {"players": 3, "rounds": 6}, 4,
     ["learned:150", "medium", "hard-turn:150"]),
    # The search over whole-turn plans (hard-plan's), judged by the learned evaluation.
    ("yucata-3p-6-rounds-plans", {"players": 3, "rounds": 6}, 5, ["plan:150", "medium", "easy"]),
]


def _bot(name: str, seed: int) -> Any:
    from elgrande.ai import make_bot
    from elgrande.ai.frozen.hard_2026_12 import IsmctsBot as FrozenIsmcts

    base, _, budget = name.partition(":")
    if base == "frozen":
        return FrozenIsmcts(seed, iterations=int(budget))
    if base == "widened":
        from elgrande.ai.ismcts import IsmctsBot
        return IsmctsBot(seed, iterations=int(budget), bid_widening=True)
    if base == "horizon":
        from elgrande.ai.ismcts import IsmctsBot
        return IsmctsBot(seed, iterations=int(budget), bid_widening=True, bid_horizon=True)
    if base == "plan":
        from elgrande.ai.plans import PlanBot
        from elgrande.ai.value import load_model
        return PlanBot(seed, iterations=int(budget), exploration=0.7, value=load_model())
    if base == "pbid":
        from elgrande.ai.ismcts import IsmctsBot
        return IsmctsBot(seed, iterations=int(budget), greedy_bids=True)
    return make_bot(name, seed)


def _game(config_data: dict[str, Any], seed: int, bots: list[str]) -> list[list[Any]]:
    """Play one game: for every decision, the seat, its choice and the evaluation of the
    position it was made in (floats as their exact repr)."""
    from elgrande.ai.evaluate import evaluate
    from elgrande.ai.frozen.hard_2026_12.evaluate import evaluate as frozen_evaluate
    from elgrande.ai.value import load_model
    from elgrande.rules import (
        GameConfig,
        apply,
        is_chance,
        is_terminal,
        new_game,
        sample_chance,
        to_act,
    )

    players = [_bot(name, seed * 10 + seat) for seat, name in enumerate(bots)]
    rng = random.Random(seed)
    s = new_game(GameConfig.from_dict(config_data))
    records: list[list[Any]] = []
    while not is_terminal(s):
        if is_chance(s):
            apply(s, sample_chance(s, rng))
            continue
        seat = to_act(s)[0]
        action = players[seat].choose(s, seat)
        records.append([seat, str(action), [repr(v) for v in evaluate(s)],
                        [repr(v) for v in frozen_evaluate(s)],
                        [repr(v) for v in load_model().chances(s)]])
        apply(s, action)
    records.append(["end", s.scores, [repr(v) for v in evaluate(s)]])
    return records


def trace() -> dict[str, Any]:
    """What this process's bots record: the engine, the files of the bots' modules, and
    every decision of every game."""
    import elgrande.rules as rules
    from elgrande.ai import base, evaluate, heuristic, ismcts, plans, value
    from elgrande.ai.frozen.hard_2026_12 import evaluate as frozen_evaluate
    from elgrande.ai.frozen.hard_2026_12 import ismcts as frozen_ismcts

    modules = (base, evaluate, heuristic, ismcts, plans, value, frozen_evaluate, frozen_ismcts)
    return {"engine": rules.ENGINE, "files": [m.__file__ for m in modules],
            "games": {label: _game(config, seed, bots) for label, config, seed, bots in GAMES}}


def _run(engine: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.ai.test_compiled_bots"], cwd=ROOT, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "ELGRANDE_ENGINE": engine})


def _result(process: subprocess.Popen[str]) -> Any:
    out, err = process.communicate(timeout=900)
    assert process.returncode == 0, err
    return json.loads(out)


def test_compiled_bots_choose_as_the_pure_ones(fresh_build: Path) -> None:  # noqa: F811
    pure, native = _run("pure"), _run("compiled")  # side by side: one per core
    reference, result = _result(pure), _result(native)
    # Each side really ran the bots it was asked for: one module of each kind.
    assert reference["engine"] == "pure"
    assert all(f.endswith(".py") and f.startswith(str(compiled.SOURCE_DIR.parent))
               for f in reference["files"])
    assert result["engine"] == "compiled"
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    assert all(f.startswith(str(fresh_build.parents[1])) and f.endswith(suffix)
               for f in result["files"])
    decisions = 0
    for label, _config, _seed, _bots in GAMES:
        expected, got = reference["games"][label], result["games"][label]
        decisions += len(expected)
        for step, (a, b) in enumerate(zip(expected, got, strict=False)):
            assert a == b, f"{label}: compiled and pure bots differ at decision {step}"
        assert len(expected) == len(got), label
    assert decisions > 300


if __name__ == "__main__":
    print(json.dumps(trace()))
