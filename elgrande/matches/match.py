"""A match in memory: configuration, committed log, per-seat drafts.

This is the whole turn framework without storage; ``MatchStore`` loads a ``Match``
inside a transaction, runs one operation on it and writes back what changed.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from elgrande.rules import (
    Action,
    GameConfig,
    State,
    apply,
    is_chance,
    is_terminal,
    new_game,
    redact,
    to_act,
    view,
)

from . import chance
from .draft import Draft
from .errors import GameMovedOn, NothingToFinish, NotYourTurn
from .log import CommittedLog, LogEntry


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class SeatView:
    """Everything one seat (or a spectator, ``seat=None``) may see of a match."""

    match_id: str
    seq: int
    seat: int | None
    over: bool
    commitment: str
    view: Any  # the engine's view(state, seat) of the committed state + own draft
    to_act: list[int]
    legal: list[str] = field(default_factory=list)
    draft: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            "seq": self.seq,
            "seat": self.seat,
            "over": self.over,
            "commitment": self.commitment,
            "view": self.view,
            "to_act": self.to_act,
            "legal": self.legal,
            "draft": self.draft,
        }


class Match:
    def __init__(
        self,
        match_id: str,
        config: GameConfig,
        seed: str,
        log: Iterable[LogEntry],
        state: State,
        created_at: datetime,
        *,
        commitment: str | None = None,  # sha256 of the seed, if already known
    ) -> None:
        self.id = match_id
        self.config = config
        self.seed = seed
        self.commitment = commitment or chance.commitment(seed)
        self.log = CommittedLog.of(log)  # immutable: shared with the store's cache
        self.state = state  # committed head; treated as immutable (drafts copy it)
        self.created_at = created_at
        self.drafts: dict[int, Draft] = {}

    @classmethod
    def new(
        cls,
        config: GameConfig,
        *,
        seed: str | None = None,
        match_id: str | None = None,
        now: datetime | None = None,
    ) -> Match:
        """A new match with its set-up chance steps already drawn and committed."""
        now = now or utcnow()
        seed = seed if seed is not None else chance.new_seed()
        state = new_game(config)
        log = cls._resolve_chance(seed, state, [], base_seq=0, now=now)
        return cls(match_id or uuid.uuid4().hex, config, seed, log, state, now)

    @staticmethod
    def _resolve_chance(
        seed: str, state: State, added: list[LogEntry], base_seq: int, now: datetime
    ) -> list[LogEntry]:
        """Draws the chance steps that follow ``added`` (the entries after ``base_seq``),
        appending them to it."""
        while is_chance(state):
            seq = base_seq + len(added) + 1
            action = chance.draw(seed, seq, state)
            apply(state, action)
            added.append(LogEntry(seq, action, base_seq, now))
        return added

    # -- reading -------------------------------------------------------------------

    @property
    def seq(self) -> int:
        """The committed log's length (the sequence number of its last entry)."""
        return len(self.log)

    @property
    def over(self) -> bool:
        return is_terminal(self.state)

    @property
    def actions(self) -> list[Action]:
        return list(self.log.actions)

    def check_seat(self, seat: int | None) -> None:
        if seat is not None and not (
            isinstance(seat, int) and 0 <= seat < self.config.players
        ):
            raise NotYourTurn(f"there is no seat {seat!r} in a {self.config.players}-player match")

    def draft(self, seat: int) -> Draft:
        """The seat's draft (an empty one on the committed head if it has none)."""
        self.check_seat(seat)
        found = self.drafts.get(seat)
        if found is None:
            found = self.drafts[seat] = Draft(seat, self.seq, self.state)
        return found

    def seat_view(self, seat: int | None) -> SeatView:
        """What ``seat`` sees: its view of the committed state with its own draft on top.
        Other seats' drafts never enter it; ``None`` is a spectator."""
        self.check_seat(seat)
        if seat is None:
            return SeatView(
                self.id, self.seq, None, self.over, self.commitment,
                view(self.state, None), to_act(self.state),
            )
        draft = self.drafts.get(seat) or Draft(seat, self.seq, self.state)
        shown = draft.shown_state()
        return SeatView(
            self.id,
            self.seq,
            seat,
            self.over,
            self.commitment,
            view(shown, seat),
            to_act(shown),
            [str(a) for a in draft.legal()],
            {
                "base_seq": draft.base_seq,
                "steps": [str(a) for a in draft.steps],
                "redo": [str(a) for a in reversed(draft.redo_stack)],
                "can_undo": bool(draft.steps),
                "can_redo": bool(draft.redo_stack) and not draft.at_boundary,
                "can_finish": bool(draft.steps),
                "at_boundary": draft.at_boundary,
            },
        )

    def redacted_state(self, seat: int) -> State:
        """The state a bot playing ``seat`` may be given: its draft on the committed
        state, without any other seat's unrevealed secret choice."""
        self.check_seat(seat)
        draft = self.drafts.get(seat) or Draft(seat, self.seq, self.state)
        return redact(draft.shown_state(), seat)

    def check_base(self, seat: int | None, base_seq: int | None) -> None:
        """Refuse a request based on an older committed log than the current one."""
        if base_seq is not None and base_seq != self.seq:
            raise GameMovedOn(self, seat, base_seq)

    # -- the seat's operations -----------------------------------------------------

    def step(self, seat: int, action: Action | str, base_seq: int | None = None, *,
             now: datetime | None = None) -> Action:
        """One step into the seat's draft; a step that opens or answers a veto window
        is committed with it (``Draft.commits_at_once``)."""
        self.check_base(seat, base_seq)
        done = self.draft(seat).step(action)
        self.commit_whole_turn(seat, now)
        return done

    def undo(self, seat: int, base_seq: int | None = None) -> Action:
        self.check_base(seat, base_seq)
        return self.draft(seat).undo()

    def redo(self, seat: int, base_seq: int | None = None, *,
             now: datetime | None = None) -> Action:
        self.check_base(seat, base_seq)
        done = self.draft(seat).redo()
        self.commit_whole_turn(seat, now)
        return done

    def commit_whole_turn(self, seat: int, now: datetime | None = None) -> list[LogEntry]:
        """Commits the seat's draft if its last step is a whole turn (a veto window
        opened or answered); the new log entries (none otherwise)."""
        draft = self.drafts.get(seat)
        if draft is None or not draft.commits_at_once:
            return []
        return self.finish(seat, now=now)

    def finish(
        self, seat: int, base_seq: int | None = None, now: datetime | None = None
    ) -> list[LogEntry]:
        """Commit the seat's draft, draw the chance steps that follow, rebase the other
        drafts. Returns the new log entries."""
        self.check_seat(seat)
        self.check_base(seat, base_seq)
        draft = self.drafts.get(seat)
        if draft is None or not draft.steps:
            raise NothingToFinish(f"seat {seat} has no step to finish")
        assert draft.base_seq == self.seq, "drafts are rebased on every commit"
        now = now or utcnow()
        base = self.seq
        state = draft.current.copy()
        added = [LogEntry(base + i + 1, a, base, now) for i, a in enumerate(draft.steps)]
        self._resolve_chance(self.seed, state, added, base, now)
        self.log, self.state = self.log.extended(added), state
        del self.drafts[seat]
        for other in list(self.drafts.values()):
            other.rebase(self.seq, self.state)
        return added
