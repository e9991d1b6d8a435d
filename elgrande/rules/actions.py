"""Actions: interned ``int`` values with a text notation (docs/notation.md).

An action's code is ``slot << 16 | kind << 10 | arg`` where slot 0 is chance and
slot ``s + 1`` is seat ``s``; codes therefore sort by seat, then kind, then argument.
Every possible action exists once, built at import time, so generating legal
actions never allocates new objects and comparisons are plain int comparisons.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import Final, TypeVar

from .board import AREA_CODES, CASTILLO, NUM_AREAS, NUM_REGIONS, TILES, parse_area
from .cards import ALL_CARDS, NUM_CARDS, parse_card

MAX_PLAYERS: Final = 5
CHANCE: Final = -1


class Kind(IntEnum):
    """An action's verb, in the order action codes sort. The values are part of every
    action's code: never renumber them. ``KIND_NAMES[kind]`` is the verb in the notation."""

    HOME = 0  # chance (set-up)
    KING_AT = 1  # chance (set-up)
    START = 2  # chance (set-up)
    REVEAL = 3  # chance (each round)
    BID = 4
    RECRUIT = 5
    RECALL = 6
    TAKE = 7
    DEPLOY = 8
    SPECIAL = 9
    END = 10
    PLACE = 11
    PICK = 12
    DROP = 13
    FROM = 14
    OPTION = 15
    SECRET = 16
    REMOVE = 17
    LOSE = 18
    SCORE = 19
    RETRIEVE = 20
    GRANDE = 21
    COURT = 22
    KING = 23
    TILE = 24
    EVICT = 25
    DONE = 26  # after the choices it ends, so that "stop here" sorts last
    VETO = 27  # a veto window (box rules, rules.md §12.1): stop the special action
    PASS = 28  # a veto window: let it go on


KIND_NAMES = (
    "home", "king", "start", "reveal",
    "bid", "recruit", "recall", "take",
    "deploy", "special", "end",
    "place", "pick", "drop", "from", "option",
    "secret", "remove", "lose", "score",
    "retrieve", "grande", "court", "king", "tile", "evict",
    "done", "veto", "pass",
)
assert len(KIND_NAMES) == len(Kind)
_KINDS = tuple(Kind)
# Module-level names of the kinds, as plain ints for the engine's hot paths (like the
# phases; Final literals, which the compiled engine inlines).
HOME: Final = 0
KING_AT: Final = 1
START: Final = 2
REVEAL: Final = 3
BID: Final = 4
RECRUIT: Final = 5
RECALL: Final = 6
TAKE: Final = 7
DEPLOY: Final = 8
SPECIAL: Final = 9
END: Final = 10
PLACE: Final = 11
PICK: Final = 12
DROP: Final = 13
FROM: Final = 14
OPTION: Final = 15
SECRET: Final = 16
REMOVE: Final = 17
LOSE: Final = 18
SCORE: Final = 19
RETRIEVE: Final = 20
GRANDE: Final = 21
COURT: Final = 22
KING: Final = 23
TILE: Final = 24
EVICT: Final = 25
DONE: Final = 26
VETO: Final = 27
PASS: Final = 28
assert all(globals()[k.name] == k for k in Kind), "the names above are Kind's"
CHANCE_KINDS = (HOME, KING_AT, START, REVEAL)
LOSE_COURT: Final = 10  # argument of LOSE meaning "from the court"
OPTION_NAMES = ("1c", "1b")  # card 1i: place from court (1c) or empty one region (1b)


_C = TypeVar("_C", bound=type)


def _python_class(cls: _C) -> _C:
    """Keeps a class a plain Python class when mypyc compiles this module (mypyc makes a
    class with any decorator but its own few a Python class): ``Action`` subclasses
    ``int``, which a compiled (native) class cannot. See docs/compiled-engine.md."""
    return cls


@_python_class
class Action(int):
    """One atomic decision; ``str(a)`` gives its notation, ``parse_action`` reads it back."""

    __slots__ = ()

    @property
    def seat(self) -> int:
        return (self >> 16) - 1

    @property
    def kind_id(self) -> Kind:
        return _KINDS[(self >> 10) & 63]

    @property
    def kind(self) -> str:
        return KIND_NAMES[(self >> 10) & 63]

    @property
    def arg(self) -> int:
        return self & 1023

    @property
    def is_chance(self) -> bool:
        return self < 65536

    @property
    def is_secret(self) -> bool:
        return (self >> 10) & 63 == SECRET and self >= 65536

    def __str__(self) -> str:
        return _TEXT[self]

    def __repr__(self) -> str:
        return f"Action({_TEXT[self]!r})"

    def to_json(self) -> str:
        return _TEXT[self]


def _code(seat: int, kind: int, arg: int) -> int:
    return ((seat + 1) << 16) | (kind << 10) | arg


