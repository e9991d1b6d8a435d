"""A seat's private draft: the steps taken since its last commit, with undo and redo.

The draft keeps a snapshot after each step (``State.copy()`` is cheap), so undo is a pop.
A seat may add steps while, in its draft, it may act; the step that hands play to
anyone else, reaches a chance step or the end, or makes a secret choice is an
information *boundary*: after it only Undo or Finish are possible.

A veto window (box rules) is a boundary that is also a whole turn: the step that opens
one, in the middle of the active player's turn, is committed with it, so the holder is
asked about what is on the table and the active player can no longer take it back; and
a holder's answer (``veto`` / ``pass``) is committed as his turn
(``Draft.commits_at_once``).
"""

from __future__ import annotations

from elgrande.rules import (
    Action,
    IllegalAction,
    State,
    apply,
    is_chance,
    is_terminal,
    legal_actions,
    parse_action,
    redact,
    to_act,
)
from elgrande.rules.state import VETO

from .errors import BoundaryReached, IllegalStep, NothingToRedo, NothingToUndo, NotYourTurn


def to_action(action: Action | str) -> Action:
    """Accept an ``Action`` or its notation; bad text is an ``IllegalStep``."""
    if isinstance(action, str):
        try:
            return parse_action(action)
        except ValueError as exc:
            raise IllegalStep("not_an_action", {"action": action}) from exc
    return action


def crosses_boundary(seat: int, action: Action, after: State) -> bool:
    """True if, after ``action`` by ``seat``, the seat must stop and finish."""
    return (
        action.is_secret
        or is_chance(after)
        or is_terminal(after)
        or to_act(after) != [seat]
    )


VETO_ANSWERS = ("veto", "pass")


def commits_at_once(seat: int, action: Action, after: State) -> bool:
    """True if the step is a whole turn of its own: it answers a veto window, or it
    opens one (the state after it asks another seat: an information boundary that the
    active player may not undo once the holder has been asked)."""
    return action.kind in VETO_ANSWERS or (after.phase == VETO and to_act(after) != [seat])


class Draft:
    """Steps of one seat on top of the committed state at ``base_seq``."""

    def __init__(self, seat: int, base_seq: int, base: State) -> None:
        self.seat = seat
        self.base_seq = base_seq
        self.base = base  # never mutated: every step applies to a copy
        self.steps: list[Action] = []
        self.states: list[State] = []  # states[i] is the state after steps[i]
        self.redo_stack: list[Action] = []  # next redo is the last element

    @property
    def current(self) -> State:
        return self.states[-1] if self.states else self.base

    @property
    def previous(self) -> State:
        """The state before the last step."""
        return self.states[-2] if len(self.states) > 1 else self.base

    @property
    def at_boundary(self) -> bool:
        return bool(self.steps) and crosses_boundary(self.seat, self.steps[-1], self.current)

    @property
    def commits_at_once(self) -> bool:
        """The last step opens or answers a veto window: it is committed at once."""
        return bool(self.steps) and commits_at_once(self.seat, self.steps[-1], self.current)

    @property
    def may_step(self) -> bool:
        state = self.current
        return (
            not self.at_boundary
            and not is_terminal(state)
            and not is_chance(state)
            and self.seat in to_act(state)
        )

    def legal(self) -> list[Action]:
        """The steps open to the seat now (empty when it may not step)."""
        return legal_actions(self.current, self.seat) if self.may_step else []

    def step(self, action: Action | str, *, keep_redo: bool = False) -> Action:
        action = to_action(action)
        if self.at_boundary:
            raise BoundaryReached(
                f"seat {self.seat} reached an information boundary: only undo or finish"
            )
        if not self.may_step:
            raise NotYourTurn(f"seat {self.seat} may not act now")
        if action.seat != self.seat:  # the engine would accept it: another seat may act too
            raise IllegalStep("not_your_decision", {
                "action": str(action), "seat": action.seat, "to_act": [self.seat],
                "phase": self.current.phase_name,
            })
        after = self.current.copy()
        try:
            apply(after, action)
        except IllegalAction as exc:
            raise IllegalStep(exc.code, exc.params) from exc
        self.steps.append(action)
        self.states.append(after)
        if not keep_redo:
            self.redo_stack.clear()
        return action

    def undo(self) -> Action:
        if not self.steps:
            raise NothingToUndo(f"seat {self.seat} has no step to undo")
        action = self.steps.pop()
        self.states.pop()
        self.redo_stack.append(action)
        return action

    def redo(self) -> Action:
        if not self.redo_stack:
            raise NothingToRedo(f"seat {self.seat} has no step to redo")
        action = self.redo_stack[-1]
        try:
            self.step(action, keep_redo=True)
        except IllegalStep:
            self.redo_stack.clear()  # it no longer fits (the draft was rebased)
            raise
        self.redo_stack.pop()
        return action

    def rebase(self, base_seq: int, base: State) -> list[Action]:
        """Replay the steps on a new committed state; returns the steps dropped.

        A step that is no longer legal is dropped with everything after it (those were
        built on it), and then the redo list too.
        """
        steps = self.steps
        self.base_seq, self.base, self.steps, self.states = base_seq, base, [], []
        for i, action in enumerate(steps):
            try:
                self.step(action, keep_redo=True)
            except (IllegalStep, NotYourTurn, BoundaryReached):
                self.redo_stack.clear()
                return steps[i:]
        return []

    def shown_state(self) -> State:
        """The state the seat is shown: its draft, minus what it must not learn yet.

        A secret choice that completes a set of secret choices resolves it in the true
        state, revealing the others' choices. Until the seat confirms, it is shown its
        choice applied to a copy without the other seats' unrevealed choices instead.
        """
        if not self.steps or not self.steps[-1].is_secret:
            return self.current
        before = self.previous
        if to_act(before) != [self.seat]:
            return self.current  # others still choose: nothing was resolved
        shown = redact(before, self.seat)
        try:
            apply(shown, self.steps[-1])
        except IllegalAction:
            return before
        return shown


def draft_version(draft: Draft | None) -> str:
    """Names a draft's content on its committed base ("" for none or an empty one): two
    drafts with one version show the same."""
    if draft is None or (not draft.steps and not draft.redo_stack):
        return ""
    return (f"{draft.base_seq}|{';'.join(map(str, draft.steps))}"
            f"|{';'.join(map(str, draft.redo_stack))}")
