"""The one legal-action generator and the one place actions are carried out.

``legal_actions`` and ``apply`` dispatch on the state's phase. ``apply`` accepts only what
``legal_actions`` lists (cached on the state until it changes), so legality is decided in
exactly one place. After each action the engine runs everything automatic (end of turn,
end of round, scorings) until the next decision or chance step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from . import actions as A
from .actions import CHANCE, Action, parse_action
from .board import (
    CABALLEROS_PER_PLAYER,
    CASTILLO,
    NEIGHBOURS,
    NUM_REGIONS,
    RECRUITS_BY_POWER,
    SCORING_ROUNDS,
    START_COURT,
    START_HOME,
    START_PROVINCES,
)
from .cards import (
    ALL_CARDS,
    CARD_INDEX,
    CARDS,
    INITIAL_COPIES,
    INITIAL_COPIES_WITH_VETO,
    KING_CARD,
    NUM_CARDS,
    STACK_CARDS,
    STACK_CARDS_WITH_VETO,
    VETO_CARD,
)
from .events import (
    AutoLoss,
    AutoRecall,
    CastilloReleased,
    Event,
    Revealed,
    SecretsRevealed,
    SetupDone,
    Skipped,
    Vetoed,
    VetoExpired,
)
from .scoring import area_points, awards_of, score_area
from .state import (
    AFTER_DEPLOY,
    BID,
    CHOOSE,
    COURT_CARD,
    COURT_PLACE,
    DEPLOY,
    DEPLOYMENT_DONE,
    EMPTY_CHOOSE,
    EMPTY_DROP,
    EVICT,
    EVICTION,
    GAME_OVER,
    GENERAL,
    GRANDE_MOVE,
    KING_MOVE,
    LOSE,
    LOSE_ALL,
    LOSE_TWO,
    MOVE,
    MOVE_DROP,
    NEXT_BEGIN,
    NEXT_EFFECT,
    NEXT_LOSE,
    NEXT_REMOVE,
    NEXT_REVEAL,
    NEXT_SCORE,
    NEXT_STEP,
    NO_PURPOSE,
    NOT_ASKED,
    OPTION,
    PENDING,
    PHASE_NAMES,
    RECALL,
    RECRUIT,
    REMOVE,
    RETRIEVE,
    REVEAL,
    SCORE_CHOICE,
    SECRET,
    SECRET_SCORING,
    SETUP,
    SOURCE,
    SPECIAL_DONE,
    TAKE,
    TILE_MOVE,
    VETO,
    WINDOW_NEXT,
    GameConfig,
    State,
    VetoState,
)

# Where apply() appends what happened (elgrande/rules/events.py), or None.
Events = list[Event] | None


class IllegalAction(ValueError):
    """An action ``apply`` refused; the state is untouched.

    ``code`` says why and ``params`` gives the details as plain values (docs/api.md,
    "Illegal actions"). The rules package holds no human language: ``str(exc)`` is the
    neutral "code key=value ..." form, and elgrande.server.rule_messages words it.
    """

    def __init__(self, code: str, params: Mapping[str, Any] | None = None) -> None:
        self.code = code
        self.params: dict[str, Any] = dict(params or {})
        super().__init__(code, self.params)  # args that rebuild it (pickling)

    def __str__(self) -> str:
        return " ".join([self.code, *(f"{k}={v!r}" for k, v in self.params.items())])


# The codes IllegalAction carries.
NOT_AN_ACTION = "not_an_action"  # params: action (the text or number given)
GAME_IS_OVER = "game_over"  # params: action
NOT_YOUR_DECISION = "not_your_decision"  # params: action, seat, to_act, phase
NOT_LEGAL_NOW = "not_legal_now"  # params: action, seat, phase, kind, legal, same_kind
BAD_LOG_ENTRY = "bad_log_entry"  # params: index, entry, cause, cause_params
ILLEGAL_CODES = (NOT_AN_ACTION, GAME_IS_OVER, NOT_YOUR_DECISION, NOT_LEGAL_NOW, BAD_LOG_ENTRY)


# ---------------------------------------------------------------------------------------
# Lookup tables of interned actions, indexed [seat][argument]. Module-level names the
# engine reads as it plays are Final: compiled (docs/compiled-engine.md), they are C
# statics instead of look-ups in the module's dict.

_BID: Final = A.table(A.BID, 14)
_RECRUIT: Final = A.table(A.RECRUIT, 7)
_RECALL: Final = A.table(A.RECALL, 9)
_TAKE: Final = A.table(A.TAKE, NUM_CARDS + 1)  # the Veto (box rules) is kind 32
_PLACE: Final = A.table(A.PLACE, 10)
_PICK: Final = A.table(A.PICK, 50)
_DROP: Final = A.table(A.DROP, 10)
_FROM: Final = A.table(A.FROM, 9)
_OPTION: Final = A.table(A.OPTION, 2)
_SECRET: Final = A.table(A.SECRET, 9)
_REMOVE: Final = A.table(A.REMOVE, 50)
_LOSE: Final = A.table(A.LOSE, 11)
_SCORE: Final = A.table(A.SCORE, 10)
_RETRIEVE: Final = A.table(A.RETRIEVE, 14)
_GRANDE: Final = A.table(A.GRANDE, 9)
_COURT: Final = A.table(A.COURT, 3)
_KING: Final = A.table(A.KING, 9)
_TILE: Final = A.table(A.TILE, 20)
_EVICT: Final = A.table(A.EVICT, 9)
_DEPLOY: Final = [A.action(seat, A.DEPLOY) for seat in range(A.MAX_PLAYERS)]
_SPECIAL: Final = [A.action(seat, A.SPECIAL) for seat in range(A.MAX_PLAYERS)]
_END: Final = [A.action(seat, A.END) for seat in range(A.MAX_PLAYERS)]
_DONE: Final = [A.action(seat, A.DONE) for seat in range(A.MAX_PLAYERS)]
_VETO: Final = [A.action(seat, A.VETO) for seat in range(A.MAX_PLAYERS)]
_PASS: Final = [A.action(seat, A.PASS) for seat in range(A.MAX_PLAYERS)]
_CHANCE_HOME: Final = [A.action(CHANCE, A.HOME, p * 10 + r) for p in range(5) for r in range(9)]
_CHANCE_KING: Final = [A.action(CHANCE, A.KING_AT, r) for r in range(9)]
_CHANCE_START: Final = [A.action(CHANCE, A.START, p) for p in range(5)]
_CHANCE_REVEAL: Final = {c.index: A.action(CHANCE, A.REVEAL, c.index) for c in ALL_CARDS if c.stack < 5}

# Deployment targets per King's region: its neighbours, then the Castillo.
_DEPLOY_TARGETS: Final = [NEIGHBOURS[k] + (CASTILLO,) for k in range(NUM_REGIONS)]
# Destinations of a move out of a region, per (King's region, source region).
_MOVE_TARGETS: Final = [
    [tuple(a for a in range(10) if a != king and a != src) for src in range(NUM_REGIONS)]
    for king in range(NUM_REGIONS)
]
_ANY_BUT_KING: Final = [tuple(r for r in range(NUM_REGIONS) if r != king) for king in range(NUM_REGIONS)]
_ALL_REGIONS: Final = tuple(range(NUM_REGIONS))

CARD_1A: Final = CARD_INDEX["1a"]
CARD_1B: Final = CARD_INDEX["1b"]
CARD_1C: Final = CARD_INDEX["1c"]
CARD_1D: Final = CARD_INDEX["1d"]
CARD_1E: Final = CARD_INDEX["1e"]
CARD_1F: Final = CARD_INDEX["1f"]
CARD_1G: Final = CARD_INDEX["1g"]
CARD_1H: Final = CARD_INDEX["1h"]
CARD_1I: Final = CARD_INDEX["1i"]
CARD_2A: Final = CARD_INDEX["2a"]
CARD_2B: Final = CARD_INDEX["2b"]
CARD_2C: Final = CARD_INDEX["2c"]
CARD_2D: Final = CARD_INDEX["2d"]
CARD_2E: Final = CARD_INDEX["2e"]
CARD_2F: Final = CARD_INDEX["2f"]
CARD_2G: Final = CARD_INDEX["2g"]
CARD_3A: Final = CARD_INDEX["3a"]
CARD_3B: Final = CARD_INDEX["3b"]
CARD_3C: Final = CARD_INDEX["3c"]
CARD_3D: Final = CARD_INDEX["3d"]
CARD_3E: Final = CARD_INDEX["3e"]
CARD_3F: Final = CARD_INDEX["3f"]
CARD_3G: Final = CARD_INDEX["3g"]
CARD_3H: Final = CARD_INDEX["3h"]
CARD_4A: Final = CARD_INDEX["4a"]
CARD_4B: Final = CARD_INDEX["4b"]
CARD_4C: Final = CARD_INDEX["4c"]
CARD_4D: Final = CARD_INDEX["4d"]
CARD_4E: Final = CARD_INDEX["4e"]
CARD_4F: Final = CARD_INDEX["4f"]
CARD_4G: Final = CARD_INDEX["4g"]


# ---------------------------------------------------------------------------------------
# Public API


def new_game(config: GameConfig) -> State:
    """A fresh game at its first chance step (home regions, then the King, then start player)."""
    n = config.players
    veto = config.options.veto_cards
    return State(
        config=config, n=n, phase=SETUP, round_index=0, ply=0,
        cab=[0] * (10 * n), court=[START_COURT] * n, provinces=[START_PROVINCES + START_HOME] * n,
        scores=[0] * n, grande=[-1] * n, king=-1, tiles=[-1, -1],
        hand=[0b11111111111110] * n, bids=[0] * n, start_player=-1, order=[], turn=0, active=-1,
        copies=list(INITIAL_COPIES_WITH_VETO if veto else INITIAL_COPIES), available=[], card=-1,
        parts_done=0, deploy_left=0, count_left=0, own_left=0, opp_left=0, any_left=0, source=-1,
        picked=-1, arrived=[0] * (10 * n), queue=[], secret=[NOT_ASKED] * n,
        secret_purpose=NO_PURPOSE, veto=VetoState() if veto else None,
    )


def to_act(s: State) -> list[int]:
    """Seats that may act now (ascending), ``[CHANCE]`` at a chance step, ``[]`` at the end."""
    phase = s.phase
    if phase == SETUP or phase == REVEAL:
        return [CHANCE]
    if phase == GAME_OVER:
        return []
    if phase == SECRET:
        return [p for p in range(s.n) if s.secret[p] == PENDING]
    return [_actor(s)]


def is_chance(s: State) -> bool:
    return s.phase == SETUP or s.phase == REVEAL


def is_terminal(s: State) -> bool:
    return s.phase == GAME_OVER


def legal_actions(s: State, seat: int | None = None) -> list[Action]:
    """The sorted, unique atomic decisions open now, for all seats to act or one seat."""
    legal = s.legal_cache
    if legal is None:
        legal = s.legal_cache = tuple(_LEGAL[s.phase](s))
    if seat is None:
        return list(legal)
    return [a for a in legal if (a >> 16) - 1 == seat]


def apply(s: State, action: Action | int | str, events: Events = None) -> None:
    """Carry out one legal action in place; raise IllegalAction (state untouched) otherwise."""
    if isinstance(action, str):
        try:
            action = parse_action(action)
        except ValueError:
            raise IllegalAction(NOT_AN_ACTION, {"action": action}) from None
    legal = s.legal_cache
    if legal is None:
        legal = s.legal_cache = tuple(_LEGAL[s.phase](s))
    if action not in legal:
        raise why_illegal(s, action)
    s.legal_cache = None
    s.ply += 1
    _APPLY[s.phase](s, action & 1023, action, events)


def chance_outcomes(s: State) -> list[tuple[Action, float]]:
    """Outcomes of the current chance step with their probabilities."""
    if not is_chance(s):
        return []
    outcomes = legal_actions(s)
    if s.phase == REVEAL:
        copies = s.copies
        total = sum(copies[a & 1023] for a in outcomes)
        return [(a, copies[a & 1023] / total) for a in outcomes]
    return [(a, 1 / len(outcomes)) for a in outcomes]


def resolve_chance(s: State, rng, events: Events = None) -> list[Action]:
    """Apply chance steps drawn from ``rng`` (a random.Random) until a seat must act."""
    done: list[Action] = []
    while s.phase == SETUP or s.phase == REVEAL:
        a = sample_chance(s, rng)
        apply(s, a, events)
        done.append(a)
    return done


def sample_chance(s: State, rng) -> Action:
    """Draw the current chance step's outcome from ``rng``."""
    outcomes = legal_actions(s)
    if s.phase == REVEAL:
        copies = s.copies
        weights = [copies[a & 1023] for a in outcomes]
        pick = rng.randrange(sum(weights))
        for a, w in zip(outcomes, weights, strict=True):
            pick -= w
            if pick < 0:
                return a
    return outcomes[rng.randrange(len(outcomes))]


