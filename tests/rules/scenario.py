"""Build game positions for rules tests, and play notation strings on them.

A scenario is made by playing the real set-up chance steps (homes, King, fixed start player)
and then overwriting the parts of ``State.to_dict()`` a test cares about; ``State.from_dict``
checks the shapes. Everything not named keeps its set-up value, except that the provinces
are always recomputed so that every seat owns exactly 30 Caballeros.

Typical use: put a card among the available ones at the TAKE phase of the active seat and
reach its special action by real play::

    s = scenario(4, king="CLN", caballeros={"GAL": [3, 1, 0, 0]}, available=["2d"])
    play(s, "p0 take 2d", "p0 special", "p0 score GAL")
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from elgrande.rules import GameConfig, Options, State, apply, legal_actions, new_game
from elgrande.rules.board import AREA_INDEX, REGION_CODES
from elgrande.rules.cards import CARD_INDEX, CARDS, KING_CARD

ALL_CARDS = 0b11111111111110  # power cards 1..13 as a bitmask (bit v = value v)


def area(code: str) -> int:
    return AREA_INDEX[code]


def scenario(
    players: int = 4,
    *,
    king: str = "CLN",
    homes: Sequence[str] | None = None,
    caballeros: Mapping[str, Sequence[int]] | None = None,
    castillo: Sequence[int] | None = None,
    court: Sequence[int] | int | None = None,
    provinces: Sequence[int] | None = None,
    scores: Sequence[int] | None = None,
    tiles: Mapping[str, str] | None = None,
    phase: str = "take",
    active: int | None = None,
    bids: Mapping[int, int] | None = None,
    hands: Mapping[int, Iterable[int]] | None = None,
    available: Sequence[str] = (),
    round: int = 1,
    rounds: int = 9,
    start_player: int = 0,
    options: Options | None = None,
    **changes: Any,
) -> State:
    """A state for a test.

    * ``homes``: home region per seat (default: the first regions in board order that are not
      the King's; a home may be the King's region). Set-up puts 2 Caballeros there, unless
      ``caballeros`` is given.
    * ``caballeros``: ``{"GAL": [counts per seat], ...}``; when given, it is the whole board:
      every other region is empty.
    * ``castillo``: counts per seat in the Castillo (default empty).
    * ``court``: per seat, or one number for everybody (default 7).
    * ``provinces``: per seat; default: whatever makes 30 Caballeros per seat. When given,
      the totals are checked.
    * ``tiles``: ``{"840": "GAL", "400": "CAS"}`` mobile scoreboards on the board.
    * ``phase``: "reveal" (start of a round, nothing revealed), "bid" (cards revealed, nobody
      has bid) or "take" (``active`` seat's turn, after recruitment, choosing a card).
    * ``bids`` (phase "take"): power card per seat; default: ``active`` 13, the others 12, 11,
      ... clockwise from ``active``, so ``active`` moves first.
    * ``hands``: power cards in hand per seat (default: all 13 minus the card bid).
    * ``available``: action card ids face up; the King's card 5a is always added.
    * ``round``: label of the round on the track (1..9; the 6-round game plays 2,3,5,6,8,9).
    * ``changes``: any other ``to_dict`` field, set as given (e.g. ``secret``).
    """
    config = GameConfig(players=players, rounds=rounds, start_player=start_player,
                        options=options or Options())
    s = new_game(config)
    if homes is None:
        homes = [r for r in REGION_CODES if r != king][:players]
    # Set-up never puts a home in the King's region; later play may (the King moves), so a
    # home there is set after the set-up steps.
    setup_homes = homes if king not in homes else [r for r in REGION_CODES if r != king][:players]
    for p, home in enumerate(setup_homes):
        apply(s, f"* home p{p} {home}")
    apply(s, f"* king {king}")
    d = s.to_dict()

    n = players
    d["grande"] = [area(h) for h in homes]
    if caballeros is None and list(homes) != list(setup_homes):
        caballeros = {h: [2 if q == p else 0 for q in range(n)] for p, h in enumerate(homes)}
    if caballeros is not None:
        d["cab"] = [0] * (10 * n)
        for code, counts in caballeros.items():
            assert len(counts) == n, f"{code}: {n} counts expected"
            d["cab"][area(code) * n: area(code) * n + n] = list(counts)
    if castillo is not None:
        d["cab"][9 * n: 10 * n] = list(castillo)
    if court is not None:
        d["court"] = [court] * n if isinstance(court, int) else list(court)
    free = [30 - d["court"][p] - sum(d["cab"][a * n + p] for a in range(10)) for p in range(n)]
    if provinces is not None:
        assert list(provinces) == free, f"provinces {list(provinces)} != 30 - rest {free}"
    d["provinces"] = free
    if scores is not None:
        d["scores"] = list(scores)
    if tiles:
        for name, where in tiles.items():
            d["tiles"][("840", "400").index(name)] = area(where)

    labels = config.round_labels
    d["round_index"] = labels.index(round)
    d["start_player"] = start_player
    cards = [CARD_INDEX[c] for c in available if c != "5a"]
    for c in cards:
        d["copies"][c] -= 1
        assert d["copies"][c] >= 0, f"no copy of {CARDS[c].id} left"
    if phase == "reveal":
        d.update(phase="reveal", available=[], bids=[0] * n, order=[], turn=0, active=-1)
    elif phase == "bid":
        d.update(phase="bid", available=cards + [KING_CARD], bids=[0] * n, order=[], turn=0,
                 active=-1)
    elif phase == "take":
        if active is None:
            active = start_player
        if bids is None:
            bids = {(active + i) % n: 13 - i for i in range(n)}
        bid_list = [bids[p] for p in range(n)]
        assert len(set(bid_list)) == n, "bids must differ"
        order = sorted(range(n), key=lambda p: -bid_list[p])
        d.update(phase="take", available=cards + [KING_CARD], bids=bid_list, order=order,
                 turn=order.index(active), active=active)
        d["hand"] = [ALL_CARDS & ~(1 << bid_list[p]) for p in range(n)]
    else:
        raise ValueError(f"scenario phase {phase!r} not supported")
    if hands is not None:
        for p, values in hands.items():
            d["hand"][p] = sum(1 << v for v in values)
    for key, value in changes.items():
        assert key in d, f"unknown state field {key}"
        d[key] = value
    return State.from_dict(d)


def play(s: State, *moves: str, events: list | None = None) -> State:
    """Apply each notation string in turn (raising IllegalAction on the first illegal one)."""
    for move in moves:
        apply(s, move, events)
    return s


def legal(s: State, seat: int | None = None) -> list[str]:
    """The legal actions as notation strings."""
    return [str(a) for a in legal_actions(s, seat)]


def counts(s: State, code: str) -> list[int]:
    """Caballeros per seat in a region or the Castillo ("CAS")."""
    a = area(code)
    return s.cab[a * s.n: a * s.n + s.n]


def board(s: State) -> dict[str, list[int]]:
    """Every non-empty area as ``{code: counts per seat}`` (compare with a literal dict)."""
    out = {}
    for code in REGION_CODES + ("CAS",):
        c = counts(s, code)
        if any(c):
            out[code] = c
    return out


def region_code(a: int) -> str:
    return (REGION_CODES + ("CAS",))[a]
