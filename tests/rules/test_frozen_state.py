"""A state frozen into tuples (for the caches) thaws back to an equal, independent state."""

from __future__ import annotations

import gc
import random

import pytest

from elgrande.rules import State, apply, legal_actions, to_act
from tests.ai.positions import positions_by_phase


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_phase_thaws_back_equal_and_plays_on_alike(players: int) -> None:
    positions = positions_by_phase(players)
    assert len(positions) > 15
    for phase, state in positions.items():
        thawed = State.thawed(state.frozen())
        assert thawed == state and repr(thawed) == repr(state), phase
        seat = to_act(state)[0]
        assert legal_actions(thawed, seat) == legal_actions(state, seat), phase
        action = random.Random(phase).choice(legal_actions(state, seat))
        a, b = state.copy(), thawed
        apply(a, action)
        apply(b, action)
        assert a == b, phase


def test_a_thawed_state_shares_no_list_with_its_frozen_form() -> None:
    state = positions_by_phase(3)["deploy"]
    frozen = state.frozen()
    first = State.thawed(frozen)
    first.cab[0] += 5
    first.scores.append(1)
    assert State.thawed(frozen) == state  # the frozen form is untouched


def test_the_collector_stops_tracking_a_frozen_states_numbers() -> None:
    frozen = positions_by_phase(3)["deploy"].frozen()
    # A collection untracks a tuple whose items are all untracked: the inner ones first.
    gc.collect()
    gc.collect()
    scalars, lists = frozen[3], frozen[4]
    assert isinstance(scalars, tuple) and isinstance(lists, tuple)
    assert not gc.is_tracked(scalars) and not gc.is_tracked(lists)
    assert not any(gc.is_tracked(seq) for seq in lists)
