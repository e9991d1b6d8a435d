"""The finished game's summary (issue 13, item 12): each seat's points by source, the
scores over time, rounds and turns, worked out from the engine's scoring events and
checked against what the engine itself knew at each scoring."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from elgrande.matches import LogEntry
from elgrande.rules import GameConfig, is_chance, new_game, replay
from elgrande.rules import engine as rules_engine
from elgrande.rules.board import CASTILLO
from elgrande.rules.simulate import play_random_game
from elgrande.server.summary import PARTS, game_summary

from .conftest import As, services

pytestmark = pytest.mark.timeout(120)


def entries(log: list[Any]) -> list[LogEntry]:
    """The log as committed: a seat's actions in a row (and the chance steps after them)
    are one commit, as a turn is."""
    out: list[LogEntry] = []
    base, last_seat = 0, None
    now = datetime.now(UTC)
    for i, action in enumerate(log):
        if not action.is_chance and action.seat != last_seat:
            base, last_seat = i, action.seat
        out.append(LogEntry(i + 1, action, base, now))
    return out


def truth_of(config: GameConfig, log: list[Any], monkeypatch: pytest.MonkeyPatch) -> list[dict[str, int]]:
    """Each seat's points by source, recorded inside the engine at every scoring (the
    counts, Grande and King as they were then)."""
    n = config.players
    parts = [dict.fromkeys(PARTS, 0) for _ in range(n)]
    real = rules_engine.score_area

    def recording(s: Any, area: int, first_only: bool = False, events: Any = None, reason: str = "") -> list[int]:
        counts = s.cab[area * n: area * n + n]
        best = max(counts)
        leader = counts.index(best) if best > 0 and counts.count(best) == 1 else -1
        bonus = [0] * n
        if leader >= 0 and area != CASTILLO:
            bonus[leader] = 2 * (s.grande[leader] == area) + 2 * (s.king == area)
        points: list[int] = real(s, area, first_only, events, reason)
        for p in range(n):
            kind = "castillo" if area == CASTILLO else "general" if reason == "general" else "special"
            parts[p][kind] += points[p] - bonus[p]
            parts[p]["bonuses"] += bonus[p]
        return points

    with monkeypatch.context() as m:
        m.setattr(rules_engine, "score_area", recording)
        replay(config, log)
    return parts


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3), (5, 4), (3, 5), (2, 6)])
def test_the_breakdown_matches_the_engine_at_each_scoring(players: int, seed: int,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    config = GameConfig(players, 9)
    final, log = play_random_game(config, random.Random(seed))
    names = [f"p{p}" for p in range(players)]
    summary = game_summary(config, entries(log), names)
    truth = truth_of(config, log, monkeypatch)
    for p, seat in enumerate(summary["seats"]):
        assert seat["total"] == final.scores[p]
        assert {k: seat[k] for k in PARTS} == truth[p], (p, seat, truth[p])
        assert sum(seat[k] for k in PARTS) == seat["total"] and seat["other"] == 0
        assert seat["grande"] + seat["king"] == seat["bonuses"]
    # Scores over time: they only grow, and end at the final scores.
    timeline = summary["timeline"]
    assert timeline[0] == {"seq": 0, "scores": [0] * players}
    assert timeline[-1]["seq"] == len(log) and timeline[-1]["scores"] == final.scores
    for a, b in zip(timeline, timeline[1:], strict=False):
        assert a["seq"] < b["seq"] and all(x <= y for x, y in zip(a["scores"], b["scores"], strict=True))
    # Three general scorings, marked after rounds 3, 6 and 9.
    assert [s["round"] for s in summary["scorings"] if s["general"]] == [3, 6, 9]
    # Each round begins where its first decision is due (its cards just revealed).
    assert [r["round"] for r in summary["rounds"]] == list(config.round_labels)
    for r in summary["rounds"]:
        then = replay(config, log[:r["seq"]])
        assert then.round == r["round"] and not is_chance(then)
        assert log[r["seq"] - 1].is_chance or replay(config, log[:r["seq"] - 1]).round != r["round"]
    # Turns follow one another to the end of the log, each a seat's.
    turns = summary["turns"]
    assert turns[-1]["seq"] == len(log)
    assert all(t["start"] < t["seq"] for t in turns)
    assert all(a["seq"] <= b["start"] for a, b in zip(turns, turns[1:], strict=False))
    for t in turns:
        first = next(e for e in log[t["start"]:t["seq"]] if not e.is_chance)
        assert t["seat"] == first.seat


def test_bonuses_show_up_in_a_long_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bonuses are not always zero: over a few games some are paid and split."""
    seen = {"grande": 0, "king": 0, "special": 0}
    for seed in range(3):
        config = GameConfig(4, 9)
        _, log = play_random_game(config, random.Random(100 + seed))
        for seat in game_summary(config, entries(log), ["a", "b", "c", "d"])["seats"]:
            for k in seen:
                seen[k] += seat[k]
    assert all(seen.values()), seen


def test_summary_is_for_finished_games(client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    from .helpers import advance
    game_id, anna, *_ = three_humans
    assert anna.get(f"/api/games/{game_id}/summary").status_code == 409
    svc = services(client)
    match = advance(svc, game_id, lambda m: m.over)
    svc.play.after_commit(match.id)
    view = As(client, None).get(f"/api/games/{game_id}").json()
    summary = As(client, None).get(f"/api/games/{game_id}/summary").json()
    assert [s["total"] for s in summary["seats"]] == [p["score"] for p in view["players"]]
    assert [s["name"] for s in summary["seats"]] == [p["name"] for p in view["players"]]
    assert summary["seq"] == view["seq"] and summary["turns"][-1]["seq"] == view["seq"]
    assert new_game(match.config).n == len(summary["seats"])
