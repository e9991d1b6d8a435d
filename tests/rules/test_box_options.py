"""The publisher's rule set (rules.md §12): the preset ``box``, each of its options on its
own (Y3 card 2b, Y4 the King's region as Castillo destination, Y5 eviction; Y1 and Y2 have
files of their own), their JSON form, and that Yucata's rules stay what they were."""

from __future__ import annotations

import json
from dataclasses import fields, replace

import pytest

from elgrande.rules import (
    RULE_SETS,
    GameConfig,
    Options,
    State,
    new_game,
    to_act,
    view,
)
from elgrande.rules.state import BOX_RULES

from .box import BOX, box_scenario
from .scenario import board, legal, play, scenario

HOMES = ["GAL", "PVA", "ARA", "CAT"]


def test_the_box_preset_turns_every_row_of_section_8_back() -> None:
    assert set(RULE_SETS) == {"yucata", "box"}
    box = Options.preset("box")
    assert box.veto_cards and box.castillo_hidden and box.card_2b_hits_everyone
    assert box.castillo_to_king_region and box.eviction_must_leave
    assert box.veto_windows == "parts"
    # The other options (the [L] points) keep our defaults.
    others = {f.name for f in fields(Options)} - set(BOX_RULES) - {"veto_windows"}
    assert all(getattr(box, name) == getattr(Options(), name) for name in others)
    assert Options.preset("yucata") == Options()
    assert (Options().rule_set, box.rule_set) == ("yucata", "box")
    assert replace(box, veto_windows="every_step").rule_set == "box"
    assert Options(castillo_hidden=True).rule_set == "custom"


def test_bad_rule_sets_and_window_settings_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="unknown rule set 'bga'"):
        Options.preset("bga")
    with pytest.raises(ValueError, match="veto_windows must be one of parts, announcement, every_step"):
        Options(veto_windows="sometimes")


def test_json_form_of_the_options() -> None:
    # Yucata's options read as before: the box rules' keys appear only when set.
    assert set(Options().to_dict()) == {f.name for f in fields(Options)} - set(BOX_RULES) - {"veto_windows"}
    box = Options.preset("box")
    data = box.to_dict()
    assert data["veto_cards"] is True and "veto_windows" not in data  # "parts" is the default
    assert Options.from_dict(data) == box
    assert Options.from_dict({"rule_set": "box"}) == box
    assert Options.from_dict({"rule_set": "box", "veto_windows": "announcement"}) == \
        replace(box, veto_windows="announcement")
    every = replace(box, veto_windows="every_step")
    assert Options.from_dict(json.loads(json.dumps(every.to_dict()))) == every
    config = GameConfig(players=3, options=box)
    assert GameConfig.from_dict(config.to_dict()) == config


def test_a_yucata_state_s_json_form_is_unchanged() -> None:
    s = new_game(GameConfig(players=3))
    data = s.to_dict()
    assert "veto" not in data and len(data["copies"]) == 32
    assert "veto_cards" not in data["config"]["options"]
    b = new_game(GameConfig(players=3, options=BOX))
    bd = b.to_dict()
    assert len(bd["copies"]) == 33 and bd["copies"][32] == 2
    assert bd["veto"] == {"holder": [-1, -1], "taken": [-1, -1], "asking": [], "resume": None,
                          "declared": None, "regions": [], "progress": 0}
    assert State.from_dict(json.loads(json.dumps(bd))) == b


def test_from_dict_refuses_veto_data_that_does_not_fit() -> None:
    b = new_game(GameConfig(players=3, options=BOX)).to_dict()
    broken = json.loads(json.dumps(b))
    del broken["veto"]
    with pytest.raises(ValueError, match="lacks field 'veto'"):
        State.from_dict(broken)
    broken = json.loads(json.dumps(b))
    broken["veto"]["holder"] = [7, -1]
    with pytest.raises(ValueError, match="veto.holder"):
        State.from_dict(broken)
    broken = json.loads(json.dumps(b))
    broken["veto"]["asking"] = [1]
    with pytest.raises(ValueError, match="veto.asking"):
        State.from_dict(broken)
    y = new_game(GameConfig(players=3)).to_dict()
    y["veto"] = b["veto"]
    with pytest.raises(ValueError, match="no Veto cards"):
        State.from_dict(y)


# --- Y3: card 2b hits every player, the active one last (he picks his own)


