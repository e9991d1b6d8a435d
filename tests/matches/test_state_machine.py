"""A Hypothesis state machine over step, undo, redo and finish for several seats.

At every step: each draft equals the replay of its base plus its steps, the committed
state equals the replay of the log, and no seat's view depends on another seat's draft
or shows another seat's unrevealed secret choice.
"""

from __future__ import annotations

import random
from functools import cache

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from elgrande.matches import Match, MatchError, chance
from elgrande.rules import CHANCE, GameConfig, all_actions, replay, to_act

from .match_helpers import at_secret_choice, clone


@cache
def starts() -> list[Match]:
    return [
        Match.new(GameConfig(players=3, rounds=6), seed="machine-3"),
        at_secret_choice(4, seed="machine-secret-4"),
        at_secret_choice(3, seed="machine-secret-3"),
    ]


@cache
def actions_of(seat: int) -> list:
    return [a for a in all_actions() if a.seat == seat]


class TurnFramework(RuleBasedStateMachine):
    match: Match

    @initialize(which=st.integers(0, 2))
    def start(self, which: int) -> None:
        self.match = clone(starts()[which])
        self.n = self.match.config.players
        self.redo: dict[int, list] = {p: [] for p in range(self.n)}

    def _seat(self, seat: int) -> int:
        """Mostly a seat that is to act or holds a draft, sometimes any seat."""
        acting = sorted(set(to_act(self.match.state)) | set(self.match.drafts))
        acting = [p for p in acting if p >= 0]
        if seat < 7 and acting:
            return acting[seat % len(acting)]
        return seat % self.n

    @rule(seat=st.integers(0, 9), pick=st.integers(0, 10**6))
    def play_to_boundary(self, seat: int, pick: int) -> None:
        seat = self._seat(seat)
        rng = random.Random(pick)
        while legal := self.match.draft(seat).legal():
            self.match.step(seat, rng.choice(legal))
            self.redo[seat] = []

    @rule(seat=st.integers(0, 9), pick=st.integers(0, 10**6), prefer_legal=st.booleans())
    def step(self, seat: int, pick: int, prefer_legal: bool) -> None:
        seat = self._seat(seat)
        draft = self.match.draft(seat)
        legal = draft.legal()
        if legal and prefer_legal:
            action = legal[pick % len(legal)]
            self.match.step(seat, action)
            event("secret step" if action.is_secret else "step")
            assert self.match.draft(seat).steps[-1] == action
            self.redo[seat] = []
            return
        action = actions_of(seat)[pick % len(actions_of(seat))]
        before = list(draft.steps)
        try:
            self.match.step(seat, action)
        except MatchError:
            assert self.match.draft(seat).steps == before  # a refusal changes nothing
        else:
            assert action in legal
            self.redo[seat] = []

    @rule(seat=st.integers(0, 9))
    def undo(self, seat: int) -> None:
        seat = self._seat(seat)
        steps = list(self.match.draft(seat).steps)
        try:
            undone = self.match.undo(seat)
        except MatchError:
            assert not steps
        else:
            assert undone == steps[-1]
            self.redo[seat].append(undone)

    @rule(seat=st.integers(0, 9))
    def redo_step(self, seat: int) -> None:
        seat = self._seat(seat)
        try:
            redone = self.match.redo(seat)
        except MatchError:
            self.redo[seat] = list(self.match.draft(seat).redo_stack)
        else:
            assert redone == self.redo[seat].pop()

    @rule(seat=st.integers(0, 9))
    def finish(self, seat: int) -> None:
        seat = self._seat(seat)
        steps = list(self.match.draft(seat).steps)
        log_before = list(self.match.log)
        others = {p: list(d.steps) for p, d in self.match.drafts.items() if p != seat}
        try:
            added = self.match.finish(seat)
        except MatchError:
            assert not steps
            return
        event("finish with chance" if len(added) > len(steps) else "finish")
        if any(a.is_secret for a in steps):
            event("secret finish")
        assert self.match.log[: len(log_before)] == log_before
        assert [e.action for e in added[: len(steps)]] == steps
        for entry in added[len(steps):]:
            assert entry.action.seat == CHANCE
        self.redo[seat] = []
        for p, old in others.items():
            kept = self.match.draft(p).steps
            assert kept == old[: len(kept)]  # rebased: a prefix survives
            if kept != old:
                self.redo[p] = []
            self.redo[p] = list(self.match.draft(p).redo_stack)

    @invariant()
    def log_replays_to_the_committed_state(self) -> None:
        assert replay(self.match.config, self.match.actions) == self.match.state

    @invariant()
    def drafts_are_their_base_plus_steps(self) -> None:
        for seat, draft in self.match.drafts.items():
            assert draft.base_seq == self.match.seq
            assert len(draft.states) == len(draft.steps)
            expected = replay(self.match.config, [*self.match.actions, *draft.steps])
            assert draft.current == expected
            assert draft.redo_stack == self.redo[seat]

    @invariant()
    def views_hold_no_other_seats_draft_or_secret(self) -> None:
        drafts = self.match.drafts
        try:
            for seat in [None, *range(self.n)]:
                seen = self.match.seat_view(seat).to_dict()
                own = {seat: drafts[seat]} if seat in drafts else {}
                self.match.drafts = own
                alone = self.match.seat_view(seat).to_dict()
                self.match.drafts = drafts
                assert seen == alone
                for p in seen["view"]["player_state"]:
                    if p["seat"] != seat:
                        assert "secret_choice" not in p
        finally:
            self.match.drafts = drafts

    def teardown(self) -> None:
        if not hasattr(self, "match"):
            return
        log = self.match.actions
        for i, action in enumerate(log):  # every chance outcome is the seed's
            if action.seat == CHANCE:
                prefix = replay(self.match.config, log[:i])
                assert chance.draw(self.match.seed, i + 1, prefix) == action


TurnFramework.TestCase.settings = settings(
    max_examples=100,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_turn_framework = TurnFramework.TestCase