def winners(s: State) -> list[int]:
    """Seats with the highest score (several share the victory); only meaningful at the end."""
    best = max(s.scores)
    return [p for p in range(s.n) if s.scores[p] == best]


def replay(config: GameConfig, log: Sequence[Action | int | str]) -> State:
    """Rebuild the state reached by applying ``log`` (actions or their notation) to a new game.
    An entry that does not apply raises IllegalAction ``bad_log_entry``."""
    s = new_game(config)
    for i, action in enumerate(log):
        try:
            apply(s, action)
        except IllegalAction as error:
            raise IllegalAction(BAD_LOG_ENTRY, {
                "index": i, "entry": str(action), "cause": error.code, "cause_params": error.params,
            }) from None
    return s


def why_illegal(s: State, action: int) -> IllegalAction:
    """The IllegalAction (not raised) that ``apply`` gives for ``action`` in ``s``; called
    only on the error path. ``action`` must not be legal."""
    try:
        a = A.from_code(int(action))
    except (ValueError, TypeError):
        return IllegalAction(NOT_AN_ACTION, {"action": str(action)})
    actors = to_act(s)
    if not actors:
        return IllegalAction(GAME_IS_OVER, {"action": str(a)})
    phase = PHASE_NAMES[s.phase]
    if a.seat not in actors:
        return IllegalAction(NOT_YOUR_DECISION, {
            "action": str(a), "seat": a.seat, "to_act": actors, "phase": phase})
    mine = legal_actions(s, a.seat)
    return IllegalAction(NOT_LEGAL_NOW, {
        "action": str(a), "seat": a.seat, "phase": phase, "kind": a.kind,
        "legal": [str(x) for x in mine],
        "same_kind": [str(x) for x in mine if x.kind_id == a.kind_id],
    })


# ---------------------------------------------------------------------------------------
# Helpers


def _actor(s: State) -> int:
    phase = s.phase
    if phase == BID:
        return (s.start_player + s.turn) % s.n
    if phase == LOSE:
        return s.queue[0]
    if phase == VETO:
        return s.veto.asking[0]  # type: ignore[union-attr]  # the phase exists with the Vetos only
    return s.active


def _clockwise_opponents(s: State) -> list[int]:
    n, a = s.n, s.active
    return [(a + i) % n for i in range(1, n)]


def _board_eligible(s: State, p: int) -> int:
    """p's Caballeros in regions other than the King's (recall and loss sources)."""
    n, cab, king = s.n, s.cab, s.king
    return sum(cab[r * n + p] for r in range(NUM_REGIONS) if r != king)


def _owned_regions(s: State, p: int) -> list[int]:
    n, cab, king = s.n, s.cab, s.king
    return [r for r in range(NUM_REGIONS) if r != king and cab[r * n + p] > 0]


# ---------------------------------------------------------------------------------------
# Set-up and reveals (chance)


def _legal_setup(s: State) -> list[Action]:
    placed = sum(1 for g in s.grande if g >= 0)
    if placed < s.n:
        used = set(s.grande)
        return [_CHANCE_HOME[placed * 9 + r] for r in range(NUM_REGIONS) if r not in used]
    if s.king < 0:
        used = set(s.grande)
        return [_CHANCE_KING[r] for r in range(NUM_REGIONS) if r not in used]
    return _CHANCE_START[: s.n]


