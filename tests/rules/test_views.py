"""Views hide exactly what a seat may not see; the engine imports only the standard library."""

from __future__ import annotations

import ast
import itertools
import json
import random
import sys
from pathlib import Path

import elgrande.rules as rules
from elgrande.rules import (
    GameConfig,
    State,
    apply,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    redact,
    sample_chance,
    to_act,
    view,
)
from elgrande.rules.engine import _secret_choices


def _secret_states(players: int, seed: int, wanted: int) -> list[State]:
    """States of a seeded random game at secret choices where some seat has already chosen."""
    rng = random.Random(seed)
    state = new_game(GameConfig(players=players))
    found: list[State] = []
    while not is_terminal(state) and len(found) < wanted:
        if state.phase_name == "secret" and any(v >= 0 for v in state.secret):
            found.append(state.copy())
        options = legal_actions(state)
        action = sample_chance(state, rng) if is_chance(state) else options[rng.randrange(len(options))]
        apply(state, action)
    return found


def _variants(state: State) -> list[State]:
    """The same state with every other combination of the choices already made."""
    chosen = [p for p in range(state.n) if state.secret[p] >= 0]
    options = [_secret_choices(state, p) for p in chosen]
    out = []
    for combo in itertools.product(*options):
        variant = state.copy()
        for p, region in zip(chosen, combo, strict=True):
            variant.secret[p] = region
        variant.legal_cache = None
        out.append(variant)
    return out


def test_views_do_not_depend_on_others_unrevealed_choices() -> None:
    checked = 0
    for players in (2, 3, 4, 5):
        for seed in range(12):
            for state in _secret_states(players, seed, 3):
                variants = _variants(state)
                for seat in [*range(players), None]:
                    seen = set()
                    for variant in variants:
                        if seat is not None and variant.secret[seat] != state.secret[seat]:
                            continue  # the seat's own choice is its to see
                        seen.add(json.dumps(view(variant, seat), sort_keys=True))
                        assert redact(variant, seat) == redact(state, seat)
                    assert len(seen) == 1, f"seat {seat} can tell others' choices apart"
                    checked += 1
    assert checked > 50


def test_own_choice_visible_and_others_only_as_chosen() -> None:
    state = _secret_states(4, 3, 1)[0]
    chooser = next(p for p in range(4) if state.secret[p] >= 0)
    own = view(state, chooser)["player_state"][chooser]
    assert own["secret_chosen"] and "secret_choice" in own
    for seat in [*(p for p in range(4) if p != chooser), None]:
        entry = view(state, seat)["player_state"][chooser]
        assert entry["secret_chosen"] is True
        assert "secret_choice" not in entry
    # A redacted state shows the others' choices as still pending: a bot must guess them.
    other = next(p for p in range(4) if p != chooser)
    assert chooser in to_act(redact(state, other))


def test_view_lists_legal_actions_only_for_the_seat_to_act() -> None:
    rng = random.Random(9)
    state = new_game(GameConfig(players=3))
    while is_chance(state):
        apply(state, sample_chance(state, rng))
    actor = to_act(state)[0]
    assert view(state, actor)["legal_actions"] == [str(a) for a in legal_actions(state, actor)]
    for seat in (p for p in range(3) if p != actor):
        assert view(state, seat)["legal_actions"] == []
    assert view(state, None)["legal_actions"] == []


def test_state_has_no_stack_order() -> None:
    # Two games with the same history but different random sources for what comes next are
    # identical states: nothing about future reveals is stored.
    config = GameConfig(players=4)
    a, b = new_game(config), new_game(config)
    rng = random.Random(5)
    while not a.phase_name == "bid":
        action = sample_chance(a, rng)
        apply(a, action)
        apply(b, action)
    assert a == b and a.to_dict() == b.to_dict()
    # What the state knows of the stacks is how many copies of each kind are left: exactly the
    # initial copies minus the cards revealed so far, which every player has seen.
    revealed = [rules.CARDS.index(c) for c in (rules.CARDS[i] for i in a.available) if c.stack < 5]
    expected = [c.copies - revealed.count(c.index) for c in rules.CARDS]
    assert a.copies == expected


def test_rules_package_imports_only_the_standard_library() -> None:
    package = Path(rules.__file__).parent
    stdlib = set(sys.stdlib_module_names)
    for path in package.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative import inside the package
                    continue
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in stdlib or top == "__future__", f"{path.name} imports {name}"
