"""Rules internals name themselves: phases, action kinds and secret purposes are IntEnums
whose values are the ints stored in states, codes and JSON (which must never change)."""

from __future__ import annotations

import pytest

from elgrande.rules import Kind, Phase, SecretPurpose, all_actions, board, parse_action
from elgrande.rules import actions as A
from elgrande.rules import state as S
from elgrande.rules.cards import CARD_INDEX, CARDS, NUM_CARDS
from elgrande.rules.engine import _SPECIALS

from .scenario import legal, play, scenario

# The stored values, written out: a renumbering breaks saved games and logs.
PHASES = ["SETUP", "REVEAL", "BID", "RECRUIT", "RECALL", "TAKE", "CHOOSE", "DEPLOY",
          "AFTER_DEPLOY", "MOVE", "MOVE_DROP", "EMPTY_CHOOSE", "EMPTY_DROP", "COURT_PLACE",
          "OPTION", "SECRET", "REMOVE", "LOSE", "SCORE_CHOICE", "RETRIEVE", "GRANDE_MOVE",
          "COURT_CARD", "KING_MOVE", "TILE_MOVE", "EVICT", "GAME_OVER", "VETO", "SOURCE"]
KINDS = ["HOME", "KING_AT", "START", "REVEAL", "BID", "RECRUIT", "RECALL", "TAKE", "DEPLOY",
         "SPECIAL", "END", "PLACE", "PICK", "DROP", "FROM", "OPTION", "SECRET", "REMOVE", "LOSE",
         "SCORE", "RETRIEVE", "GRANDE", "COURT", "KING", "TILE", "EVICT", "DONE", "VETO", "PASS"]


def test_phase_values_and_module_names() -> None:
    assert [p.name for p in Phase] == PHASES and [p.value for p in Phase] == list(range(28))
    for p in Phase:
        alias = getattr(S, p.name)
        assert alias == p and type(alias) is int  # plain ints in the hot path
    assert S.PHASE_NAMES[Phase.GRANDE_MOVE] == "grande" and S.PHASE_NAMES[Phase.SECRET] == "secret"


def test_kind_values_module_names_and_action_codes() -> None:
    assert [k.name for k in Kind] == KINDS and [k.value for k in Kind] == list(range(29))
    for k in Kind:
        assert getattr(A, k.name) == k and type(getattr(A, k.name)) is int
    a = parse_action("p2 secret VAL")
    assert a.kind_id is Kind.SECRET and repr(a.kind_id) == "<Kind.SECRET: 16>"
    assert a == (3 << 16) | (16 << 10) | 8  # the code itself is unchanged
    assert all(x.kind == A.KIND_NAMES[x.kind_id] for x in all_actions())


def test_secret_purposes() -> None:
    assert [(p.name, p.value) for p in SecretPurpose] == [
        ("NONE", -1), ("GENERAL", 0), ("LOSE_ALL", 1), ("LOSE_TWO", 2), ("SECRET_SCORING", 3),
        ("EVICTION", 4)]
    assert S.SECRET_PURPOSES[SecretPurpose.EVICTION] == "4g"
    assert (S.NO_PURPOSE, S.GENERAL, S.EVICTION) == (-1, 0, 4)


def test_a_state_shows_its_phase_and_purpose_by_name() -> None:
    s = scenario(3, available=["2a"])
    play(s, "p0 take 2a", "p0 special")
    assert Phase(s.phase) is Phase.SECRET and SecretPurpose(s.secret_purpose) is SecretPurpose.LOSE_ALL
    text = repr(s)
    assert "phase=<Phase.SECRET: 15>" in text
    assert "secret_purpose=<SecretPurpose.LOSE_ALL: 1>" in text
    assert "legal_cache" not in text and text.startswith("State(config=GameConfig(")


def test_the_recruit_table_has_its_own_name() -> None:
    assert board.RECRUITS_BY_POWER == (0, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0)
    assert S.RECRUIT == Phase.RECRUIT == 3  # the phase keeps the short name


def test_every_card_has_one_special_action_entry() -> None:
    assert sorted(_SPECIALS) == list(range(NUM_CARDS))
    assert _SPECIALS[0].begin is not _SPECIALS[1].begin


@pytest.mark.parametrize("card", [c.id for c in CARDS])
def test_every_card_s_special_action_starts_from_its_entry(card: str) -> None:
    # A position where every card's special action can start (5a is always available).
    s = scenario(4, caballeros={"GAL": [2, 1, 1, 1], "SEV": [1, 2, 0, 0]},
                 available=[] if card == "5a" else [card])
    play(s, f"p0 take {card}")
    assert _SPECIALS[CARD_INDEX[card]].possible(s)
    assert "p0 special" in legal(s)
    play(s, "p0 special")
    assert s.phase_name not in ("choose", "after_deploy")  # begun (or already carried out)
