"""The game page names every kind of action a seat can choose in words of the catalogs
(game.js ``label``), never by its notation ("p0 pick p0 VAL"). The browser test in the
pseudo-locale only meets the kinds its random game reaches; this one checks them all."""

from __future__ import annotations

import re
from pathlib import Path

from elgrande.rules.actions import CHANCE_KINDS, KIND_NAMES, Kind

GAME_JS = Path(__file__).resolve().parents[2] / "elgrande/server/static/js/game.js"


def test_the_page_names_every_kind_of_action_a_seat_can_choose() -> None:
    source = GAME_JS.read_text(encoding="utf-8")
    start = source.index("export function label(")
    body = source[start:source.index("\n}\n", start)]
    named = set(re.findall(r'case "(\w+)":', body))
    # The engine's own draws (homes, the King's first region, start player, reveals) are
    # no seat's choice. KING_AT shares its name, "king", with the seats' King moves.
    chosen = {KIND_NAMES[k] for k in Kind if k not in CHANCE_KINDS}
    assert {"pick", "remove", "bid", "place", "king"} <= chosen
    assert not chosen - named, f"game.js label() has no words for {sorted(chosen - named)}"
