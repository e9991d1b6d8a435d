"""Information boundaries: round-card reveals and secret choices (seed 001)."""

from __future__ import annotations

import itertools
import random

import pytest

from elgrande.matches import (
    BoundaryReached,
    IllegalStep,
    Match,
    NothingToFinish,
    NothingToRedo,
    NothingToUndo,
    NotYourTurn,
    chance,
)
from elgrande.matches.draft import Draft
from elgrande.rules import CHANCE, GameConfig, is_chance, replay, to_act

from .match_helpers import at_secret_choice, clone, play_until, random_turn


def _draft_until_reveal(match: Match, rng: random.Random) -> int:
    """Play until a seat's draft reaches a chance step (a round-card reveal); that seat."""
    for _ in range(500):
        seat = to_act(match.state)[0]
        draft = match.draft(seat)
        while draft.may_step:
            draft.step(rng.choice(draft.legal()))
            if is_chance(draft.current):
                return seat
        match.finish(seat)
    raise AssertionError("no reveal reached")


def test_round_card_reveal_is_a_boundary_that_finish_makes_final() -> None:
    match = Match.new(GameConfig(players=3), seed="reveal")
    seat = _draft_until_reveal(match, random.Random(3))
    draft = match.draft(seat)
    assert draft.at_boundary and draft.legal() == []
    with pytest.raises(BoundaryReached):
        draft.step(draft.steps[-1])
    # Before Finish nothing was revealed: the seat may still take the step back.
    last = match.undo(seat)
    assert not is_chance(match.draft(seat).current)
    assert match.redo(seat) == last
    before = list(match.log)
    steps = list(match.draft(seat).steps)
    added = match.finish(seat)
    assert match.log[: len(before)] == before  # append-only
    assert [e.action for e in added[: len(steps)]] == steps
    reveals = added[len(steps):]
    assert reveals and all(e.action.seat == CHANCE for e in reveals)
    assert len({e.base_seq for e in added}) == 1  # one commit
    # Every draw is the seed's, re-derived position by position.
    state = replay(match.config, [e.action for e in match.log[: reveals[0].seq - 1]])
    for entry in reveals:
        assert chance.draw(match.seed, entry.seq, state) == entry.action
        state = replay(match.config, [e.action for e in match.log[: entry.seq]])
    with pytest.raises(NothingToUndo):  # no undo across the reveal
        match.undo(seat)
    assert not match.draft(seat).steps


def test_secret_choice_changed_before_confirming() -> None:
    match = at_secret_choice(4)
    seat = to_act(match.state)[0]
    options = match.draft(seat).legal()
    assert len(options) >= 2 and all(a.is_secret for a in options)
    match.step(seat, options[0])
    assert match.draft(seat).at_boundary
    with pytest.raises(BoundaryReached):
        match.step(seat, options[1])
    match.undo(seat)
    match.step(seat, str(options[1]))  # notation works as well
    view = match.seat_view(seat).to_dict()
    assert view["draft"]["steps"] == [str(options[1])]
    match.finish(seat)
    assert match.log[-1].action == options[1]
    assert seat not in to_act(match.state)
    with pytest.raises(NothingToUndo):
        match.undo(seat)


def _hidden_from(view: dict, seat: int) -> bool:
    """No other seat's secret choice appears in ``view``."""
    return all("secret_choice" not in p for p in view["view"]["player_state"] if p["seat"] != seat)


@pytest.mark.parametrize("players", [3, 4])
def test_last_confirmation_made_by_each_seat_in_turn(players: int) -> None:
    start = at_secret_choice(players, seed=f"last-{players}")
    choosers = to_act(start.state)
    assert len(choosers) >= 2
    choice = {p: start.draft(p).legal()[-1] for p in choosers}
    finals = []
    for order in itertools.permutations(choosers):
        match = clone(start)
        *first, last = order
        for p in first:
            match.step(p, choice[p])
            match.finish(p)
            assert to_act(match.state) == sorted(set(choosers) - set(first[: first.index(p) + 1]))
        match.step(last, choice[last])
        draft = match.draft(last)
        assert draft.at_boundary
        # The last choice is not confirmed yet: its view still hides the others' choices.
        view = match.seat_view(last).to_dict()
        assert _hidden_from(view, last)
        assert view["view"]["player_state"][last]["secret_choice"] == str(choice[last]).split()[-1]
        for p in first:
            assert _hidden_from(match.seat_view(p).to_dict(), p)
        match.finish(last)
        resolved = match.seat_view(None).to_dict()["view"]["player_state"]
        assert not any(p["secret_chosen"] for p in resolved)  # all revealed and resolved
        with pytest.raises(NothingToUndo):  # no undo across the last confirmation
            match.undo(last)
        finals.append(match.state.to_dict())
        assert replay(match.config, match.actions) == match.state
    assert all(f == finals[0] for f in finals)  # the order of confirmation does not matter