def _apply_setup(s: State, arg: int, action: int, events: Events) -> None:
    kind = (action >> 10) & 63
    n = s.n
    if kind == A.HOME:
        p, r = divmod(arg, 10)
        s.grande[p] = r
        s.cab[r * n + p] += START_HOME
        s.provinces[p] -= START_HOME
        return
    if kind == A.KING_AT:
        s.king = arg
        if s.config.start_player is None:
            return
        s.start_player = s.config.start_player
    else:
        s.start_player = arg
    if events is not None:
        events.append(SetupDone(tuple(s.grande), s.king, s.start_player))
    _begin_round(s)


def _begin_round(s: State) -> None:
    s.phase = REVEAL
    s.available = []
    s.bids = [0] * s.n
    s.order = []
    s.turn = 0
    s.active = -1


def _legal_reveal(s: State) -> list[Action]:
    stack = len(s.available) + 1
    copies = s.copies
    stacks = STACK_CARDS if s.veto is None else STACK_CARDS_WITH_VETO
    return [_CHANCE_REVEAL[c] for c in stacks[stack] if copies[c] > 0]


def _apply_reveal(s: State, arg: int, action: int, events: Events) -> None:
    s.copies[arg] -= 1
    s.available.append(arg)
    if events is not None:
        events.append(Revealed(ALL_CARDS[arg].id))
    if len(s.available) == 4:
        s.available.append(KING_CARD)
        s.phase = BID
        s.turn = 0


# ---------------------------------------------------------------------------------------
# Bidding


def _legal_bid(s: State) -> list[Action]:
    p = (s.start_player + s.turn) % s.n
    hand = s.hand[p]
    for v in s.bids:
        if v:
            hand &= ~(1 << v)
    row = _BID[p]
    return [row[v] for v in range(1, 14) if hand >> v & 1]


def _apply_bid(s: State, v: int, action: int, events: Events) -> None:
    p = (s.start_player + s.turn) % s.n
    s.hand[p] &= ~(1 << v)
    s.bids[p] = v
    s.turn += 1
    if s.turn == s.n:
        bids = s.bids
        s.order = sorted(range(s.n), key=lambda q: -bids[q])
        s.turn = 0
        _start_turn(s, events)


# ---------------------------------------------------------------------------------------
# A player's turn: recruit, take a card, deployment and special action in either order


def _start_turn(s: State, events: Events) -> None:
    p = s.order[s.turn]
    s.active = p
    s.card = -1
    s.parts_done = 0
    limit = RECRUITS_BY_POWER[s.bids[p]]
    if limit and (s.provinces[p] or _board_eligible(s, p)):
        s.phase = RECRUIT
    else:  # "recruit 0" would be the only choice
        if events is not None:
            events.append(Skipped(p, "recruit"))
        s.phase = TAKE


def _legal_recruit(s: State) -> list[Action]:
    p = s.active
    most = min(RECRUITS_BY_POWER[s.bids[p]], s.provinces[p] + _board_eligible(s, p))
    return _RECRUIT[p][: most + 1]


def _apply_recruit(s: State, k: int, action: int, events: Events) -> None:
    p = s.active
    taken = min(k, s.provinces[p])
    s.provinces[p] -= taken
    s.court[p] += taken
    _begin_recall(s, k - taken, events)


def _begin_recall(s: State, shortfall: int, events: Events) -> None:
    """Recall ``shortfall`` of the active player's Caballeros from regions (not the King's
    region, not the Castillo): at recruitment, or for card 4c with its board option."""
    p = s.active
    if shortfall and shortfall >= _board_eligible(s, p):
        recalled = []
        for r in _owned_regions(s, p):  # no choice left: every eligible one comes back
            recalled.append((r, s.cab[r * s.n + p]))
            s.court[p] += s.cab[r * s.n + p]
            s.cab[r * s.n + p] = 0
        if events is not None:
            events.append(AutoRecall(p, tuple(recalled)))
        shortfall = 0
    if shortfall:
        s.count_left = shortfall
        s.phase = RECALL
    else:
        _continue_after_recall(s, events)


def _continue_after_recall(s: State, events: Events) -> None:
    s.count_left = 0
    if s.card < 0:  # recruitment: the action card comes next
        s.phase = TAKE
    else:  # card 4c
        _finish_special(s, events)


def _legal_recall(s: State) -> list[Action]:
    p = s.active
    row = _RECALL[p]
    return [row[r] for r in _owned_regions(s, p)]


def _apply_recall(s: State, r: int, action: int, events: Events) -> None:
    p = s.active
    s.cab[r * s.n + p] -= 1
    s.court[p] += 1
    s.count_left -= 1
    if s.count_left == 0:
        _continue_after_recall(s, events)
    elif s.count_left >= _board_eligible(s, p):
        _begin_recall(s, s.count_left, events)


def _legal_take(s: State) -> list[Action]:
    row = _TAKE[s.active]
    return [row[c] for c in sorted(s.available)]


def _apply_take(s: State, c: int, action: int, events: Events) -> None:
    s.available.remove(c)
    s.card = c
    s.phase = CHOOSE
    if c == VETO_CARD:
        _take_veto(s)


def _legal_choose(s: State) -> list[Action]:
    p = s.active
    out = []
    if s.court[p]:
        out.append(_DEPLOY[p])
    if _special_possible(s):
        out.append(_SPECIAL[p])
    out.append(_END[p])
    return out


def _apply_choose(s: State, arg: int, action: int, events: Events) -> None:
    kind = (action >> 10) & 63
    if kind == A.DEPLOY:
        _begin_deployment(s, events)
    elif kind == A.SPECIAL:
        _begin_special(s, events)
    else:
        _end_turn(s, events)


def _begin_deployment(s: State, events: Events) -> None:
    p = s.active
    s.deploy_left = ALL_CARDS[s.card].stack
    if s.court[p] == 0:  # only after the special action: "deploy" needs a court
        if events is not None:
            events.append(Skipped(p, "deployment"))
        _finish_deployment(s, events)
    else:
        s.phase = DEPLOY


def _legal_deploy(s: State) -> list[Action]:
    p = s.active
    row = _PLACE[p]
    return [row[a] for a in _DEPLOY_TARGETS[s.king]] + [_DONE[p]]


def _apply_deploy(s: State, area: int, action: int, events: Events) -> None:
    if (action >> 10) & 63 == A.DONE:
        _finish_deployment(s, events)
        return
    p = s.active
    s.cab[area * s.n + p] += 1
    s.court[p] -= 1
    s.deploy_left -= 1
    if s.deploy_left == 0 or s.court[p] == 0:
        _finish_deployment(s, events)


def _finish_deployment(s: State, events: Events) -> None:
    s.deploy_left = 0
    s.parts_done |= DEPLOYMENT_DONE
    if s.parts_done & SPECIAL_DONE:
        _end_turn(s, events)
    elif not _special_possible(s):  # "end" would be the only choice
        if events is not None:
            events.append(Skipped(s.active, "special"))
        _end_turn(s, events)
    else:
        s.phase = AFTER_DEPLOY


def _legal_after_deploy(s: State) -> list[Action]:
    p = s.active
    return [_SPECIAL[p], _END[p]]


def _apply_after_deploy(s: State, arg: int, action: int, events: Events) -> None:
    if (action >> 10) & 63 == A.SPECIAL:
        _begin_special(s, events)
    else:
        _end_turn(s, events)


def _end_turn(s: State, events: Events) -> None:
    s.card = -1
    s.parts_done = 0
    s.turn += 1
    if s.turn < s.n:
        _start_turn(s, events)
    else:
        _end_round(s, events)


# ---------------------------------------------------------------------------------------
# End of round and general scoring


def _end_round(s: State, events: Events) -> None:
    if s.veto is not None:
        _expire_vetoes(s, events)
    bids = s.bids
    candidates: Sequence[int] = range(s.n)
    if not s.config.options.retrieved_card_counts_for_start:
        candidates = [p for p in range(s.n) if not s.hand[p] >> bids[p] & 1] or range(s.n)
    s.start_player = min(candidates, key=lambda p: bids[p])
    s.active = -1
    s.order = []
    s.turn = 0
    s.available = []
    if s.round in SCORING_ROUNDS:
        _begin_general_scoring(s, events)
    else:
        _next_round(s)


