"""Veto windows at the table (box rules, rules.md §12.1; docs/box-rules.md).

The engine asks a Veto holder (phase ``veto``, one seat to act) in the middle of another
player's turn; the turn framework commits the step that opened the window and the
holder's answer as whole turns (docs/matches.md). Here, what the server adds:

- **"No veto this turn / this round"** (``VetoPreference``): a holder's choice, public;
  while it holds, the server answers his windows with ``pass`` at once, committed as
  his turn through ``MatchStore.play_turn`` as a computer's turn is (``Play.pass_for``).
- **The window's own wait** (``VetoWait``): a human holder has ``window_seconds`` (a
  setting; not his turn clock, no email), then the server passes for him. The deadline
  is a row; the clock keeper's thread sleeps until the earliest of all games (one
  indexed query, no polling of games) and the pass deletes the row conditionally inside
  its own commit, so of several processes exactly one enters it.

Each process hears every commit (``on_event``, the committing thread: only noted) and
looks at the noted matches in the keeper's thread (``settle_pending``). Bots and
computers standing in for away players answer windows themselves (server/bot_runner.py).

All methods are synchronous, for worker threads; ``now`` is injected.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from elgrande.cache import Lru
from elgrande.matches import Match, MatchEvent, MatchStore, TurnRefused
from elgrande.matches.tables import MatchRow
from elgrande.rules import State, to_act
from elgrande.rules.state import VETO

from .errors import PlayError
from .i18n import _
from .lobby import Lobby
from .tables import Game, VetoPreference, VetoWait

log = logging.getLogger(__name__)

SCOPES = ("turn", "round", "none")  # what a holder may choose ("none": asked again)
GAMES_CACHE_SIZE = 4096  # match id -> (game id, whether it has Veto cards)

PassFor = Callable[[int, int, int, Callable[[Connection, Match], None] | None], bool]


def _aware(moment: datetime | None) -> datetime | None:
    from .clocks.keeper import aware
    return aware(moment)


def holds(pref: VetoPreference | dict[str, Any] | None, state: State) -> bool:
    """Whether a "no veto" preference covers the state's current turn."""
    if pref is None:
        return False
    get = pref.get if isinstance(pref, dict) else lambda k: getattr(pref, k)
    if get("round") != state.round:
        return False
    return get("scope") == "round" or (get("scope") == "turn" and get("active") == state.active)


