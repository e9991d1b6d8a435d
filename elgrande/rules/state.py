"""Game configuration, rule options and the mutable game state (docs/state-format.md)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from .board import ROUNDS_6, ROUNDS_9

FORMAT_VERSION = 1


@dataclass(frozen=True, slots=True)
class Options:
    """Open points of the rules (rules.md, marked [L]); each default is our choice."""

    #: §4.5: a power card taken back with card 4a still counts as played this round
    #: when the next start player (lowest card) is determined.
    retrieved_card_counts_for_start: bool = True
    #: §5.1 / A24: a Caballero may be moved at most once per special action.
    move_each_caballero_once: bool = True
    #: §5.4 / A13: in 2a and 2e an opponent may only pick a region (not the King's) where he
    #: has at least one Caballero; with False any region other than the King's may be picked.
    province_pick_requires_caballero: bool = True
    #: A13: the TTS variant of 2e: pick a region with at least two of one's Caballeros if any.
    province2_requires_two_if_possible: bool = False
    #: §5.6 / A18: power cards in hand are public information (the played piles are).
    #: With False, views show other seats only how many cards they hold (a card taken back
    #: with 4a stays unknown); it changes what views show, not the rules.
    hands_public: bool = True
    #: §5.6 / A11: card 4c may recall the shortfall from the board when the provinces run out.
    court_card_recall_from_board: bool = False
    #: §6.5 / A23: a player with no Caballero in the Castillo also picks a destination.
    castillo_pick_when_empty: bool = False
    #: A19: 1b (and 1i's second option) may stop before every Caballero has left.
    empty_region_optional_amount: bool = False
    #: A16: the "score one region" cards (2d, 3c) may score the Castillo.
    choose_scoring_includes_castillo: bool = True
    #: A17: the 4- and 6/7-value scorings (3b, 3g) include a Castillo carrying such a tile.
    value_scoring_includes_castillo: bool = False
    #: A18: card 4a may take back the power card played this very round.
    retrieve_current_round_card: bool = True
    #: A25: the King's region may be picked in card 4f's secret scoring.
    secret_scoring_allows_king_region: bool = True

    def to_dict(self) -> dict[str, bool]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Options:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown rule options: {', '.join(sorted(unknown))}")
        return cls(**data)


@dataclass(frozen=True, slots=True)
class GameConfig:
    """What a game is created with: player count, length, first start player, rule options."""

    players: int
    rounds: int = 9  # 9 or 6
    start_player: int | None = None  # None: drawn at random in set-up (a chance step)
    options: Options = field(default_factory=Options)

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 5:
            raise ValueError(f"El Grande is for 2 to 5 players, not {self.players}")
        if self.rounds not in (6, 9):
            raise ValueError(f"a game has 9 or 6 rounds, not {self.rounds}")
        if self.start_player is not None and not 0 <= self.start_player < self.players:
            raise ValueError(f"start player must be a seat 0..{self.players - 1}")

    @property
    def round_labels(self) -> tuple[int, ...]:
        return ROUNDS_9 if self.rounds == 9 else ROUNDS_6

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "rounds": self.rounds,
            "start_player": self.start_player,
            "options": self.options.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameConfig:
        return cls(
            players=data["players"],
            rounds=data.get("rounds", 9),
            start_player=data.get("start_player"),
            options=Options.from_dict(data.get("options", {})),
        )


# Phases: who acts and what the top decision is (see docs/state-format.md).
PHASE_NAMES = (
    "setup", "reveal", "bid", "recruit", "recall", "take", "choose", "deploy", "after_deploy",
    "move", "move_drop", "empty_choose", "empty_drop", "court_place", "option", "secret",
    "remove", "lose", "score_choice", "retrieve", "grande", "court_card", "king", "tile",
    "evict", "game_over",
)
(
    SETUP, REVEAL, BID, RECRUIT, RECALL, TAKE, CHOOSE, DEPLOY, AFTER_DEPLOY,
    MOVE, MOVE_DROP, EMPTY_CHOOSE, EMPTY_DROP, COURT_PLACE, OPTION, SECRET,
    REMOVE, LOSE, SCORE_CHOICE, RETRIEVE, GRANDE_MOVE, COURT_CARD, KING_MOVE, TILE_MOVE,
    EVICT, GAME_OVER,
) = range(len(PHASE_NAMES))
CHANCE_PHASES = (SETUP, REVEAL)

# What a pending secret choice is for.
SECRET_PURPOSES = ("general", "2a", "2e", "4f", "4g")
GENERAL, LOSE_ALL, LOSE_TWO, SECRET_SCORING, EVICTION = range(len(SECRET_PURPOSES))

# Values of State.secret[p].
NOT_ASKED, PENDING = -2, -1

# Bits of State.parts_done.
DEPLOYMENT_DONE, SPECIAL_DONE = 1, 2


@dataclass(slots=True)
class State:
    """The whole game position: small ints and flat lists, copied by slicing.

    ``cab[area * n + p]`` is the number of seat p's Caballeros in an area (0..8 the regions in
    scoring order, 9 the Castillo). Power-card hands are bitmasks (bit v set = card v in hand).
    The order of the action stacks is deliberately not here: only how many copies of each
    card kind are left (``copies``), which every player can work out.
    """

    config: GameConfig
    n: int  # number of players
    phase: int  # one of the phase constants above
    round_index: int  # index into config.round_labels; the round being played
    ply: int  # number of actions applied so far
    cab: list[int]  # Caballeros per area and seat, cab[area * n + p]
    court: list[int]  # Caballeros in each seat's court
    provinces: list[int]  # Caballeros in each seat's provinces
    scores: list[int]
    grande: list[int]  # each seat's home region (Grande), -1 before set-up
    king: int  # the King's region, -1 before set-up
    tiles: list[int]  # area of the 8/4/0 and 4/0/0 mobile scoreboards, -1 beside the board
    hand: list[int]  # power cards in hand, bitmask per seat
    bids: list[int]  # power card played this round per seat, 0 = none yet
    start_player: int  # who bids first this round, -1 before set-up
    order: list[int]  # this round's turn order, highest card first (empty while bidding)
    turn: int  # index of the current bidder (from the start player) or into order
    active: int  # seat whose turn it is (-1 outside turns)
    copies: list[int]  # copies of each card kind still in its stack
    available: list[int]  # card kinds face up this round and not yet taken
    card: int  # card kind taken this turn, -1 none
    parts_done: int  # DEPLOYMENT_DONE | SPECIAL_DONE bits of the current turn
    deploy_left: int  # Caballeros the current deployment may still place
    count_left: int  # remaining amount of the current step (recall, 1c placements, 2c losses)
    own_left: int  # movement budget: own Caballeros
    opp_left: int  # movement budget: opposing Caballeros
    any_left: int  # movement budget: Caballeros of any colour
    source: int  # region fixed for this special action (1b, 1g, 4g), -1 none
    picked: int  # owner * 10 + region of the Caballero picked up and not yet dropped, -1
    arrived: list[int]  # Caballeros moved into each area this special action, like cab
    queue: list[int]  # opponents still to be handled, in clockwise order (2b, 2c)
    secret: list[int]  # per seat: NOT_ASKED, PENDING or the chosen region
    secret_purpose: int  # one of SECRET_PURPOSES, -1 none
    legal_cache: tuple[int, ...] | None = field(default=None, compare=False, repr=False)

    def copy(self) -> State:
        s = _new_state(State)
        s.config = self.config
        s.n = self.n
        s.phase = self.phase
        s.round_index = self.round_index
        s.ply = self.ply
        s.cab = self.cab[:]
        s.court = self.court[:]
        s.provinces = self.provinces[:]
        s.scores = self.scores[:]
        s.grande = self.grande[:]
        s.king = self.king
        s.tiles = self.tiles[:]
        s.hand = self.hand[:]
        s.bids = self.bids[:]
        s.start_player = self.start_player
        s.order = self.order[:]
        s.turn = self.turn
        s.active = self.active
        s.copies = self.copies[:]
        s.available = self.available[:]
        s.card = self.card
        s.parts_done = self.parts_done
        s.deploy_left = self.deploy_left
        s.count_left = self.count_left
        s.own_left = self.own_left
        s.opp_left = self.opp_left
        s.any_left = self.any_left
        s.source = self.source
        s.picked = self.picked
        s.arrived = self.arrived[:]
        s.queue = self.queue[:]
        s.secret = self.secret[:]
        s.secret_purpose = self.secret_purpose
        s.legal_cache = self.legal_cache
        return s

    @property
    def round(self) -> int:
        """The round's label on the track (1..9; the 6-round game skips 1, 4 and 7)."""
        return self.config.round_labels[self.round_index]

    @property
    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    def castillo(self, seat: int) -> int:
        return self.cab[9 * self.n + seat]

    def count(self, area: int, seat: int) -> int:
        return self.cab[area * self.n + seat]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data; ``State.from_dict(s.to_dict()) == s``."""
        data: dict[str, Any] = {"format": FORMAT_VERSION, "config": self.config.to_dict()}
        for name in _SERIALISED:
            value = getattr(self, name)
            data[name] = value[:] if isinstance(value, list) else value
        data["phase"] = PHASE_NAMES[self.phase]
        data["secret_purpose"] = SECRET_PURPOSES[self.secret_purpose] if self.secret_purpose >= 0 else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> State:
        if data.get("format") != FORMAT_VERSION:
            raise ValueError(f"unsupported state format {data.get('format')!r}; expected {FORMAT_VERSION}")
        config = GameConfig.from_dict(data["config"])
        values: dict[str, Any] = {}
        try:
            for name in _SERIALISED:
                value = data[name]
                values[name] = list(value) if isinstance(value, list) else value
            values["phase"] = PHASE_NAMES.index(data["phase"])
            purpose = data["secret_purpose"]
            values["secret_purpose"] = -1 if purpose is None else SECRET_PURPOSES.index(purpose)
        except KeyError as missing:
            raise ValueError(f"state data lacks field {missing}") from None
        except ValueError as bad:
            raise ValueError(f"bad state data: {bad}") from None
        state = cls(config=config, **values)
        _check_shapes(state)
        return state


_new_state = object.__new__
_SERIALISED = tuple(
    f.name for f in fields(State) if f.name not in ("config", "phase", "secret_purpose", "legal_cache")
)


def _check_shapes(s: State) -> None:
    n = s.n
    if n != s.config.players:
        raise ValueError("state data: n differs from config.players")
    expected = {
        "cab": 10 * n, "court": n, "provinces": n, "scores": n, "grande": n, "tiles": 2,
        "hand": n, "bids": n, "copies": 32, "arrived": 10 * n, "secret": n,
    }
    for name, size in expected.items():
        value = getattr(s, name)
        if not isinstance(value, list) or len(value) != size or not all(isinstance(v, int) for v in value):
            raise ValueError(f"state data: {name} must be a list of {size} integers")