def _next_round(s: State) -> None:
    if s.round_index + 1 == len(s.config.round_labels):
        s.phase = GAME_OVER
        s.active = -1
        return
    s.round_index += 1
    _begin_round(s)


def _begin_general_scoring(s: State, events: Events) -> None:
    n = s.n
    options = s.config.options
    everyone = options.castillo_pick_when_empty or options.castillo_hidden  # asked: not secret
    s.secret = [PENDING if everyone or s.cab[9 * n + p] else NOT_ASKED for p in range(n)]
    if PENDING in s.secret:
        s.secret_purpose = GENERAL
        s.phase = SECRET
    else:
        _resolve_general_scoring(s, events)


def _resolve_general_scoring(s: State, events: Events) -> None:
    n, cab, king = s.n, s.cab, s.king
    score_area(s, CASTILLO, events=events, reason="general")
    for p in range(n):
        dest = s.secret[p]
        k = cab[9 * n + p]
        if k and dest >= 0:
            cab[9 * n + p] = 0
            if dest == king:  # only with castillo_to_king_region (box): back to the court
                s.court[p] += k
            else:
                cab[dest * n + p] += k
    if events is not None:
        events.append(CastilloReleased(tuple(s.secret)))
    _clear_secret(s)
    for r in range(NUM_REGIONS):
        score_area(s, r, events=events, reason="general")
    _next_round(s)


def _clear_secret(s: State) -> None:
    s.secret = [NOT_ASKED] * s.n
    s.secret_purpose = NO_PURPOSE


# ---------------------------------------------------------------------------------------
# Secret choices (general scoring, 2a, 2e, 4f, 4g)


def _secret_choices(s: State, p: int) -> list[int]:
    purpose = s.secret_purpose
    king = s.king
    if purpose == GENERAL:
        if s.config.options.castillo_to_king_region:
            return list(_ALL_REGIONS)
        return list(_ANY_BUT_KING[king])
    if purpose == LOSE_ALL or purpose == LOSE_TWO:
        opts = s.config.options
        if not opts.province_pick_requires_caballero:
            return list(_ANY_BUT_KING[king])
        owned = _owned_regions(s, p)
        if purpose == LOSE_TWO and opts.province2_requires_two_if_possible:
            two = [r for r in owned if s.cab[r * s.n + p] >= 2]
            if two:
                return two
        return owned
    if purpose == SECRET_SCORING:
        if s.config.options.secret_scoring_allows_king_region:
            return list(range(NUM_REGIONS))
        return list(_ANY_BUT_KING[king])
    if s.config.options.eviction_must_leave:  # box: another region, not the King's
        return [r for r in _ANY_BUT_KING[king] if r != s.source]
    return list(range(NUM_REGIONS))  # eviction: any region; source or King's sends to court


def _legal_secret(s: State) -> list[Action]:
    out: list[Action] = []
    for p in range(s.n):
        if s.secret[p] == PENDING:
            row = _SECRET[p]
            out.extend(row[r] for r in _secret_choices(s, p))
    return out


def _apply_secret(s: State, r: int, action: int, events: Events) -> None:
    p = (action >> 16) - 1
    s.secret[p] = r
    if PENDING in s.secret:
        return
    if s.veto is not None and _watched(s) and s.secret_purpose != GENERAL and _parts(s):
        _window(s, NEXT_REVEAL, events)  # before the reveal (box rules)
        return
    _reveal_secrets(s, events)


def _reveal_secrets(s: State, events: Events) -> None:
    purpose = s.secret_purpose
    if events is not None:
        events.append(SecretsRevealed(purpose, tuple(s.secret)))
    if purpose == GENERAL:
        _resolve_general_scoring(s, events)
        return
    n, cab = s.n, s.cab
    if purpose == LOSE_ALL or purpose == LOSE_TWO:
        for q in range(n):
            dest = s.secret[q]
            if dest >= 0:
                i = dest * n + q
                k = cab[i] if purpose == LOSE_ALL else min(2, cab[i])
                cab[i] -= k
                s.provinces[q] += k
    elif purpose == SECRET_SCORING:
        picks = [r for r in s.secret if r >= 0]
        if s.veto is not None and _watched(s) and _parts(s):  # box: windows between regions
            _clear_secret(s)
            once = tuple(r for r in range(NUM_REGIONS) if picks.count(r) == 1)
            s.veto = _vetoes(s)._replace(regions=once, progress=1)
            _score_regions(s, events)
            return
        for region in range(NUM_REGIONS):
            if picks.count(region) == 1:
                score_area(s, region, events=events, reason="4f")
    else:  # eviction from s.source
        src = s.source
        for q in range(n):
            dest = s.secret[q]
            if dest < 0:
                continue
            k = cab[src * n + q]
            cab[src * n + q] = 0
            if dest == src or dest == s.king:
                s.court[q] += k
            else:
                cab[dest * n + q] += k
    _clear_secret(s)
    _finish_special(s, events)


def _ask_secret(s: State, purpose: int, seats: list[int], events: Events) -> None:
    s.secret = [PENDING if p in seats else NOT_ASKED for p in range(s.n)]
    s.secret_purpose = purpose
    for p in seats:
        if not _secret_choices(s, p):  # nothing to pick: not asked
            s.secret[p] = NOT_ASKED
            if events is not None:
                events.append(Skipped(p, "secret"))
    if PENDING in s.secret:
        s.phase = SECRET
    else:
        _clear_secret(s)
        _finish_special(s, events)


# ---------------------------------------------------------------------------------------
# Special actions. Every card kind has one entry in _SPECIALS, set next to its handlers
# below: whether its special action can be started now, and how it begins.


def _always(s: State) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Special:
    """One card's special action.

    ``possible(s)``: it can be started now, i.e. it would offer a choice or have an
    automatic effect (a card whose every option is impossible is not offered).
    ``begin(s, events)``: start it: open its first decision, or carry it out at once.
    Either way the action ends in ``_finish_special``.
    """

    begin: Callable[[State, Events], None]
    possible: Callable[[State], bool] = _always


_SPECIALS: Final[dict[int, Special]] = {}  # card kind -> its special action


def _special_possible(s: State) -> bool:
    return not s.parts_done & SPECIAL_DONE and _SPECIALS[s.card].possible(s)


def _begin_special(s: State, events: Events) -> None:
    s.source = -1
    s.picked = -1
    if s.veto is not None and _watched(s) and s.card not in _DECLARING:
        _window(s, NEXT_BEGIN, events)  # box: the announcement window
        return
    _SPECIALS[s.card].begin(s, events)


def _finish_special(s: State, events: Events) -> None:
    s.parts_done |= SPECIAL_DONE
    if any(s.arrived):  # "moved once" marks last for one special action only
        s.arrived = [0] * (10 * s.n)
    s.source = -1
    s.picked = -1
    s.queue = []
    s.own_left = s.opp_left = s.any_left = s.count_left = 0
    v = s.veto
    if v is not None and (v.declared >= 0 or v.regions or v.progress):
        s.veto = v._replace(declared=-1, regions=(), progress=0)
    if s.parts_done & DEPLOYMENT_DONE:
        _end_turn(s, events)
    else:
        _begin_deployment(s, events)


# ---------------------------------------------------------------------------------------
# The Veto (box rules, rules.md §12.1). A special action with nothing to declare opens its
# announcement window when it starts; one with a declaration opens it once the declaring
# action is made (the effect then waits for the window). With veto_windows "parts" some
# cards open further windows (see the handlers, and the table in docs/box-rules.md); with
# "every_step" an Intrigue card also opens one before each further Caballero. A window
# asks every other seat holding a Veto, clockwise from the active player's left; the first
# "veto" ends the special action, when all pass it goes on (``_RESUME``).

