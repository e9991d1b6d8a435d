"""Nothing secret leaves the server: other seats' secret choices, drafts, the seed and
the order of the stacks."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from elgrande.matches import LogEntry, Match
from elgrande.rules import apply, new_game, parse_action, replay, to_act
from elgrande.server.present import present

from .conftest import As, services
from .helpers import advance, at_general_secret

pytestmark = pytest.mark.timeout(120)


def swapped(match: Match, index: int, action: str) -> Match:
    """The same match with log entry `index` replaced (and the state replayed)."""
    log = list(match.log)
    old = log[index]
    log[index] = LogEntry(old.seq, parse_action(action), old.base_seq, old.at)
    state = replay(match.config, [e.action for e in log])
    return Match(match.id, match.config, match.seed, log, state, match.created_at)


def events_of(match: Match) -> list[list[dict]]:
    state = new_game(match.config)
    out: list[list[dict]] = []
    for entry in match.log:
        produced: list[dict] = []
        apply(state, entry.action, produced)
        out.append(produced)
    return out


def test_a_committed_secret_choice_is_hidden_from_the_others(
        client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    game_id, *players = three_humans
    svc = services(client)
    match = advance(svc, game_id, at_general_secret)
    choosers = to_act(match.state)
    first, watcher = choosers[0], choosers[1]
    options = [a["text"] for a in players[first].get(f"/api/games/{game_id}").json()["legal"]]
    assert len(options) >= 2 and all(" secret " in o for o in options)
    r = players[first].api(game_id, "step", {"action": options[0], "seq": match.seq})
    assert r.status_code == 200
    mine = r.json()["state"]
    assert mine["seq"] == match.seq + 1  # confirming a secret choice commits it
    assert mine["secret"]["mine"] == options[0].split()[-1]
    theirs = players[watcher].get(f"/api/games/{game_id}").json()
    assert theirs["secret"]["mine"] is None and first in theirs["secret"]["chosen"]
    assert theirs["players"][first]["secret"] == "chosen"
    assert first not in theirs["to_act"] and first not in theirs["secret"]["waiting"]
    assert watcher in theirs["to_act"] and theirs["legal"]
    assert theirs["log"][-1]["text"].endswith("has chosen secretly.")
    with players[watcher].ws(game_id) as ws:
        assert ws.receive_json()["state"] == theirs
    # Had the first chooser picked differently, the others' views would be identical.
    committed = svc.store.load(svc.lobby.get(game_id).match_id)
    other_choice = swapped(committed, len(committed.log) - 1, options[1])
    seats = svc.lobby.seats(game_id)
    ev, other_ev = events_of(committed), events_of(other_choice)
    for seat in [s for s in range(3) if s != first] + [None]:
        assert present(committed, seat, seats, game_id, ev) == present(other_choice, seat, seats, game_id, other_ev)
    assert present(committed, first, seats, game_id, ev) != present(other_choice, first, seats, game_id, other_ev)
    assert players[watcher].get(f"/api/games/{game_id}").json() == present(committed, watcher, seats, game_id, ev)


def test_choices_are_revealed_once_everyone_has_chosen(
        client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    game_id, *players = three_humans
    svc = services(client)
    match = advance(svc, game_id, at_general_secret)
    choosers = to_act(match.state)
    seq = match.seq
    for seat in choosers:
        view = players[seat].get(f"/api/games/{game_id}").json()
        r = players[seat].api(game_id, "step", {"action": view["legal"][0]["text"], "seq": seq})
        assert r.status_code == 200, r.json()
        seq = r.json()["state"]["seq"]
    log = players[choosers[0]].get(f"/api/games/{game_id}").json()["log"]
    assert not any("has chosen secretly" in e["text"] for e in log)
    assert sum(" chooses " in e["text"] and "secretly" in e["text"] for e in log) >= len(choosers)


def test_another_seats_draft_never_shows(client: TestClient, three_humans: tuple[int, As, As, As]) -> None:
    game_id, *players = three_humans
    svc = services(client)
    # Into an action turn, where one seat takes several steps in its draft.
    match = advance(svc, game_id, lambda m: m.state.phase_name == "recruit")
    seat = to_act(match.state)[0]
    others = [(p, s) for s, p in enumerate(players) if s != seat]
    before = {s: p.get(f"/api/games/{game_id}").json() for p, s in others}
    spectator_before = As(client, None).get(f"/api/games/{game_id}").json()
    for _ in range(3):
        view = players[seat].get(f"/api/games/{game_id}").json()
        if not view["legal"]:
            break
        assert players[seat].api(game_id, "step", {"action": view["legal"][-1]["text"], "seq": match.seq}).status_code == 200
    assert players[seat].get(f"/api/games/{game_id}").json()["draft"]["steps"]
    for p, s in others:
        assert p.get(f"/api/games/{game_id}").json() == before[s]
    assert As(client, None).get(f"/api/games/{game_id}").json() == spectator_before


def test_no_view_carries_the_seed_or_the_stack_order(client: TestClient,
                                                     three_humans: tuple[int, As, As, As]) -> None:
    game_id, *players = three_humans
    svc = services(client)
    match = advance(svc, game_id, lambda m: m.state.round >= 2 and m.state.phase_name == "bid")
    texts = [json.dumps(p.get(f"/api/games/{game_id}").json()) for p in players]
    texts.append(json.dumps(As(client, None).get(f"/api/games/{game_id}").json()))
    for text in texts:
        assert match.seed not in text
        view = json.loads(text)
        assert len(view["cards"]) <= 5  # only the face-up cards of this round
        assert not {"seed", "copies", "stacks", "deck"} & set(view)
    assert players[0].get(f"/api/games/{game_id}/record").status_code == 409
