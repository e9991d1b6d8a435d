"""State.from_dict refuses data that is not a reachable kind of position (docs/state-format.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from elgrande.rules import State

from .scenario import play, scenario


def _take() -> dict[str, Any]:
    """3 players, p0 to take a card; homes GAL, PVA, ARA with 2 Caballeros each."""
    return scenario(3, available=["2a", "4e"]).to_dict()


def _secret() -> dict[str, Any]:
    """Card 2a: p1 and p2 pick a region in secret."""
    s = scenario(3, available=["2a"])
    return play(s, "p0 take 2a", "p0 special").to_dict()


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(d: dict[str, Any]) -> None:
        if "[" in path:
            name, index = path[:-1].split("[")
            d[name][int(index)] = value
        else:
            d[path] = value
    return change


def _move_one_caballero_to_nowhere(d: dict[str, Any]) -> None:
    d["provinces"][1] -= 1


def _add_a_caballero(d: dict[str, Any]) -> None:
    d["court"][2] += 1


def _negative_with_total_kept(d: dict[str, Any]) -> None:
    d["cab"][0] -= 3  # GAL, seat 0: 2 - 3
    d["court"][0] += 3


CASES = [
    (_take, _move_one_caballero_to_nowhere, "seat 1 has 29 Caballeros"),
    (_take, _add_a_caballero, "seat 2 has 31 Caballeros"),
    (_take, _negative_with_total_kept, r"cab\[0\] is -1"),
    (_take, _set("phase", "bidding"), "unknown phase 'bidding'"),
    (_take, _set("secret_purpose", "2z"), "unknown secret_purpose '2z'"),
    (_take, _set("king", 9), "king is 9, not a region"),
    (_take, _set("grande[1]", 9), r"grande\[1\] is 9"),
    (_take, _set("tiles", [4, 4]), "both mobile scoreboards"),
    (_take, _set("tiles", [10, -1]), r"tiles\[0\] is 10"),
    (_take, _set("hand[0]", 1), "power cards 1..13"),
    (_take, _set("hand[0]", 1 << 14), "power cards 1..13"),
    (_take, _set("bids", [13, 13, 11]), "same power card"),
    (_take, _set("bids[2]", 14), r"bids\[2\] is 14"),
    (_take, _set("copies[0]", 2), r"copies\[0\] is 2, more than the 1 printed"),
    (_take, _set("available", [3, 32]), r"available\[1\] is 32"),
    (_take, _set("card", 40), "card is 40"),
    (_take, _set("active", 3), "active is 3, not a seat"),
    (_take, _set("active", -1), "phase take is part of a turn, but no seat is active"),
    (_take, _set("order", [0, 0, 1]), "order is not an ordering of the seats"),
    (_take, _set("picked", 35), "picked is 35"),
    (_take, _set("source", 9), "source is 9, not a region"),
    (_take, _set("round_index", 9), "round_index 9"),
    (_take, _set("parts_done", 4), "parts_done is 4"),
    (_take, _set("count_left", -1), "count_left is negative"),
    (_take, _set("secret[1]", 4), "pending outside the secret phase"),
    (_take, _set("secret_purpose", "4f"), "pending outside the secret phase"),
    (_secret, _set("secret", [-2, 3, 4]), "needs a purpose and a seat still to choose"),
    (_secret, _set("secret_purpose", None), "needs a purpose"),
    (_secret, _set("secret[1]", 9), r"secret\[1\] is 9"),
    (_take, _set("court", [7, 7]), "court must be a list of 3 integers"),
    (_take, _set("ply", "12"), "ply must be an integer"),
    (_take, _set("cab[0]", 2.0), "cab must be a list of integers"),
    (_take, _set("n", 4), "n differs from config.players"),
]


@pytest.mark.parametrize(("position", "change", "message"), CASES,
                         ids=[message for _, _, message in CASES])
def test_from_dict_refuses_an_inconsistent_state(position, change, message) -> None:
    data = position()
    State.from_dict(data)  # the unchanged position is accepted
    change(data)
    with pytest.raises(ValueError, match=message):
        State.from_dict(data)


def test_from_dict_reports_a_missing_field() -> None:
    data = _take()
    del data["queue"]
    with pytest.raises(ValueError, match="lacks field 'queue'"):
        State.from_dict(data)


def test_general_scoring_has_no_active_seat() -> None:
    # The one secret choice outside a turn: where Castillo Caballeros go after round 3.
    s = scenario(2, available=["2d"], castillo=[1, 0], round=3, bids={0: 13, 1: 12})
    play(s, "p0 take 2d", "p0 end", "p1 take 5a", "p1 end")
    assert s.phase_name == "secret" and s.active == -1
    assert State.from_dict(s.to_dict()) == s
