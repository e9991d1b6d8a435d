"""Driving matches to the situations the tests need, by seeded random play."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime
from functools import cache

from elgrande.matches import Match
from elgrande.matches.match import LogEntry
from elgrande.rules import GameConfig, Options, State, parse_action, replay, to_act
from elgrande.rules.state import VETO


def random_turn(match: Match, rng: random.Random, seat: int | None = None) -> int:
    """One seat steps at random until it may not, then finishes. Returns the seat."""
    if seat is None:
        seat = rng.choice(to_act(match.state))
    draft = match.draft(seat)
    while draft.may_step:
        draft.step(rng.choice(draft.legal()))
    match.finish(seat)
    return seat


def play_until(
    match: Match, rng: random.Random, done: Callable[[State], bool], limit: int = 3000
) -> Match:
    for _ in range(limit):
        if done(match.state):
            return match
        if match.over:
            break
        random_turn(match, rng)
    raise AssertionError("the situation was not reached")


def clone(match: Match) -> Match:
    """An independent match with the same committed log (no drafts)."""
    log = [LogEntry(e.seq, e.action, e.base_seq, e.at) for e in match.log]
    state = replay(match.config, [e.action for e in log])
    return Match(match.id, match.config, match.seed, log, state, match.created_at)


def at_secret_choice(players: int = 4, seed: str = "secret-test") -> Match:
    """A match where several seats are asked a secret choice."""
    match = Match.new(GameConfig(players=players), seed=seed, now=datetime(2026, 1, 1, tzinfo=UTC))
    return play_until(match, random.Random(seed), lambda s: len(to_act(s)) > 1)


def several_choosers(state: State) -> bool:
    return len(to_act(state)) > 1


# Box rules (Veto cards): 3 players, 6 rounds.
BOX = GameConfig(players=3, rounds=6, options=Options.preset("box"))


@cache
def _window_log(seed: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A box match played at random until the active player opens a veto window: the log
    before that turn's commit, and the active player's steps of that commit (the last one
    opens the window)."""
    match = Match.new(BOX, seed=seed, now=datetime(2026, 1, 1, tzinfo=UTC))
    rng = random.Random(seed)

    def active_opened_window(s) -> bool:  # type: ignore[no-untyped-def]
        return s.phase == VETO and match.log[-1].seat == s.active

    play_until(match, rng, active_opened_window, limit=5000)
    base = match.log[-1].base_seq
    turn = tuple(str(e.action) for e in match.log[base:])
    return tuple(str(e.action) for e in match.log[:base]), turn


def before_window(seed: str = "veto-1", match_id: str | None = None
                  ) -> tuple[Match, int, list[str]]:
    """A match just before the active player's turn that opens a veto window: the match,
    the active seat, and the steps of that turn."""
    log, turn = _window_log(seed)
    actions = [parse_action(a) for a in log]
    at = datetime(2026, 1, 1, tzinfo=UTC)
    entries = [LogEntry(i + 1, a, 0, at) for i, a in enumerate(actions)]
    match = Match(match_id or "m" * 32, BOX, seed, entries, replay(BOX, actions), at)
    active = match.state.active if match.state.active >= 0 else to_act(match.state)[0]
    return match, active, list(turn)
