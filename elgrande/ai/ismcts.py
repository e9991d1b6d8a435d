"""Single-observer information-set MCTS (Cowling, Powley and Whitehouse 2012).

One tree per decision, from the searching seat's point of view, over the engine's atomic
actions. Each iteration plays one *determinisation* of what the seat cannot see:

* the order of the action stacks: the reveal chance steps are sampled from the engine's
  listed outcomes (card kinds weighted by copies left), as the real deal would be;
* other seats' secret choices: whenever a secret step is open, every other seat's choice is
  drawn from the playout policy, without looking at ours (they are simultaneous), and is
  not a branch of the tree; our own choice is.

Children are selected with UCB1 using availability counts (the ISMCTS "subset-armed"
bandit), each node's statistics seen from the seat that acted to reach it. Leaves are
expanded one per iteration, then a heuristic-guided playout runs until the next scoring
(or the end of the round) and the position is judged with ``evaluate``: each seat's reward
is a squashed lead over its best opponent. The tree is kept across the atomic decisions of
one turn: the subtree under the action played becomes the next root if the position is the
one expected.
"""

from __future__ import annotations

import math
import random

from elgrande.rules import (
    Action,
    State,
    apply,
    chance_outcomes,
    is_chance,
    is_terminal,
    legal_actions,
    to_act,
    winners,
)
from elgrande.rules.actions import DEPLOY as A_DEPLOY
from elgrande.rules.actions import DONE as A_DONE
from elgrande.rules.actions import END as A_END
from elgrande.rules.actions import LOSE_COURT
from elgrande.rules.actions import PLACE as A_PLACE
from elgrande.rules.board import CASTILLO, SCORING_ROUNDS
from elgrande.rules.state import (
    AFTER_DEPLOY,
    BID,
    CHOOSE,
    COURT_PLACE,
    DEPLOY,
    EMPTY_CHOOSE,
    EMPTY_DROP,
    EVICTION,
    GENERAL,
    GRANDE_MOVE,
    KING_MOVE,
    LOSE,
    LOSE_ALL,
    LOSE_TWO,
    MOVE,
    MOVE_DROP,
    RECRUIT,
    REMOVE,
    REVEAL,
    SCORE_CHOICE,
    SECRET,
    SECRET_SCORING,
    TILE_MOVE,
)

from .base import Bot
from .evaluate import (
    DEFAULT_WEIGHTS,
    Weights,
    add_bid_reserves,
    add_reserves,
    area_awards,
    area_points,
    awards,
    board_values,
    evaluate,
    seat_points,
    utility,
)
from .value import ValueModel

MAX_PLAYOUT_STEPS = 400
# Greedy secret choices (``PlayoutPolicy(greedy_secrets=True)``): a Caballero sent back to
# the provinces by 2a or 2e costs this many points besides the majority it breaks, and a
# random tie-break below one point's difference (and below LOST_CABALLERO) spreads equal
# choices evenly.
LOST_CABALLERO = 0.25
SECRET_TIE_BREAK = 0.1
# Greedy special actions (``PlayoutPolicy(greedy_specials=True)``): a movement card stops
# when the best Caballero left to pick would cost the seat more than this many points where
# it stands (the drop that follows is not looked at: it usually gains something).
PICK_STOP = -1.0
# Progressive widening of bids (``IsmctsBot(bid_widening=True)``): a bid node with n visits
# offers its first max(2, BID_WIDTH * n ** BID_GROWTH) bids in the heuristic's order
# (2 at first, 4 after 16 visits, 8 after 256, 12 after 1,296), so the visits go to the
# bids the evaluation likes instead of being spread evenly over a dozen near-equal ones.
BID_WIDTH = 2.0
BID_GROWTH = 0.25
# Bid playouts that reach the next general scoring (``IsmctsBot(bid_horizon=True)``) play
# up to three rounds, not the rest of one: this many times the steps.
HORIZON_STEPS = 4 * MAX_PLAYOUT_STEPS


