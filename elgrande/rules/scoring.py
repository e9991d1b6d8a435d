"""Scoring one area (rules.md §6.1): majorities, the tie rule, award limits, bonuses."""

from __future__ import annotations

from typing import Final

from .board import CASTILLO, PRINTED_AWARDS, TILES
from .events import Event, Scored
from .state import State

# Ranks that pay, by player count: 2 players only first, 3 players first and second.
PAYING_RANKS: Final = (0, 0, 1, 2, 3, 3)


def rank_points(counts: list[int], awards: tuple[int, int, int], players: int) -> list[int]:
    """Points per seat for one area without bonuses.

    Players are grouped by count, highest first; a single player takes rank ``pos``, a tied
    group of any size takes rank ``pos + 1`` (it drops exactly one rank); the next group
    continues after that rank. Players with no Caballeros take no part.
    """
    points = [0] * len(counts)
    limit = PAYING_RANKS[players]
    present = sorted({c for c in counts if c > 0}, reverse=True)
    pos = 1
    for c in present:
        if pos > limit:
            break
        group = [p for p, k in enumerate(counts) if k == c]
        rank = pos if len(group) == 1 else pos + 1
        if rank <= limit:
            award = awards[rank - 1]
            for p in group:
                points[p] = award
        pos = rank + 1
    return points


def awards_of(s: State, area: int) -> tuple[int, int, int]:
    """The area's current awards: a mobile scoreboard lying there replaces the printed ones."""
    tiles = s.tiles
    if tiles[0] == area:
        return TILES[0]
    if tiles[1] == area:
        return TILES[1]
    return PRINTED_AWARDS[area]


def score_area(s: State, area: int, first_only: bool = False, events: list[Event] | None = None,
               reason: str = "") -> list[int]:
    """Score one region or the Castillo into ``s.scores``; returns the points per seat."""
    points = area_points(s, area, first_only)
    scores = s.scores
    for p in range(s.n):
        scores[p] += points[p]
    if events is not None:
        events.append(Scored(area, tuple(points), reason))
    return points


def area_points(s: State, area: int, first_only: bool = False) -> list[int]:
    """The points per seat that scoring the area now would give (nothing is changed)."""
    n = s.n
    counts = s.cab[area * n: area * n + n]
    awards = awards_of(s, area)
    best = max(counts)
    leader = counts.index(best) if best > 0 and counts.count(best) == 1 else -1
    if first_only:
        points = [0] * n
        if leader >= 0:
            points[leader] = awards[0]
    else:
        points = rank_points(counts, awards, n)
    if leader >= 0 and area != CASTILLO:
        if s.grande[leader] == area:
            points[leader] += 2
        if s.king == area:
            points[leader] += 2
    return points
