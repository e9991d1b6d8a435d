"""A computer opponent's randomness comes from the match's SECRET seed, not from
anything a player knows (the match id, the seat, the public log): rebuilding the
position and running the bot locally must not predict its secret choices (issue 11,
item 1). Replays stay exact: the same secret seed gives the same bot seeds."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from elgrande.matches import Match, MatchStore
from elgrande.rules import GameConfig
from elgrande.server.bots import bot_seed
from elgrande.server.play import Play
from tests.apps import migrated

FIXED_ID = "0123456789abcdef0123456789abcdef"


class OneBotGame:
    """The lobby of one active game (on ``match_id``) whose seat 1 is a bot."""

    def __init__(self, match_id: str) -> None:
        self.match_id = match_id

    def get(self, game_id: int) -> Any:
        return SimpleNamespace(id=game_id, status="active", match_id=self.match_id,
                               creator_id=7)

    def started_seats(self, game: Any) -> list[dict[str, Any]]:
        return [{"seat": 0, "kind": "human", "bot_level": None},
                {"seat": 1, "kind": "bot", "bot_level": "easy"}]


def bot_turn_seed(tmp_path: Path, name: str, secret: str, match_id: str = FIXED_ID) -> int:
    store = MatchStore(migrated(f"sqlite:///{tmp_path / name}"))
    try:
        store.add(Match.new(GameConfig(players=2, start_player=1), seed=secret,
                            match_id=match_id))
        turns = Play(store, OneBotGame(match_id), None).bot_work(1)  # type: ignore[arg-type]
        assert [t.seat for t in turns] == [1]
        assert turns[0].seed == bot_seed(secret, 1, turns[0].seq)
        return turns[0].seed
    finally:
        store.close()


def test_the_bot_seed_changes_with_the_secret_seed_not_with_the_match_id(
        tmp_path: Path) -> None:
    first = bot_turn_seed(tmp_path, "a.db", "aa" * 32)
    assert bot_turn_seed(tmp_path, "b.db", "bb" * 32) != first, \
        "same match id, another secret seed: another bot seed"
    assert bot_turn_seed(tmp_path, "c.db", "aa" * 32, match_id="f" * 32) == first, \
        "the match id plays no part; the same secret seed replays the same bot"


def test_bot_seeds_differ_by_seat_and_turn() -> None:
    seeds = {bot_seed("cd" * 32, seat, seq) for seat in range(4) for seq in range(1, 30)}
    assert len(seeds) == 4 * 29
