"""A fast static evaluation of a position: expected final points per seat.

Reads the engine's state fields directly (elgrande/rules/state.py). The value of seat p is
its score so far plus what the board is expected to pay it before the game ends:

* majorities: what each region would pay now (ranks, ties, award limits, mobile
  scoreboards, King's and home bonuses), weighted by how many scorings are still to come;
* the Castillo: what it pays at the next general scoring plus what the released
  Caballeros add to the best region they can reach;
* reserves: Caballeros in court (and, less, in the provinces) are future majorities;
* tempo and the power-card economy: pending recruits of this round's bid, an early place
  in the turn order, and the power cards still in hand.

All weights are in points and live in ``Weights`` so they can be tuned in one place.
"""

from __future__ import annotations

from dataclasses import dataclass

from elgrande.rules.board import (
    CASTILLO,
    NUM_AREAS,
    PRINTED_AWARDS,
    RECRUITS_BY_POWER,
    SCORING_ROUNDS,
    TILES,
)
from elgrande.rules.state import BID, GAME_OVER, RECALL, RECRUIT, State

PAYING_RANKS = (0, 0, 1, 2, 3, 3)


@dataclass(frozen=True)
class Weights:
    next_scoring: float = 1.0  # a majority as it stands counts fully at the next general scoring
    later_scoring: float = 0.45  # ... and partly at each later one (it will be contested)
    special_per_round: float = 0.12  # chance per remaining round that a region is specially scored
    castillo_release: float = 0.8  # share of the release gain we expect to keep
    court: float = 0.55  # a Caballero in court, while there are turns left to deploy it
    provinces: float = 0.12  # a Caballero in the provinces (can be recruited later)
    tempo: float = 2.0  # first in turn order rather than last, this round
    hand: float = 0.10  # per point of power-card value kept in hand, scaled by rounds left


DEFAULT_WEIGHTS = Weights()


def awards(tiles: list[int], area: int) -> tuple[int, int, int]:
    if tiles[0] == area:
        return TILES[0]
    if tiles[1] == area:
        return TILES[1]
    return PRINTED_AWARDS[area]


_AREA_AWARDS: dict[tuple[int, int], tuple[tuple[int, int, int], ...]] = {}


def area_awards(tiles: list[int]) -> tuple[tuple[int, int, int], ...]:
    """``awards(tiles, area)`` for every area, by area."""
    key = (tiles[0], tiles[1])
    out = _AREA_AWARDS.get(key)
    if out is None:
        out = _AREA_AWARDS[key] = tuple(awards(tiles, area) for area in range(NUM_AREAS))
    return out


def _rank_points(counts: list[int], aw: tuple[int, int, int],
                 n: int) -> tuple[tuple[int, ...], int]:
    """(points per seat by rank alone, the sole leader or -1: who would get the bonuses)."""
    points = [0] * n
    leader = -1
    top = max(counts)
    limit = PAYING_RANKS[n]
    pos = 1
    c = top
    while c > 0 and pos <= limit:
        group = [p for p in range(n) if counts[p] == c]
        rank = pos if len(group) == 1 else pos + 1
        if rank <= limit:
            a = aw[rank - 1]
            for p in group:
                points[p] = a
            if rank == 1:
                leader = group[0]
        pos = rank + 1
        c = max((v for v in counts if v < c), default=0)
    return tuple(points), leader


# ``_rank_points`` by (counts..., awards): playouts and evaluations ask about the same few
# hundred majorities over and over. Cleared when it grows past ``_RANKS_LIMIT``.
_RANKS: dict[tuple[int, ...], tuple[tuple[int, ...], int]] = {}
_RANKS_LIMIT = 200_000


