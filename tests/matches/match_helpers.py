"""Driving matches to the situations the tests need, by seeded random play."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime

from elgrande.matches import Match
from elgrande.matches.match import LogEntry
from elgrande.rules import GameConfig, State, replay, to_act


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