def test_last_choosers_view_does_not_depend_on_the_others_choices() -> None:
    start = at_secret_choice(4, seed="worlds")
    first, last, *_ = to_act(start.state)
    options = start.draft(first).legal()
    assert len(options) >= 2
    views = []
    for pick in options[:2]:
        match = clone(start)
        for p in to_act(start.state):
            if p not in (first, last):
                match.step(p, match.draft(p).legal()[0])
                match.finish(p)
        match.step(first, pick)
        match.finish(first)
        match.step(last, match.draft(last).legal()[0])
        views.append((match.seat_view(last).to_dict(), match.redacted_state(last).to_dict()))
    assert views[0] == views[1]  # the view, and the state a bot would be given


def test_other_seats_and_spectators_never_see_a_draft() -> None:
    match = at_secret_choice(4, seed="drafts")
    a, b, *_ = to_act(match.state)
    before = {s: match.seat_view(s).to_dict() for s in (None, *range(4)) if s != a}
    match.step(a, match.draft(a).legal()[0])
    after = {s: match.seat_view(s).to_dict() for s in before}
    assert before == after
    assert match.seat_view(a).to_dict()["draft"]["steps"]


def test_secret_drafts_are_rebased_when_another_seat_commits() -> None:
    match = at_secret_choice(4, seed="rebase")
    a, b, *_ = to_act(match.state)
    choice_b = match.draft(b).legal()[0]
    match.step(b, choice_b)
    match.step(a, match.draft(a).legal()[0])
    match.finish(a)
    draft = match.draft(b)
    assert draft.base_seq == match.seq and draft.steps == [choice_b]
    assert draft.current == replay(match.config, [*match.actions, choice_b])


def test_rebase_drops_a_step_that_is_no_longer_legal() -> None:
    match = Match.new(GameConfig(players=3), seed="drop")
    seat = to_act(match.state)[0]
    rng = random.Random(5)
    draft = Draft(seat, match.seq, match.state)
    draft.step(rng.choice(draft.legal()))
    draft.undo()
    random_turn(match, rng, seat)  # the seat's turn is over in the committed log
    draft.steps, draft.redo_stack = [match.log[-1].action], [match.log[-1].action]
    assert draft.rebase(match.seq, match.state) == [match.log[-1].action]
    assert draft.steps == [] and draft.redo_stack == []


def test_refusals_change_nothing() -> None:
    match = Match.new(GameConfig(players=3), seed="refuse")
    seat = to_act(match.state)[0]
    other = (seat + 1) % 3
    legal = match.draft(seat).legal()
    with pytest.raises(NotYourTurn):
        match.step(other, match.draft(other).legal()[0] if match.draft(other).legal() else legal[0])
    with pytest.raises(IllegalStep):
        match.step(seat, "p9 fly away")
    with pytest.raises(IllegalStep):  # another seat's action
        match.step(seat, str(legal[0]).replace(f"p{seat}", f"p{other}", 1))
    for op in (match.undo, match.redo):
        with pytest.raises((NothingToUndo, NothingToRedo)):
            op(seat)
    with pytest.raises(NothingToFinish):
        match.finish(seat)
    for bad in (3, -1, CHANCE):
        with pytest.raises(NotYourTurn):
            match.step(bad, legal[0])
    assert match.draft(seat).steps == [] and match.seq == len(match.log)


def test_a_new_step_clears_redo() -> None:
    match = Match.new(GameConfig(players=3), seed="redo")
    match = play_until(match, random.Random(1), lambda s: True)
    seat = to_act(match.state)[0]
    first = match.draft(seat).legal()
    match.step(seat, first[0])
    match.undo(seat)
    assert match.seat_view(seat).to_dict()["draft"]["redo"] == [str(first[0])]
    match.step(seat, first[-1])
    with pytest.raises(NothingToRedo):
        match.redo(seat)
