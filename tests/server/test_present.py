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
            "deploy", "special", "end", "done"), target
