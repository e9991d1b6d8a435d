"""Per-user "your turn" notices: every open page of a player learns when it becomes
their turn in any of their games (the header's badge, the tab title, a desktop
notification; ``static/js/notify.js``), over ``/ws/me`` (``ws_me.py``).

A notice carries the game's number and whether it is the player's turn, nothing else
(no state, no match id). The committing thread only hands the news on, and only when
one of the game's players has a page open here; which seats are to act is worked out
in a worker thread, once per commit, for the players with open pages.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from elgrande.cache import Lru
from elgrande.matches import MatchEvent, MatchStore

from .live import call_soon
from .lobby import Lobby
from .socket_counts import LocalSocketCounts, SocketCounts
from .tables import Game, User

log = logging.getLogger(__name__)

CACHE_SIZE = 1024  # matches whose human seats are kept in memory
# A "created" event comes before the lobby points the game at its new match: looked up
# again after these pauses (seconds) until the game is found.
CREATED_RETRIES = (0.1, 0.3, 1.0, 3.0)

Notice = dict[str, Any]


class Alerts:
    def __init__(self, lobby: Lobby, store: MatchStore, pages: SocketCounts | None = None
                 ) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.lobby, self.store = lobby, store
        # Open pages per user (by user id), admitted by ws_me before ``open``.
        self.pages: SocketCounts = pages if pages is not None else LocalSocketCounts(0)
        # user id -> the queues of that user's open pages (changed on the event loop only)
        self._pages: dict[int, set[asyncio.Queue[Notice]]] = {}
        # match id -> its game, and every user ever seated in it: final once the game
        # has its match (a player who resigns leaves the seat, never joins it)
        self._games: Lru[str, tuple[Game, frozenset[int]]] = Lru(CACHE_SIZE)
        # game id -> the latest sequence told, so a slower worker never undoes a newer notice
        self._told: Lru[int, int] = Lru(CACHE_SIZE)
        self._tasks: set[asyncio.Task[None]] = set()

    # -- pages (event loop) -----------------------------------------------------------

    def open(self, user_id: int) -> asyncio.Queue[Notice]:
        """A queue for one more open page of the user (admitted by ``pages``)."""
        queue: asyncio.Queue[Notice] = asyncio.Queue()
        self._pages.setdefault(user_id, set()).add(queue)
        return queue

    def close(self, user_id: int, queue: asyncio.Queue[Notice]) -> None:
        pages = self._pages.get(user_id)
        if pages is not None:
            pages.discard(queue)
            if not pages:  # no entry kept for a user with no open page
                del self._pages[user_id]

    def waiting(self, user: User) -> list[int]:
        """The games waiting for the user's move, by number (worker thread)."""
        return [g["game"].id for g in self.lobby.my_games(user) if g["my_turn"]]

    # -- the news (committing thread) -------------------------------------------------

    def on_event(self, event: MatchEvent) -> None:
        """Runs in the committing thread: costs nothing when no player of the match has
        a page open here (known from memory), else hands the work to the event loop."""
        if event.kind in ("draft", "clocks", "chat") or not self._pages:
            return
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        known = self._games.get(event.match_id)
        if known is not None and not any(user in self._pages for user in known[1]):
            return
        retries = CREATED_RETRIES if event.kind == "created" else ()
        call_soon(loop, self._spawn, event.match_id, retries)

    def _spawn(self, match_id: str, retries: tuple[float, ...]) -> None:
        task = asyncio.get_running_loop().create_task(self._notify(match_id, retries))
        self._tasks.add(task)  # kept until done, so it is not collected half-way
        task.add_done_callback(self._tasks.discard)

    async def _notify(self, match_id: str, retries: tuple[float, ...]) -> None:
        loop = asyncio.get_running_loop()
        try:
            found = await loop.run_in_executor(None, self._turns, match_id)
            for pause in retries:
                if found is not None:
                    break
                await asyncio.sleep(pause)
                found = await loop.run_in_executor(None, self._turns, match_id)
        except Exception:  # a notice lost must not break anything: pages catch up on reconnect
            log.exception("could not work out whose turn it is")
            return
        if found is not None:
            self._deliver(*found)

    def _turns(self, match_id: str) -> tuple[int, int, list[tuple[int, bool]]] | None:
        """(game id, sequence, [(user id, their turn?)]) for the players with an open
        page (worker thread); None if the game is not known (yet)."""
        known = self._games.get(match_id)
        game = known[0] if known is not None else self.lobby.by_match(match_id)
        if game is None:
            return None
        # The lobby keeps the seats (and forgets them when a player resigns).
        seats = [(s["seat"], s["user_id"]) for s in self.lobby.started_seats(game)
                 if s["kind"] == "human" and s["user_id"] is not None]
        if known is None:
            self._games.put(match_id, (game, frozenset(user for _, user in seats)))
        watching = [(seat, user) for seat, user in seats if user in self._pages]
        if not watching:
            return game.id, -1, []
        view = self.store.view(match_id, None)
        to_act = set() if view.over else set(view.to_act)
        return game.id, view.seq, [(user, seat in to_act) for seat, user in watching]

    def _deliver(self, game_id: int, seq: int, turns: list[tuple[int, bool]]) -> None:
        """On the event loop: the notice to each open page of those users."""
        told = self._told.get(game_id)
        if not turns or (told is not None and seq < told):
            return
        self._told.put(game_id, seq)
        for user, mine in turns:
            for queue in list(self._pages.get(user, ())):
                queue.put_nowait({"type": "turn", "game": game_id, "your_turn": mine})
