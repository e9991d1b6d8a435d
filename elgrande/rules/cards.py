"""Action cards: 32 kinds in 5 stacks (rules.md §5), and the Veto of the box rules
(rules.md §12.1), a 33rd kind kept apart from ``CARDS``. Card texts are our own words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class CardKind:
    index: int
    id: str  # "1a" .. "5a"
    stack: int  # 1..5; also the number of Caballeros it deploys
    copies: int
    name: str
    text: str


_CARD_DATA = (
    ("1a", 1, "Intrigue", "Move up to 3 Caballeros of any colours from regions to other regions or the Castillo."),
    ("1b", 1, "Intrigue", "Pick a region and move every one of your Caballeros there to other regions or the Castillo."),
    ("1c", 1, "Intrigue", "Place up to 2 more Caballeros from your court in any regions (not the King's) or the Castillo."),
    ("1d", 2, "Intrigue", "Move up to 2 of your own and up to 2 opposing Caballeros."),
    ("1e", 1, "Intrigue", "Move up to 4 of your own Caballeros."),
    ("1f", 1, "Intrigue", "Move up to 3 opposing Caballeros."),
    ("1g", 2, "Intrigue", "Move up to 5 Caballeros of any colours out of one region."),
    ("1h", 1, "Intrigue", "Move up to 4 Caballeros of any colours."),
    ("1i", 1, "Intrigue", "Either place up to 2 more Caballeros from your court anywhere, or move all of yours out of one region."),
    ("2a", 1, "Province", "Each opponent secretly picks a region and sends all his Caballeros there back to his provinces."),
    ("2b", 1, "Province", "For each opponent, you send one of his Caballeros from a region of your choice back to his provinces."),
    ("2c", 1, "The King returns", "Each opponent in turn sends 3 of his Caballeros from his court and/or regions back to his provinces, as many as he can."),
    ("2d", 3, "Special scoring", "Score one region of your choice (the Castillo too, without emptying it)."),
    ("2e", 1, "Province", "Each opponent secretly picks a region and sends 2 of his Caballeros there back to his provinces, as many as he can."),
    ("2f", 1, "Decay of authority", "Every opponent sends his whole court back to his provinces."),
    ("2g", 1, "Decay of authority", "Every opponent sends up to 3 Caballeros from his court back to his provinces."),
    ("3a", 1, "Special scoring", "Score the region, or every tied region, holding the most Caballeros (not the Castillo)."),
    ("3b", 2, "Special scoring", "Score every region whose first award is now 4."),
    ("3c", 1, "Special scoring", "Score one region of your choice (the Castillo too, without emptying it)."),
    ("3d", 1, "Special scoring", "Score the occupied region, or every tied one, holding the fewest Caballeros (not the Castillo)."),
    ("3e", 1, "Special scoring", "Score first place only in all nine regions; tied leaders get nothing."),
    ("3f", 2, "Special scoring", "Score the Castillo; its Caballeros stay inside."),
    ("3g", 1, "Special scoring", "Score every region whose first award is now 6 or 7."),
    ("3h", 2, "Special scoring", "Score every region whose first award is now 5 (not the Castillo)."),
    ("4a", 2, "Power cards", "Take one of your played power cards back into your hand."),
    ("4b", 2, "Grande", "Move your Grande to another region; that becomes your home region."),
    ("4c", 1, "The Court", "Bring up to 2 Caballeros from your provinces into your court."),
    ("4d", 1, "Royal adviser", "Move the King to a neighbouring region."),
    ("4e", 3, "Mobile scoreboard", "Place a mobile scoreboard, or move one already on the board, to a region or the Castillo."),
    ("4f", 1, "Secret scoring", "Every player secretly picks a region; each region picked by exactly one player is scored."),
    ("4g", 1, "Eviction", "Name a region; each opponent with Caballeros there secretly picks where all of them go (the named or the King's region sends them to court)."),
    ("5a", 1, "The King", "Move the King to any other region."),
)

CARDS: Final[tuple[CardKind, ...]] = tuple(
    CardKind(i, cid, int(cid[0]), copies, name, text)
    for i, (cid, copies, name, text) in enumerate(_CARD_DATA)
)
CARD_INDEX: Final = {c.id: c.index for c in CARDS}
NUM_CARDS: Final = len(CARDS)
KING_CARD: Final = CARD_INDEX["5a"]
STACKS = (1, 2, 3, 4)  # the shuffled stacks; stack 5 is the King's card alone
STACK_CARDS: Final = {s: tuple(c.index for c in CARDS if c.stack == s) for s in (1, 2, 3, 4, 5)}
INITIAL_COPIES: Final = tuple(c.copies for c in CARDS)
STACK_SIZES = {s: sum(CARDS[i].copies for i in STACK_CARDS[s]) for s in STACK_CARDS}
assert STACK_SIZES == {1: 11, 2: 9, 3: 11, 4: 11, 5: 1}, STACK_SIZES


# The Veto (rules.md §12.1): two copies in stack 2 with the option ``veto_cards`` (the box
# rules). It is not in ``CARDS`` (Yucata's 32 kinds, which every Yucata game and view
# lists); ``ALL_CARDS[VETO_CARD]`` is its kind, and with the option the state's ``copies``
# has a 33rd entry for it.
VETO = CardKind(NUM_CARDS, "2v", 2, 2, "Veto",
                "Take it to hold a Veto this round and the next: once, stop the rest of another "
                "player's special action.")
VETO_CARD: Final = VETO.index
ALL_CARDS: Final[tuple[CardKind, ...]] = CARDS + (VETO,)
ALL_CARD_INDEX = {c.id: c.index for c in ALL_CARDS}
INITIAL_COPIES_WITH_VETO: Final = INITIAL_COPIES + (VETO.copies,)
STACK_CARDS_WITH_VETO: Final = {**STACK_CARDS, 2: STACK_CARDS[2] + (VETO_CARD,)}
assert sum(ALL_CARDS[i].copies for i in STACK_CARDS_WITH_VETO[2]) == 11


def parse_card(text: str) -> int:
    """The kind index of a card id (``"2v"``, the Veto, included)."""
    try:
        return ALL_CARD_INDEX[text.lower()]
    except KeyError:
        raise ValueError(f"unknown action card {text!r}; expected one of 1a..1i, 2a..2g, 2v (the Veto), "
                         "3a..3h, 4a..4g, 5a") from None