# Cards whose special action starts with a declaration (rules.md §12.1, the table).
_DECLARING: Final = frozenset({CARD_1B, CARD_1G, CARD_1I, CARD_2D, CARD_3C, CARD_4A, CARD_4B, CARD_4C,
                        CARD_4D, CARD_4E, CARD_4G, KING_CARD})


def _vetoes(s: State) -> VetoState:
    v = s.veto
    assert v is not None, "only games with the Veto cards have veto windows"
    return v


def _watched(s: State) -> bool:
    """A seat other than the active one holds a Veto: this special action has windows.
    Callers test ``s.veto is not None`` first (Yucata's games pay one attribute test).
    (Holders cannot change during a special action; without any, it goes as in a game
    without the Veto cards, but for 1g's declaration.)"""
    v = s.veto
    if v is None:
        return False
    h0, h1 = v.holder
    a = s.active
    return (h0 >= 0 and h0 != a) or (h1 >= 0 and h1 != a)


def _parts(s: State) -> bool:
    """Windows inside a special action, not only at its announcement."""
    return s.config.options.veto_windows != "announcement"


def _holders(s: State) -> tuple[int, ...]:
    """Seats other than the active one holding a Veto, clockwise from the active's left."""
    h0, h1 = _vetoes(s).holder
    n, a = s.n, s.active
    return tuple(q for q in ((a + i) % n for i in range(1, n)) if q == h0 or q == h1)


def _window(s: State, resume: int, events: Events) -> None:
    """Open a veto window before ``resume``; with nobody to ask, go straight on."""
    asking = _holders(s)
    if asking:
        s.veto = _vetoes(s)._replace(asking=asking, resume=resume)
        s.phase = VETO
    else:
        _RESUME[resume](s, events)


def _declare(s: State, action: int, events: Events) -> None:
    """The special action's declaration is made: its announcement window, then the effect."""
    s.veto = _vetoes(s)._replace(declared=action)
    _window(s, NEXT_EFFECT, events)


def _take_veto(s: State) -> None:
    """Taking a Veto card: it is held at once (public), nothing to decline or announce."""
    v = _vetoes(s)
    i = 0 if v.holder[0] < 0 else 1
    holder, taken = list(v.holder), list(v.taken)
    holder[i], taken[i] = s.active, s.round_index
    s.veto = v._replace(holder=(holder[0], holder[1]), taken=(taken[0], taken[1]))
    s.parts_done |= SPECIAL_DONE  # the card has no special action to carry out


def _expire_vetoes(s: State, events: Events) -> None:
    """End of a round: a Veto taken in the round before this one is discarded unused."""
    v = _vetoes(s)
    if v.holder[0] < 0 and v.holder[1] < 0:
        return
    holder, taken = list(v.holder), list(v.taken)
    for i in (0, 1):
        if holder[i] >= 0 and taken[i] < s.round_index:
            if events is not None:
                events.append(VetoExpired(holder[i], s.config.round_labels[taken[i]]))
            holder[i] = taken[i] = -1
    s.veto = v._replace(holder=(holder[0], holder[1]), taken=(taken[0], taken[1]))


def _legal_veto(s: State) -> list[Action]:
    q = _vetoes(s).asking[0]
    return [_VETO[q], _PASS[q]]


def _apply_veto(s: State, arg: int, action: int, events: Events) -> None:
    v = _vetoes(s)
    q = v.asking[0]
    if (action >> 10) & 63 == A.PASS:
        if len(v.asking) > 1:
            s.veto = v._replace(asking=v.asking[1:])
            return
        s.veto = v._replace(asking=(), resume=-1)
        _RESUME[v.resume](s, events)
        return
    # Spend the Veto that expires first (taken first).
    mine = [i for i in (0, 1) if v.holder[i] == q]
    i = min(mine, key=lambda j: v.taken[j])
    holder, taken = list(v.holder), list(v.taken)
    taken_round = s.config.round_labels[taken[i]]
    holder[i] = taken[i] = -1
    s.veto = v._replace(holder=(holder[0], holder[1]), taken=(taken[0], taken[1]), asking=(),
                        resume=-1)
    if events is not None:
        events.append(Vetoed(q, s.active, ALL_CARDS[s.card].id, taken_round, WINDOW_NEXT[v.resume]))
    if s.secret_purpose != NO_PURPOSE:  # a vetoed reveal never happens
        _clear_secret(s)
    _finish_special(s, events)


def _resume_begin(s: State, events: Events) -> None:
    _SPECIALS[s.card].begin(s, events)


def _resume_effect(s: State, events: Events) -> None:
    declared = _vetoes(s).declared
    _EFFECTS[(declared >> 10) & 63](s, declared & 1023, events)


def _step_phase(s: State) -> int:
    """Where an Intrigue card goes on after an every_step window."""
    card = s.card
    if card == CARD_1C or (card == CARD_1I and s.source < 0):
        return COURT_PLACE
    if card == CARD_1B or card == CARD_1I:
        return EMPTY_DROP
    return MOVE


def _resume_step(s: State, events: Events) -> None:
    s.phase = _step_phase(s)


def _score_regions(s: State, events: Events) -> None:
    """Score ``veto.regions`` in order, a window before each that gives points once this
    special action has changed something (scorings without points change nothing)."""
    v = _vetoes(s)
    first_only = s.card == CARD_3E
    reason = CARDS[s.card].id
    regions, progress = v.regions, v.progress
    while regions:
        area = regions[0]
        if progress and any(area_points(s, area, first_only)):
            s.veto = v._replace(regions=regions, progress=progress)
            _window(s, NEXT_SCORE, events)
            return
        if any(score_area(s, area, first_only, events, reason)):
            progress = 1
        regions = regions[1:]
    s.veto = v._replace(regions=(), progress=progress)
    _finish_special(s, events)


def _resume_score(s: State, events: Events) -> None:
    v = _vetoes(s)
    score_area(s, v.regions[0], s.card == CARD_3E, events, CARDS[s.card].id)
    s.veto = v._replace(regions=v.regions[1:])
    _score_regions(s, events)


def _resume_remove(s: State, events: Events) -> None:
    arg = s.picked
    s.picked = -1
    s.phase = REMOVE
    _remove(s, arg, events)


def _resume_lose(s: State, events: Events) -> None:
    _settle_losses(s, events, asked=True)


def _enter(phase: int) -> Callable[[State, Events], None]:
    """A ``begin`` that only opens the card's first decision."""
    def begin(s: State, events: Events) -> None:
        s.phase = phase
    return begin


# --- movement cards 1a, 1d, 1e, 1f, 1g, 1h


def _movable_picks(s: State, own: int, opp: int, anyc: int, source: int) -> list[Action]:
    n, cab, king, p = s.n, s.cab, s.king, s.active
    arrived = s.arrived
    row = _PICK[p]
    mine = own > 0 or anyc > 0
    theirs = opp > 0 or anyc > 0
    out = []
    for o in range(n):
        if not (mine if o == p else theirs):
            continue
        for r in range(NUM_REGIONS):
            if r == king or (source >= 0 and r != source):
                continue
            i = r * n + o
            if cab[i] > arrived[i]:
                out.append(row[o * 10 + r])
    out.sort()
    return out


def _legal_move(s: State) -> list[Action]:
    p = s.active
    return _movable_picks(s, s.own_left, s.opp_left, s.any_left, s.source) + [_DONE[p]]


def _apply_move(s: State, arg: int, action: int, events: Events) -> None:
    if (action >> 10) & 63 == A.DONE:
        _finish_special(s, events)
        return
    if s.card == CARD_1G:
        s.source = arg % 10
    s.picked = arg
    s.phase = MOVE_DROP


def _legal_move_drop(s: State) -> list[Action]:
    row = _DROP[s.active]
    return [row[a] for a in _MOVE_TARGETS[s.king][s.picked % 10]]


def _legal_source(s: State) -> list[Action]:
    row = _FROM[s.active]
    return [row[r] for r in sorted({(a & 1023) % 10 for a in _movable_picks(s, 0, 0, 5, -1)})]


def _apply_source(s: State, r: int, action: int, events: Events) -> None:
    s.source = r
    if s.veto is not None and _watched(s):
        _declare(s, action, events)
    else:
        s.phase = MOVE