def _seat_text(seat: int) -> str:
    return "*" if seat == CHANCE else f"p{seat}"


def _format(seat: int, kind: int, arg: int) -> str:
    who = _seat_text(seat)
    name = KIND_NAMES[kind]
    if kind in (DEPLOY, SPECIAL, END, DONE, VETO, PASS):
        return f"{who} {name}"
    if kind in (BID, RECRUIT, RETRIEVE, COURT):
        return f"{who} {name} {arg}"
    if kind in (RECALL, PLACE, DROP, FROM, SECRET, SCORE, GRANDE, KING, KING_AT, EVICT):
        return f"{who} {name} {AREA_CODES[arg]}"
    if kind in (TAKE, REVEAL):
        return f"{who} {name} {ALL_CARDS[arg].id}"
    if kind in (PICK, REMOVE, HOME):
        return f"{who} {name} p{arg // 10} {AREA_CODES[arg % 10]}"
    if kind == START:
        return f"{who} {name} p{arg}"
    if kind == LOSE:
        return f"{who} {name} {'court' if arg == LOSE_COURT else AREA_CODES[arg]}"
    if kind == OPTION:
        return f"{who} {name} {OPTION_NAMES[arg]}"
    if kind == TILE:
        return f"{who} {name} {TILES[arg // 10][0]} {AREA_CODES[arg % 10]}"
    raise AssertionError(kind)


def _arguments(kind: int) -> Sequence[int]:
    regions = range(NUM_REGIONS)
    areas = range(NUM_AREAS)
    owner_region = [o * 10 + r for o in range(MAX_PLAYERS) for r in regions]
    return {
        HOME: owner_region, KING_AT: regions, START: range(MAX_PLAYERS),
        REVEAL: [c.index for c in ALL_CARDS if c.stack < 5],
        BID: range(1, 14), RECRUIT: range(7), RECALL: regions, TAKE: range(NUM_CARDS + 1),
        DEPLOY: [0], SPECIAL: [0], END: [0], DONE: [0], VETO: [0], PASS: [0],
        PLACE: areas, PICK: owner_region, DROP: areas, FROM: regions, OPTION: range(2),
        SECRET: regions, REMOVE: owner_region, LOSE: list(regions) + [LOSE_COURT], SCORE: areas,
        RETRIEVE: range(1, 14), GRANDE: regions, COURT: range(3), KING: regions,
        TILE: [t * 10 + a for t in range(len(TILES)) for a in areas], EVICT: regions,
    }[kind]


_TEXT: dict[int, str] = {}
_BY_TEXT: dict[str, Action] = {}
_ALL: dict[int, Action] = {}


def _build() -> None:
    for kind in range(len(KIND_NAMES)):
        seats = [CHANCE] if kind in CHANCE_KINDS else list(range(MAX_PLAYERS))
        for seat in seats:
            for arg in _arguments(kind):
                action = Action(_code(seat, kind, arg))
                text = _format(seat, kind, arg)
                _ALL[action] = action
                _TEXT[action] = text
                _BY_TEXT[text] = action


_build()


def action(seat: int, kind: int, arg: int = 0) -> Action:
    """The interned action for (seat, kind, arg); KeyError if it does not exist."""
    return _ALL[_code(seat, kind, arg)]


def table(kind: int, size: int) -> list[list[Action]]:
    """``table(kind, n)[seat][arg]`` for fast lookup in the legal-action generator."""
    return [[_ALL.get(_code(seat, kind, arg)) for arg in range(size)] for seat in range(MAX_PLAYERS)]  # type: ignore[misc]


def all_actions() -> list[Action]:
    """Every action that can exist, sorted (for exhaustive tests)."""
    return sorted(_ALL.values())


def from_code(code: int) -> Action:
    try:
        return _ALL[code]
    except KeyError:
        raise ValueError(f"no action has code {code}") from None


def parse_action(text: str) -> Action:
    """Read an action from its notation, e.g. ``"p2 place ARA"`` or ``"* reveal 1g"``."""
    words = text.split()
    if not words:
        raise ValueError("empty action text")
    normal = " ".join(_normalise(words))
    try:
        return _BY_TEXT[normal]
    except KeyError:
        raise ValueError(f"not an action: {text!r} (see docs/notation.md)") from None


def _normalise(words: list[str]) -> list[str]:
    """Case-insensitive reading: seats lower-case, areas upper-case, card ids checked."""
    out = [words[0].lower()]
    for w in words[1:]:
        lw = w.lower()
        if lw.startswith("p") and lw[1:].isdigit():
            out.append(lw)
        elif w.upper() in AREA_CODES:
            out.append(w.upper())
        elif len(lw) == 2 and lw[0].isdigit() and lw[1].isalpha():
            parse_card(lw)  # raises a clear error for unknown cards
            out.append(lw)
        else:
            out.append(lw)
    return out


assert parse_area("CAS") == CASTILLO