class VetoWatch:
    def __init__(self, sessions: sessionmaker[Session], reads: sessionmaker[Session],
                 lobby: Lobby, store: MatchStore, now: Callable[[], datetime],
                 window_seconds: float, pass_for: PassFor, *,
                 wake: threading.Event | None = None,
                 away: Callable[[int], set[int]] = lambda game_id: set(),
                 on_change: Callable[[str], None] = lambda match_id: None) -> None:
        """``pass_for(game, seat, seq, within)``: commits ``pN pass`` for the seat on the
        match at ``seq`` (False if refused); ``wake``: set when a deadline may come
        earlier (the keeper's thread); ``away(game)``: seats a computer plays for now;
        ``on_change(match)``: a game's preferences or open window changed (pages)."""
        self._sessions, self._reads = sessions, reads
        self.lobby, self.store, self.now = lobby, store, now
        self.window = timedelta(seconds=window_seconds)
        self.pass_for = pass_for
        self.wake = wake or threading.Event()
        self.away = away
        self.on_change = on_change
        self._games: Lru[str, tuple[int, bool]] = Lru(GAMES_CACHE_SIZE)
        self._pending: set[str] = set()
        self._lock = threading.Lock()
        self._caught_up: datetime | None = None

    # -- commits

    def on_event(self, event: MatchEvent) -> None:
        """Broker listener (the committing thread): note a commit of a box game."""
        if event.kind != "commit":
            return
        known = self._games.get(event.match_id)
        if known is not None and not known[1]:
            return  # no Veto cards: never a window
        with self._lock:
            self._pending.add(event.match_id)
        self.wake.set()

    def waiting(self) -> bool:
        with self._lock:
            return bool(self._pending)

    def settle_pending(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, set()
        for match_id in pending:
            try:
                self.look(match_id)
            except Exception:  # one game's trouble must not stop the others' windows
                log.exception("looking at a veto window failed")

    def _game_of(self, match_id: str) -> tuple[int, bool] | None:
        known = self._games.get(match_id)
        if known is not None:
            return known
        game = self.lobby.by_match(match_id)
        if game is None:
            return None
        config = self.store.load_seat(match_id, None).config
        found = (game.id, bool(config.options.veto_cards))
        self._games.put(match_id, found)
        return found

    def look(self, match_id: str) -> str:
        """After a commit: the server's part in the match's open window, if any. Returns
        what it did: "none" (no window, or a computer answers it), "passed" (a holder's
        "no veto"), "waits" (the holder has until the deadline)."""
        found = self._game_of(match_id)
        if found is None or not found[1]:
            return "none"
        game_id = found[0]
        match = self.store.load_seat(match_id, None)
        state, seq = match.state, match.seq
        game = self.lobby.get(game_id)
        if state.phase != VETO or match.over or game is None or game.status != "active":
            self._forget(game_id, seq)
            return "none"
        holder = to_act(state)[0]
        seats = {s["seat"]: s for s in self.lobby.started_seats(game)}
        if seats.get(holder, {}).get("kind") != "human" or holder in self.away(game_id):
            self._forget(game_id, seq)  # a computer answers (a bot, or for an away seat)
            return "none"
        with self._reads() as db:
            pref = db.get(VetoPreference, (game_id, holder))
            if pref is not None and holds(pref, state):
                db.expunge(pref)
            else:
                pref = None
        if pref is not None:
            self._forget(game_id, seq)
            self.pass_for(game_id, holder, seq, None)
            return "passed"
        self._await(game_id, seq, holder)
        return "waits"

    def _forget(self, game_id: int, seq: int) -> None:
        """No window waits at ``seq``: an older row goes (conditional: only older)."""
        with self._reads() as db:  # most commits have none: no write then
            if db.scalar(select(VetoWait.seq).where(VetoWait.game_id == game_id)) is None:
                return
        with self._sessions.begin() as db:
            db.execute(delete(VetoWait).where(VetoWait.game_id == game_id, VetoWait.seq < seq))

    def _await(self, game_id: int, seq: int, seat: int) -> None:
        """The window at ``seq`` waits until now + the window's time (once: a row for
        ``seq`` already there, written by this or another process, stays)."""
        deadline = self.now() + self.window
        changed = False
        try:
            with self._sessions.begin() as db:
                moved = db.execute(update(VetoWait).where(
                    VetoWait.game_id == game_id, VetoWait.seq < seq).values(
                    seq=seq, seat=seat, deadline=deadline))
                if getattr(moved, "rowcount", 0) == 1:
                    changed = True
                elif db.get(VetoWait, game_id) is None:
                    db.add(VetoWait(game_id=game_id, seq=seq, seat=seat, deadline=deadline))
                    db.flush()
                    changed = True
        except IntegrityError:
            pass  # another process wrote it first
        if changed:
            self.wake.set()
            game = self.lobby.get(game_id)
            if game is not None and game.match_id is not None:
                self.on_change(game.match_id)

    def catch_up(self) -> int:
        """Looks at the running box games whose match moved since the last catch-up (at
        start: all of them): a window opened while no process heard its commit (all were
        down, or the pub/sub was away) gets its wait. How many it looked at."""
        since = self._caught_up
        self._caught_up = self.now()
        with self._reads() as db:
            query = (select(Game.match_id).join(MatchRow, MatchRow.id == Game.match_id)
                     .where(Game.status == "active", Game.rules == "box"))
            if since is not None:
                query = query.where(MatchRow.updated_at >= since - self.window)
            ids = [m for m in db.scalars(query) if m is not None]
        for match_id in ids:
            try:
                self.look(match_id)
            except Exception:
                log.exception("looking at a veto window failed")
        return len(ids)

    # -- deadlines

    def next_due(self) -> datetime | None:
        with self._reads() as db:
            return _aware(db.scalar(select(func.min(VetoWait.deadline))))

    def expire_due(self, now: datetime) -> int:
        """Passes for each holder whose window's time is up; how many this call did."""
        with self._reads() as db:
            due = db.execute(select(VetoWait.game_id, VetoWait.seq, VetoWait.seat).where(
                VetoWait.deadline <= now)).all()
        done = 0
        for game_id, seq, seat in due:
            try:
                if self.pass_for(game_id, seat, seq, _claim(game_id, seq)):
                    done += 1
                    log.info("game %s: seat %s's veto window timed out; passed", game_id, seat)
                else:  # answered meanwhile (or the game stopped): the row is stale
                    with self._sessions.begin() as db:
                        db.execute(delete(VetoWait).where(VetoWait.game_id == game_id,
                                                          VetoWait.seq == seq))
            except Exception:
                log.exception("passing for a timed-out veto window failed")
        return done

    # -- the holder's choice

    def choose(self, game_id: int, seat: int, scope: Any) -> None:
        """The seat's "no veto" choice: "turn" (the turn running now), "round", or
        "none" (ask me again). Refused (PlayError, nothing stored) when malformed or
        meaningless; a window open for the seat is then answered at once."""
        if not isinstance(scope, str) or scope not in SCOPES:
            raise PlayError("bad_request", _("Choose 'turn', 'round' or 'none'."))
        game = self.lobby.get(game_id)
        if game is None or game.match_id is None or game.status != "active":
            raise PlayError("not_started", _("This game is not running."))
        match = self.store.load_seat(game.match_id, None)
        state = match.state
        if state.veto is None:
            raise PlayError("no_veto", _("This table plays without the Veto cards."))
        if not isinstance(seat, int) or not 0 <= seat < state.n:
            raise PlayError("spectator", _("Only a player of this game chooses this."))
        if scope == "turn" and state.active < 0:
            raise PlayError("no_turn", _("No action turn is running now: choose the round."))
        with self._sessions.begin() as db:
            found = db.get(VetoPreference, (game_id, seat), with_for_update=True)
            if scope == "none":
                if found is not None:
                    db.delete(found)
            elif found is None:
                db.add(VetoPreference(game_id=game_id, seat=seat, scope=scope,
                                      round=state.round, active=state.active,
                                      created_at=self.now()))
            else:
                found.scope, found.round, found.active = scope, state.round, state.active
                found.created_at = self.now()
        self.on_change(game.match_id)
        if scope != "none" and state.phase == VETO and to_act(state) == [seat]:
            self.look(game.match_id)

    # -- what pages show

    def prefers_pass(self, game_id: int, seat: int, state: State) -> bool:
        """Whether the seat's "no veto" covers the window ``state`` asks it now. For a
        window its own step opened (a loss to card 2c, still in its draft: no commit for
        ``look`` to see), Play passes for it in the same draft."""
        if state.phase != VETO or to_act(state) != [seat]:
            return False
        with self._reads() as db:
            return holds(db.get(VetoPreference, (game_id, seat)), state)

    def public(self, game_id: int, match: Match | None = None) -> dict[str, Any] | None:
        """Public: the seats whose "no veto" holds now, and the open window's deadline
        (None for a table without Veto cards)."""
        game = self.lobby.get(game_id)
        if game is None or game.match_id is None:
            return None
        match = match or self.store.load_seat(game.match_id, None)
        state = match.state
        if state.veto is None:
            return None
        with self._reads() as db:
            prefs = list(db.scalars(select(VetoPreference).where(
                VetoPreference.game_id == game_id)))
            wait = db.get(VetoWait, game_id)
        deadline = None
        if wait is not None and wait.seq == match.seq and state.phase == VETO:
            deadline = _aware(wait.deadline)
        return {
            "no_veto": [{"seat": p.seat, "scope": p.scope} for p in
                        sorted(prefs, key=lambda p: p.seat) if holds(p, state)],
            "window_deadline": deadline.isoformat() if deadline else None,
            "window_seconds": self.window.total_seconds(),
            "now": self.now().isoformat(),
        }


def _claim(game_id: int, seq: int) -> Callable[[Connection, Match], None]:
    """Inside the pass's commit: the wait row of that window goes, or the pass is refused
    (another process entered it)."""
    def within(conn: Connection, match: Match) -> None:
        gone = conn.execute(delete(VetoWait).where(VetoWait.game_id == game_id,
                                                   VetoWait.seq == seq))
        if getattr(gone, "rowcount", 0) != 1:
            raise TurnRefused("answered", "The veto window was answered meanwhile.")

    return within