def _apply_move_drop(s: State, dest: int, action: int, events: Events) -> None:
    n, p = s.n, s.active
    owner, src = divmod(s.picked, 10)
    s.cab[src * n + owner] -= 1
    s.cab[dest * n + owner] += 1
    if s.config.options.move_each_caballero_once:
        s.arrived[dest * n + owner] += 1
    s.picked = -1
    if owner == p and s.own_left:
        s.own_left -= 1
    elif owner != p and s.opp_left:
        s.opp_left -= 1
    else:
        s.any_left -= 1
    s.phase = MOVE
    if not _movable_picks(s, s.own_left, s.opp_left, s.any_left, s.source):
        _finish_special(s, events)
    elif s.veto is not None and _watched(s) and s.config.options.veto_windows == "every_step":
        _window(s, NEXT_STEP, events)


def _movement(own: int, opp: int, anyc: int, declares_source: bool = False) -> Special:
    """A "move up to ..." card with budgets of own, opposing and any-colour Caballeros.
    With the Veto cards, a card moving out of one region (1g) declares it first."""
    def possible(s: State) -> bool:
        return bool(_movable_picks(s, own, opp, anyc, -1))

    def begin(s: State, events: Events) -> None:
        s.own_left, s.opp_left, s.any_left = own, opp, anyc
        s.phase = SOURCE if declares_source and s.veto is not None else MOVE

    return Special(begin, possible)


_SPECIALS[CARD_1A] = _movement(0, 0, 3)
_SPECIALS[CARD_1D] = _movement(2, 2, 0)
_SPECIALS[CARD_1E] = _movement(4, 0, 0)
_SPECIALS[CARD_1F] = _movement(0, 3, 0)
_SPECIALS[CARD_1G] = _movement(0, 0, 5, True)  # out of one region: the first pick (Veto: "from") fixes s.source
_SPECIALS[CARD_1H] = _movement(0, 0, 4)


# --- 1b (and 1i's second option): all your Caballeros out of one region


def _legal_empty_choose(s: State) -> list[Action]:
    row = _FROM[s.active]
    return [row[r] for r in _owned_regions(s, s.active)]


def _apply_empty_choose(s: State, r: int, action: int, events: Events) -> None:
    s.source = r
    if s.veto is not None and _watched(s):
        _declare(s, action, events)
    else:
        s.phase = EMPTY_DROP


def _legal_empty_drop(s: State) -> list[Action]:
    p = s.active
    row = _DROP[p]
    out = [row[a] for a in _MOVE_TARGETS[s.king][s.source]]
    if s.config.options.empty_region_optional_amount:
        out.append(_DONE[p])
    return out


def _apply_empty_drop(s: State, dest: int, action: int, events: Events) -> None:
    if (action >> 10) & 63 == A.DONE:
        _finish_special(s, events)
        return
    n, p, src = s.n, s.active, s.source
    s.cab[src * n + p] -= 1
    s.cab[dest * n + p] += 1
    if s.cab[src * n + p] == 0:
        _finish_special(s, events)
    elif s.veto is not None and _watched(s) and s.config.options.veto_windows == "every_step":
        _window(s, NEXT_STEP, events)


def _has_owned_region(s: State) -> bool:
    return bool(_owned_regions(s, s.active))


_SPECIALS[CARD_1B] = Special(_enter(EMPTY_CHOOSE), _has_owned_region)


# --- 1c (and 1i's first option): up to 2 more from the court to any region


def _legal_court_place(s: State) -> list[Action]:
    p = s.active
    row = _PLACE[p]
    return [row[a] for a in _ANY_BUT_KING[s.king]] + [row[CASTILLO], _DONE[p]]


def _apply_court_place(s: State, area: int, action: int, events: Events) -> None:
    if (action >> 10) & 63 == A.DONE:
        _finish_special(s, events)
        return
    p = s.active
    s.cab[area * s.n + p] += 1
    s.court[p] -= 1
    s.count_left -= 1
    if s.count_left == 0 or s.court[p] == 0:
        _finish_special(s, events)
    elif s.veto is not None and _watched(s) and s.config.options.veto_windows == "every_step":
        _window(s, NEXT_STEP, events)


def _has_court(s: State) -> bool:
    return s.court[s.active] > 0


def _begin_court_place(s: State, events: Events) -> None:
    s.count_left = 2
    s.phase = COURT_PLACE


_SPECIALS[CARD_1C] = Special(_begin_court_place, _has_court)


# --- 1i: either 1c's effect or 1b's


def _legal_option(s: State) -> list[Action]:
    p = s.active
    row = _OPTION[p]
    out = []
    if s.court[p]:
        out.append(row[0])
    if _owned_regions(s, p):
        out.append(row[1])
    return out


def _apply_option(s: State, choice: int, action: int, events: Events) -> None:
    if choice == 1:
        s.phase = EMPTY_CHOOSE  # 1b's effect: its "from" declares
    elif s.veto is not None and _watched(s):
        _declare(s, action, events)
    else:
        _begin_court_place(s, events)


_SPECIALS[CARD_1I] = Special(_enter(OPTION), lambda s: _has_court(s) or _has_owned_region(s))


# --- 2a, 2e: each opponent secretly picks a region and loses all / 2 there (see _apply_secret)

_SPECIALS[CARD_2A] = Special(lambda s, ev: _ask_secret(s, LOSE_ALL, _clockwise_opponents(s), ev))
_SPECIALS[CARD_2E] = Special(lambda s, ev: _ask_secret(s, LOSE_TWO, _clockwise_opponents(s), ev))


# --- 2b: one Caballero of each opponent back to his provinces


def _begin_2b(s: State, events: Events) -> None:
    s.queue = []
    seats = _clockwise_opponents(s)
    if s.config.options.card_2b_hits_everyone:  # box: the active player last
        seats.append(s.active)
    for q in seats:
        if _owned_regions(s, q):
            s.queue.append(q)
        elif events is not None:  # nothing of his the active player could pick
            events.append(Skipped(q, "2b"))
    s.phase = REMOVE
    if not s.queue:
        _finish_special(s, events)


def _legal_remove(s: State) -> list[Action]:
    q = s.queue[0]
    row = _REMOVE[s.active]
    return [row[q * 10 + r] for r in _owned_regions(s, q)]


def _apply_remove(s: State, arg: int, action: int, events: Events) -> None:
    if s.veto is not None and _watched(s) and _parts(s):  # box: a window before the removal
        s.picked = arg
        _window(s, NEXT_REMOVE, events)
        return
    _remove(s, arg, events)


def _remove(s: State, arg: int, events: Events) -> None:
    q, r = divmod(arg, 10)
    s.cab[r * s.n + q] -= 1
    s.provinces[q] += 1
    s.queue.pop(0)
    if not s.queue:
        _finish_special(s, events)


_SPECIALS[CARD_2B] = Special(_begin_2b)


# --- 2c: each opponent in turn loses 3 from court and/or regions


def _begin_2c(s: State, events: Events) -> None:
    s.queue = _clockwise_opponents(s)
    s.count_left = 3
    _settle_losses(s, events)


def _settle_losses(s: State, events: Events, asked: bool = False) -> None:
    """Move to the next opponent who has a real choice; forced losses happen at once.
    Box (veto_windows "parts"): a window before each opponent's losses but the first's
    (the announcement window was just before them); ``asked``: it has been held."""
    n = s.n
    windows = s.veto is not None and _watched(s) and _parts(s)
    while s.queue:
        q = s.queue[0]
        regions = _owned_regions(s, q)
        eligible = s.court[q] + sum(s.cab[r * n + q] for r in regions)
        sources = len(regions) + (1 if s.court[q] else 0)
        if eligible == 0:
            if events is not None:
                events.append(Skipped(q, "2c"))
        elif windows and not asked and s.count_left == 3 and _vetoes(s).progress:
            _window(s, NEXT_LOSE, events)
            return
        elif eligible <= s.count_left or sources == 1:  # no choice: lose as many as possible
            left = s.count_left
            take = min(left, s.court[q])
            s.court[q] -= take
            s.provinces[q] += take
            left -= take
            lost = []
            for r in regions:
                k = min(left, s.cab[r * n + q])
                if k:
                    lost.append((r, k))
                s.cab[r * n + q] -= k
                s.provinces[q] += k
                left -= k
            if events is not None:
                events.append(AutoLoss(q, take, tuple(lost)))
            if windows:
                s.veto = _vetoes(s)._replace(progress=1)
        else:
            s.phase = LOSE
            return
        asked = False
        s.queue.pop(0)
        s.count_left = 3
    _finish_special(s, events)