class Node:
    __slots__ = ("mover", "children", "visits", "avail", "total", "order")

    def __init__(self, mover: int) -> None:
        self.mover = mover  # seat whose action led here (chance: -1)
        self.children: dict[Action, Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0
        # bid widening: the bids from here, best first by the heuristic (``_widened``)
        self.order: list[Action] | None = None


def rewards(s: State, w: Weights, temperature: float,
            value: ValueModel | None = None, margin: float = 0.0,
            margin_scale: float = 30.0) -> list[float]:
    """Per-seat reward in [0, 1]: win share at the end, else a squashed expected lead (or,
    with a learned ``value``, the seats' fitted chances of winning).

    ``margin`` > 0 mixes in that share of a widely squashed points lead
    (``sigmoid(lead / margin_scale)``, the final scores' at the end, the evaluation's
    before): far behind or far ahead, where every win chance is about 0 or 1, the
    options still differ by the points they keep or gain."""
    n = s.n
    if is_terminal(s):
        win = winners(s)
        out = [1.0 / len(win) if p in win else 0.0 for p in range(n)]
        if margin > 0.0:
            out = _mixed(out, [float(x) for x in s.scores], margin, margin_scale)
        return out
    if value is not None:
        out = value.chances(s)
        if margin > 0.0:
            out = _mixed(out, evaluate(s, w), margin, margin_scale)
        return out
    v = evaluate(s, w)
    out = [1.0 / (1.0 + math.exp(-lead / temperature)) for lead in _leads(v)]
    if margin > 0.0:
        out = _mixed(out, v, margin, margin_scale)
    return out


def _leads(points: list[float]) -> list[float]:
    """Each seat's lead over its best opponent: the best seat's is the runner-up,
    everyone else's the best."""
    n = len(points)
    best = max(points)
    first = points.index(best)
    second = max(points[q] for q in range(n) if q != first)
    return [points[p] - (second if p == first else best) for p in range(n)]


def _mixed(chances: list[float], points: list[float], share: float,
           scale: float) -> list[float]:
    """``(1 - share) * chance + share * sigmoid(lead over the best other seat / scale)``."""
    return [(1.0 - share) * chance + share / (1.0 + math.exp(-lead / scale))
            for chance, lead in zip(chances, _leads(points), strict=True)]


class PlayoutPolicy:
    """Fast guidance for playouts and for other seats' hidden choices.

    Cheap rules instead of full evaluations: recruit as many as allowed, deploy each
    Caballero where it gains the most points for its owner as things stand, always use
    the deployment, and otherwise choose at random.

    With ``greedy_secrets`` a secret choice (the Castillo's release at a general scoring,
    cards 2a, 2e, 4f and 4g) is not random either: the choice that does most for the seat
    as things stand (``_secret``), without looking at any other seat's choice. With
    ``greedy_bids`` a bid is the one the heuristic bot would make (``bid_ranking``), not
    one at random. With ``greedy_specials`` the steps of the special actions that move,
    place, remove or score Caballeros are greedy too (``_special``), and with
    ``greedy_king`` the King's moves (``_king``), and with ``greedy_board`` the Grande's
    move (card 4b, ``_grande``) and the mobile scoreboards' (card 4e, ``_tile``).
    """

    def __init__(self, epsilon: float = 0.1, greedy_secrets: bool = False,
                 greedy_bids: bool = False, weights: Weights = DEFAULT_WEIGHTS,
                 greedy_specials: bool = False, greedy_king: bool = False,
                 greedy_board: bool = False) -> None:
        self.epsilon = epsilon
        self.greedy_board = greedy_board
        self.greedy_secrets = greedy_secrets
        self.greedy_specials = greedy_specials
        self.greedy_king = greedy_king
        self.greedy_bids = greedy_bids
        self.weights = weights

    def choose(self, s: State, seat: int, rng: random.Random) -> Action:
        legal = legal_actions(s, seat)
        if len(legal) == 1 or rng.random() < self.epsilon:
            return rng.choice(legal)
        phase = s.phase
        if phase == RECRUIT:
            return legal[-1]
        if phase == DEPLOY:
            return self._deploy(s, seat, legal, rng)
        if phase == CHOOSE or phase == AFTER_DEPLOY:
            # Deploy if possible, use the special action half the time, end only if nothing else.
            useful = [a for a in legal if a.kind_id != A_END]
            if not useful:
                return legal[0]
            deploy = [a for a in useful if a.kind_id == A_DEPLOY]
            if deploy and rng.random() < 0.6:
                return deploy[0]
            return rng.choice(useful)
        if self.greedy_specials and (MOVE <= phase <= COURT_PLACE
                                     or REMOVE <= phase <= SCORE_CHOICE):
            return self._special(s, seat, legal, rng)
        if phase == KING_MOVE and self.greedy_king:
            return self._king(s, seat, legal, rng)
        if phase == GRANDE_MOVE and self.greedy_board:
            return self._grande(s, seat, legal, rng)
        if phase == TILE_MOVE and self.greedy_board:
            return self._tile(s, seat, legal, rng)
        if phase == SECRET and self.greedy_secrets:
            return self._secret(s, seat, legal, rng)
        if phase == BID and self.greedy_bids:
            return bid_ranking(s, seat, legal, self.weights)[0]
        return rng.choice(legal)

    @staticmethod
    def _secret(s: State, seat: int, legal: list[Action], rng: random.Random) -> Action:
        """The secret choice that gains the seat the most points as things stand (ties at
        random). Reads the board only, never ``s.secret``: other seats' choices are hidden.

        * general scoring: release the Castillo's Caballeros where they add most to the
          seat's share of that region (the regions are scored right after); the King's
          region (box rules: back to the court) counts 0;
        * 2a, 2e: lose Caballeros where it costs the fewest points (and Caballeros);
        * 4f: name the region whose scoring now pays the seat most over the others
          (its points minus half the best and half the mean of the others');
        * 4g: send the evicted Caballeros where they add most (the court counts 0).
        """
        n, cab, king, grande = s.n, s.cab, s.king, s.grande
        aws = area_awards(s.tiles)
        purpose = s.secret_purpose
        k = 0
        src = -1
        if purpose == GENERAL:
            k = cab[CASTILLO * n + seat]
        elif purpose == EVICTION:
            src = s.source
            k = cab[src * n + seat]
        if (purpose == GENERAL or purpose == EVICTION) and k == 0:
            return rng.choice(legal)  # nothing moves: every choice is the same
        best: Action = legal[0]
        best_v = -math.inf
        for a in legal:
            r = a.arg
            counts = cab[r * n: r * n + n]
            aw = aws[r]
            v = 0.0
            if purpose == GENERAL or purpose == EVICTION:
                if r != king and r != src:
                    before = seat_points(counts, aw, n, seat, r, king, grande)
                    counts[seat] += k
                    v = float(seat_points(counts, aw, n, seat, r, king, grande) - before)
            elif purpose == LOSE_ALL or purpose == LOSE_TWO:
                have = counts[seat]
                lost = have if purpose == LOSE_ALL else min(2, have)
                if lost:
                    before = seat_points(counts, aw, n, seat, r, king, grande)
                    counts[seat] -= lost
                    v = seat_points(counts, aw, n, seat, r, king, grande) - before \
                        - LOST_CABALLERO * lost
            elif purpose == SECRET_SCORING:
                v = _scoring_gain(s, aws, r, seat)
            v += SECRET_TIE_BREAK * rng.random()
            if v > best_v:
                best, best_v = a, v
        return best

    def _special(self, s: State, seat: int, legal: list[Action],
                 rng: random.Random) -> Action:
        """A special action's step chosen for the points it gains ``seat`` as things stand
        (ties at random); reads the board only.

        * movement cards: pick the Caballero whose leaving costs the seat least (an
          opponent's: gains it most over that opponent), or stop once every pick would cost
          more than ``PICK_STOP``; drop it where it adds most to the seat (an opponent's:
          where it costs the seat least over that opponent);
        * 1b: empty the region where the seat loses least, each Caballero then dropped
          where it adds most (with the optional amount: stop when no drop gains);
        * 1c: place as a deployment does; 2b: remove the Caballero that gains the seat
          most over its owner; 2c: lose where it costs least (a Caballero in court is
          worth ``weights.court``); 2d, 3c: score the region that pays most over the others.

        Other special steps (the King, the Grande, the tiles: see ``_king``, ``_grande``
        and ``_tile``; 4a, 4c, 1i) stay random.
        """
        phase = s.phase
        if phase == COURT_PLACE:
            return self._deploy(s, seat, legal, rng)
        aws = area_awards(s.tiles)
        n = s.n
        best: Action = legal[0]
        best_v = -math.inf
        leaving = 0.0
        if phase == EMPTY_DROP:
            leaving = _gain(s, aws, s.source, seat, -1, seat)
        for a in legal:
            arg = a.arg
            done = a.kind_id == A_DONE
            if phase == MOVE:
                v = PICK_STOP if done else _gain(s, aws, arg % 10, arg // 10, -1, seat)
            elif phase == MOVE_DROP:
                v = _gain(s, aws, arg, s.picked // 10, 1, seat)
            elif phase == EMPTY_CHOOSE:
                v = _gain(s, aws, arg, seat, -s.cab[arg * n + seat], seat)
            elif phase == EMPTY_DROP:
                v = 0.0 if done else _gain(s, aws, arg, seat, 1, seat) + leaving
            elif phase == REMOVE:
                v = _gain(s, aws, arg % 10, arg // 10, -1, seat)
            elif phase == LOSE:
                v = -self.weights.court if arg == LOSE_COURT else _gain(s, aws, arg, seat,
                                                                        -1, seat)
            else:  # SCORE_CHOICE
                v = _scoring_gain(s, aws, arg, seat)
            v += SECRET_TIE_BREAK * rng.random()
            if v > best_v:
                best, best_v = a, v
        return best

    @staticmethod
    def _king(s: State, seat: int, legal: list[Action], rng: random.Random) -> Action:
        """The King's move that gains the seat most over the others as things stand: the
        bonus of 2 for the sole leader changes in the region he leaves and in the one he
        enters (where no Caballero may then be added or removed; ties at random)."""
        n, cab, grande, old = s.n, s.cab, s.grande, s.king
        aws = area_awards(s.tiles)
        # The region he leaves is the same for every move (-1: the King is elsewhere).
        counts = cab[old * n: old * n + n]
        leaving = _over_others(area_points(counts, aws[old], n, old, -1, grande), seat, n) \
            - _over_others(area_points(counts, aws[old], n, old, old, grande), seat, n)
        best: Action = legal[0]
        best_v = -math.inf
        for a in legal:
            r = a.arg
            counts = cab[r * n: r * n + n]
            v = _over_others(area_points(counts, aws[r], n, r, r, grande), seat, n) \
                - _over_others(area_points(counts, aws[r], n, r, old, grande), seat, n) \
                + leaving
            v += SECRET_TIE_BREAK * rng.random()
            if v > best_v:
                best, best_v = a, v
        return best

    @staticmethod
    def _grande(s: State, seat: int, legal: list[Action], rng: random.Random) -> Action:
        """The Grande's move (4b) to the region where its bonus of 2 for the sole leader
        pays the seat as things stand (ties at random). Only the seat's own points change,
        and what leaving its region costs is the same for every move."""
        n, cab, king, grande = s.n, s.cab, s.king, s.grande
        aws = area_awards(s.tiles)
        moved = grande[:]
        best: Action = legal[0]
        best_v = -math.inf
        for a in legal:
            r = a.arg
            moved[seat] = r
            counts = cab[r * n: r * n + n]
            v = seat_points(counts, aws[r], n, seat, r, king, moved) \
                - seat_points(counts, aws[r], n, seat, r, king, grande) \
                + SECRET_TIE_BREAK * rng.random()
            if v > best_v:
                best, best_v = a, v
        return best

    @staticmethod
    def _tile(s: State, seat: int, legal: list[Action], rng: random.Random) -> Action:
        """The mobile scoreboard's placement or move (4e) that gains the seat most over
        the others as things stand: the region it leaves scores its printed awards again,
        the one it enters the scoreboard's (ties at random)."""
        n, cab, king, grande, tiles = s.n, s.cab, s.king, s.grande, s.tiles
        aws = area_awards(tiles)
        best: Action = legal[0]
        best_v = -math.inf
        for a in legal:
            t, area = divmod(a.arg, 10)
            moved = tiles[:]
            moved[t] = area
            after = area_awards(moved)
            v = SECRET_TIE_BREAK * rng.random()
            for r in (tiles[t], area):
                if r >= 0:
                    counts = cab[r * n: r * n + n]
                    v += _over_others(area_points(counts, after[r], n, r, king, grande),
                                      seat, n) \
                        - _over_others(area_points(counts, aws[r], n, r, king, grande),
                                       seat, n)
            if v > best_v:
                best, best_v = a, v
        return best

    @staticmethod
    def _deploy(s: State, seat: int, legal: list[Action], rng: random.Random) -> Action:
        n, cab, tiles, king, grande = s.n, s.cab, s.tiles, s.king, s.grande
        best: Action = legal[0]
        best_v = -math.inf
        for a in legal:
            if a.kind_id != A_PLACE:
                continue
            area = a.arg
            counts = cab[area * n: area * n + n]
            aw = awards(tiles, area)
            before = seat_points(counts, aw, n, seat, area, king, grande)
            counts[seat] += 1
            v = seat_points(counts, aw, n, seat, area, king, grande) - before + rng.random()
            if v > best_v:
                best, best_v = a, v
        return best


def _gain(s: State, aws: tuple[tuple[int, int, int], ...], area: int, owner: int,
          change: int, seat: int) -> float:
    """What ``change`` more (or fewer) of ``owner``'s Caballeros in ``area`` gain ``seat``
    if it were scored now: its points, less the owner's gain if the owner is another seat."""
    n, king, grande = s.n, s.king, s.grande
    counts = s.cab[area * n: area * n + n]
    aw = aws[area]
    mine = seat_points(counts, aw, n, seat, area, king, grande)
    theirs = seat_points(counts, aw, n, owner, area, king, grande) if owner != seat else 0
    counts[owner] += change
    v = float(seat_points(counts, aw, n, seat, area, king, grande) - mine)
    if owner != seat:
        v -= seat_points(counts, aw, n, owner, area, king, grande) - theirs
    return v


def _scoring_gain(s: State, aws: tuple[tuple[int, int, int], ...], area: int,
                  seat: int) -> float:
    """What scoring ``area`` now pays ``seat`` over the others: its points less half the
    best and half the mean of the others' (cards 2d, 3c and 4f)."""
    n = s.n
    return _over_others(area_points(s.cab[area * n: area * n + n], aws[area], n, area,
                                    s.king, s.grande), seat, n)


def _over_others(pts: list[int], seat: int, n: int) -> float:
    """The seat's points less half the best and half the mean of the others'."""
    top = 0
    total = 0
    for q in range(n):
        if q != seat:
            total += pts[q]
            if pts[q] > top:
                top = pts[q]
    return pts[seat] - 0.5 * top - 0.5 * total / (n - 1)


class IsmctsBot(Bot):
    name = "ismcts"

    def __init__(self, seed: int = 0, iterations: int = 300, exploration: float = 0.7,
                 temperature: float = 6.0, epsilon: float = 0.1,
                 weights: Weights = DEFAULT_WEIGHTS, value: ValueModel | None = None,
                 greedy_secrets: bool = False, margin: float = 0.0,
                 margin_scale: float = 30.0, bid_widening: bool = False,
                 bid_horizon: bool = False, greedy_bids: bool = False,
                 turn_cut: bool = False, greedy_specials: bool = False,
                 greedy_king: bool = False, greedy_board: bool = False,
                 turn_cap: int = 0) -> None:
        super().__init__(seed)
        # turn_cap: at most this many iterations over all the decisions of one turn (each
        # still searches iterations // 8), 0 for no cap: a decision tops its reused subtree
        # up to ``iterations`` visits, and after a wide choice the chosen child holds few,
        # so a turn of many steps (a movement card's picks and drops) ran up to ten budgets
        self.turn_cap = turn_cap
        self._turn: tuple[int, int, int, bool] | None = None
        self._turn_spent = 0
        # turn_cut: playouts stop where the next turn or bid begins (``playout``), the
        # positions the learned evaluation was fitted on, instead of playing the rest of
        # the round with the cheap policy
        self.turn_cut = turn_cut
        # bid_horizon: when the decision is a bid, playouts run on to the next general
        # scoring instead of stopping at the first scoring or the round's end (``playout``)
        self.bid_horizon = bid_horizon
        # bid_widening: a bid node offers only the heuristic's best few bids, more as its
        # visits grow (``_widened``)
        self.bid_widening = bid_widening
        self.value = value  # a learned evaluation (value.py) instead of the squashed lead
        self.margin = margin  # share of the points lead in the reward (``rewards``)
        self.margin_scale = margin_scale
        self.iterations = iterations
        self.exploration = exploration
        self.temperature = temperature
        self.weights = weights
        # greedy_secrets: playouts (and other seats' hidden choices in the tree) make secret
        # choices greedily instead of at random (PlayoutPolicy._secret).
        # greedy_bids: playouts bid as the heuristic bot would (``bid_ranking``), not at
        # random: a bid's worth depends on the others' bids after it.
        # greedy_specials: playouts make the special actions' steps greedily as well;
        # greedy_king: and the King's moves; greedy_board: and the Grande's and the mobile
        # scoreboards' moves.
        self.policy = PlayoutPolicy(epsilon, greedy_secrets, greedy_bids, weights,
                                    greedy_specials, greedy_king, greedy_board)
        self._reuse: tuple[State, Node] | None = None
        self.iterations_done = 0  # for benchmarks

    def decide(self, visible: State, seat: int, legal: list[Action],
               rng: random.Random) -> Action:
        root = Node(-1)
        if self._reuse is not None and self._reuse[0] == visible:
            root = self._reuse[1]
        self._reuse = None
        # The budget is per decision, but a reused subtree already holds part of it, so
        # later decisions of the same turn only top it up (but always search a little).
        todo = max(self.iterations - root.visits, self.iterations // 8, 1)
        if self.turn_cap:
            turn = (seat, *turn_key(visible))
            if turn != self._turn:
                self._turn, self._turn_spent = turn, 0
            todo = max(min(todo, self.turn_cap - self._turn_spent), self.iterations // 8, 1)
            self._turn_spent += todo
        for _ in range(todo):
            self.iterate(visible, seat, root, rng)
        self.iterations_done += todo
        choices = [(root.children[a].visits, -i, a) for i, a in enumerate(legal)
                   if a in root.children]
        if not choices:
            return legal[0]
        action = max(choices)[2]
        after = visible.copy()
        apply(after, action)
        if not is_terminal(after) and not is_chance(after) and to_act(after) == [seat]:
            self._reuse = (after, root.children[action])
        return action

    def iterate(self, root_state: State, me: int, root: Node, rng: random.Random) -> None:
        s = root_state.copy()
        node = root
        path = [root]
        expanded = False
        to_general = self.bid_horizon and root_state.phase == BID
        while not is_terminal(s):
            if is_chance(s):
                outcomes = chance_outcomes(s)
                a = _sample(outcomes, rng)
                apply(s, a)
                child = node.children.get(a)
                if child is None:
                    if expanded:
                        break
                    child = node.children[a] = Node(-1)
                    expanded = True
                node = child
                path.append(node)
                continue
            seats = to_act(s)
            if len(seats) > 1 or s.phase == SECRET:
                # Others' secret choices are hidden from us: draw them, outside the tree.
                for p in seats:
                    if p != me:
                        apply(s, self.policy.choose(s, p, rng))
                if me not in seats:
                    continue
                seat = me
            else:
                seat = seats[0]
            if expanded:
                break
            legal = legal_actions(s, seat)
            if self.bid_widening and s.phase == BID and len(legal) > 2:
                legal = self._widened(s, seat, node, legal)
            children = node.children
            untried = [a for a in legal if a not in children]
            for a in legal:
                c = children.get(a)
                if c is not None:
                    c.avail += 1
            if untried:
                a = rng.choice(untried)
                child = children[a] = Node(seat)
                child.avail = 1
                expanded = True
            else:
                a = self._select(node, legal)
                child = children[a]
            apply(s, a)
            node = child
            path.append(node)
        r = self.playout_to_general(s, rng) if to_general else self.playout(s, rng)
        for n in path:
            n.visits += 1
            if n.mover >= 0:
                n.total += r[n.mover]

    def _widened(self, s: State, seat: int, node: Node, legal: list[Action]) -> list[Action]:
        """The bids a node offers now: the first few in the heuristic's order (the seat's
        evaluated lead after each bid, as ``HeuristicBot`` bids), more as visits grow."""
        order = node.order
        # A node's bids are the same in every determinisation (hands and bids are public);
        # checked all the same, as a stale order would offer a bid that is not legal.
        if order is None or len(order) != len(legal) or any(a not in order for a in legal):
            order = node.order = bid_ranking(s, seat, legal, self.weights)
        width = max(2, int(BID_WIDTH * (node.visits + 1) ** BID_GROWTH))
        return order[:width]

    def _select(self, node: Node, legal: list[Action]) -> Action:
        best: Action = legal[0]
        best_v = -math.inf
        c = self.exploration
        for a in legal:
            ch = node.children[a]
            v = ch.total / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
            if v > best_v:
                best, best_v = a, v
        return best

    def playout(self, s: State, rng: random.Random) -> list[float]:
        """Play on with the policy until a scoring, the round's end or the game's end (with
        ``turn_cut``: or until the next turn or bid begins)."""
        scores = s.scores[:]
        start = turn_key(s) if self.turn_cut else None
        for _ in range(MAX_PLAYOUT_STEPS):
            if is_terminal(s) or s.scores != scores:
                break
            if start is not None and turn_key(s) != start:
                break
            if is_chance(s):
                if s.phase == REVEAL:
                    break
                apply(s, _sample(chance_outcomes(s), rng))
                continue
            seat = to_act(s)[0]
            apply(s, self.policy.choose(s, seat, rng))
        return rewards(s, self.weights, self.temperature, self.value,
                       self.margin, self.margin_scale)

    def playout_to_general(self, s: State, rng: random.Random) -> list[float]:
        """Play on with the policy through the rounds' ends and the cards' scorings until
        the next general scoring is over (or the game's end): a bid buys Caballeros and a
        turn order for the rounds up to it, which the round's end alone does not show."""
        round_index = s.round_index
        for _ in range(HORIZON_STEPS):
            if is_terminal(s):
                break
            if s.round_index != round_index:
                if s.config.round_labels[round_index] in SCORING_ROUNDS:
                    break  # the general scoring after that round is done
                round_index = s.round_index
            if is_chance(s):
                apply(s, _sample(chance_outcomes(s), rng))
                continue
            seat = to_act(s)[0]
            apply(s, self.policy.choose(s, seat, rng))
        return rewards(s, self.weights, self.temperature, self.value,
                       self.margin, self.margin_scale)


def turn_key(s: State) -> tuple[int, int, bool]:
    """Which turn or bid of the game ``s`` is in; it changes where the next one begins.
    ``train_value`` records a position wherever it (or the scores) change, so a playout cut
    there ends on the kind of position the learned evaluation was fitted on."""
    return (s.round_index, s.turn, s.phase == BID)


def bid_ranking(s: State, seat: int, legal: list[Action], weights: Weights) -> list[Action]:
    """The seat's bids, best first as the heuristic bot judges them: the seat's evaluated
    lead after each bid (ties in the order given). A bid moves no Caballero and scores
    nothing, so the board's part of the evaluation is computed once for all of them
    (``board_values``), and only the last bid of the round, which sets the turn order,
    is played on a copy: the same values as ``evaluate`` after each bid, at a fraction of
    the cost (playouts rank every bid they make)."""
    board, rounds = board_values(s, weights)
    last = s.turn + 1 == s.n
    ranked = []
    for i, a in enumerate(legal):
        values = list(board)
        if rounds is not None and not last:
            add_bid_reserves(s, values, rounds, weights, seat, a.arg)
        elif rounds is not None:
            c = s.copy()
            apply(c, a)
            add_reserves(c, values, rounds, weights)
        ranked.append((utility(values, seat), -i, a))
    ranked.sort(reverse=True)
    return [a for _v, _i, a in ranked]


def _sample(outcomes: list[tuple[Action, float]], rng: random.Random) -> Action:
    x = rng.random()
    acc = 0.0
    for a, p in outcomes:
        acc += p
        if x < acc:
            return a
    return outcomes[-1][0]
