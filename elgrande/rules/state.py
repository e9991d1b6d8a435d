"""Game configuration, rule options and the mutable game state (docs/state-format.md)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from enum import IntEnum
from typing import Any, Final, NamedTuple, cast

from .actions import Action, from_code, parse_action
from .board import CABALLEROS_PER_PLAYER, NUM_AREAS, NUM_REGIONS, ROUNDS_6, ROUNDS_9
from .cards import INITIAL_COPIES, INITIAL_COPIES_WITH_VETO, NUM_CARDS

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

    # The publisher's rules (rules.md §12): each row of §8 turned back to the box. All off
    # is Yucata's rule set (the default); the preset ``Options.preset("box")`` turns them on.
    #: §12.1 (Y1): stack 2 holds the two Veto cards (card ``2v``, 11 cards in the stack).
    veto_cards: bool = False
    #: §12.1: where a held Veto can stop another player's special action: ``"parts"`` (the
    #: table of §12.1), ``"announcement"`` (only once the action is announced) or
    #: ``"every_step"`` (``parts``, and before each further Caballero an Intrigue card moves
    #: or places). Only read with ``veto_cards``.
    veto_windows: str = "parts"
    #: §12 Y2: the Castillo's split by colour is not shown (views and redacted states carry
    #: its total); everyone picks a Castillo destination at a general scoring.
    castillo_hidden: bool = False
    #: §12 Y3: card 2b also takes one of the active player's own Caballeros (he picks it).
    card_2b_hits_everyone: bool = False
    #: §12 Y4: the King's region may be picked as a Castillo destination; those Caballeros
    #: go back to the court.
    castillo_to_king_region: bool = False
    #: §12 Y5: card 4g's opponents must pick a region other than the named one and the King's.
    eviction_must_leave: bool = False

    def __post_init__(self) -> None:
        if self.veto_windows not in VETO_WINDOWS:
            raise ValueError(f"veto_windows must be one of {', '.join(VETO_WINDOWS)}, "
                             f"not {self.veto_windows!r}")

    @classmethod
    def preset(cls, rule_set: str) -> Options:
        """The options of a named rule set: ``"yucata"`` (the default) or ``"box"``."""
        try:
            return cls(**RULE_SETS[rule_set])
        except KeyError:
            raise ValueError(f"unknown rule set {rule_set!r}; expected one of "
                             f"{', '.join(RULE_SETS)}") from None

    @property
    def rule_set(self) -> str:
        """``"yucata"`` with every box rule off, ``"box"`` with all five on (any
        ``veto_windows``), ``"custom"`` otherwise."""
        on = [getattr(self, name) for name in BOX_RULES]
        if not any(on):
            return "yucata"
        return "box" if all(on) else "custom"

    def to_dict(self) -> dict[str, bool | str]:
        """Every option; the box rules' options only where they differ from Yucata's
        (so a Yucata game's JSON form is what it was before they existed)."""
        data: dict[str, bool | str] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name not in _BOX_FIELDS or value != f.default:
                data[f.name] = value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Options:
        """The options ``to_dict`` gave. A ``"rule_set"`` key (``"yucata"``, ``"box"``)
        starts from that preset; the other keys override it."""
        data = dict(data)
        base = cls.preset(data.pop("rule_set")) if "rule_set" in data else cls()
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown rule options: {', '.join(sorted(unknown))}")
        return replace(base, **data)


VETO_WINDOWS = ("parts", "announcement", "every_step")
# The options of §12, one per row of §8 (veto_windows only shapes the first).
BOX_RULES = ("veto_cards", "castillo_hidden", "card_2b_hits_everyone",
             "castillo_to_king_region", "eviction_must_leave")
_BOX_FIELDS = BOX_RULES + ("veto_windows",)
RULE_SETS: dict[str, dict[str, Any]] = {
    "yucata": {},
    "box": {name: True for name in BOX_RULES},
}


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


class Phase(IntEnum):
    """The decision now open (``State.phase``): who acts and what they decide.

    The values are stored in states and saved games: never renumber them. The names in
    state JSON and views are ``PHASE_NAMES`` (``Phase.GRANDE_MOVE`` is ``"grande"``).
    """

    SETUP = 0  # chance: home regions, the King, the start player
    REVEAL = 1  # chance: the next stack's card this round
    BID = 2
    RECRUIT = 3
    RECALL = 4  # recruitment shortfall (or card 4c): which region a Caballero comes from
    TAKE = 5
    CHOOSE = 6  # after taking the card: deployment, special action or end
    DEPLOY = 7
    AFTER_DEPLOY = 8  # deployment done: special action or end
    MOVE = 9  # movement cards: pick a Caballero (or done)
    MOVE_DROP = 10  # movement cards: where the picked one goes
    EMPTY_CHOOSE = 11  # 1b: the region to empty
    EMPTY_DROP = 12  # 1b: where the next one goes
    COURT_PLACE = 13  # 1c: place from the court
    OPTION = 14  # 1i: which effect
    SECRET = 15  # simultaneous secret choices (general scoring, 2a, 2e, 4f, 4g)
    REMOVE = 16  # 2b
    LOSE = 17  # 2c: the opponent at the head of the queue decides
    SCORE_CHOICE = 18  # 2d, 3c
    RETRIEVE = 19  # 4a
    GRANDE_MOVE = 20  # 4b
    COURT_CARD = 21  # 4c
    KING_MOVE = 22  # 4d, 5a
    TILE_MOVE = 23  # 4e
    EVICT = 24  # 4g: the region to name
    GAME_OVER = 25
    VETO = 26  # box rules: a veto window, the holder at the head of the queue decides
    SOURCE = 27  # box rules: 1g declares the region its Caballeros leave


PHASE_NAMES = (
    "setup", "reveal", "bid", "recruit", "recall", "take", "choose", "deploy", "after_deploy",
    "move", "move_drop", "empty_choose", "empty_drop", "court_place", "option", "secret",
    "remove", "lose", "score_choice", "retrieve", "grande", "court_card", "king", "tile",
    "evict", "game_over", "veto", "source",
)
assert len(PHASE_NAMES) == len(Phase)
# Module-level names of the phases. The engine stores and compares these plain ints: an
# IntEnum member in the hot path costs a few per cent (see docs/api.md); Phase(s.phase)
# names one. Final literals: the compiled engine (docs/compiled-engine.md) inlines them.
SETUP: Final = 0
REVEAL: Final = 1
BID: Final = 2
RECRUIT: Final = 3
RECALL: Final = 4
TAKE: Final = 5
CHOOSE: Final = 6
DEPLOY: Final = 7
AFTER_DEPLOY: Final = 8
MOVE: Final = 9
MOVE_DROP: Final = 10
EMPTY_CHOOSE: Final = 11
EMPTY_DROP: Final = 12
COURT_PLACE: Final = 13
OPTION: Final = 14
SECRET: Final = 15
REMOVE: Final = 16
LOSE: Final = 17
SCORE_CHOICE: Final = 18
RETRIEVE: Final = 19
GRANDE_MOVE: Final = 20
COURT_CARD: Final = 21
KING_MOVE: Final = 22
TILE_MOVE: Final = 23
EVICT: Final = 24
GAME_OVER: Final = 25
VETO: Final = 26
SOURCE: Final = 27
assert all(globals()[p.name] == p for p in Phase), "the names above are Phase's"
CHANCE_PHASES = (SETUP, REVEAL)


class SecretPurpose(IntEnum):
    """What a pending secret choice is for (``State.secret_purpose``); stored, never renumber."""

    NONE = -1  # no secret choice pending
    GENERAL = 0  # general scoring: where each seat's Castillo Caballeros go
    LOSE_ALL = 1  # card 2a
    LOSE_TWO = 2  # card 2e
    SECRET_SCORING = 3  # card 4f
    EVICTION = 4  # card 4g


# Names in state JSON and views, indexed by purpose (NONE is null there).
SECRET_PURPOSES = ("general", "2a", "2e", "4f", "4g")
NO_PURPOSE: Final = -1
GENERAL: Final = 0
LOSE_ALL: Final = 1
LOSE_TWO: Final = 2
SECRET_SCORING: Final = 3
EVICTION: Final = 4
assert all(globals()[p.name] == p for p in SecretPurpose if p.name != "NONE")

# Values of State.secret[p] (a region 0..8 once chosen).
NOT_ASKED: Final = -2
PENDING: Final = -1

# Bits of State.parts_done.
DEPLOYMENT_DONE: Final = 1
SPECIAL_DONE: Final = 2

# What follows a veto window when every holder passes (VetoState.resume; names in JSON).
WINDOW_NEXT = ("begin", "effect", "reveal", "score", "remove", "lose", "step")
NEXT_BEGIN: Final = 0
NEXT_EFFECT: Final = 1
NEXT_REVEAL: Final = 2
NEXT_SCORE: Final = 3
NEXT_REMOVE: Final = 4
NEXT_LOSE: Final = 5
NEXT_STEP: Final = 6
assert NEXT_STEP == len(WINDOW_NEXT) - 1


class VetoState(NamedTuple):
    """The Vetos and the open veto window (box rules, rules.md §12.1): ``State.veto``.

    Immutable (a new one replaces it on a change), so that ``State.copy`` shares it; None
    in a game without the Veto cards.
    """

    #: Seat holding each of the two Veto cards, -1 while in the stack, discarded or used.
    holder: tuple[int, int] = (-1, -1)
    #: ``round_index`` of the round each was taken in, -1 as for ``holder``.
    taken: tuple[int, int] = (-1, -1)
    #: Holders still to answer the open window, in order; the first decides now.
    asking: tuple[int, ...] = ()
    #: What happens when they all pass (``WINDOW_NEXT``), -1 while no window is open.
    resume: int = -1
    #: The action (code) that made this special action's declaration, -1 none.
    declared: int = -1
    #: Areas still to be scored by this special action's scoring (with windows).
    regions: tuple[int, ...] = ()
    #: 1 once this special action has changed something since its announcement window
    #: (a region gave points, an opponent lost Caballeros).
    progress: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "holder": list(self.holder), "taken": list(self.taken), "asking": list(self.asking),
            "resume": WINDOW_NEXT[self.resume] if self.resume >= 0 else None,
            "declared": str(from_code(self.declared)) if self.declared >= 0 else None,
            "regions": list(self.regions), "progress": self.progress,
        }

    @classmethod
    def from_dict(cls, data: Any) -> VetoState:
        if not isinstance(data, dict):
            raise ValueError("state data: veto must be an object")
        try:
            resume, declared = data["resume"], data["declared"]
            lists = {k: data[k] for k in ("holder", "taken", "asking", "regions")}
            progress = data["progress"]
        except KeyError as missing:
            raise ValueError(f"state data: veto lacks field {missing}") from None
        for name, value in lists.items():
            if not isinstance(value, list) or not all(_is_int(v) for v in value):
                raise ValueError(f"state data: veto.{name} must be a list of integers")
        if len(lists["holder"]) != 2 or len(lists["taken"]) != 2:
            raise ValueError("state data: veto.holder and veto.taken must hold 2 integers")
        if resume is not None and resume not in WINDOW_NEXT:
            raise ValueError(f"state data: unknown veto.resume {resume!r}")
        if progress not in (0, 1):
            raise ValueError("state data: veto.progress must be 0 or 1")
        try:
            code = -1 if declared is None else int(parse_action(declared))
        except (ValueError, TypeError):
            raise ValueError(f"state data: veto.declared {declared!r} is not an action") from None
        return cls(
            holder=(lists["holder"][0], lists["holder"][1]),
            taken=(lists["taken"][0], lists["taken"][1]),
            asking=tuple(lists["asking"]), resume=-1 if resume is None else WINDOW_NEXT.index(resume),
            declared=code, regions=tuple(lists["regions"]), progress=progress,
        )


