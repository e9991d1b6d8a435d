"""Bots choose legal actions everywhere, see only their seat's information, and replay exactly."""

from __future__ import annotations

import pytest

from elgrande.ai import make_bot
from elgrande.ai.base import RandomBot
from elgrande.ai.tournament import GameSpec, play_game
from elgrande.rules import State, apply, legal_actions, redact, to_act

from .positions import DECISION_PHASES, multi_secret_position, positions_by_phase

# Small budgets: these tests check behaviour, not strength.
TEST_BOTS = ("random", "heuristic", "easy", "ismcts:40")


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_bot_returns_a_legal_action_in_every_phase(players: int) -> None:
    positions = positions_by_phase(players)
    assert set(positions) == DECISION_PHASES
    for phase, state in sorted(positions.items()):
        seat = to_act(state)[0]
        legal = legal_actions(state, seat)
        for name in TEST_BOTS:
            before = state.to_dict()
            action = make_bot(name, seed=1).choose(state, seat)
            assert action in legal, (players, phase, name, str(action))
            assert state.to_dict() == before, f"{name} changed the position it was given"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("name", ["random", "heuristic", "easy", "ismcts:15"])
def test_whole_games_finish_with_legal_play(players: int, name: str) -> None:
    # play_game applies every chosen action with the engine, which rejects illegal ones.
    spec = GameSpec(0, tuple([name] * players), chance_seed=players, bot_seeds=tuple(range(players)))
    record = play_game(spec)
    assert len(record.scores) == players
    assert max(record.scores) > 0


def _other_secret_variants(players: int) -> tuple[State, int, list[State]]:
    """A secret step; seat ``me`` has not chosen; the others' choices vary (hidden from me)."""
    state = multi_secret_position(players)
    me, *others = to_act(state)
    variants = []
    for choice_index in range(3):
        s = state.copy()
        s.legal_cache = None
        for p in others:
            options = legal_actions(s, p)
            apply(s, options[(choice_index + p) % len(options)])
        variants.append(s)
    assert len({tuple(v.secret) for v in variants}) > 1, "variants must differ in hidden choices"
    return state, me, variants


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("name", ["random", "heuristic", "ismcts:60"])
def test_choice_ignores_information_hidden_from_the_seat(players: int, name: str) -> None:
    _state, me, variants = _other_secret_variants(players)
    choices = {str(make_bot(name, seed=7).choose(v, me)) for v in variants}
    assert len(choices) == 1, choices
    # Given the full state or the redacted one, the bot decides the same.
    full = variants[0]
    assert make_bot(name, seed=7).choose(full, me) == make_bot(name, seed=7).choose(
        redact(full, me), me)


def test_bots_only_ever_look_at_redacted_states(monkeypatch: pytest.MonkeyPatch) -> None:
    _state, me, variants = _other_secret_variants(4)
    seen = []
    original = RandomBot.decide

    def spy(self, visible, seat, legal, rng):
        seen.append(visible.secret[:])
        return original(self, visible, seat, legal, rng)

    monkeypatch.setattr(RandomBot, "decide", spy)
    RandomBot(3).choose(variants[0], me)
    assert seen and all(v < 0 for p, v in enumerate(seen[0]) if p != me)


@pytest.mark.parametrize("players", [2, 4])
def test_same_seed_same_game(players: int) -> None:
    bots = ("heuristic", "ismcts:30", "easy", "random")[:players]
    spec = GameSpec(3, bots, chance_seed=11, bot_seeds=tuple(100 + s for s in range(players)))
    first, second = play_game(spec), play_game(spec)
    assert first.scores == second.scores
    other = GameSpec(3, bots, chance_seed=11, bot_seeds=tuple(200 + s for s in range(players)))
    # A different bot seed may change the game (it does for the random bot here).
    assert play_game(other).bots == bots


def test_unknown_bot_names_are_rejected() -> None:
    for bad in ("nobody", "ismcts:0", "ismcts:x", "heuristic:5"):
        with pytest.raises(ValueError):
            make_bot(bad)
