"""Every action has a board target for the page and a sentence for the log."""

from __future__ import annotations

from elgrande.rules import all_actions
from elgrande.server.present import action_target, describe

NAMES = ["Anna", "Bert", "Carl", "Dora", "Emil"]


def test_every_action_has_a_target_and_a_sentence() -> None:
    for action in all_actions():
        sentence = describe(action, NAMES)
        assert sentence.endswith(".") and "p0" not in sentence and "*" not in sentence, (action, sentence)
        if action.is_chance:
            continue
        target = action_target(action)
        assert target["text"] == str(action) and target["kind"] == action.kind
        # The page finds each action's element from exactly these fields.
        assert {"area", "value", "card", "option", "owner"} & set(target) or action.kind in (
            "deploy", "special", "end", "done", "veto", "pass"), target


def test_a_log_line_never_says_of_the_actor_himself() -> None:
    from elgrande.rules import parse_action

    own = describe(parse_action("p0 pick p0 ARA"), NAMES)  # seat 0 picks up its own in area 2
    assert own == "Anna picks up one of their own Caballeros in Aragón.", own
    other = describe(parse_action("p0 pick p1 ARA"), NAMES)
    assert other == "Anna picks up a Caballero of Bert in Aragón.", other


def test_only_the_awards_that_pay_are_counted() -> None:
    from elgrande.server.present import paying_ranks

    assert [paying_ranks(n) for n in (2, 3, 4, 5)] == [1, 2, 3, 3]


def test_every_card_has_its_effect_in_a_few_words() -> None:
    from elgrande.rules.cards import ALL_CARDS
    from elgrande.server.present import CARD_SHORT

    assert set(CARD_SHORT) == {c.id for c in ALL_CARDS}  # the Veto (box rules) too
    assert all(len(text) <= 52 for text in CARD_SHORT.values())
