"""Watching the others' moves step by step (issue 13, item 2): the public boards after
each log entry of a running game. Nothing a spectator may not see leaves: each board is
what the spectator's own view was at that sequence, a secret choice still unrevealed is
never in any of them (nor anything after it), and drafts are never read."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from elgrande.matches import LogEntry, Match
from elgrande.rules import GameConfig, Options, replay, to_act
from elgrande.rules.simulate import play_random_game
from elgrande.server.present import BOARDS_LIMIT, hidden_secrets, present, public_boards

from .conftest import As, services
from .helpers import advance, at_general_secret
from .test_secrets import events_of, swapped

pytestmark = pytest.mark.timeout(120)

SEATS = [{"seat": p, "kind": "bot", "name": f"P{p}"} for p in range(5)]


def match_of(config: GameConfig, log: list[Any]) -> Match:
    now = datetime.now(UTC)
    entries = [LogEntry(i + 1, a, i, now) for i, a in enumerate(log)]
    return Match("m", config, "seed", entries, replay(config, log), now)


def without_log(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k != "log"}


@pytest.mark.parametrize("options", [Options(), Options(castillo_hidden=True)], ids=["yucata", "castillo-hidden"])
def test_each_board_is_the_spectators_view_at_that_sequence(options: Options) -> None:
    """Cut a random game at many points: every board handed out equals what the spectator
    was shown at its sequence (redacted as then: box rules hide the Castillo split), and
    the boards stop before a secret choice that is still unrevealed at the cut."""
    config = GameConfig(3, 6, options=options)
    _, full = play_random_game(config, random.Random(7))
    seats = SEATS[:3]
    stopped_early = 0
    # Cuts all over the game, and cuts between two secret choices of one round (the
    # first made, not yet revealed).
    inside = [i for i in range(1, len(full) - 1) if full[i - 1].is_secret and full[i].is_secret]
    for cut in sorted({*range(20, len(full), 37), *inside[:4]}):
        match = match_of(config, full[:cut])
        events = events_of(match)
        got = public_boards(match, seats, 1, max(0, cut - 45), events)
        hidden = hidden_secrets(match.state, match.actions)
        assert got["head"] == cut and got["until"] == (min(hidden) if hidden else cut)
        stopped_early += got["until"] < cut
        assert [b["seq"] for b in got["boards"]] == list(range(max(0, cut - 45) + 1, got["until"] + 1))
        for b in got["boards"]:
            then = match_of(config, full[:b["seq"]])
            own = present(then, None, seats, 1, events_of(then))
            assert without_log(b) == without_log(own)
            assert b["log"] == [line for line in own["log"] if line["seq"] == b["seq"] - 1]
            assert b["legal"] == [] and b["draft"]["steps"] == [] and b["spectator"]
    assert stopped_early, "no cut fell inside a secret choice: pick other cuts"


def test_at_most_the_latest_boards() -> None:
    config = GameConfig(2, 6)
    _, full = play_random_game(config, random.Random(3))
    match = match_of(config, full[:150])
    got = public_boards(match, SEATS[:2], 1, 0)
    until = got["until"]
    assert len(got["boards"]) == BOARDS_LIMIT and got["boards"][-1]["seq"] == until
    assert public_boards(match, SEATS[:2], 1, until)["boards"] == []


def test_a_secret_choice_made_but_unrevealed_never_leaves(
        client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    game_id, *players = three_humans
    svc = services(client)
    match = advance(svc, game_id, at_general_secret)
    before = match.seq
    spectator = As(client, None)
    # With nothing hidden yet, the last board is the spectator's own view.
    boards = spectator.get(f"/api/games/{game_id}/boards?after={before - 3}").json()
    now = spectator.get(f"/api/games/{game_id}").json()
    assert [b["seq"] for b in boards["boards"]] == [before - 2, before - 1, before]
    assert without_log(boards["boards"][-1]) == without_log(now)
    # The first chooser chooses: the boards stop before that choice, for everyone.
    first, second = to_act(match.state)[:2]
    options = [a["text"] for a in players[first].get(f"/api/games/{game_id}").json()["legal"]]
    r = players[first].api(game_id, "step", {"action": options[0], "seq": before})
    assert r.status_code == 200 and r.json()["state"]["seq"] == before + 1
    spectator_then = spectator.get(f"/api/games/{game_id}").json()
    for who in (spectator, players[second], players[first]):
        got = who.get(f"/api/games/{game_id}/boards?after={before - 1}").json()
        assert got["head"] == before + 1 and got["until"] == before
        assert [b["seq"] for b in got["boards"]] == [before]
        assert who.get(f"/api/games/{game_id}/boards?after={before}").json()["boards"] == []
    # Had the choice been another, what is handed out would be the very same.
    committed = svc.store.load(svc.lobby.get(game_id).match_id)
    other = swapped(committed, len(committed.log) - 1, options[1])
    seats = svc.lobby.started_seats(svc.lobby.get(game_id))
    assert (public_boards(committed, seats, game_id, 0, svc.views.events(committed))
            == public_boards(other, seats, game_id, 0, events_of(other)))
    text = spectator.get(f"/api/games/{game_id}/boards?after=0").text
    assert committed.seed not in text
    # Once every choice is in, the boards go on to the head; the one after the first
    # choice shows that it was made, not what it was.
    seq = before + 1
    for seat in to_act(svc.store.load(committed.id).state):
        view = players[seat].get(f"/api/games/{game_id}").json()
        r = players[seat].api(game_id, "step", {"action": view["legal"][0]["text"], "seq": seq})
        assert r.status_code == 200, r.json()
        seq = r.json()["state"]["seq"]
    got = spectator.get(f"/api/games/{game_id}/boards?after={before}").json()
    assert got["until"] == got["head"] == seq
    chosen = got["boards"][0]
    assert chosen["seq"] == before + 1
    assert chosen["players"][first]["secret"] == "chosen" and chosen["secret"]["mine"] is None
    assert chosen["log"][0]["text"].endswith("has chosen secretly.")
    assert options[0].split()[-1] not in json.dumps(chosen["secret"])
    assert without_log(chosen) == without_log(spectator_then)
    # The finished game's stepper still waits for the end.
    assert spectator.get(f"/api/games/{game_id}/replay/3").status_code == 409


def test_a_draft_is_never_in_the_boards(client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    game_id, *players = three_humans
    svc = services(client)
    match = advance(svc, game_id, lambda m: m.state.phase_name == "recruit")
    seat = to_act(match.state)[0]
    spectator = As(client, None)
    before = spectator.get(f"/api/games/{game_id}/boards?after={match.seq - 1}").json()
    for _ in range(3):
        view = players[seat].get(f"/api/games/{game_id}").json()
        if not view["legal"]:
            break
        assert players[seat].api(game_id, "step", {"action": view["legal"][-1]["text"], "seq": match.seq}).status_code == 200
    assert players[seat].get(f"/api/games/{game_id}").json()["draft"]["steps"]
    for who in (spectator, players[seat]):
        assert who.get(f"/api/games/{game_id}/boards?after={match.seq - 1}").json() == before


def test_bounds(client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    game_id, anna, *_ = three_humans
    head = anna.get(f"/api/games/{game_id}").json()["seq"]
    assert anna.get(f"/api/games/{game_id}/boards?after={head + 1}").status_code == 400
    assert anna.get(f"/api/games/{game_id}/boards?after=-1").status_code == 422
    assert anna.get(f"/api/games/{game_id}/boards").status_code == 422
    assert anna.get("/api/games/999/boards?after=0").status_code == 404
