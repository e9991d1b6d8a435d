"""The coach: the top bot reviews one seat's decisions in a game (docs/coach.md).

Two steps, so that the expensive one can run piece by piece in a worker process:

* ``decision_points(config, log, seat)`` replays the log and returns, for each decision of
  the seat (a bid, a card, deploy or special first, a whole deployment, each step of a
  special action, a secret choice), the seat's *redacted* state at that moment and what it
  played. Nothing else of the position leaves this function: other seats' unrevealed secret
  choices are cut out here (``redact``), and the order of the stacks is in no state.
* ``judge(point, seed, budget)`` asks the top bot what it would play from that view; if it
  differs, both lines are played out to the END of the game many times (the rest of the
  seat's turn by the heuristic bot, then every seat by the ISMCTS playout policy; whatever
  the seat could not see is drawn as the game goes, as ISMCTS determinises) with common
  random numbers for the two lines, and the mean difference of the seat's final score is
  reported in points with its standard error.

Budgets are iterations and playouts, never seconds, and every random draw comes from
``seed``: a review is a function of (log, seat, seed, budget).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from elgrande.rules import (
    Action,
    GameConfig,
    IllegalAction,
    State,
    apply,
    chance_outcomes,
    is_chance,
    is_terminal,
    legal_actions,
    new_game,
    parse_action,
    redact,
    to_act,
)
from elgrande.rules.state import BID, DEPLOY, SECRET

from .base import Bot
from .heuristic import HeuristicBot
from .ismcts import PlayoutPolicy
from .levels import LEVELS, make_bot

# The strongest level is the last one listed (levels go from easy upwards).
TOP_LEVEL = list(LEVELS)[-1]
MAX_GAME_STEPS = 20_000  # a playout to the end never takes this many; a guard only
MAX_LINE = 40  # atomic actions of one bot line (a whole deployment is at most 13)


@dataclass(frozen=True)
class Budget:
    """How hard the coach thinks: the bot (a level or ``ismcts:N``) and the playouts per
    line. Tests use a small one."""

    level: str = TOP_LEVEL
    playouts: int = 48

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "playouts": self.playouts}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Budget:
        return cls(str(data["level"]), int(data["playouts"]))


@dataclass(frozen=True)
class DecisionPoint:
    """One decision of ``seat``: ``index`` log entries were played before it (the replay's
    position), ``view`` is the seat's redacted state then, ``played`` what it played (a
    whole deployment is several placements)."""

    seat: int
    index: int
    round: int
    turn: int  # the game's turn, counted from 1: a new one each time another seat acts
    view: State
    played: tuple[Action, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "index": self.index, "round": self.round,
                "turn": self.turn, "view": self.view.to_dict(),
                "played": [str(a) for a in self.played]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DecisionPoint:
        return cls(int(data["seat"]), int(data["index"]), int(data["round"]),
                   int(data["turn"]), State.from_dict(data["view"]),
                   tuple(parse_action(a) for a in data["played"]))


@dataclass(frozen=True)
class Finding:
    """The coach's word on one decision. ``delta``: the coach's line minus the played one,
    in the seat's expected final points (None where it agreed); ``se``: its standard
    error."""

    index: int
    round: int
    turn: int
    played: tuple[str, ...]
    coach: tuple[str, ...]
    delta: float | None
    se: float | None

    @property
    def agreed(self) -> bool:
        return self.delta is None

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "round": self.round, "turn": self.turn,
                "played": list(self.played), "coach": list(self.coach),
                "delta": self.delta, "se": self.se}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        return cls(int(data["index"]), int(data["round"]), int(data["turn"]),
                   tuple(data["played"]), tuple(data["coach"]), data["delta"], data["se"])


def decision_points(config: GameConfig, log: list[Action], seat: int) -> list[DecisionPoint]:
    """Every decision of ``seat`` in ``log`` where it had a choice, from its own view."""
    state = new_game(config)
    points: list[DecisionPoint] = []
    turn, last_mover = 0, -2
    i = 0
    while i < len(log):
        action = log[i]
        if action.is_chance:
            apply(state, action)
            last_mover = -1
            i += 1
            continue
        # A bid and a secret choice are turns of their own; otherwise a turn goes on
        # while the same seat acts.
        if action.seat != last_mover or state.phase in (BID, SECRET):
            turn += 1
        last_mover = action.seat
        if action.seat != seat:
            apply(state, action)
            i += 1
            continue
        view = redact(state, seat)  # taken before anything of the decision is applied
        start, choice = i, False
        deployment = state.phase == DEPLOY
        while True:  # a deployment is one decision: all its placements together
            choice = choice or len(legal_actions(state, seat)) > 1
            apply(state, log[i])
            i += 1
            if not (deployment and i < len(log) and state.phase == DEPLOY
                    and not log[i].is_chance and log[i].seat == seat):
                break
        if choice:
            points.append(DecisionPoint(seat, start, view.round, turn, view,
                                        tuple(log[start:i])))
    return points


def coach_line(bot: Bot, view: State, seat: int, deployment: bool) -> tuple[Action, ...]:
    """What the bot plays from ``view``: one action, or a whole deployment."""
    s = view.copy()
    line: list[Action] = []
    while len(line) < MAX_LINE:
        action = bot.choose(s, seat)
        line.append(action)
        apply(s, action)
        if not deployment or is_terminal(s) or is_chance(s) or s.phase != DEPLOY \
                or to_act(s) != [seat]:
            break
    return tuple(line)


def same_decision(a: tuple[Action, ...], b: tuple[Action, ...]) -> bool:
    """Equal, or the same placements in another order."""
    return sorted(a) == sorted(b)


def judge(point: DecisionPoint, seed: int, budget: Budget) -> Finding:
    """The coach's word on one decision, from the seat's view at the time only."""
    view, seat = point.view, point.seat
    deployment = view.phase == DEPLOY
    bot = make_bot(budget.level, _derive(seed, point.index, "bot"))
    better = coach_line(bot, view, seat, deployment)
    played = tuple(str(a) for a in point.played)
    suggested = tuple(str(a) for a in better)
    if same_decision(better, point.played):
        return Finding(point.index, point.round, point.turn, played, suggested, None, None)
    try:
        ours = _with_turn_finished(view, point.played, seat, seed, point.index)
        theirs = _with_turn_finished(view, better, seat, seed, point.index)
    except IllegalAction:  # the record does not fit the view (it should): no verdict
        return Finding(point.index, point.round, point.turn, played, suggested, None, None)
    diffs = []
    for n in range(max(1, budget.playouts)):
        # Common random numbers: the same streams for both lines (chance draws in
        # particular), so the difference is mostly the decision's.
        mine = final_score(ours, seat, _derive(seed, point.index, f"playout{n}"))
        coach = final_score(theirs, seat, _derive(seed, point.index, f"playout{n}"))
        diffs.append(coach - mine)
    mean = sum(diffs) / len(diffs)
    var = sum((d - mean) ** 2 for d in diffs) / max(1, len(diffs) - 1)
    return Finding(point.index, point.round, point.turn, played, suggested,
                   round(mean, 2), round(math.sqrt(var / len(diffs)), 2))


def _with_turn_finished(view: State, line: tuple[Action, ...], seat: int, seed: int,
                        index: int) -> State:
    """``view`` after ``line`` and the rest of the seat's turn, played by the heuristic bot
    (the same follow-up for both lines, so a good first step is not judged by random
    ones)."""
    s = view.copy()
    for action in line:
        apply(s, action)
    helper = HeuristicBot(_derive(seed, index, "finish"))
    for _ in range(MAX_LINE):
        if is_terminal(s) or is_chance(s) or to_act(s) != [seat] or s.phase == SECRET:
            break
        apply(s, helper.choose(s, seat))
    return s


def final_score(start: State, seat: int, seed: int) -> int:
    """The seat's final score after one playout of ``start`` to the end of the game."""
    s = start.copy()
    chance = random.Random(f"{seed}:chance")
    moves = [random.Random(f"{seed}:seat{p}") for p in range(s.n)]
    policy = PlayoutPolicy()
    for _ in range(MAX_GAME_STEPS):
        if is_terminal(s):
            break
        if is_chance(s):
            apply(s, _sample(chance_outcomes(s), chance))
            continue
        p = to_act(s)[0]  # at a secret step the others' choices are drawn here
        apply(s, policy.choose(s, p, moves[p]))
    return int(s.scores[seat])


def review(config: GameConfig, log: list[Action], seat: int, seed: int,
           budget: Budget = Budget()) -> list[Finding]:
    """Every decision of the seat judged (agreed ones included), in the log's order."""
    return [judge(p, seed, budget) for p in decision_points(config, log, seat)]


def mistakes(findings: list[Finding]) -> list[Finding]:
    """The decisions the coach would have made otherwise, the biggest loss first."""
    differ = [f for f in findings if f.delta is not None]
    return sorted(differ, key=lambda f: (-(f.delta or 0.0), f.index))


def _derive(seed: int, index: int, what: str) -> int:
    """An independent seed per decision and purpose (Random hashes strings stably)."""
    return random.Random(f"coach:{seed}:{index}:{what}").getrandbits(63)


def _sample(outcomes: list[tuple[Action, float]], rng: random.Random) -> Action:
    x, acc = rng.random(), 0.0
    for action, p in outcomes:
        acc += p
        if x < acc:
            return action
    return outcomes[-1][0]