def _legal_lose(s: State) -> list[Action]:
    q = s.queue[0]
    row = _LOSE[q]
    out = [row[r] for r in _owned_regions(s, q)]
    if s.court[q]:
        out.append(row[A.LOSE_COURT])
    return out


def _apply_lose(s: State, where: int, action: int, events: Events) -> None:
    q = s.queue[0]
    if where == A.LOSE_COURT:
        s.court[q] -= 1
    else:
        s.cab[where * s.n + q] -= 1
    s.provinces[q] += 1
    s.count_left -= 1
    if s.veto is not None and _watched(s) and not _vetoes(s).progress:
        s.veto = _vetoes(s)._replace(progress=1)
    if s.count_left == 0:
        s.queue.pop(0)
        s.count_left = 3
    _settle_losses(s, events)


_SPECIALS[CARD_2C] = Special(_begin_2c)


# --- 2f, 2g: every opponent's court (2f) or up to 3 of it (2g) back to his provinces


def _court_losses(most: int) -> Callable[[State, Events], None]:
    def begin(s: State, events: Events) -> None:
        for q in _clockwise_opponents(s):
            k = min(most, s.court[q])
            s.court[q] -= k
            s.provinces[q] += k
        _finish_special(s, events)
    return begin


_SPECIALS[CARD_2F] = Special(_court_losses(CABALLEROS_PER_PLAYER))
_SPECIALS[CARD_2G] = Special(_court_losses(3))


# --- scorings: 2d and 3c (a region of the player's choice), 3a, 3b, 3d-3h (automatic)


def _legal_score_choice(s: State) -> list[Action]:
    row = _SCORE[s.active]
    last = 10 if s.config.options.choose_scoring_includes_castillo else 9
    return row[:last]


def _apply_score_choice(s: State, area: int, action: int, events: Events) -> None:
    if s.veto is not None and _watched(s):
        _declare(s, action, events)
    else:
        _do_score_choice(s, area, events)


def _do_score_choice(s: State, area: int, events: Events) -> None:
    score_area(s, area, events=events, reason=CARDS[s.card].id)
    _finish_special(s, events)


_SPECIALS[CARD_2D] = _SPECIALS[CARD_3C] = Special(_enter(SCORE_CHOICE))


def _region_totals(s: State) -> list[int]:
    n, cab = s.n, s.cab
    return [sum(cab[r * n: r * n + n]) for r in range(NUM_REGIONS)]


def _score_most(s: State, events: Events) -> None:
    totals = _region_totals(s)
    best = max(totals)
    if best:
        for r in range(NUM_REGIONS):
            if totals[r] == best:
                score_area(s, r, events=events, reason="3a")


def _score_fewest(s: State, events: Events) -> None:
    totals = _region_totals(s)
    occupied = [t for t in totals if t]
    if occupied:
        least = min(occupied)
        for r in range(NUM_REGIONS):
            if totals[r] == least:
                score_area(s, r, events=events, reason="3d")


def _score_by_first_award(s: State, values: tuple[int, ...], castillo_too: bool, reason: str,
                          events: Events) -> None:
    for area in range(NUM_REGIONS):
        if awards_of(s, area)[0] in values:
            score_area(s, area, events=events, reason=reason)
    if castillo_too and awards_of(s, CASTILLO)[0] in values:
        score_area(s, CASTILLO, events=events, reason=reason)


def _score_castillo(s: State, events: Events) -> None:
    score_area(s, CASTILLO, events=events, reason="3f")


def _score_first_only(s: State, events: Events) -> None:
    for r in range(NUM_REGIONS):
        score_area(s, r, first_only=True, events=events, reason="3e")


def _automatic(scoring: Callable[[State, Events], None],
               targets: Callable[[State], list[int]] | None = None) -> Special:
    """A card whose special action is a scoring with no choice in it. ``targets``: the
    areas it scores, in order, for the box rules' windows between them."""
    def begin(s: State, events: Events) -> None:
        if targets is not None and s.veto is not None and _watched(s) and _parts(s):
            s.veto = _vetoes(s)._replace(regions=tuple(targets(s)), progress=0)
            _score_regions(s, events)
            return
        scoring(s, events)
        _finish_special(s, events)
    return Special(begin)


def _most_targets(s: State) -> list[int]:
    totals = _region_totals(s)
    best = max(totals)
    return [r for r in range(NUM_REGIONS) if totals[r] == best] if best else []


def _fewest_targets(s: State) -> list[int]:
    totals = _region_totals(s)
    occupied = [t for t in totals if t]
    return [r for r in range(NUM_REGIONS) if totals[r] == min(occupied)] if occupied else []


def _value_targets(values: tuple[int, ...], castillo_option: bool) -> Callable[[State], list[int]]:
    def targets(s: State) -> list[int]:
        out = [a for a in range(NUM_REGIONS) if awards_of(s, a)[0] in values]
        if castillo_option and s.config.options.value_scoring_includes_castillo \
                and awards_of(s, CASTILLO)[0] in values:
            out.append(CASTILLO)
        return out
    return targets


_SPECIALS[CARD_3A] = _automatic(_score_most, _most_targets)
_SPECIALS[CARD_3B] = _automatic(lambda s, ev: _score_by_first_award(
    s, (4,), s.config.options.value_scoring_includes_castillo, "3b", ev), _value_targets((4,), True))
_SPECIALS[CARD_3D] = _automatic(_score_fewest, _fewest_targets)
_SPECIALS[CARD_3E] = _automatic(_score_first_only, lambda s: list(range(NUM_REGIONS)))
_SPECIALS[CARD_3F] = _automatic(_score_castillo)  # one effect: the announcement window only
_SPECIALS[CARD_3G] = _automatic(lambda s, ev: _score_by_first_award(
    s, (6, 7), s.config.options.value_scoring_includes_castillo, "3g", ev),
    _value_targets((6, 7), True))
_SPECIALS[CARD_3H] = _automatic(lambda s, ev: _score_by_first_award(s, (5,), False, "3h", ev),
                                _value_targets((5,), False))


# --- 4a: a played power card back into the hand


def _retrievable(s: State) -> list[int]:
    p = s.active
    hand = s.hand[p]
    current = s.bids[p]
    allow_current = s.config.options.retrieve_current_round_card
    return [v for v in range(1, 14) if not hand >> v & 1 and (allow_current or v != current)]


def _legal_retrieve(s: State) -> list[Action]:
    row = _RETRIEVE[s.active]
    return [row[v] for v in _retrievable(s)]


def _apply_retrieve(s: State, v: int, action: int, events: Events) -> None:
    if s.veto is not None and _watched(s):
        _declare(s, action, events)
    else:
        _do_retrieve(s, v, events)


def _do_retrieve(s: State, v: int, events: Events) -> None:
    s.hand[s.active] |= 1 << v
    _finish_special(s, events)


_SPECIALS[CARD_4A] = Special(_enter(RETRIEVE), lambda s: bool(_retrievable(s)))


# --- 4b: the Grande to another region


def _legal_grande(s: State) -> list[Action]:
    p = s.active
    row = _GRANDE[p]
    home = s.grande[p]
    return [row[r] for r in _ANY_BUT_KING[s.king] if r != home]


def _apply_grande(s: State, r: int, action: int, events: Events) -> None:
    if s.veto is not None and _watched(s):
        _declare(s, action, events)
    else:
        _do_grande(s, r, events)


def _do_grande(s: State, r: int, events: Events) -> None:
    s.grande[s.active] = r
    _finish_special(s, events)


