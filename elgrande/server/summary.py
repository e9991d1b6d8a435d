"""A finished game told from its log: where each seat's points came from (general
scorings, special scorings, the Castillo, the Grande and King bonuses), the scores over
time with the rounds and scorings marked, and the turns, for the page's chart and its
log stepper (``GET /api/games/{id}/summary``).

Everything is worked out by replaying the log with the engine's events: each ``Scored``
record gives an area's points per seat, bonuses included. A bonus goes only to the sole
leader of a region (rules.md §6.1), and nobody else can reach the region's first award,
so the leader's points above that award are its bonus: 2 for its Grande there, 2 for the
King's region (the Grande and the King do not move while an action scores)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from elgrande.matches import LogEntry
from elgrande.rules import GameConfig, Scored, apply, is_chance, new_game
from elgrande.rules.board import CASTILLO
from elgrande.rules.scoring import awards_of
from elgrande.rules.state import State

PARTS = ("general", "special", "castillo", "bonuses")


def bonuses(state: State, event: Scored) -> list[tuple[int, int, int]]:
    """(seat, Grande bonus, King bonus) of one scoring; ``state`` is the state after the
    action that scored (its awards, Grande and King are those of the scoring)."""
    area, points = event.area, list(event.points)
    if area == CASTILLO or not any(points):
        return []
    best = max(points)
    leader = points.index(best)
    extra = best - awards_of(state, area)[0]
    if extra <= 0 or points.count(best) > 1:
        return []
    grande = 2 if state.grande[leader] == area and extra >= 2 else 0
    king = extra - grande
    return [(leader, grande, king)]


def game_summary(config: GameConfig, log: Sequence[LogEntry], names: list[str]) -> dict[str, Any]:
    state = new_game(config)
    n = state.n
    parts = [dict.fromkeys((*PARTS, "grande", "king"), 0) for _ in range(n)]
    timeline: list[dict[str, Any]] = [{"seq": 0, "scores": [0] * n}]
    # A round begins where its first decision is due: its cards are revealed.
    rounds: list[dict[str, int]] = []
    scorings: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    for i, entry in enumerate(log):
        before_round = state.round
        produced: list[Any] = []
        apply(state, entry.action, produced)
        seq = i + 1
        reasons: dict[str, list[int]] = {}
        for event in produced:
            if not isinstance(event, Scored):
                continue
            total = reasons.setdefault(event.reason, [0] * n)
            for p, v in enumerate(event.points):
                total[p] += v
            extra = [0] * n
            for p, grande, king in bonuses(state, event):
                extra[p] = grande + king
                parts[p]["grande"] += grande
                parts[p]["king"] += king
                parts[p]["bonuses"] += grande + king
            kind = ("castillo" if event.area == CASTILLO
                    else "general" if event.reason == "general" else "special")
            for p, v in enumerate(event.points):
                parts[p][kind] += v - extra[p]
        for reason, points in reasons.items():
            scorings.append({"seq": seq, "round": before_round, "reason": reason,
                             "general": reason == "general", "points": points})
        if reasons:
            timeline.append({"seq": seq, "scores": list(state.scores)})
        if (not rounds or state.round != rounds[-1]["round"]) and not is_chance(state) and seq < len(log):
            rounds.append({"round": state.round, "seq": seq})
        # One commit (the entries sharing a base_seq) is one turn: a seat's draft, or
        # its secret choice, or its bid, with the chance steps that followed.
        if i + 1 == len(log) or log[i + 1].base_seq != entry.base_seq:
            start = turns[-1]["seq"] if turns else 0
            movers = [e.action.seat for e in log[start:seq] if not e.action.is_chance]
            turns.append({"start": start, "seq": seq, "round": before_round,
                          "seat": movers[0] if movers else None})
    if timeline[-1]["seq"] != len(log):
        timeline.append({"seq": len(log), "scores": list(state.scores)})
    seats: list[dict[str, Any]] = []
    for p in range(n):
        made: dict[str, Any] = {"seat": p, "name": names[p], "total": state.scores[p], **parts[p]}
        # Points that came another way than a scoring (none today): shown, never lost.
        made["other"] = state.scores[p] - sum(parts[p][k] for k in PARTS)
        seats.append(made)
    return {"seq": len(log), "round_labels": list(config.round_labels), "seats": seats,
            "timeline": timeline, "rounds": rounds, "scorings": scorings,
            "turns": [t for t in turns if t["seat"] is not None]}
