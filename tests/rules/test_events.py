"""What apply() reports: typed frozen records, their JSON (dict) form, and the choices the
engine makes by itself when only one outcome is possible (docs/api.md, Events)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from elgrande.rules import (
    AutoLoss,
    AutoRecall,
    CastilloReleased,
    Event,
    GameConfig,
    Revealed,
    Scored,
    SecretsRevealed,
    SetupDone,
    Skipped,
    apply,
    new_game,
)
from elgrande.rules.events import EVENT_TYPES, Vetoed, VetoExpired

from .scenario import legal, play, scenario

HOMES = ["GAL", "PVA", "ARA", "CAT"]


def events_of(s, *moves: str) -> list[Event]:
    events: list[Event] = []
    play(s, *moves, events=events)
    return events


def test_setup_and_reveal_records_and_their_dict_form() -> None:
    s = new_game(GameConfig(players=2, start_player=1))
    events: list[Event] = []
    for move in ("* home p0 GAL", "* home p1 SEV", "* king VAL", "* reveal 1e"):
        apply(s, move, events)
    assert events == [SetupDone((0, 6), 8, 1), Revealed("1e")]
    assert [e.to_dict() for e in events] == [
        {"type": "setup", "homes": [0, 6], "king": 8, "start_player": 1},
        {"type": "reveal", "card": "1e"},
    ]


def test_general_scoring_records() -> None:
    s = scenario(3, caballeros={"GAL": [2, 0, 0], "VAL": [1, 1, 0], "CLN": [0, 0, 1]},
                 castillo=[2, 1, 0], round=3, available=["2d", "3c"])
    play(s, "p0 take 2d", "p0 end", "p1 take 5a", "p1 end", "p2 recruit 0", "p2 take 3c",
         "p2 end")
    events = events_of(s, "p0 secret VAL", "p1 secret GAL")
    assert events[0] == SecretsRevealed(0, (8, 0, -2))
    assert events[0].to_dict() == {"type": "secrets_revealed", "purpose": 0, "choices": [8, 0, -2]}
    assert type(events[0].to_dict()["purpose"]) is int
    assert events[1] == Scored(9, (5, 3, 0), "general")  # the Castillo first
    assert events[2] == CastilloReleased((8, 0, -2))
    assert events[2].to_dict() == {"type": "castillo_release", "destinations": [8, 0, -2]}
    assert [e.area for e in events[3:12] if isinstance(e, Scored)] == list(range(9))
    assert events[3].to_dict() == {"type": "score", "area": 0, "points": [6, 2, 0],
                                   "reason": "general"}


def test_records_are_frozen_slotted_and_read_as_their_dict() -> None:
    e = Scored(3, (4, 2, 0), "3a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.area = 4  # type: ignore[misc]
    assert not hasattr(e, "__dict__")
    assert e["type"] == "score" and e.get("reason") == "3a" and e.get("nothing") is None
    assert dict(e) == e.to_dict() and len(e) == 4 and list(e) == ["type", "area", "points", "reason"]
    assert hash(e) == hash(Scored(3, (4, 2, 0), "3a"))
    for kind in EVENT_TYPES:
        assert dataclasses.is_dataclass(kind) and kind.__dataclass_params__.frozen  # type: ignore[attr-defined]
        assert "__slots__" in kind.__dict__ and kind.type
    assert len({kind.type for kind in EVENT_TYPES}) == len(EVENT_TYPES)


def test_recruitment_shortfall_recalls_every_eligible_caballero_by_itself() -> None:
    # p1 bids 2 (recruits up to 5) with empty provinces and 2 Caballeros outside the King's
    # region: recruiting 2 leaves no choice of where they come from.
    s = scenario(2, phase="bid", caballeros={"PVA": [0, 2], "CLN": [0, 2]}, court=[7, 26],
                 available=["1a", "2b", "3c", "4d"])
    assert s.provinces == [23, 0]
    events = events_of(s, "p0 bid 1", "p1 bid 2", "p1 recruit 2")
    assert events == [AutoRecall(1, ((1, 2),))]
    assert events[0].to_dict() == {"type": "auto_recall", "seat": 1, "regions": [[1, 2]]}
    assert s.court[1] == 28 and s.cab[1 * 2 + 1] == 0 and s.phase_name == "take"


def test_a_recall_with_one_region_left_is_still_a_decision() -> None:
    s = scenario(2, phase="bid", caballeros={"PVA": [0, 2], "CLN": [0, 2]}, court=[7, 26],
                 available=["1a", "2b", "3c", "4d"])
    assert events_of(s, "p0 bid 1", "p1 bid 2", "p1 recruit 1") == []
    assert s.phase_name == "recall" and legal(s) == ["p1 recall PVA"]
    assert events_of(s, "p1 recall PVA") == []


def test_2c_losses_without_a_choice_happen_by_themselves() -> None:
    s = scenario(4, homes=HOMES, caballeros={"GAL": [0, 1, 0, 0], "CLN": [0, 5, 5, 0]},
                 castillo=[0, 4, 4, 4], court=[7, 1, 0, 7], available=["2c"])
    events = events_of(s, "p0 take 2c", "p0 special")
    # p1: 2 eligible, so both; p2: nothing outside the King's region and the Castillo;
    # p3: court only, so 3 from the court.
    assert events == [AutoLoss(1, 1, ((0, 1),)), Skipped(2, "2c"), AutoLoss(3, 3, ())]
    assert events[0].to_dict() == {"type": "auto_loss", "seat": 1, "court": 1,
                                   "regions": [[0, 1]]}


def test_2b_and_secret_choices_skip_who_has_nothing() -> None:
    s = scenario(4, homes=HOMES, caballeros={"GAL": [2, 3, 0, 0], "CLN": [0, 0, 4, 4]},
                 available=["2b"])
    assert events_of(s, "p0 take 2b", "p0 special") == [Skipped(2, "2b"), Skipped(3, "2b")]
    s = scenario(4, homes=HOMES, caballeros={"GAL": [2, 0, 0, 0], "CLN": [0, 4, 4, 0]},
                 available=["2a"])
    events = events_of(s, "p0 take 2a", "p0 special")
    assert events == [Skipped(1, "secret"), Skipped(2, "secret"), Skipped(3, "secret")]
    assert events[0].to_dict() == {"type": "skipped", "seat": 1, "step": "secret"}


def test_steps_without_a_choice_in_a_turn_are_skipped_and_logged() -> None:
    # p0 places its only court Caballero with 1i: the deployment that follows has nothing to
    # place; p1 (power card 12) recruits nothing.
    s = scenario(4, homes=HOMES, caballeros={"CLN": [0, 2, 0, 0]}, court=[1, 7, 7, 7],
                 available=["1i"])
    events = events_of(s, "p0 take 1i", "p0 special", "p0 option 1c", "p0 place GAL")
    assert events == [Skipped(0, "deployment"), Skipped(1, "recruit")]
    # A Grande in the King's region cannot move: after the deployment, the turn ends.
    s = scenario(4, homes=["CLN", "PVA", "ARA", "CAT"], available=["4b"])
    events = events_of(s, "p0 take 4b", "p0 deploy", "p0 done")
    assert events == [Skipped(0, "special"), Skipped(1, "recruit")]


def test_every_record_is_json_ready() -> None:
    records = [SetupDone((0, 1), 2, 0), Revealed("1a"), Scored(9, (5, 3), "3f"),
               CastilloReleased((-2, 4)), SecretsRevealed(3, (1, 1)), AutoRecall(0, ((2, 1),)),
               AutoLoss(1, 2, ((3, 1),)), Skipped(0, "recruit"),
               Vetoed(1, 0, "3b", 2, "score"), VetoExpired(1, 2)]
    assert {type(r) for r in records} == set(EVENT_TYPES)
    for r in records:
        assert json.loads(json.dumps(r.to_dict())) == r.to_dict()
