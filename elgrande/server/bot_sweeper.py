"""With several server processes: notices computer moves nobody is working on (their
process died without releasing its lease) and hands them to this process's runner."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import Engine, and_, exists, select

from elgrande.matches.tables import MatchRow
from elgrande.scale.leases import utcnow
from elgrande.scale.tables import BotLease

from .periodic import Periodic
from .tables import Game, Seat

log = logging.getLogger(__name__)


class BotSweeper(Periodic):
    """Every ``interval`` seconds: running games with computer seats whose match has not
    moved for ``stale`` seconds and that nobody holds a live lease on are handed to
    ``kick(game_id)`` (the runner then finds out whether a bot is to move). A game is
    handed over once per position (again after ``retry`` seconds), so games waiting for
    a human cost one look."""

    name = "bot-sweeper"

    def __init__(self, engine: Engine, kick: Callable[[int], None], *, interval: float = 5.0,
                 stale: float = 5.0, retry: float = 60.0) -> None:
        super().__init__(interval)
        self._engine = engine
        self._kick = kick
        self.stale = stale
        self.retry = retry
        self._seen: dict[int, tuple[int, float]] = {}  # game id -> (head_seq, when) handed over

    def candidates(self) -> list[tuple[int, int]]:
        """(game id, head seq) of running bot games that look abandoned."""
        now = utcnow()
        has_bot = exists().where(Seat.game_id == Game.id, Seat.kind == "bot")
        live_lease = exists().where(and_(BotLease.match_id == Game.match_id,
                                         BotLease.expires_at >= now))
        query = (
            select(Game.id, MatchRow.head_seq)
            .join(MatchRow, MatchRow.id == Game.match_id)
            .where(Game.status == "active", MatchRow.over.is_(False),
                   MatchRow.updated_at < now - timedelta(seconds=self.stale), has_bot,
                   ~live_lease)
        )
        with self._engine.connect() as conn:
            return [(int(g), int(s)) for g, s in conn.execute(query)]

    def sweep(self) -> list[int]:
        kicked = []
        now = time.monotonic()
        for game_id, seq in self.candidates():
            seen = self._seen.get(game_id)
            if seen is not None and seen[0] == seq and now - seen[1] < self.retry:
                continue
            self._seen[game_id] = (seq, now)
            kicked.append(game_id)
            self._kick(game_id)
        return kicked

    def tick(self) -> None:
        kicked = self.sweep()
        if kicked:  # routine: mostly games waiting for a human who is thinking
            log.debug("looking at games %s for bot moves (no live lease)", kicked)
