"""Veto windows (box rules, rules.md §12.1) in the turn framework: the step that opens a
window is committed with it (the active player cannot take back what the holder is asked
about), the holder's answer is a whole turn, and the active player then goes on."""

from __future__ import annotations

import pytest

from elgrande.matches import (
    BoundaryReached,
    GameMovedOn,
    MatchStore,
    NothingToUndo,
    NotYourTurn,
)
from elgrande.rules import to_act
from elgrande.rules.state import VETO

from .match_helpers import BOX, before_window


def test_the_step_that_opens_a_window_is_committed_with_the_turn() -> None:
    match, active, turn = before_window()
    for step in turn[:-1]:
        match.step(active, step)
    seq = match.seq
    assert match.draft(active).steps and not match.draft(active).at_boundary
    match.step(active, turn[-1])
    # Committed: the whole turn, up to the window, is in the log now.
    assert match.seq == seq + len(turn)
    assert [str(e.action) for e in match.log[seq:]] == turn
    assert match.state.phase == VETO
    holder = to_act(match.state)[0]
    assert holder != active
    # The active player can no longer take it back, nor step: the holder decides.
    with pytest.raises(NothingToUndo):
        match.undo(active)
    assert match.seat_view(active).legal == []
    with pytest.raises(NotYourTurn):
        match.step(active, turn[-1])
    # The holder sees what was declared and is offered the window's two answers.
    view = match.seat_view(holder)
    assert view.legal == [f"p{holder} veto", f"p{holder} pass"]
    assert view.view["veto"]["window"] is not None


@pytest.mark.parametrize("answer", ["pass", "veto"])
def test_the_holders_answer_is_a_whole_turn_then_the_active_player_goes_on(answer: str) -> None:
    match, active, turn = before_window()
    for step in turn:
        match.step(active, step)
    while match.state.phase == VETO:
        holder = to_act(match.state)[0]
        seq = match.seq
        match.step(holder, f"p{holder} {answer}")
        assert match.seq == seq + 1 and holder not in match.drafts  # committed at once
        assert str(match.log[seq].action) == f"p{holder} {answer}"
        if answer == "veto":
            break
    if answer == "veto":
        assert match.state.phase != VETO
    # The turn goes back to the active player (or on, if the special action ended his
    # turn, e.g. nothing left to do): never to the holder.
    if not match.over and to_act(match.state) == [active]:
        assert match.seat_view(active).legal


def test_a_holder_cannot_answer_before_the_active_player_reached_the_window() -> None:
    match, active, turn = before_window()
    for step in turn[:-1]:
        match.step(active, step)
    holder = next(s for s in range(BOX.players) if s != active)
    with pytest.raises(NotYourTurn):
        match.step(holder, f"p{holder} pass")


def test_a_drafted_step_reaching_a_window_then_finished_is_the_same_commit() -> None:
    """Entered step by step in the draft (as bots' play_turn does) and finished: the
    same log as the step that commits at once."""
    one, active, turn = before_window()
    two, _, _ = before_window()
    for step in turn:
        one.step(active, step)
    draft = two.draft(active)
    for step in turn:
        draft.step(step)
    assert draft.at_boundary and draft.commits_at_once
    with pytest.raises(BoundaryReached):
        draft.step(turn[-1])
    two.finish(active)
    assert [str(e.action) for e in one.log] == [str(e.action) for e in two.log]


def test_store_commits_at_the_window_and_publishes_a_commit(db_url: str) -> None:
    match, active, turn = before_window()
    store = MatchStore(db_url)
    try:
        mid = store.add(match)
        events: list[str] = []
        store.broker.subscribe(lambda e: events.append(e.kind))
        for step in turn[:-1]:
            store.step(mid, active, step)
        seq = store.view(mid, None).seq
        view = store.step(mid, active, turn[-1], base_seq=seq)
        assert view.seq == seq + len(turn) and view.draft is not None
        assert view.draft["steps"] == [] and view.legal == []
        assert events[-1] == "commit"
        holder = store.view(mid, None).to_act[0]
        assert store.view(mid, holder).legal == [f"p{holder} veto", f"p{holder} pass"]
        # The holder's answer, as a step, is committed at once too; a stale one is refused.
        with pytest.raises(GameMovedOn):
            store.step(mid, holder, f"p{holder} pass", base_seq=seq)
        after = store.step(mid, holder, f"p{holder} pass", base_seq=view.seq)
        assert after.seq == view.seq + 1 and after.draft == {
            "base_seq": after.seq, "steps": [], "redo": [], "can_undo": False,
            "can_redo": False, "can_finish": False, "at_boundary": False}
        assert store.load(mid).drafts == {}
        with pytest.raises(NothingToUndo):
            store.undo(mid, active)
    finally:
        store.close()


def test_store_play_turn_of_a_bot_ending_at_a_window(db_url: str) -> None:
    match, active, turn = before_window()
    store = MatchStore(db_url)
    try:
        mid = store.add(match)
        seq = store.view(mid, None).seq
        after = store.play_turn(mid, active, turn, base_seq=seq, fresh=True)
        assert after.seq == seq + len(turn) and after.state.phase == VETO
        holder = to_act(after.state)[0]
        answered = store.play_turn(mid, holder, [f"p{holder} pass"], base_seq=after.seq)
        assert answered.seq == after.seq + 1
    finally:
        store.close()
