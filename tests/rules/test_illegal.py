"""Why an action is refused: IllegalAction's code and params, each raised in a real
situation with the state left untouched, and their English wording (server.rule_messages)."""

from __future__ import annotations

import json
import pickle
import random
from typing import Any

import pytest

from elgrande.matches.draft import Draft
from elgrande.matches.errors import IllegalStep
from elgrande.rules import (
    ILLEGAL_CODES,
    GameConfig,
    IllegalAction,
    State,
    apply,
    new_game,
    parse_action,
    replay,
    why_illegal,
)
from elgrande.rules.simulate import play_random_game
from elgrande.server.rule_messages import illegal_action_text

from .scenario import play, scenario


def refused(s: State, action: Any) -> IllegalAction:
    """The IllegalAction ``apply`` raises for ``action``, checking the state is untouched."""
    before = s.to_dict()
    with pytest.raises(IllegalAction) as info:
        apply(s, action)
    assert s.to_dict() == before, "a refused action changed the state"
    json.dumps(info.value.params)  # plain values only
    return info.value


def bidding() -> State:
    """Bidding, p0 (the start player) has bid 6, p1 is to bid."""
    return play(scenario(3, phase="bid", available=["1a", "2b", "3c", "4d"]), "p0 bid 6")


OTHER_BIDS = [f"p1 bid {v}" for v in range(1, 14) if v != 6]


def test_not_an_action_text() -> None:
    error = refused(bidding(), "p1 fly to the moon")
    assert (error.code, error.params) == ("not_an_action", {"action": "p1 fly to the moon"})
    assert str(error) == "not_an_action action='p1 fly to the moon'"
    assert illegal_action_text(error.code, error.params) == (
        "'p1 fly to the moon' is not an action (see the action notation).")


def test_not_an_action_number() -> None:
    error = refused(bidding(), 12345)
    assert (error.code, error.params) == ("not_an_action", {"action": "12345"})


def test_not_your_decision() -> None:
    error = refused(bidding(), "p2 bid 5")
    assert error.code == "not_your_decision"
    assert error.params == {"action": "p2 bid 5", "seat": 2, "to_act": [1], "phase": "bid"}
    assert illegal_action_text(error.code, error.params) == (
        "p2 bid 5 is not legal: it is not p2's decision now (waiting for p1, phase bid).")


def test_a_chance_outcome_when_a_seat_must_decide() -> None:
    error = refused(bidding(), "* reveal 1a")
    assert error.code == "not_your_decision"
    assert error.params == {"action": "* reveal 1a", "seat": -1, "to_act": [1], "phase": "bid"}
    assert illegal_action_text(error.code, error.params) == (
        "* reveal 1a is not legal: no chance step is due now (waiting for p1, phase bid).")


def test_a_seat_at_a_chance_step() -> None:
    s = new_game(GameConfig(players=2))
    error = refused(s, "p0 bid 3")
    assert error.params == {"action": "p0 bid 3", "seat": 0, "to_act": [-1], "phase": "setup"}
    assert "waiting for chance" in illegal_action_text(error.code, error.params)


def test_not_legal_now_with_others_of_the_kind() -> None:
    error = refused(bidding(), "p1 bid 6")  # p0 played the 6
    assert error.code == "not_legal_now"
    assert error.params == {"action": "p1 bid 6", "seat": 1, "phase": "bid", "kind": "bid",
                            "legal": OTHER_BIDS, "same_kind": OTHER_BIDS}
    assert illegal_action_text(error.code, error.params) == (
        f"p1 bid 6 is not legal now; possible bid actions: {', '.join(OTHER_BIDS)}.")


def test_not_legal_now_of_another_kind() -> None:
    error = refused(bidding(), "p1 take 1a")
    assert error.code == "not_legal_now"
    assert error.params == {"action": "p1 take 1a", "seat": 1, "phase": "bid", "kind": "take",
                            "legal": OTHER_BIDS, "same_kind": []}
    assert illegal_action_text(error.code, error.params) == (
        f"p1 take 1a is not legal in phase bid; legal actions: {', '.join(OTHER_BIDS)}.")


def test_game_over() -> None:
    s, _ = play_random_game(GameConfig(players=2, rounds=6), random.Random(1))
    error = refused(s, "p0 bid 3")
    assert (error.code, error.params) == ("game_over", {"action": "p0 bid 3"})
    assert illegal_action_text(error.code, error.params) == (
        "p0 bid 3 is not legal: the game is over.")


def test_bad_log_entry() -> None:
    config = GameConfig(players=2)
    with pytest.raises(IllegalAction) as info:
        replay(config, ["* home p0 GAL", "* home p1 GAL"])
    error = info.value
    assert error.code == "bad_log_entry"
    assert error.params["index"] == 1 and error.params["entry"] == "* home p1 GAL"
    assert error.params["cause"] == "not_legal_now"
    assert error.params["cause_params"]["same_kind"][:2] == ["* home p1 PVA", "* home p1 ARA"]
    assert illegal_action_text(error.code, error.params).startswith(
        "Log entry 1 (* home p1 GAL) cannot be played: * home p1 GAL is not legal now; "
        "possible home actions: * home p1 PVA, ")


def test_why_illegal_gives_what_apply_raises_without_raising() -> None:
    s = bidding()
    error = why_illegal(s, parse_action("p1 bid 6"))
    assert isinstance(error, IllegalAction) and error.code == "not_legal_now"
    assert error.params == refused(s, "p1 bid 6").params


def test_every_code_has_its_own_wording() -> None:
    fallback = illegal_action_text("no_such_code", {"action": "p0 bid 3"})
    for code in ILLEGAL_CODES:
        text = illegal_action_text(code, {"action": "p0 bid 3"})
        assert text != fallback and code not in text


def test_the_exception_survives_pickling() -> None:
    error = refused(bidding(), "p1 bid 6")
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.code, copy.params, str(copy)) == (error.code, error.params, str(error))
    assert isinstance(error, ValueError)  # callers that catch ValueError still do


def test_an_unknown_code_still_gets_a_sentence() -> None:
    assert illegal_action_text("something_new", {"action": "p0 end"}) == "p0 end is not possible now."


def test_the_turn_framework_carries_the_code() -> None:
    s = bidding()
    draft = Draft(1, 0, s)
    with pytest.raises(IllegalStep) as info:
        draft.step("p1 bid 6")
    assert info.value.rule_code == "not_legal_now" and info.value.code == "illegal"
    assert info.value.params["same_kind"] == OTHER_BIDS
    with pytest.raises(IllegalStep) as info:
        draft.step("p1 bid sixty")
    assert (info.value.rule_code, info.value.params) == ("not_an_action", {"action": "p1 bid sixty"})
    with pytest.raises(IllegalStep) as info:
        draft.step("p2 bid 5")
    assert info.value.rule_code == "not_your_decision"
    assert info.value.params == {"action": "p2 bid 5", "seat": 2, "to_act": [1], "phase": "bid"}
    assert str(info.value) == ("not_your_decision action='p2 bid 5' seat=2 to_act=[1] "
                               "phase='bid'")
    assert draft.steps == [] and draft.current is s
