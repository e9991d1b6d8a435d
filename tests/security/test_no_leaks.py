"""No seat and no spectator receives, over HTTP or WebSocket, another seat's unrevealed
secret choice or draft, or the order of the action stacks, in every phase that has
secrets: the general scoring's Castillo destinations and cards 2a, 2e, 4f and 4g.

Method: matches that differ only in what an observer may not see must give that
observer the identical page, byte for byte (HTTP and the WebSocket's first state). The
same comparison for the seat that does see the difference must show it, so the test
can fail."""

from __future__ import annotations

import random
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from elgrande.matches import Match
from elgrande.rules import GameConfig, to_act
from elgrande.rules.state import PENDING, SECRET_PURPOSES
from elgrande.server.tables import Game, Seat

from .conftest import Player, anonymous, guest, services

pytestmark = pytest.mark.timeout(120)

PLAYERS = 4


def reach(purpose: str) -> Match:
    """A match (random play, seeded) where two or more seats must choose secretly for
    ``purpose`` and none has chosen yet."""
    index = SECRET_PURPOSES.index(purpose)
    for game in range(300):
        rng = random.Random(game)
        match = Match.new(GameConfig(players=PLAYERS), seed=f"{game:064x}")
        while not match.over:
            state = match.state
            acting = to_act(state)
            if (state.secret_purpose == index and len(acting) >= 2
                    and all(state.secret[p] == PENDING for p in acting)):
                match.drafts.clear()
                return match
            seat = acting[0]
            draft = match.draft(seat)
            while draft.may_step:
                legal = [str(a) for a in draft.legal()]
                castillo = [a for a in legal if a.endswith(" place CAS")]
                match.step(seat, castillo[0] if castillo and rng.random() < 0.5
                           else rng.choice(legal))
            match.finish(seat)
    raise AssertionError(f"no game reached a {purpose} secret choice")


def copy(match: Match, seed: str | None = None) -> Match:
    return Match(uuid.uuid4().hex, match.config, seed or match.seed, list(match.log),
                 match.state.copy(), match.created_at)


def chose(match: Match, seat: int, choice: str, commit: bool) -> Match:
    variant = copy(match)
    variant.step(seat, choice)
    if commit:
        variant.finish(seat)
    return variant


class Table:
    """Stores matches as started web games with the same four players in the same
    seats, and fetches every page of them."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.svc = services(client)
        self.players = [guest(client) for _ in range(PLAYERS)]
        self.spectator = anonymous(client)

    def store(self, match: Match) -> int:
        self.svc.store.add(match)
        with Session(self.svc.engine) as db, db.begin():
            game = Game(invite_token=uuid.uuid4().hex, creator_id=self.players[0].user_id,
                        players=PLAYERS, rounds=9, status="active", match_id=match.id)
            db.add(game)
            db.flush()
            for seat, player in enumerate(self.players):
                db.add(Seat(game_id=game.id, seat=seat, kind="human", user_id=player.user_id))
            return int(game.id)

    def pages(self, game_id: int, who: Player) -> dict[str, Any]:
        """What ``who`` receives: the HTTP view and the WebSocket's first state, with
        the game's own id taken out (the only thing allowed to differ)."""
        http = who.get(f"/api/games/{game_id}")
        assert http.status_code == 200, http.text
        with who.ws(game_id) as ws:
            message = ws.receive_json()
        assert message["type"] == "state"
        out = {"http": http.json(), "ws": message["state"]}
        for page in out.values():
            assert page["game_id"] == game_id
            page["game_id"] = None
        assert match_id_absent(out, self.svc, game_id)
        return out

    def observers(self, hidden_from_all_but: int | None) -> list[tuple[str, Player]]:
        seats = [(f"seat {s}", p) for s, p in enumerate(self.players) if s != hidden_from_all_but]
        return seats + [("spectator", self.spectator)]


def match_id_absent(pages: dict[str, Any], svc: Any, game_id: int) -> bool:
    """The match id (and with it anything keyed by it) never reaches the page."""
    match_id = svc.lobby.get(game_id).match_id
    return match_id not in str(pages)


@pytest.mark.parametrize("purpose", SECRET_PURPOSES)
def test_secret_choices_drafts_and_stack_order_never_leak(client: TestClient,
                                                         purpose: str) -> None:
    table = Table(client)
    base = reach(purpose)
    chooser, other = to_act(base.state)[:2]
    options = [str(a) for a in base.draft(chooser).legal()]
    base.drafts.clear()
    assert len(options) >= 2 and all(" secret " in o for o in options)

    # 1. A committed but unrevealed choice: chooser picked options[0] or options[1].
    one = table.store(chose(base, chooser, options[0], commit=True))
    two = table.store(chose(base, chooser, options[1], commit=True))
    for name, who in table.observers(hidden_from_all_but=chooser):
        assert table.pages(one, who) == table.pages(two, who), f"{purpose}: {name} sees the choice"
    seen = table.pages(one, table.players[chooser])
    assert seen != table.pages(two, table.players[chooser]), "the chooser sees its own choice"
    assert seen["http"]["secret"]["mine"] == options[0].split()[-1]
    watcher = table.pages(one, table.players[other])["http"]
    assert watcher["secret"]["mine"] is None and chooser in watcher["secret"]["chosen"]

    # 2. A draft: the chooser's pick still in its draft, or no draft at all.
    drafted = table.store(chose(base, chooser, options[0], commit=False))
    plain = table.store(copy(base))
    for name, who in table.observers(hidden_from_all_but=chooser):
        assert table.pages(drafted, who) == table.pages(plain, who), f"{purpose}: {name} sees a draft"
    assert table.pages(drafted, table.players[chooser]) != table.pages(plain, table.players[chooser])

    # 3. The stack order: the same log with another secret seed (other cards to come).
    reseeded = table.store(copy(base, seed=f"{0xFEED:064x}"))
    for name, who in table.observers(hidden_from_all_but=None):
        assert table.pages(plain, who) == table.pages(reseeded, who), f"{purpose}: {name} sees the seed"