def test_2b_hits_every_player_with_the_option() -> None:
    kw = {"homes": HOMES, "caballeros": {"GAL": [2, 1, 0, 0], "PVA": [1, 1, 1, 1]},
          "available": ["2b"]}
    s = scenario(4, options=Options(card_2b_hits_everyone=True), **kw)
    play(s, "p0 take 2b", "p0 special", "p0 remove p1 GAL", "p0 remove p2 PVA",
         "p0 remove p3 PVA")
    assert legal(s) == ["p0 remove p0 GAL", "p0 remove p0 PVA"]
    play(s, "p0 remove p0 GAL")
    assert board(s) == {"GAL": [1, 0, 0, 0], "PVA": [1, 1, 0, 0]} and s.phase_name == "deploy"
    y = scenario(4, **kw)
    play(y, "p0 take 2b", "p0 special", "p0 remove p1 GAL", "p0 remove p2 PVA",
         "p0 remove p3 PVA")
    assert y.phase_name == "deploy"  # Yucata: opponents only


def test_2b_skips_an_active_player_with_nothing_to_lose() -> None:
    s = scenario(3, options=Options(card_2b_hits_everyone=True), homes=HOMES[:3],
                 caballeros={"GAL": [0, 1, 1]}, available=["2b"])
    events: list = []
    play(s, "p0 take 2b", "p0 special", "p0 remove p1 GAL", "p0 remove p2 GAL", events=events)
    assert [e.to_dict() for e in events] == [{"type": "skipped", "seat": 0, "step": "2b"}]


# --- Y4: the King's region as a Castillo destination sends them back to the court


def _general_scoring(options: Options):
    s = scenario(3, options=options, king="CLN", homes=HOMES[:3], round=3, castillo=[2, 1, 0],
                 caballeros={"GAL": [1, 0, 0]}, court=[3, 7, 7], available=["4d"],
                 bids={0: 13, 1: 1, 2: 2}, order=[0, 2, 1])
    # Last turn of round 3 for p0 (p2 and p1 have played already): the general scoring next.
    d = s.to_dict()
    d.update(order=[1, 2, 0], turn=2)
    return State.from_dict(d)


def test_the_king_s_region_as_castillo_destination() -> None:
    s = _general_scoring(Options(castillo_to_king_region=True))
    play(s, "p0 take 4d", "p0 end")
    assert s.phase_name == "secret" and "p0 secret CLN" in legal(s, 0)
    play(s, "p0 secret CLN", "p1 secret GAL")
    assert s.court[0] == 3 + 2 and s.cab[9 * 3 + 0] == 0 and s.count(5, 0) == 0
    assert s.count(0, 1) == 1
    y = _general_scoring(Options())
    play(y, "p0 take 4d", "p0 end")
    assert "p0 secret CLN" not in legal(y, 0)  # Yucata: not selectable


def test_hidden_castillo_asks_everyone_for_a_destination() -> None:
    s = _general_scoring(replace(BOX, veto_cards=False))
    play(s, "p0 take 4d", "p0 end")
    # p2 has no Caballero in the Castillo, and is asked all the same (nothing to infer).
    assert s.phase_name == "secret" and to_act(s) == [0, 1, 2]
    y = _general_scoring(Options())
    play(y, "p0 take 4d", "p0 end")
    assert to_act(y) == [0, 1]  # Yucata: only seats with Caballeros there


# --- Y5: eviction must leave the named region (and never into the King's region)


def test_eviction_must_leave_the_named_region() -> None:
    kw = {"king": "CLN", "homes": HOMES, "caballeros": {"GAL": [1, 2, 1, 0]}, "available": ["4g"]}
    s = scenario(4, options=Options(eviction_must_leave=True), **kw)
    play(s, "p0 take 4g", "p0 special", "p0 evict GAL")
    offered = legal(s, 1)
    assert "p1 secret GAL" not in offered and "p1 secret CLN" not in offered and len(offered) == 7
    play(s, "p1 secret PVA", "p2 secret VAL")
    assert board(s) == {"GAL": [1, 0, 0, 0], "PVA": [0, 2, 0, 0], "VAL": [0, 0, 1, 0]}
    y = scenario(4, **kw)
    play(y, "p0 take 4g", "p0 special", "p0 evict GAL")
    assert "p1 secret GAL" in legal(y, 1) and "p1 secret CLN" in legal(y, 1)


def test_box_views_and_states_fit_their_forms() -> None:
    s = box_scenario(4, holders={1: [1]}, homes=HOMES, available=["3f"])
    v = view(s, 2)
    assert v["veto"] == {"held": [{"seat": 1, "taken_round": 1, "expires_after_round": 2}],
                         "declared": None, "window": None}
    assert v["cards_left"]["2v"] == 1
    assert "veto" not in view(scenario(4, homes=HOMES), 2)
