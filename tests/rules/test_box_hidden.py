"""Box rules, Y2 (rules.md §12): the Castillo's split by colour is in no view and no redacted
state, for any seat or spectator; views and redacted states carry its total.

The strong form: two positions that differ only in how the Castillo's Caballeros split
between two seats (each one's provinces making up the difference, so every public count is
the same) give every other seat, and a spectator, the same view and the same redacted
state. Only the two seats themselves see a difference, each his own count."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import jsonschema
import pytest

from elgrande.rules import (
    VIEW_SCHEMA_PATH,
    GameConfig,
    State,
    check_invariants,
    new_game,
    redact,
    view,
)

from .box import BOX, play_random
from .scenario import play, scenario

VALIDATOR = jsonschema.Draft202012Validator(json.loads(VIEW_SCHEMA_PATH.read_text()))


def _moved(s: State, a: int, b: int) -> State:
    """``s`` with one of a's Castillo Caballeros counted as b's (provinces compensate)."""
    d = s.to_dict()
    n = s.n
    d["cab"][9 * n + a] -= 1
    d["provinces"][a] += 1
    d["cab"][9 * n + b] += 1
    d["provinces"][b] -= 1
    return State.from_dict(d)


def _positions(players: int, seed: int, every: int = 9):
    """Positions of a random box game where a Castillo split could be altered."""
    s = new_game(GameConfig(players=players, options=BOX))
    rng = random.Random(seed)
    while True:
        play_random(s, rng, stop=lambda x: x.ply % every == 0 and x.ply > 0 or x.phase_name == "game_over")
        if s.phase_name == "game_over":
            return
        n = s.n
        for a in range(n):
            for b in range(n):
                if a != b and s.cab[9 * n + a] and s.provinces[b]:
                    yield s, a, b
                    break
            else:
                continue
            break
        play_random(s, rng, stop=lambda x: x.ply % every == 1)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_no_other_seat_or_spectator_can_tell_two_splits_apart(players: int) -> None:
    checked = 0
    for s, a, b in _positions(players, seed=players):
        t = _moved(s, a, b)
        for seat in [None, *range(players)]:
            if seat in (a, b):
                assert view(s, seat) != view(t, seat)  # his own count
                continue
            assert view(s, seat) == view(t, seat)
            assert redact(s, seat) == redact(t, seat)
            assert redact(s, seat).to_dict() == redact(t, seat).to_dict()
        checked += 1
    assert checked >= 10


def test_no_field_of_a_view_carries_another_seat_s_castillo_count() -> None:
    s = scenario(4, options=replace(BOX, veto_cards=False), homes=["GAL", "PVA", "ARA", "CAT"],
                 castillo=[3, 1, 0, 2], available=["1a"])
    for seat in [None, 0, 1, 2, 3]:
        v = view(s, seat)
        VALIDATOR.validate(v)
        cas = v["areas"][9]
        assert cas["area"] == "CAS" and cas["total"] == 6
        assert cas["caballeros"] == [[3, 1, 0, 2][p] if p == seat else None for p in range(4)]
        for p, entry in enumerate(v["player_state"]):
            if p == seat:
                assert entry["castillo"] == s.castillo(p) and entry["provinces"] == s.provinces[p]
            else:
                assert entry["castillo"] is None and entry["provinces"] is None
            assert entry["reserve"] == s.provinces[p] + s.castillo(p)


def test_a_redacted_state_keeps_the_total_and_the_viewer_s_own_count() -> None:
    s = scenario(4, options=replace(BOX, veto_cards=False), homes=["GAL", "PVA", "ARA", "CAT"],
                 castillo=[3, 1, 0, 2], available=["1a"])
    for seat in [None, 0, 1, 2, 3]:
        r = redact(s, seat)
        check_invariants(r)
        assert State.from_dict(r.to_dict()) == r
        assert sum(r.cab[36:40]) == 6 and r.provinces[0] + r.cab[36] == s.provinces[0] + 3
        if seat is not None:
            assert r.castillo(seat) == s.castillo(seat) and r.provinces[seat] == s.provinces[seat]
    # The split given to the others is dealt out evenly from public counts.
    assert redact(s, None).cab[36:40] == [2, 2, 1, 1]
    assert redact(s, 0).cab[36:40] == [3, 1, 1, 1]


def test_without_the_option_views_show_the_split() -> None:
    s = scenario(4, homes=["GAL", "PVA", "ARA", "CAT"], castillo=[3, 1, 0, 2])
    v = view(s, None)
    assert v["areas"][9]["caballeros"] == [3, 1, 0, 2] and "total" not in v["areas"][9]
    assert [e["castillo"] for e in v["player_state"]] == [3, 1, 0, 2]
    assert redact(s, None) == s


def test_the_log_keeps_the_deposits() -> None:
    # A deposit is public when it happens (the action names whose and where); the view
    # afterwards shows the total only.
    s = scenario(3, options=replace(BOX, veto_cards=False), homes=["GAL", "PVA", "ARA"],
                 available=["1a", "2b"])
    log = ["p0 take 1a", "p0 deploy", "p0 place CAS"]
    play(s, *log)
    assert log[-1] == "p0 place CAS"
    cas = view(s, 1)["areas"][9]
    assert cas["total"] == 1 and cas["caballeros"] == [None, 0, None]
