"""The map: nine regions in scoring order, the Castillo, awards and adjacency (rules.md §1-2).

Areas are small ints: 0..8 are the regions in scoring order, 9 is the Castillo.
"""

from __future__ import annotations

from typing import Final

REGION_CODES = ("GAL", "PVA", "ARA", "CAT", "CLV", "CLN", "SEV", "GRA", "VAL")
REGION_NAMES = (
    "Galicia", "País Vasco", "Aragón", "Cataluña", "Castilla la Vieja",
    "Castilla la Nueva", "Sevilla", "Granada", "Valencia",
)
CASTILLO: Final = 9
AREA_CODES: Final = REGION_CODES + ("CAS",)
AREA_NAMES = REGION_NAMES + ("Castillo",)
NUM_REGIONS: Final = 9
NUM_AREAS: Final = 10
REGIONS = tuple(range(NUM_REGIONS))
AREAS = tuple(range(NUM_AREAS))
AREA_INDEX: Final = {code: i for i, code in enumerate(AREA_CODES)}

# Printed awards (first, second, third) per area, Castillo last.
PRINTED_AWARDS: Final[tuple[tuple[int, int, int], ...]] = (
    (4, 2, 0), (5, 3, 1), (5, 4, 1), (4, 2, 1), (6, 4, 2),
    (7, 4, 2), (4, 3, 1), (6, 3, 1), (5, 3, 2), (5, 3, 1),
)

# The two mobile scoreboards, identified by their index 0 and 1.
TILES: Final[tuple[tuple[int, int, int], ...]] = ((8, 4, 0), (4, 0, 0))
TILE_OFF_BOARD = -1

_EDGES = (
    ("GAL", "CLV"), ("GAL", "PVA"), ("PVA", "CLV"), ("PVA", "ARA"), ("ARA", "CLV"),
    ("ARA", "CLN"), ("ARA", "CAT"), ("ARA", "VAL"), ("CAT", "VAL"), ("CLV", "CLN"),
    ("CLN", "VAL"), ("CLN", "GRA"), ("CLN", "SEV"), ("SEV", "GRA"), ("GRA", "VAL"),
)


def _neighbours() -> tuple[tuple[int, ...], ...]:
    adjacent: list[set[int]] = [set() for _ in REGIONS]
    for a, b in _EDGES:
        i, j = AREA_INDEX[a], AREA_INDEX[b]
        adjacent[i].add(j)
        adjacent[j].add(i)
    return tuple(tuple(sorted(s)) for s in adjacent)


NEIGHBOURS: Final = _neighbours()
EDGES = tuple((AREA_INDEX[a], AREA_INDEX[b]) for a, b in _EDGES)

# Power card value -> most Caballeros recruited from the provinces (rules.md §4.2).
RECRUITS_BY_POWER: Final = (0, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0)
POWER_VALUES = tuple(range(1, 14))
CABALLEROS_PER_PLAYER: Final = 30
START_COURT: Final = 7
START_HOME: Final = 2
START_PROVINCES: Final = 21

ROUNDS_9: Final = (1, 2, 3, 4, 5, 6, 7, 8, 9)
ROUNDS_6: Final = (2, 3, 5, 6, 8, 9)
SCORING_ROUNDS: Final = (3, 6, 9)


def area_code(area: int) -> str:
    return AREA_CODES[area]


def parse_area(code: str) -> int:
    try:
        return AREA_INDEX[code.upper()]
    except KeyError:
        raise ValueError(f"unknown area {code!r}; expected one of {', '.join(AREA_CODES)}") from None