def _ranks_miss(counts: list[int], aw: tuple[int, int, int],
                key: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    if len(_RANKS) >= _RANKS_LIMIT:
        _RANKS.clear()
    hit = _RANKS[key] = _rank_points(counts, aw, len(counts))
    return hit


def area_points(counts: list[int], aw: tuple[int, int, int], n: int, region: int,
                king: int, grande: list[int]) -> list[int]:
    """Points per seat if the area were scored now (rules.md §6.1); ``region`` < 9 for regions.

    ``counts`` has one entry per seat (``n``)."""
    key = (*counts, *aw)
    hit = _RANKS.get(key)
    base, leader = _ranks_miss(counts, aw, key) if hit is None else hit
    points = list(base)
    if leader >= 0 and region != CASTILLO:
        if grande[leader] == region:
            points[leader] += 2
        if king == region:
            points[leader] += 2
    return points


def seat_points(counts: list[int], aw: tuple[int, int, int], n: int, seat: int, region: int,
                king: int, grande: list[int]) -> int:
    """Just one seat's share of ``area_points``."""
    if counts[seat] == 0:
        return 0
    key = (*counts, *aw)
    hit = _RANKS.get(key)
    base, leader = _ranks_miss(counts, aw, key) if hit is None else hit
    pts = base[seat]
    if leader == seat and region != CASTILLO:
        if grande[seat] == region:
            pts += 2
        if king == region:
            pts += 2
    return pts


def scorings_left(s: State) -> tuple[int, int]:
    """(general scorings still to come, rounds still to be played including the current one)."""
    labels = s.config.round_labels
    if s.phase == GAME_OVER:
        return 0, 0
    current = labels[min(s.round_index, len(labels) - 1)]
    generals = sum(1 for r in SCORING_ROUNDS if r >= current)
    rounds = len(labels) - s.round_index
    return generals, rounds


def evaluate(s: State, w: Weights = DEFAULT_WEIGHTS) -> list[float]:
    """Expected final points per seat (a heuristic, not a promise)."""
    values, rounds = board_values(s, w)
    if rounds is not None:
        add_reserves(s, values, rounds, w)
    return values


def board_values(s: State, w: Weights = DEFAULT_WEIGHTS) -> tuple[list[float], int | None]:
    """The part of ``evaluate`` a bid cannot change (the scores, the regions, the
    Castillo) and the rounds left, None when no general scoring is left: then the values
    are final and ``add_reserves`` is not called."""
    n = s.n
    values = [float(v) for v in s.scores]
    generals, rounds = scorings_left(s)
    if generals == 0:
        return values, None
    region_weight = w.next_scoring + w.later_scoring * (generals - 1) + w.special_per_round * rounds
    cab, tiles, king, grande = s.cab, s.tiles, s.king, s.grande
    region_points = []
    aws = area_awards(tiles)
    for area in range(9):
        counts = cab[area * n: area * n + n]
        pts = area_points(counts, aws[area], n, area, king, grande)
        region_points.append(pts)
        for p in range(n):
            if pts[p]:
                values[p] += region_weight * pts[p]
    # The Castillo pays once at the next general scoring (and sometimes via 3f/2d before).
    cas = cab[CASTILLO * n: CASTILLO * n + n]
    if any(cas):
        pts = area_points(cas, aws[CASTILLO], n, CASTILLO, king, grande)
        gen_weight = w.next_scoring + w.later_scoring * (generals - 1)
        for p in range(n):
            values[p] += (w.next_scoring + w.special_per_round * rounds) * pts[p]
            if cas[p]:
                gain = _release_gain(s, p, cas[p], region_points)
                values[p] += w.castillo_release * gen_weight * gain
    return values, rounds


def add_reserves(s: State, values: list[float], rounds: int, w: Weights) -> None:
    """The rest of ``evaluate``: Caballeros that can still reach the board before the
    game ends, the power cards in hand and, while bidding, the turn order bought."""
    _add_reserves(s, values, rounds, w, s.active, s.bids, s.hand)


def add_bid_reserves(s: State, values: list[float], rounds: int, w: Weights,
                     seat: int, bid: int) -> None:
    """``add_reserves`` of the state after ``seat`` bids ``bid`` when another seat is
    still to bid (so the bidding goes on), without making that state: only the seat's
    bid and hand change."""
    bids, hand = list(s.bids), list(s.hand)
    bids[seat] = bid
    hand[seat] &= ~(1 << bid)
    _add_reserves(s, values, rounds, w, s.active, bids, hand)


def _add_reserves(s: State, values: list[float], rounds: int, w: Weights, active: int,
                  bids: list[int], hand: list[int]) -> None:
    n = s.n
    finished = _finished_turns(s)
    pending = _pending_recruits(s, finished, active, bids)
    for p in range(n):
        turns_left = rounds - (1 if p in finished else 0)
        if turns_left > 0:
            values[p] += w.court * min(s.court[p] + pending[p], 5 * turns_left)
        values[p] += w.provinces * min(s.provinces[p], 6 * max(rounds - 1, 0)) / 6
    _add_tempo_and_hand(s, values, rounds, w, bids, hand)


def _release_gain(s: State, p: int, k: int, region_points: list[list[int]]) -> float:
    """Extra region points seat p would get by moving k Castillo Caballeros to its best region."""
    n = s.n
    cab, king, grande = s.cab, s.king, s.grande
    aws = area_awards(s.tiles)
    best = 0
    for area in range(9):
        if area == king:
            continue
        counts = cab[area * n: area * n + n]
        counts[p] += k
        gain = seat_points(counts, aws[area], n, p, area, king, grande) \
            - region_points[area][p]
        if gain > best:
            best = gain
    return float(best)


def _finished_turns(s: State) -> set[int]:
    """Seats whose turn this round is over (their recruits are in)."""
    if s.phase == BID:
        return set()
    if not s.order:  # between rounds (general scoring): every turn is over
        return set(range(s.n))
    return set(s.order[: s.turn])


def _pending_recruits(s: State, finished: set[int], active: int, bids: list[int]) -> list[int]:
    """Caballeros each seat will still recruit this round from the power card it played."""
    n = s.n
    pending = [0] * n
    for p in range(n):
        bid = bids[p]
        if not bid or p in finished:
            continue
        if p == active and s.phase not in (RECRUIT, RECALL):
            continue
        pending[p] = min(RECRUITS_BY_POWER[bid], s.provinces[p])
    return pending


def _add_tempo_and_hand(s: State, values: list[float], rounds: int, w: Weights,
                        bids: list[int], hand: list[int]) -> None:
    n = s.n
    if s.phase == BID:
        # An early turn is worth having: rank the bids made so far.
        played = sorted((b for b in bids if b), reverse=True)
        for p in range(n):
            b = bids[p]
            if b:
                rank = played.index(b)
                values[p] += w.tempo * (1 - rank / max(1, n - 1)) * (b / 13)
    future = max(rounds - 1, 0)
    for p in range(n):
        total, count = _HAND[hand[p] & _HAND_MASK]
        if count:
            values[p] += w.hand * total * min(1.0, future / count)


def _hand_sum(hand: int) -> tuple[int, int]:
    """(sum, number) of the power cards 1 to 13 in a hand (bit v set: card v in hand)."""
    cards = [v for v in range(1, 14) if hand >> v & 1]
    return sum(cards), len(cards)


_HAND_MASK = (1 << 14) - 1
_HAND = [_hand_sum(hand) for hand in range(1 << 14)]


def utility(values: list[float], seat: int) -> float:
    """What a seat maximises: its lead over a blend of the best and the average opponent."""
    others = [v for p, v in enumerate(values) if p != seat]
    return values[seat] - 0.5 * max(others) - 0.5 * sum(others) / len(others)