@dataclass(slots=True, repr=False)  # its own __repr__ (a compiled one would be replaced)
class State:
    """The whole game position: small ints and flat lists, copied by slicing.

    ``cab[area * n + p]`` is the number of seat p's Caballeros in an area (0..8 the regions in
    scoring order, 9 the Castillo). Power-card hands are bitmasks (bit v set = card v in hand).
    The order of the action stacks is deliberately not here: only how many copies of each
    card kind are left (``copies``), which every player can work out.
    """

    config: GameConfig
    n: int  # number of players
    phase: int  # a Phase value (stored as a plain int, see Phase)
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
    secret_purpose: int  # a SecretPurpose value, -1 (NONE) when no secret choice is pending
    veto: VetoState | None = None  # the Vetos and the open window; None without the Veto cards
    # Actions, not plain ints: compiled code would turn an int-typed value into a plain int.
    legal_cache: tuple[Action, ...] | None = field(default=None, compare=False, repr=False)

    def copy(self) -> State:
        # Without __init__ (the fields are all set below). State.__new__, not
        # object.__new__, which a compiled State refuses (docs/compiled-engine.md).
        s = State.__new__(State)
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
        s.veto = self.veto
        s.legal_cache = self.legal_cache
        return s

    def frozen(self) -> tuple[object, ...]:
        """This state as tuples, to keep in a cache (``State.thawed`` gives it back): the
        garbage collector stops tracking a tuple of numbers, while a State's fourteen lists
        stay in its sight, and a server caches thousands of states."""
        return (self.config, self.veto, self.legal_cache,
                (self.n, self.phase, self.round_index, self.ply, self.king, self.start_player,
                 self.turn, self.active, self.card, self.parts_done, self.deploy_left,
                 self.count_left, self.own_left, self.opp_left, self.any_left, self.source,
                 self.picked, self.secret_purpose),
                (tuple(self.cab), tuple(self.court), tuple(self.provinces),
                 tuple(self.scores), tuple(self.grande), tuple(self.tiles), tuple(self.hand),
                 tuple(self.bids), tuple(self.order), tuple(self.copies),
                 tuple(self.available), tuple(self.arrived), tuple(self.queue),
                 tuple(self.secret)))

    @staticmethod
    def thawed(frozen: tuple[object, ...]) -> State:
        """A new state equal to the one ``frozen`` was made from."""
        config, veto, legal, scalars, lists = frozen
        ints = cast(tuple[int, ...], scalars)
        seqs = cast(tuple[tuple[int, ...], ...], lists)
        s = State.__new__(State)
        s.config = cast(GameConfig, config)
        s.veto = cast("VetoState | None", veto)
        s.legal_cache = cast("tuple[Action, ...] | None", legal)
        s.n = ints[0]
        s.phase = ints[1]
        s.round_index = ints[2]
        s.ply = ints[3]
        s.king = ints[4]
        s.start_player = ints[5]
        s.turn = ints[6]
        s.active = ints[7]
        s.card = ints[8]
        s.parts_done = ints[9]
        s.deploy_left = ints[10]
        s.count_left = ints[11]
        s.own_left = ints[12]
        s.opp_left = ints[13]
        s.any_left = ints[14]
        s.source = ints[15]
        s.picked = ints[16]
        s.secret_purpose = ints[17]
        s.cab = list(seqs[0])
        s.court = list(seqs[1])
        s.provinces = list(seqs[2])
        s.scores = list(seqs[3])
        s.grande = list(seqs[4])
        s.tiles = list(seqs[5])
        s.hand = list(seqs[6])
        s.bids = list(seqs[7])
        s.order = list(seqs[8])
        s.copies = list(seqs[9])
        s.available = list(seqs[10])
        s.arrived = list(seqs[11])
        s.queue = list(seqs[12])
        s.secret = list(seqs[13])
        return s

    def __repr__(self) -> str:
        # Phase and purpose are stored as plain ints; a debugger should show their names.
        shown = {f.name: getattr(self, f.name) for f in fields(self) if f.repr}
        shown["phase"] = _enum_or_int(Phase, self.phase)
        shown["secret_purpose"] = _enum_or_int(SecretPurpose, self.secret_purpose)
        return f"State({', '.join(f'{k}={v!r}' for k, v in shown.items())})"

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
        if self.veto is not None:  # only in games with the Veto cards
            data["veto"] = self.veto.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> State:
        """The state ``to_dict`` gave. Refuses (``ValueError`` naming the field) data of
        another format, with a missing or mistyped field, or describing an impossible
        position: see ``_check_consistency`` and docs/state-format.md."""
        if data.get("format") != FORMAT_VERSION:
            raise ValueError(f"unsupported state format {data.get('format')!r}; expected {FORMAT_VERSION}")
        config = GameConfig.from_dict(data["config"])
        values: dict[str, Any] = {}
        try:
            for name in _SERIALISED:
                value = data[name]
                values[name] = list(value) if isinstance(value, list) else value
            phase, purpose = data["phase"], data["secret_purpose"]
        except KeyError as missing:
            raise ValueError(f"state data lacks field {missing}") from None
        if phase not in PHASE_NAMES:
            raise ValueError(f"state data: unknown phase {phase!r}")
        if purpose is not None and purpose not in SECRET_PURPOSES:
            raise ValueError(f"state data: unknown secret_purpose {purpose!r}")
        values["phase"] = PHASE_NAMES.index(phase)
        values["secret_purpose"] = NO_PURPOSE if purpose is None else SECRET_PURPOSES.index(purpose)
        if config.options.veto_cards:
            if "veto" not in data:
                raise ValueError("state data lacks field 'veto' (the game has the Veto cards)")
            values["veto"] = VetoState.from_dict(data["veto"])
        elif data.get("veto") is not None:
            raise ValueError("state data: veto given, but the game has no Veto cards")
        _check_shapes(config, values)  # before State() (a compiled State checks types)
        state = cls(config=config, **values)
        _check_consistency(state)
        return state


