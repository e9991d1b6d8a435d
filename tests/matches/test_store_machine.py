"""The stored turn framework behaves exactly like the in-memory one: a Hypothesis state
machine runs every operation on both (SQLite and PostgreSQL) and compares every seat's
view, the stored drafts and the log after each step."""

from __future__ import annotations

import atexit
import shutil
import tempfile
import uuid
from collections.abc import Callable
from functools import cache

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from elgrande.matches import Match, MatchError, MatchStore
from elgrande.rules import GameConfig, to_act
from tests.apps import migrated
from tests.pg_server import shared_server

from .match_helpers import at_secret_choice, clone


@cache
def starts() -> list[Match]:
    return [Match.new(GameConfig(players=3), seed="stored-3"), at_secret_choice(4, seed="stored-4")]


@cache
def sqlite_store() -> MatchStore:
    folder = tempfile.mkdtemp(prefix="elgrande-machine-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return MatchStore(migrated(f"sqlite:///{folder}/machine.db"))


@cache
def postgres_store() -> MatchStore:
    return MatchStore(migrated(shared_server().create_database()))


def machine(store: Callable[[], MatchStore]) -> type[RuleBasedStateMachine]:
    class StoredMatches(RuleBasedStateMachine):
        @initialize(which=st.integers(0, 1))
        def start(self, which: int) -> None:
            self.store = store()
            self.model = clone(starts()[which])
            self.model.id = uuid.uuid4().hex  # Hypothesis seeds the random module
            self.store.add(clone(self.model))
            self.n = self.model.config.players

        def _seat(self, seat: int) -> int:
            acting = sorted(set(to_act(self.model.state)) | set(self.model.drafts))
            acting = [p for p in acting if p >= 0]
            return acting[seat % len(acting)] if seat < 7 and acting else seat % self.n

        def _both(self, model_op: Callable[[], object], store_op: Callable[[], object]) -> None:
            try:
                model_op()
            except MatchError as refused:
                with pytest.raises(type(refused)):
                    store_op()
            else:
                store_op()

        @rule(seat=st.integers(0, 9), pick=st.integers(0, 1000))
        def step(self, seat: int, pick: int) -> None:
            seat = self._seat(seat)
            legal = self.model.draft(seat).legal()
            action = str(legal[pick % len(legal)]) if legal else f"p{seat} pass"
            self._both(
                lambda: self.model.step(seat, action),
                lambda: self.store.step(self.model.id, seat, action),
            )

        @rule(seat=st.integers(0, 9))
        def undo(self, seat: int) -> None:
            seat = self._seat(seat)
            self._both(lambda: self.model.undo(seat), lambda: self.store.undo(self.model.id, seat))

        @rule(seat=st.integers(0, 9))
        def redo(self, seat: int) -> None:
            seat = self._seat(seat)
            self._both(lambda: self.model.redo(seat), lambda: self.store.redo(self.model.id, seat))

        @rule(seat=st.integers(0, 9))
        def finish(self, seat: int) -> None:
            seat = self._seat(seat)
            self._both(
                lambda: self.model.finish(seat), lambda: self.store.finish(self.model.id, seat)
            )

        @invariant()
        def the_store_matches_the_model(self) -> None:
            if not hasattr(self, "model"):
                return
            stored = self.store.load(self.model.id)
            assert stored.actions == self.model.actions
            assert stored.state == self.model.state
            for seat in [None, *range(self.n)]:
                assert stored.seat_view(seat).to_dict() == self.model.seat_view(seat).to_dict()
            for seat, draft in self.model.drafts.items():
                if draft.steps or draft.redo_stack:
                    assert stored.drafts[seat].steps == draft.steps
                    assert stored.drafts[seat].redo_stack == draft.redo_stack

    StoredMatches.TestCase.settings = settings(
        max_examples=25,
        stateful_step_count=25,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    return StoredMatches


test_sqlite_store_machine = machine(sqlite_store).TestCase
test_postgresql_store_machine = machine(postgres_store).TestCase