# A Grande in the King's region is frozen there.
_SPECIALS[CARD_4B] = Special(_enter(GRANDE_MOVE), lambda s: s.grande[s.active] != s.king)


# --- 4c: up to 2 from the provinces into the court


def _court_card_supply(s: State) -> int:
    p = s.active
    have = s.provinces[p]
    if s.config.options.court_card_recall_from_board:
        have += _board_eligible(s, p)
    return have


def _legal_court_card(s: State) -> list[Action]:
    return _COURT[s.active][1: min(2, _court_card_supply(s)) + 1]


def _apply_court_card(s: State, k: int, action: int, events: Events) -> None:
    if s.veto is not None and _watched(s):
        _declare(s, action, events)
    else:
        _do_court_card(s, k, events)


def _do_court_card(s: State, k: int, events: Events) -> None:
    p = s.active
    taken = min(k, s.provinces[p])
    s.provinces[p] -= taken
    s.court[p] += taken
    _begin_recall(s, k - taken, events)


_SPECIALS[CARD_4C] = Special(_enter(COURT_CARD), lambda s: _court_card_supply(s) > 0)


# --- 4d (to a neighbouring region), 5a (to any other region): move the King


def _legal_king(s: State) -> list[Action]:
    row = _KING[s.active]
    targets = NEIGHBOURS[s.king] if s.card == CARD_4D else _ANY_BUT_KING[s.king]
    return [row[r] for r in targets]


def _apply_king(s: State, r: int, action: int, events: Events) -> None:
    if s.veto is not None and _watched(s):
        _declare(s, action, events)
    else:
        _do_king(s, r, events)


def _do_king(s: State, r: int, events: Events) -> None:
    s.king = r
    _finish_special(s, events)


_SPECIALS[CARD_4D] = _SPECIALS[KING_CARD] = Special(_enter(KING_MOVE))


# --- 4e: place or move a mobile scoreboard


def _tile_targets(s: State) -> list[int]:
    out = []
    king = s.king
    for t in (0, 1):
        here, other = s.tiles[t], s.tiles[1 - t]
        if here == king:
            continue  # a scoreboard in the King's region is frozen there
        for area in range(10):
            if area != king and area != here and area != other:
                out.append(t * 10 + area)
    return out


def _legal_tile(s: State) -> list[Action]:
    row = _TILE[s.active]
    return [row[x] for x in _tile_targets(s)]


def _apply_tile(s: State, arg: int, action: int, events: Events) -> None:
    if s.veto is not None and _watched(s):
        _declare(s, action, events)
    else:
        _do_tile(s, arg, events)


def _do_tile(s: State, arg: int, events: Events) -> None:
    t, area = divmod(arg, 10)
    s.tiles[t] = area
    _finish_special(s, events)


_SPECIALS[CARD_4E] = Special(_enter(TILE_MOVE), lambda s: bool(_tile_targets(s)))


# --- 4f: every player secretly names a region (see _apply_secret)

_SPECIALS[CARD_4F] = Special(lambda s, ev: _ask_secret(s, SECRET_SCORING, list(range(s.n)), ev))


# --- 4g: name a region; its opponents secretly pick where theirs go (see _apply_secret)


def _legal_evict(s: State) -> list[Action]:
    row = _EVICT[s.active]
    return [row[r] for r in _ANY_BUT_KING[s.king]]


def _apply_evict(s: State, r: int, action: int, events: Events) -> None:
    s.source = r
    if s.veto is not None and _watched(s):
        _declare(s, action, events)
    else:
        _do_evict(s, r, events)


def _do_evict(s: State, r: int, events: Events) -> None:
    n = s.n
    seats = [q for q in _clockwise_opponents(s) if s.cab[r * n + q] > 0]
    _ask_secret(s, EVICTION, seats, events)


_SPECIALS[CARD_4G] = Special(_enter(EVICT))
assert sorted(_SPECIALS) == list(range(NUM_CARDS)), "every card kind needs its special action"
# The Veto (box rules) has none: taking it is all it does (``_take_veto``).


def _effect_from(s: State, r: int, events: Events) -> None:
    s.phase = MOVE if s.card == CARD_1G else EMPTY_DROP  # s.source is set


def _effect_option(s: State, choice: int, events: Events) -> None:
    _begin_court_place(s, events)  # only 1i's first option declares by itself


# Box rules: what a declaration does once its window has passed, by the declaring verb.
_EFFECTS: Final[dict[int, Callable[[State, int, Events], None]]] = {
    A.FROM: _effect_from, A.OPTION: _effect_option, A.SCORE: _do_score_choice,
    A.RETRIEVE: _do_retrieve, A.GRANDE: _do_grande, A.COURT: _do_court_card, A.KING: _do_king,
    A.TILE: _do_tile, A.EVICT: _do_evict,
}
# What follows a window when every holder has passed, by VetoState.resume (WINDOW_NEXT).
_RESUME: Final[tuple[Callable[[State, Events], None], ...]] = (
    _resume_begin, _resume_effect, _reveal_secrets, _resume_score, _resume_remove, _resume_lose,
    _resume_step,
)
assert len(_RESUME) == len(WINDOW_NEXT)


# ---------------------------------------------------------------------------------------
# Dispatch on the phase


def _legal_none(s: State) -> list[Action]:
    return []


def _apply_none(s: State, arg: int, action: int, events: Events) -> None:  # pragma: no cover
    raise IllegalAction(GAME_IS_OVER, {"action": str(action)})  # apply lists nothing here


_LEGAL: Final[list[Callable[[State], list[Action]]]] = [_legal_none] * len(PHASE_NAMES)
_APPLY: Final[list[Callable[[State, int, int, Events], None]]] = [_apply_none] * len(PHASE_NAMES)
for _phase, _legal, _apply in (
    (SETUP, _legal_setup, _apply_setup),
    (REVEAL, _legal_reveal, _apply_reveal),
    (BID, _legal_bid, _apply_bid),
    (RECRUIT, _legal_recruit, _apply_recruit),
    (RECALL, _legal_recall, _apply_recall),
    (TAKE, _legal_take, _apply_take),
    (CHOOSE, _legal_choose, _apply_choose),
    (DEPLOY, _legal_deploy, _apply_deploy),
    (AFTER_DEPLOY, _legal_after_deploy, _apply_after_deploy),
    (MOVE, _legal_move, _apply_move),
    (MOVE_DROP, _legal_move_drop, _apply_move_drop),
    (EMPTY_CHOOSE, _legal_empty_choose, _apply_empty_choose),
    (EMPTY_DROP, _legal_empty_drop, _apply_empty_drop),
    (COURT_PLACE, _legal_court_place, _apply_court_place),
    (OPTION, _legal_option, _apply_option),
    (SECRET, _legal_secret, _apply_secret),
    (REMOVE, _legal_remove, _apply_remove),
    (LOSE, _legal_lose, _apply_lose),
    (SCORE_CHOICE, _legal_score_choice, _apply_score_choice),
    (RETRIEVE, _legal_retrieve, _apply_retrieve),
    (GRANDE_MOVE, _legal_grande, _apply_grande),
    (COURT_CARD, _legal_court_card, _apply_court_card),
    (KING_MOVE, _legal_king, _apply_king),
    (TILE_MOVE, _legal_tile, _apply_tile),
    (EVICT, _legal_evict, _apply_evict),
    (VETO, _legal_veto, _apply_veto),
    (SOURCE, _legal_source, _apply_source),
):
    _LEGAL[_phase] = _legal
    _APPLY[_phase] = _apply


def check_invariants(s: State) -> None:
    """Assert the conservation laws (used by tests and the simulator's --check)."""
    n = s.n
    for p in range(n):
        total = s.court[p] + s.provinces[p] + sum(s.cab[a * n + p] for a in range(10))
        assert total == CABALLEROS_PER_PLAYER, f"p{p} has {total} Caballeros"
        assert s.court[p] >= 0 and s.provinces[p] >= 0, f"p{p} negative supply"
    assert all(c >= 0 for c in s.cab), "negative Caballero count"
    assert s.tiles[0] == -1 or s.tiles[0] != s.tiles[1], "two scoreboards share an area"