def _enum_or_int(enum: type[IntEnum], value: int) -> object:
    # object, not IntEnum | int (which mypy reads as int): compiled, the member would come
    # back as a plain int.
    try:
        return enum(value)
    except ValueError:
        return value


_SERIALISED = tuple(
    f.name for f in fields(State)
    if f.name not in ("config", "phase", "secret_purpose", "veto", "legal_cache")
)
_LISTS = ("cab", "court", "provinces", "scores", "grande", "tiles", "hand", "bids", "order",
          "copies", "available", "arrived", "queue", "secret")


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_shapes(config: GameConfig, values: dict[str, Any]) -> None:
    """The fields ``values`` gives a State are integers and lists of integers of the
    lengths ``config`` asks for."""
    for name in _SERIALISED:
        value = values[name]
        if name in _LISTS:
            if not isinstance(value, list) or not all(_is_int(v) for v in value):
                raise ValueError(f"state data: {name} must be a list of integers")
        elif not _is_int(value):
            raise ValueError(f"state data: {name} must be an integer, not {value!r}")
    n = values["n"]
    if n != config.players:
        raise ValueError("state data: n differs from config.players")
    expected = {
        "cab": 10 * n, "court": n, "provinces": n, "scores": n, "grande": n, "tiles": 2,
        "hand": n, "bids": n, "copies": NUM_CARDS + (1 if config.options.veto_cards else 0),
        "arrived": 10 * n, "secret": n,
    }
    for name, size in expected.items():
        if len(values[name]) != size:
            raise ValueError(f"state data: {name} must be a list of {size} integers")


_ALL_POWER_CARDS = 0b11111111111110  # bits 1..13


def _check_consistency(s: State) -> None:
    """Refuse a position no game can reach in ways the engine relies on: counts that do not
    add up, values out of range, a secret choice outside the secret phase."""
    n = s.n
    seats = range(n)

    def bad(message: str) -> ValueError:
        return ValueError(f"inconsistent state: {message}")

    def within(name: str, values: list[int], low: int, high: int) -> None:
        for i, v in enumerate(values):
            if not low <= v <= high:
                raise bad(f"{name}[{i}] is {v}, not in {low}..{high}")

    if not 0 <= s.round_index < len(s.config.round_labels):
        raise bad(f"round_index {s.round_index} is not a round of a {s.config.rounds}-round game")
    for name in ("ply", "deploy_left", "count_left", "own_left", "opp_left", "any_left"):
        if getattr(s, name) < 0:
            raise bad(f"{name} is negative")
    within("cab", s.cab, 0, CABALLEROS_PER_PLAYER)
    within("arrived", s.arrived, 0, CABALLEROS_PER_PLAYER)
    within("court", s.court, 0, CABALLEROS_PER_PLAYER)
    within("provinces", s.provinces, 0, CABALLEROS_PER_PLAYER)
    for p in seats:
        total = s.court[p] + s.provinces[p] + sum(s.cab[a * n + p] for a in range(NUM_AREAS))
        if total != CABALLEROS_PER_PLAYER:
            raise bad(f"seat {p} has {total} Caballeros (court, provinces and board), "
                      f"not {CABALLEROS_PER_PLAYER}")
    within("grande", s.grande, -1, NUM_REGIONS - 1)
    within("tiles", s.tiles, -1, NUM_AREAS - 1)
    if s.tiles[0] >= 0 and s.tiles[0] == s.tiles[1]:
        raise bad("both mobile scoreboards lie in one area")
    if not -1 <= s.king < NUM_REGIONS:
        raise bad(f"king is {s.king}, not a region")
    for p in seats:
        if s.hand[p] & ~_ALL_POWER_CARDS:
            raise bad(f"hand[{p}] holds cards other than the power cards 1..13")
    within("bids", s.bids, 0, 13)
    bids = [b for b in s.bids if b]
    if len(set(bids)) != len(bids):
        raise bad("two seats bid the same power card")
    printed = INITIAL_COPIES_WITH_VETO if s.veto is not None else INITIAL_COPIES
    kinds = len(printed)
    within("copies", s.copies, 0, max(printed))
    for c, left in enumerate(s.copies):
        if left > printed[c]:
            raise bad(f"copies[{c}] is {left}, more than the {printed[c]} printed")
    within("available", s.available, 0, kinds - 1)
    if not -1 <= s.card < kinds:
        raise bad(f"card is {s.card}, not a card kind")
    for name in ("start_player", "active"):
        if not -1 <= getattr(s, name) < n:
            raise bad(f"{name} is {getattr(s, name)}, not a seat")
    if s.order and sorted(s.order) != list(seats):
        raise bad("order is not an ordering of the seats")
    within("queue", s.queue, 0, n - 1)
    if not 0 <= s.turn <= n:
        raise bad(f"turn is {s.turn}, not 0..{n}")
    if not 0 <= s.parts_done <= DEPLOYMENT_DONE | SPECIAL_DONE:
        raise bad(f"parts_done is {s.parts_done}")
    if not -1 <= s.source < NUM_REGIONS:
        raise bad(f"source is {s.source}, not a region")
    if s.picked != -1 and not (0 <= s.picked // 10 < n and 0 <= s.picked % 10 < NUM_REGIONS):
        raise bad(f"picked is {s.picked}, not owner * 10 + region")
    within("secret", s.secret, NOT_ASKED, NUM_REGIONS - 1)
    vs = s.veto
    if vs is not None:
        _check_vetoes(s, vs, bad)
    elif s.phase in (VETO, SOURCE):
        raise bad(f"phase {PHASE_NAMES[s.phase]} needs the Veto cards")
    if s.phase == VETO and vs is not None and vs.resume == NEXT_REVEAL:
        # The window before a reveal: the choices are in (a redacted state shows the
        # others' as pending) and not yet revealed.
        if s.secret_purpose == NO_PURPOSE:
            raise bad("a veto window before a reveal needs a secret purpose")
    elif s.phase == SECRET:
        if s.secret_purpose == NO_PURPOSE or PENDING not in s.secret:
            raise bad("the secret phase needs a purpose and a seat still to choose")
    elif s.secret_purpose != NO_PURPOSE or any(v != NOT_ASKED for v in s.secret):
        raise bad(f"a secret choice is pending outside the secret phase ({PHASE_NAMES[s.phase]})")
    between_turns = s.phase in (SETUP, REVEAL, BID, GAME_OVER) or s.secret_purpose == GENERAL
    if not between_turns and s.active < 0:
        raise bad(f"phase {PHASE_NAMES[s.phase]} is part of a turn, but no seat is active")


def _check_vetoes(s: State, v: VetoState, bad: Any) -> None:
    n = s.n
    for h, r in zip(v.holder, v.taken, strict=True):
        if not -1 <= h < n:
            raise bad(f"veto.holder {h} is not a seat")
        if (h < 0) != (r < 0) or not -1 <= r <= s.round_index:
            raise bad(f"veto.taken {r} does not fit veto.holder {h} in round_index {s.round_index}")
    if not all(0 <= q < n and q in v.holder and q != s.active for q in v.asking):
        raise bad("veto.asking must list holders other than the active seat")
    if not all(0 <= a < NUM_AREAS for a in v.regions):
        raise bad("veto.regions must be areas")
    if s.phase == VETO:
        if not v.asking or v.resume < 0:
            raise bad("a veto window needs a holder to ask and what follows it")
    elif v.asking or v.resume >= 0:
        raise bad(f"a veto window is open outside the veto phase ({PHASE_NAMES[s.phase]})")
